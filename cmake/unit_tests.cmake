# Unit tests live beside their code, in <layer folder>/test/test_*.cpp (docs/architecture.md,
# "Tests"). trainvp_unit_tests(NAME LIB) builds them into one GoogleTest executable NAME that links
# only LIB (the folder's own library, which brings the layers below it) and the shared entry point
# (platform/core/test/main.cpp), and registers each test with CTest as its own process.
if(BUILD_TESTING)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# What every test executable shares (docs/performance.md#building):
# - its own code at -O1 in a Release build: GoogleTest's macros and the test bodies took 40% of the
#   build's compile time at -O3, and -O1 compiles them in two thirds of the time; the code under
#   test is the libraries', which keep -O3;
# - unity batches (trainvp_unity): its files keep their helpers in a namespace named for the file;
# - the shared entry point;
# - its tests listed when ctest first runs them (DISCOVERY_MODE PRE_TEST), not by running the
#   executable after every link, so a rebuild does not wait on 14 test listings.
function(trainvp_test_executable name)
  target_compile_options(${name} PRIVATE $<$<CONFIG:Release>:-O1>)
  trainvp_unity(${name})
  target_link_libraries(${name} PRIVATE trainvp_test_main)
  gtest_discover_tests(${name}
    PROPERTIES ENVIRONMENT "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1"
    DISCOVERY_TIMEOUT 60
    DISCOVERY_MODE PRE_TEST)
endfunction()

function(trainvp_unit_tests name lib)
  if(NOT BUILD_TESTING)
    return()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test/test_*.cpp)
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE ${lib})
  trainvp_test_executable(${name})
endfunction()

# Unit tests live beside their code, in <layer folder>/test/test_*.cpp (docs/architecture.md,
# "Tests"). trainvp_unit_tests(NAME LIB) builds them into one GoogleTest executable NAME that links
# only LIB (the folder's own library, which brings the layers below it) and the shared entry point
# (platform/core/test/main.cpp), and registers each test with CTest as its own process.
if(BUILD_TESTING)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

function(trainvp_unit_tests name lib)
  if(NOT BUILD_TESTING)
    return()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test/test_*.cpp)
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE ${lib} trainvp_test_main)
  gtest_discover_tests(${name}
    PROPERTIES ENVIRONMENT "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1"
    DISCOVERY_TIMEOUT 60)
endfunction()

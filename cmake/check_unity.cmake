# cmake -DROOT=DIR [-DDIRS=a,b] -P check_unity.cmake: fails when two sources of one target under
# DIR (its folders DIRS, default all) define a file-local function (in an anonymous namespace, or
# `static`) of the same name.
#
# Why: the build is a unity build (CMAKE_UNITY_BUILD, docs/performance.md#building), which compiles
# a target's sources several to a translation unit, so the anonymous namespaces of its files meet.
# A repeated variable or type is then a compile error, but a function of the same name and another
# signature silently joins the other file's overload set and may take its calls: what a non-unity
# build compiles would no longer be what runs. The sources are clang-formatted (file-scope
# definitions start in column 0), which is what lets a line match stand for a definition.
#
# A target is the folder of the nearest CMakeLists.txt, its test/ (or tests/) files apart.
if(NOT DIRS)
  set(DIRS ".")
endif()
string(REPLACE "," ";" DIRS "${DIRS}")
set(sources "")
foreach(d IN LISTS DIRS)
  file(GLOB_RECURSE found "${ROOT}/${d}/*.cpp")
  list(APPEND sources ${found})
endforeach()
set(groups "")
foreach(src IN LISTS sources)
  file(RELATIVE_PATH rel "${ROOT}" "${src}")
  if(rel MATCHES "^tests/(unity|layering)/")
    continue()  # the checks' own test inputs
  endif()
  get_filename_component(dir "${src}" DIRECTORY)
  while(NOT EXISTS "${dir}/CMakeLists.txt" AND NOT dir STREQUAL ROOT)
    get_filename_component(dir "${dir}" DIRECTORY)
  endwhile()
  file(RELATIVE_PATH group "${ROOT}" "${dir}")
  if(rel MATCHES "/tests?/")
    string(APPEND group "/test")
  endif()
  file(READ "${src}" text)
  # One list element per line: ';' and brackets would change how CMake splits the list.
  string(REGEX REPLACE "[][;]" "_" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(local FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^namespace {")
      set(local TRUE)
    elseif(line MATCHES "^}  // namespace$")
      set(local FALSE)
    elseif((local OR line MATCHES "^static ") AND
           line MATCHES "^([A-Za-z_][A-Za-z0-9_:<>,*& ]*[ *&])?([A-Za-z_][A-Za-z0-9_]*)\\(")
      set(name "${CMAKE_MATCH_2}")
      if(name MATCHES "^[A-Z0-9_]+$" OR name MATCHES "^(static_assert|operator|template|decltype)$")
        continue()  # a macro (TEST, ...) or not a definition
      endif()
      list(APPEND "defs:${group}:${name}" "${rel}")
      list(REMOVE_DUPLICATES "defs:${group}:${name}")
      list(APPEND "names:${group}" "${name}")
      list(APPEND groups "${group}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES groups)
set(violations "")
foreach(group IN LISTS groups)
  list(REMOVE_DUPLICATES "names:${group}")
  foreach(name IN LISTS "names:${group}")
    list(LENGTH "defs:${group}:${name}" n)
    if(n GREATER 1)
      list(JOIN "defs:${group}:${name}" ", " where)
      string(APPEND violations "\n  ${name}() in ${where}")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "file-local functions of one name in several sources of a target; a unity build joins "
                      "their overloads (cmake/check_unity.cmake): rename one, or share one in a header:${violations}")
endif()

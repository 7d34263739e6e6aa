# How the project's test executables are compiled (GoogleTest suites of tests/ and the plugins).
# The code under test (engine, plugins) keeps its preset's flags; the tests' own code is built
# without optimisation. At -O3 a test file took about three times as long to compile as at -O0,
# and the suites were half of the normal build's compile time; they spend their run time in the
# engine and in child processes, not in their own code.
add_library(migrate_test_code INTERFACE)
target_compile_options(migrate_test_code INTERFACE -O0)

# migrate_test_executable(target [PRECOMPILE header...]): the flags above, and headers parsed
# once for the whole executable (worth it for a suite of many files: a precompiled header costs
# about as much as compiling three or four test files).
function(migrate_test_executable target)
  cmake_parse_arguments(ARG "" "" "PRECOMPILE" ${ARGN})
  target_link_libraries(${target} PRIVATE migrate_test_code)
  if(ARG_PRECOMPILE)
    target_precompile_headers(${target} PRIVATE ${ARG_PRECOMPILE})
  endif()
endfunction()

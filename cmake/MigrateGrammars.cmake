# tree-sitter grammars: sources are fetched from the npm registry with `npm pack` into the build
# tree at configure time (never committed) and compiled as static C libraries.
#
#   migrate_fetch_grammar(<lang> <npm package> <version>) → target ts_grammar_<lang>
#
# Set MIGRATE_GRAMMAR_DIR to a directory holding already-unpacked <package>-<version>/ folders to
# build without the network.
set(MIGRATE_GRAMMAR_DIR "${CMAKE_BINARY_DIR}/_grammars" CACHE PATH "Where grammar sources are unpacked")

function(migrate_fetch_grammar lang package version)
  set(dir "${MIGRATE_GRAMMAR_DIR}/${package}-${version}")
  if(NOT EXISTS "${dir}/src/parser.c")
    find_program(NPM_EXECUTABLE npm REQUIRED)
    set(download "${CMAKE_BINARY_DIR}/_grammars/download")
    file(MAKE_DIRECTORY "${download}")
    message(STATUS "Fetching ${package}@${version} with npm pack")
    execute_process(
      COMMAND "${NPM_EXECUTABLE}" pack "${package}@${version}" --silent --pack-destination "${download}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(tarball "${download}/${package}-${version}.tgz")
    if(NOT rc EQUAL 0 OR NOT EXISTS "${tarball}")
      message(FATAL_ERROR "npm pack ${package}@${version} failed (${rc}): ${err}\n"
        "The grammar sources come from the npm registry; check network access to it or set "
        "MIGRATE_GRAMMAR_DIR to a directory with ${package}-${version}/src/parser.c.")
    endif()
    file(REMOVE_RECURSE "${download}/package")
    file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${download}")
    file(REMOVE_RECURSE "${dir}")
    file(RENAME "${download}/package" "${dir}")
  endif()
  set(sources "${dir}/src/parser.c")
  if(EXISTS "${dir}/src/scanner.c")
    list(APPEND sources "${dir}/src/scanner.c")
  endif()
  add_library(ts_grammar_${lang} STATIC ${sources})
  target_include_directories(ts_grammar_${lang} PRIVATE "${dir}/src")
  set_target_properties(ts_grammar_${lang} PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
  # Third-party generated code: no warnings and no sanitizers (tree-sitter-cuda's scanner calls
  # memcpy(dst, NULL, 0), which UBSan aborts on; none of it is ours to fix).
  target_compile_options(ts_grammar_${lang} PRIVATE -w -O2 -fno-sanitize=all)
endfunction()

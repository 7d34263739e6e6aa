# tree-sitter, its runtime and its grammars: sources are fetched from the npm registry with
# `npm pack` into the build tree at configure time (never committed) and compiled as static C
# libraries.
#
#   migrate_fetch_tree_sitter(<version>)                   → target ts_runtime,
#                                                             MIGRATE_TS_INTERNAL_INCLUDE
#   migrate_fetch_grammar(<lang> <npm package> <version>) → target ts_grammar_<lang>
#
# Set MIGRATE_GRAMMAR_DIR to a directory holding already-unpacked <package>-<version>/ folders to
# build without the network.
set(MIGRATE_GRAMMAR_DIR "${CMAKE_BINARY_DIR}/_grammars" CACHE PATH "Where grammar sources are unpacked")

# migrate_npm_source(<package> <version> <file> <out_var>): the directory <package>-<version> in
# MIGRATE_GRAMMAR_DIR, unpacked from the npm registry unless it already holds <file>.
function(migrate_npm_source package version file out_var)
  set(dir "${MIGRATE_GRAMMAR_DIR}/${package}-${version}")
  if(NOT EXISTS "${dir}/${file}")
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
        "The tree-sitter sources come from the npm registry; check network access to it or set "
        "MIGRATE_GRAMMAR_DIR to a directory with ${package}-${version}/${file}.")
    endif()
    file(REMOVE_RECURSE "${download}/package")
    file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${download}")
    file(REMOVE_RECURSE "${dir}")
    file(RENAME "${download}/package" "${dir}")
  endif()
  set(${out_var} "${dir}" PARENT_SCOPE)
endfunction()

# The runtime: the C library the npm package `tree-sitter` vendors (one translation unit, lib.c),
# built here rather than taken from Debian (0.20.7, -O2, a shared library): at -O3, and with
# link-time optimisation where the engine walks trees (MIGRATE_TS_LTO), a cold analysis parses and
# walks in about 0.9x the time (bench/README.md). A plugin that links it too keeps its copy to
# itself with MIGRATE_TS_HIDE (its API header asks for default visibility).
function(migrate_fetch_tree_sitter version)
  migrate_npm_source(tree-sitter ${version} vendor/tree-sitter/lib/src/lib.c dir)
  set(lib "${dir}/vendor/tree-sitter/lib")
  add_library(ts_runtime STATIC "${lib}/src/lib.c")
  target_include_directories(ts_runtime PRIVATE "${lib}/src" PUBLIC "${lib}/include")
  target_compile_definitions(ts_runtime PRIVATE _POSIX_C_SOURCE=200112L _DEFAULT_SOURCE)
  set_target_properties(ts_runtime PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
  target_compile_options(ts_runtime PRIVATE -w -O3 -fno-sanitize=all ${MIGRATE_TS_LTO_FLAGS})
  # The runtime's own headers, for the engine's one file that reads a language's parse table
  # (engine/src/parse/dense_parse_table.c).
  set(MIGRATE_TS_INTERNAL_INCLUDE "${lib}/src" PARENT_SCOPE)
endfunction()

set(MIGRATE_TS_HIDE "LINKER:--exclude-libs,libts_runtime.a")

function(migrate_fetch_grammar lang package version)
  migrate_npm_source(${package} ${version} src/parser.c dir)
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

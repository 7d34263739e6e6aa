# Third-party libraries, all from Debian packages (see scripts/setup.sh).
find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS filesystem)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2>=1.5)
# The fleet's store (embedded SQLite: no server, one file, transactions, WAL for concurrent
# readers) and its CSV tables (libcsv: RFC 4180 quoting and parsing of repos_file).
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3>=3.31)
# The per-file analysis cache's keys: XXH3-128 hashes every Python file of every run at memory
# speed (a cryptographic hash would cost more than the analysis it saves on a warm run).
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# Reading the cache's entries (CBOR, written by nlohmann_json): libcbor's streaming decoder hands
# each string over where it lies, with its length checked against the bytes left; nlohmann's
# reader copies strings byte by byte, which was a fifth of a warm run.
pkg_check_modules(LIBCBOR REQUIRED IMPORTED_TARGET libcbor)
# Rule-file regular expressions: RE2 matches in linear time (hostile input cannot make it
# backtrack) and far faster than std::regex on the per-string path.
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
# The executable's allocator: jemalloc. A cold analysis allocates and frees every tree-sitter node
# and fact one by one, on every thread; with jemalloc it takes 0.91x the wall time of glibc's
# malloc and less peak memory (bench/README.md). Not under the sanitizers, which bring their own.
option(MIGRATE_JEMALLOC "Link the executable with jemalloc (off under the sanitizers)" ON)
if(MIGRATE_JEMALLOC AND NOT MIGRATE_SANITIZE AND NOT MIGRATE_FUZZ)
  pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)
endif()
find_path(LIBCSV_INCLUDE_DIR csv.h REQUIRED)
find_library(LIBCSV_LIBRARY csv REQUIRED)
add_library(migrate_libcsv INTERFACE)
target_include_directories(migrate_libcsv INTERFACE ${LIBCSV_INCLUDE_DIR})
target_link_libraries(migrate_libcsv INTERFACE ${LIBCSV_LIBRARY})

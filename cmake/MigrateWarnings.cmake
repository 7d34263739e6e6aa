# Warnings for the project's own targets (third-party grammar sources are compiled with -w).
# Local shadowing is an error waiting to happen; GCC names it -Wshadow=local, Clang -Wshadow.
# MIGRATE_WERROR (on in the presets the test suite builds) turns them into errors, so a new
# warning stops the build instead of scrolling by.
add_library(migrate_warnings INTERFACE)
target_compile_options(migrate_warnings INTERFACE -Wall -Wextra -Wpedantic -Wnon-virtual-dtor
  -Wno-missing-field-initializers
  $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>
  $<$<CXX_COMPILER_ID:Clang>:-Wshadow>
  $<$<BOOL:${MIGRATE_WERROR}>:-Werror>)

# Warnings for the project's own targets (third-party grammar sources are compiled with -w).
add_library(migrate_warnings INTERFACE)
target_compile_options(migrate_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
  -Wnon-virtual-dtor -Wno-missing-field-initializers)

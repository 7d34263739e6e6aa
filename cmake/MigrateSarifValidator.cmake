# Microsoft's SARIF validator (npm @microsoft/sarif-multitool), which the tests run on every
# findings.sarif they write. `scripts/setup.sh --with-tests` installs it under .tools/ in the
# source tree (git-ignored). The tests get two compile definitions:
#   MIGRATE_SARIF_MULTITOOL  the validator's executable
#   MIGRATE_SARIF_SCHEMA     the SARIF 2.1.0 JSON schema shipped with it (a second, independent check)
# When the validator is not installed yet, both name the place setup.sh installs to, so the tests
# fail saying so, and pass after setup.sh without reconfiguring.
set(MIGRATE_SARIF_PREFIX "${PROJECT_SOURCE_DIR}/.tools/sarif-multitool"
    CACHE PATH "npm prefix scripts/setup.sh installs @microsoft/sarif-multitool into")
set(_migrate_sarif_package "${MIGRATE_SARIF_PREFIX}/node_modules/@microsoft/sarif-multitool-linux")

# The native executable, not the npm wrapper `.bin/sarif-multitool`: the wrapper passes its
# arguments through a shell, which splits paths with spaces and `;`-separated option values.
find_program(MIGRATE_SARIF_MULTITOOL NAMES Sarif.Multitool HINTS "${_migrate_sarif_package}"
             DOC "Microsoft's SARIF validator (Sarif.Multitool from npm @microsoft/sarif-multitool)")
if(NOT MIGRATE_SARIF_MULTITOOL)
  message(STATUS "SARIF validator not found: the SARIF tests fail until `scripts/setup.sh --with-tests` installs it")
  set(_migrate_sarif_tool "${_migrate_sarif_package}/Sarif.Multitool")
else()
  set(_migrate_sarif_tool "${MIGRATE_SARIF_MULTITOOL}")
endif()
get_filename_component(_migrate_sarif_dir "${_migrate_sarif_tool}" DIRECTORY)
set(MIGRATE_SARIF_SCHEMA "${_migrate_sarif_dir}/sarif-2.1.0.json"
    CACHE FILEPATH "The SARIF 2.1.0 JSON schema the validator ships (sarif-2.1.0.json)")

set(MIGRATE_SARIF_TEST_DEFINITIONS
    MIGRATE_SARIF_MULTITOOL="${_migrate_sarif_tool}" MIGRATE_SARIF_SCHEMA="${MIGRATE_SARIF_SCHEMA}")

# The Debian packages, made by CPack's DEB generator from the install rules (docs/packaging.md):
# one package per install component. Included by packaging/CMakeLists.txt after every install().
#   cpack --config <build>/CPackConfig.cmake      or scripts/package.sh (into dist/)
set(MIGRATE_DEB_RELEASE 1 CACHE STRING "Debian revision of the packages: the N of VERSION-N")
set(MIGRATE_PACKAGE_MAINTAINER "migrate-pipeline maintainers <maintainers@migrate-pipeline.example.org>"
    CACHE STRING "Maintainer field of the Debian packages")
set(migrate_deb_version "${PROJECT_VERSION}-${MIGRATE_DEB_RELEASE}")

# packaging/changelog's newest entry is the version being packaged.
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/changelog migrate_changelog_top LIMIT_COUNT 1)
if(NOT migrate_changelog_top MATCHES "^migrate-pipeline \\(${migrate_deb_version}\\) ")
  message(FATAL_ERROR "packaging/changelog starts with \"${migrate_changelog_top}\", not with the "
                      "version being packaged, ${migrate_deb_version}: add an entry for it")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME migrate-pipeline)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${MIGRATE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # NAME_VERSION-RELEASE_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${MIGRATE_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MIGRATE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends of what is linked: dpkg-shlibdeps over the executable and the plugins.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

# migrate-pipeline: what is run, not linked, comes on top of shlibdeps. The generated kit and
# the verify stage run Python (python3); https:// git sources need the CA certificates; the rest
# makes more of the verification possible or is what the outputs tell the user to run.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME migrate-pipeline)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "ca-certificates")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS
    "python3-torch, python3-numpy, python3-pytest, git, openssh-client, slurm-client, migrate-pipeline-dev")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "migrate PyTorch/CUDA repositories to Huawei Ascend NPUs
migrate-pipeline analyses a PyTorch/CUDA repository (a local directory or a git
URL) with domain plugins (dependencies, device APIs, attention kernels, custom
CUDA operators, distributed training, precision) and writes what a migration
needs: findings, a plan with effort and verdict, an adapted copy of the
repository with a patch, a verification kit and its results, and a report.
Fleet runs migrate many repositories every night, locally, on Slurm or as
Kubernetes Jobs.")

# migrate-pipeline-dev: a plugin is built with CMake and the compiler the tool was built with
# (the plugin handshake checks the toolchain tag that `migrate-pipeline --version` prints).
set(migrate_plugin_compiler "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  string(REGEX MATCH "^[0-9]+" migrate_gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
  set(migrate_plugin_compiler ", g++-${migrate_gcc_major}")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_NAME migrate-pipeline-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "migrate-pipeline (= ${migrate_deb_version}), cmake (>= 3.25)${migrate_plugin_compiler}")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "plugin SDK of migrate-pipeline
The headers and the CMake package (find_package(MigratePipeline),
migrate_add_plugin()) to build domain plugins for migrate-pipeline out of its
source tree, as `migrate-pipeline new plugin` writes them, and an example
plugin.")

include(CPack)

# Where an installation keeps what migrate-pipeline ships, relative to its prefix, and the same
# tree in the build directory. The executable finds everything relative to its own location
# (engine/src/install/install_layout.cpp): no path of the build or of the install prefix is
# compiled in, so one build works from the build tree, from `cmake --install --prefix DIR` and
# from the Debian packages (docs/packaging.md).
include(GNUInstallDirs)

set(MIGRATE_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/migrate-pipeline/plugins")
set(MIGRATE_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/migrate-pipeline")
set(MIGRATE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/MigratePipeline")
set(MIGRATE_INSTALL_DOCDIR "${CMAKE_INSTALL_DATADIR}/doc/migrate-pipeline")
foreach(dir BINDIR PLUGINDIR DATADIR CMAKEDIR)
  set(var CMAKE_INSTALL_${dir})
  if(NOT dir STREQUAL "BINDIR")
    set(var MIGRATE_INSTALL_${dir})
  endif()
  if(IS_ABSOLUTE "${${var}}")
    message(FATAL_ERROR "${var} is absolute (${${var}}): migrate-pipeline finds its files relative to "
                        "its prefix; give install directories relative to CMAKE_INSTALL_PREFIX")
  endif()
endforeach()

# The pipelines `migrate-pipeline run NAME` finds (PREFIX/share/migrate-pipeline/pipelines), and
# the examples they and the docs refer to (full.yaml analyses examples/gpt_cuda by default).
set(MIGRATE_SHIPPED_PIPELINES full analyze-only)
set(MIGRATE_SHIPPED_EXAMPLES gpt_cuda rule_pack)

# The build tree mirrors that layout with links to the sources, so build/bin/migrate-pipeline
# finds the same pipelines by name (edits in the checkout take effect without a rebuild).
set(migrate_build_data "${CMAKE_BINARY_DIR}/${MIGRATE_INSTALL_DATADIR}")
file(MAKE_DIRECTORY "${migrate_build_data}/pipelines" "${migrate_build_data}/examples")
foreach(name IN LISTS MIGRATE_SHIPPED_PIPELINES)
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/pipelines/${name}.yaml" "${migrate_build_data}/pipelines/${name}.yaml"
       SYMBOLIC)
endforeach()
foreach(name IN LISTS MIGRATE_SHIPPED_EXAMPLES)
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/examples/${name}" "${migrate_build_data}/examples/${name}" SYMBOLIC)
endforeach()

# migrate_add_plugin(<name> [NOT_INSTALLED] SOURCES <cpp...> RULES <rules/x.yaml...>)
#
# Builds a domain plugin as a shared library named migrate_<name>.so in the plugin directory.
# The rule files are embedded in the library at build time; the plugin's entry point lists them
# by name and reads them with migrateEmbeddedRule("rules/x.yaml") (declared in the generated
# header <name>_embedded_rules.hpp). The plugin's README.md, when there is one, is copied beside
# the library as migrate_<name>.md (what `migrate-pipeline rules show` reads). NOT_INSTALLED keeps test-only plugins out of the install
# and of the rule/fixture test discovery.
set(MIGRATE_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/MigrateEmbedRules.cmake")

function(migrate_add_plugin name)
  cmake_parse_arguments(ARG "NOT_INSTALLED" "" "SOURCES;RULES" ${ARGN})
  set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/generated")
  set(gen_cpp "${gen_dir}/${name}_embedded_rules.cpp")
  set(rule_paths "")
  foreach(rule IN LISTS ARG_RULES)
    list(APPEND rule_paths "${CMAKE_CURRENT_SOURCE_DIR}/${rule}")
  endforeach()
  string(REPLACE ";" "|" rules_arg "${ARG_RULES}")
  add_custom_command(
    OUTPUT "${gen_cpp}"
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${gen_cpp} -DBASE=${CMAKE_CURRENT_SOURCE_DIR}
            "-DRULES=${rules_arg}" -P "${MIGRATE_EMBED_SCRIPT}"
    DEPENDS ${rule_paths} "${MIGRATE_EMBED_SCRIPT}"
    COMMENT "Embedding rules of plugin ${name}"
    VERBATIM)
  file(WRITE "${gen_dir}/${name}_embedded_rules.hpp.in"
    "#pragma once\n#include <string_view>\n/// A rule file embedded at build time; empty when unknown.\nstd::string_view migrateEmbeddedRule(std::string_view name);\n")
  configure_file("${gen_dir}/${name}_embedded_rules.hpp.in" "${gen_dir}/${name}_embedded_rules.hpp" COPYONLY)
  add_library(migrate_${name} MODULE ${ARG_SOURCES} "${gen_cpp}")
  target_include_directories(migrate_${name} PRIVATE "${gen_dir}")
  target_link_libraries(migrate_${name} PRIVATE MigratePipeline::sdk)
  if(TARGET migrate_warnings)
    target_link_libraries(migrate_${name} PRIVATE migrate_warnings)
  endif()
  set_target_properties(migrate_${name} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "migrate_${name}"
    LIBRARY_OUTPUT_DIRECTORY "${MIGRATE_PLUGIN_OUTPUT_DIR}"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # The plugin's README.md (one entry per rule id) beside the library, for `rules show`.
  if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/README.md")
    add_custom_command(TARGET migrate_${name} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different "${CMAKE_CURRENT_SOURCE_DIR}/README.md"
              "$<TARGET_FILE_DIR:migrate_${name}>/migrate_${name}.md"
      VERBATIM)
  endif()
  if(NOT ARG_NOT_INSTALLED)
    set_property(GLOBAL APPEND PROPERTY MIGRATE_PLUGINS migrate_${name})
    set_property(GLOBAL APPEND PROPERTY MIGRATE_PLUGIN_SOURCE_DIRS "${name}=${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
endfunction()

#pragma once
/// `migrate-pipeline new plugin` (docs/writing-plugins.md#starting-a-plugin-new-plugin): a plugin
/// project against the installed SDK that builds and passes its tests as written.

#include <filesystem>
#include <string>

namespace migrate {

/// Writes the plugin project DIR/NAME (DIR: the working directory when empty) from the templates
/// in templates/new_plugin/: CMakeLists.txt, the plugin source with one hook, rules/ with a data
/// rule and the hook's rule (snippets for both), README.md with an entry per rule, pipeline.yaml,
/// and tests (the snippets, a run on tests/sample_repo). Prints what it wrote and the next steps.
/// 2 when NAME is not a plugin name, names a plugin (or rule-id prefix) migrate-pipeline already
/// loads, or DIR/NAME exists.
int newPlugin(const std::string& name, const std::filesystem::path& dir);

}  // namespace migrate

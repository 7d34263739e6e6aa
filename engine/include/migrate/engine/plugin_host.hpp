#pragma once
/// Loading domain plugins (shared libraries) with Boost.DLL, checking their handshake, and
/// compiling their rules.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "migrate/engine/result.hpp"
#include "migrate/sdk/plugin.hpp"

namespace migrate::rules {
struct Rule;
}  // namespace migrate::rules

namespace migrate::rules {
class RuleSet;
struct RulePack;
struct KnownRules;
}  // namespace migrate::rules

namespace migrate {

/// A loaded plugin: a shared library, or a rule pack (rules without code: no library, a plugin
/// object with no hooks, and the pack's data). The library handle is declared first so it is
/// released last: every object the plugin created must be gone before its code is unmapped.
struct LoadedPlugin {
  std::shared_ptr<void> library;
  std::unique_ptr<sdk::Plugin> plugin;
  std::shared_ptr<const rules::RuleSet> rules;
  sdk::PluginInfo info;
  std::filesystem::path file;                   ///< the library, or the pack's directory
  std::shared_ptr<const rules::RulePack> pack;  ///< a rule pack's data; null for a library

  LoadedPlugin();
  LoadedPlugin(LoadedPlugin&&) noexcept;
  LoadedPlugin& operator=(LoadedPlugin&&) noexcept;
  ~LoadedPlugin();
};

/// Loads one plugin library: refuses a library without the handshake, one built against another
/// SDK ABI or toolchain, and one whose rule files do not load.
Result<LoadedPlugin> loadPlugin(const std::filesystem::path& file);

/// The plugins of a directory.
struct PluginCatalog {
  std::vector<LoadedPlugin> plugins;  ///< sorted by name
  std::vector<std::string> refused;   ///< one message per library that was not loaded

  const LoadedPlugin* find(const std::string& name) const;
};

/// A plugin the pipeline selected, configured for this run (what the stages call).
struct ActivePlugin {
  const LoadedPlugin* loaded;
};

/// Loads every shared library (*.so) in `dir`. Fails only when `dir` is not a readable directory.
Result<PluginCatalog> discoverPlugins(const std::filesystem::path& dir);

/// The rule ids and domains of every plugin of `catalog`, which rule packs must not clash with.
rules::KnownRules knownRules(const PluginCatalog& catalog);

/// A rule pack as a plugin: named like the pack, its rules indexed and matched by the engine as a
/// library plugin's are (fixes included), and no hooks.
LoadedPlugin packPlugin(const rules::RulePack& pack);

/// `base` with other rules: a fresh instance of its plugin (or pack) whose rules are `rules`, e.g.
/// a plugin's rule files read from disk rather than embedded. Not configured.
Result<LoadedPlugin> withRules(const LoadedPlugin& base, std::vector<rules::Rule> rules);

/// The directory plugins are looked for in when the pipeline names none: $MIGRATE_PLUGIN_DIR,
/// else the executable's own (installLayout().plugin_dir: BUILD/plugins in a build tree,
/// PREFIX/lib/migrate-pipeline/plugins installed).
std::filesystem::path defaultPluginDir();

}  // namespace migrate

#include <functional>
#include <map>

#include "migrate/engine/pipeline.hpp"

namespace migrate {

/// Checks a pipeline's options for a plugin against the options it declares: unknown names and
/// wrong types are errors naming where they were written; undeclared defaults are filled in.
Result<std::map<std::string, sdk::OptionValue>> resolveOptions(const PluginSelection& selection,
                                                               const sdk::PluginInfo& info);

/// The context a plugin is configured with: its validated options, its rules' data, and a log
/// function (`warning` true for warnings).
std::unique_ptr<sdk::PluginContext> makePluginContext(
    const LoadedPlugin& plugin, std::map<std::string, sdk::OptionValue> options,
    std::function<void(bool warning, std::string_view message)> log);

}  // namespace migrate

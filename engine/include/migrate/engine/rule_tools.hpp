#pragma once
/// The rule tooling of the command line (docs/rule-packs.md): `plugins`, `rules test`, `rules
/// list`, `rules show` and `new pack`. Each prints to stdout / stderr and returns the exit code.

#include <filesystem>
#include <string>
#include <vector>

namespace migrate {

/// Where the rules come from: the plugins of a directory and rule packs.
struct RuleSources {
  std::filesystem::path plugin_dir;               ///< empty: defaultPluginDir()
  std::vector<std::filesystem::path> rule_packs;  ///< pack directories
};

/// `migrate-pipeline plugins`: the plugins (name, version, domain, rule count, options), then the
/// rule packs (name, version, domains, rule count, directory). 4 when a plugin or pack is refused.
int listPlugins(const RuleSources& sources);

/// `migrate-pipeline rules test DIR...`: the snippets of every rule of each DIR, a rule pack (a
/// directory with pack.yaml) or a plugin's rules (a directory of rule files, or one holding
/// rules/; run with the hooks of the plugin of their domain). Every problem of every DIR is
/// printed, one failure per snippet. 0 when all pass, 1 when something failed, 4 when the plugins
/// cannot be loaded.
int rulesTest(const std::vector<std::filesystem::path>& dirs, const RuleSources& sources);

/// `migrate-pipeline rules list`: every rule of the plugins and packs, of `domain` when not
/// empty; `format` "table" or "json".
int rulesList(const RuleSources& sources, const std::string& domain, const std::string& format);

/// `migrate-pipeline rules show ID`: a rule's message, NPU alternative, doc entry and snippets.
/// 2 when no plugin or pack has the rule.
int rulesShow(const std::string& id, const RuleSources& sources);

/// `migrate-pipeline new pack NAME`: a pack skeleton in DIR/NAME (DIR: the working directory when
/// empty) with one sample rule, its snippets and doc entry, that passes `rules test` as written.
/// 2 when NAME is not a pack name or DIR/NAME exists.
int newPack(const std::string& name, const std::filesystem::path& dir);

}  // namespace migrate

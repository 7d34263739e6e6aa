#pragma once
/// Rule packs: rules without code. A pack is a directory with `pack.yaml` (format 1), `rules/*.yaml`
/// in the rule format every plugin uses, and an optional README.md with one entry per rule id
/// (docs/rule-packs.md). Its rules join an existing domain or one the pack declares.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/engine/result.hpp"
#include "rules/rule.hpp"

namespace migrate::rules {

/// A domain a pack declares: its findings get their own group in the report.
struct PackDomain {
  std::string name;
  std::string title;  ///< the report group's title
  std::string where;  ///< pack.yaml:line:column of its name, for messages
};

struct RulePack {
  std::filesystem::path dir;  ///< absolute
  std::string name;
  std::string version;
  std::string prefix;            ///< every rule id is `<prefix>-...`
  std::string migrate_pipeline;  ///< the range of migrate-pipeline versions, as written
  std::string description;
  std::string homepage;
  std::vector<PackDomain> domains;
  std::vector<Rule> rules;  ///< in file order (files sorted by name)
  bool has_readme = false;
  std::map<std::string, std::string> docs;  ///< README.md: rule id → its entry (heading and text)
  std::string digest;                       ///< of every file the pack is read from (cache keys)
  std::string name_where;                   ///< pack.yaml:line:column of `name`, for messages
  std::string prefix_where;                 ///< pack.yaml:line:column of `prefix`, for messages

  /// The domains its rules carry, sorted, joined with ", ".
  std::string domainList() const;
};

/// What the engine already has when packs are loaded: the plugins' rule ids and domains.
struct KnownRules {
  std::map<std::string, std::string> ids;  ///< rule id → where it is defined ("device:rules/x.yaml:12:5")
  std::set<std::string> domains;
};

/// Every pack that loaded and one message per problem, of every pack (file:line:column, what, what to do).
struct PackLoad {
  std::vector<RulePack> packs;
  std::vector<std::string> errors;
};

/// Loads the packs in `dirs` (a directory given twice is read once), checking each against this
/// migrate-pipeline's version `tool_version`, the plugins' rules in `known`, and each other: ids
/// and prefixes unique, domains known or declared, every rule with a valid and an invalid snippet.
PackLoad loadRulePacks(const std::vector<std::filesystem::path>& dirs, const KnownRules& known,
                       const std::string& tool_version);

/// Whether `version` lies in `range` (">=0.4, <1", "==0.4.2", "0.4"): comma-separated terms, each an
/// operator (>=, >, <=, <, ==, !=; none means ==) and a version of up to three numbers (missing
/// ones are 0). An error says what is malformed.
Result<bool> versionInRange(std::string_view range, std::string_view version);

/// README.md text → rule id → its entry: a Markdown heading that starts with a rule id (after the
/// #s; `### ACME-001 — title`), with the text up to the next heading of the same or a higher level.
std::map<std::string, std::string> readmeEntries(std::string_view markdown);

/// The bytes of `file` (a pack's or a plugin's rule file, pack.yaml, README.md); false when it cannot be
/// read.
bool readText(const std::filesystem::path& file, std::string& out);

/// True when `dir` holds a pack.yaml.
bool isRulePack(const std::filesystem::path& dir);

}  // namespace migrate::rules

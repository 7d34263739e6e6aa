#pragma once
/// Running a rule's test snippets (docs/writing-rules.md): what `migrate-pipeline rules test` and
/// the RuleSnippets.* tests both run.

#include <string>
#include <vector>

#include "migrate/engine/plugin_host.hpp"
#include "rules/rule.hpp"

namespace migrate::rules {

/// One expectation of a rule's snippets that did not hold.
struct SnippetFailure {
  std::string rule;     ///< the rule id
  std::string where;    ///< the snippet in its rule file ("rules/x.yaml:12"), or the rule's position
  std::string kind;     ///< "invalid", "valid", or "rule" (about the rule, not one snippet)
  std::string code;     ///< the snippet's code (after the fixes when they are what failed)
  std::string message;  ///< expected and found
};

/// Analyses each snippet of `rule` in a fresh directory as a run would, with `plugin` alone (its
/// rules and hooks; configured): an invalid snippet must give a finding of the rule (its `count`
/// and `lines` when given), and applying the findings' fixes must leave exactly the unfixed ones
/// and parseable code; a valid snippet must give none. A rule needs at least one of each.
std::vector<SnippetFailure> testSnippets(const LoadedPlugin& plugin, const Rule& rule);

/// The number of snippets testSnippets runs for `rule`.
std::size_t snippetCount(const Rule& rule);

}  // namespace migrate::rules

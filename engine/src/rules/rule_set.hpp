#pragma once
/// The rules of one plugin, indexed by what they look up, and their matching against a module's
/// facts: each fact costs a hash lookup, not a pass per rule.

#include <string>
#include <unordered_map>
#include <vector>

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/module.hpp"
#include "rules/pattern_set.hpp"
#include "rules/rule.hpp"

namespace migrate::rules {

class RuleSet {
 public:
  explicit RuleSet(std::vector<Rule> rules);
  RuleSet(const RuleSet&) = delete;
  RuleSet& operator=(const RuleSet&) = delete;
  RuleSet(RuleSet&&) = default;
  RuleSet& operator=(RuleSet&&) = default;

  const std::vector<Rule>& rules() const { return rules_; }
  /// Reports a finding for every fact of `module` that a rule matches.
  void match(const sdk::Module& module, sdk::FindingSink& sink) const;

 private:
  struct ApiHit {
    const Rule* rule;
    const ApiEntry* entry;
  };
  using ApiMap = std::unordered_map<std::string, std::vector<ApiHit>>;
  using NameMap = std::unordered_map<std::string, std::vector<const Rule*>>;

  void matchReferences(const sdk::Module& module, sdk::FindingSink& sink) const;
  void matchImports(const sdk::Module& module, sdk::FindingSink& sink) const;
  void matchCalls(const sdk::Module& module, sdk::FindingSink& sink) const;
  void matchAttributes(const sdk::Module& module, sdk::FindingSink& sink) const;
  void matchStrings(const sdk::Module& module, sdk::FindingSink& sink) const;
  void matchDictKeywords(const sdk::Module& module, sdk::FindingSink& sink) const;

  std::vector<Rule> rules_;
  ApiMap api_exact_;
  ApiMap api_prefix_;
  NameMap imports_;
  NameMap methods_;
  NameMap attributes_;
  NameMap keywords_;
  NameMap dict_keywords_;  ///< keyword rules with dict_keys, by keyword
  std::vector<const Rule*> strings_;
  PatternSet string_patterns_;          ///< strings_' regexes, in their order: which may match a literal
  bool own_repository_api_ = false;     ///< some api rule matches the project's own names
  bool own_repository_import_ = false;  ///< some import rule matches the project's own modules
};

}  // namespace migrate::rules

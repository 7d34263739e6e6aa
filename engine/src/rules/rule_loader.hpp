#pragma once
/// Parses and validates rule files (format 1).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/engine/result.hpp"
#include "rules/rule.hpp"

namespace migrate::rules {

/// Judges the domain a rule file declares: empty when accepted, else what is wrong and what to do.
using DomainCheck = std::function<std::string(const std::string& declared)>;

/// Parses one rule file. `origin` names it in errors ("device:rules/cuda_api.yaml", or a path);
/// `check` accepts the domain the file declares, which its rules then carry.
Result<std::vector<Rule>> loadRules(std::string_view yaml, const std::string& origin,
                                    const DomainCheck& check);

/// Parses one rule file of a plugin: `domain` is the plugin's domain, which the file must declare.
Result<std::vector<Rule>> loadRules(std::string_view yaml, const std::string& origin,
                                    const std::string& domain);

}  // namespace migrate::rules

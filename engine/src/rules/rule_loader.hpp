#pragma once
/// Parses and validates rule files (format 1).

#include <string>
#include <string_view>
#include <vector>

#include "migrate/engine/result.hpp"
#include "rules/rule.hpp"

namespace migrate::rules {

/// Parses one rule file. `origin` names it in errors ("device:rules/cuda_api.yaml");
/// `domain` is the plugin's domain, which the file must declare.
Result<std::vector<Rule>> loadRules(std::string_view yaml, const std::string& origin,
                                    const std::string& domain);

}  // namespace migrate::rules

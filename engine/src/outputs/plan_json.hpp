#pragma once
/// The `plan` section of findings.json (documented in docs/findings.md and its schema).

#include <nlohmann/json_fwd.hpp>

#include "migrate/engine/plan.hpp"

namespace migrate {

nlohmann::ordered_json planJson(const PlanResult& plan);

}  // namespace migrate

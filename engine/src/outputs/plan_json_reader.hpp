#pragma once
/// The inverse of plan_json.cpp: findings.json's `plan` object back into a PlanResult.

#include <cstddef>

#include "json/json_reader.hpp"
#include "migrate/engine/plan.hpp"

namespace migrate {

/// Reads a non-null `plan` (computed = true). Graph paths in `import_graph` and in the entry
/// points' `modules` become indices into `graph`; a bottleneck's findings must be indices below
/// `finding_count`. Throws json::JsonError (caught by json::readDocument).
PlanResult readPlanJson(const json::Field& plan, std::size_t finding_count);

}  // namespace migrate

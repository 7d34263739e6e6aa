#pragma once
/// Reading and dumping the `plan:` section of a pipeline over the built-in defaults.

#include <yaml-cpp/yaml.h>

#include "migrate/engine/pipeline.hpp"
#include "yaml/yaml_reader.hpp"

namespace migrate {

/// The defaults of engine/data/plan_defaults.yaml (embedded at build time).
PlanSpec defaultPlanSpec();

/// Applies a pipeline's `plan:` mapping to `spec` key by key (phases: the whole list) and
/// validates the result; errors name the position of the offending value.
void readPlanSpec(const yaml::Reader& r, const YAML::Node& node, PlanSpec& spec);

/// Emits `plan:`'s effective value into a pipeline dump.
void emitPlanSpec(YAML::Emitter& out, const PlanSpec& spec);

}  // namespace migrate

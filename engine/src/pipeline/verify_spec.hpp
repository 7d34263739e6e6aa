#pragma once
/// Reading and dumping the `verify:` and `targets:` sections of a pipeline.

#include <yaml-cpp/yaml.h>

#include "migrate/engine/pipeline.hpp"
#include "yaml/yaml_reader.hpp"

namespace migrate {

/// Reads `verify:` and `targets:` into `spec` (a `local` target always exists; its python and
/// workdir may be set like any target's) and checks that verify.target names a target.
void readVerifySpec(const yaml::Reader& r, const YAML::Node& verify, const YAML::Node& targets,
                    PipelineSpec& spec);

/// Emits `verify:` and `targets:` into a pipeline dump.
void emitVerifySpec(YAML::Emitter& out, const PipelineSpec& spec);

}  // namespace migrate

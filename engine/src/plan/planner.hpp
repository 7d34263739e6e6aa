#pragma once
/// The plan stage: whole-repository passes over the analysis — code structure, import graph,
/// entry points, bottleneck list — then every plugin's `plan` hook (e.g. the phase matrix).

#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate {

/// Fills `model.plan` and the findings' phases. Plugin failures become diagnostics naming the
/// plugin; the engine's part is kept.
void planRepository(const Workspace& workspace, const PlanSpec& spec,
                    const std::vector<ActivePlugin>& plugins, MigrationModel& model);

}  // namespace migrate

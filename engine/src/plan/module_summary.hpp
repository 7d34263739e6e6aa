#pragma once
/// Condensing a parsed Python file into what the plan stage needs (taken on the analysis worker,
/// so the syntax tree and the full fact lists can be dropped right after).

#include "migrate/engine/plan.hpp"
#include "migrate/sdk/module.hpp"

namespace migrate {

ModuleSummary summarizeModule(const sdk::Module& module, std::uint64_t lines);

}  // namespace migrate

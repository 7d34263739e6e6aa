#pragma once
/// The repository's import graph: which of its Python modules import which.

#include <vector>

#include "migrate/engine/plan.hpp"

namespace migrate {

/// One node per module (same order as `modules`). An import resolves to a project module by the
/// longest dotted prefix of its target naming one — as written, without a leading `src.`, next
/// to the importing file (scripts import their siblings), or (for dotted names) as the unique
/// module with that dotted suffix; the packages on the way (their __init__) are imported too. Other imports
/// are libraries unless the standard library has them.
std::vector<sdk::ModuleNode> buildImportGraph(const std::vector<ModuleSummary>& modules);

/// True for a top-level module name of the Python standard library.
bool isStandardLibrary(const std::string& top_level_name);

}  // namespace migrate

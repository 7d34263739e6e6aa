#pragma once
/// The code structure report: files and lines per language, main libraries, core modules,
/// entry points and the model architecture (nn.Module subclasses, their layers and custom ops).

#include <vector>

#include "migrate/engine/plan.hpp"
#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate {

/// `entry_points` are stored as they are; non-Python files are read once to count their lines.
/// The libraries come from the import graph, the deps findings and the `dependencies` rows
/// (MigrationModel::dependencies: declared dependencies that need no change).
CodeStructure describeCode(const std::vector<ModuleSummary>& modules,
                           const std::vector<sdk::ModuleNode>& graph,
                           std::vector<sdk::EntryPoint> entry_points,
                           const std::vector<sdk::Finding>& findings, const sdk::WorkspaceView& workspace,
                           const std::vector<sdk::Finding>& dependencies = {});

/// The layer category of a callee ("linear", "conv", "attention", "norm", "activation",
/// "embedding", "dropout", "pooling", "recurrent", "container", "other"), or empty when the
/// callee is no layer.
std::string layerCategory(const std::string& callee);

}  // namespace migrate

#pragma once
/// The analyze stage: every Python file parsed once on a thread pool and matched against every
/// plugin's rules and hooks; then each plugin's repository pass.

#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "run/progress.hpp"

namespace migrate {

struct ActivePlugin {
  const LoadedPlugin* loaded;
};

/// Adds findings, diagnostics and inventory statistics to `model`. Plugin failures become
/// diagnostics naming the plugin; the other plugins and files carry on.
void analyzeWorkspace(const Workspace& workspace, const std::vector<ActivePlugin>& plugins, int jobs,
                      Progress& progress, MigrationModel& model);

/// Analyses one Python source with the given plugins (used by the snippet tests, too).
void analyzePythonSource(const std::string& path, std::string source,
                         const std::vector<ActivePlugin>& plugins, std::vector<sdk::Finding>& findings,
                         std::vector<sdk::Diagnostic>& diagnostics);

}  // namespace migrate

#pragma once
/// DIR/index.html: the fleet at a glance — the latest night's summary, trends across every night
/// of the store, failures first, and a sortable table of the repositories with links to their
/// reports, patches and SARIF files. One self-contained page: inline CSS, SVG and script, no
/// network. Rendered from templates/fleet_dashboard.html.mustache.

#include <filesystem>
#include <string>

#include "fleet/fleet_store.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::fleet {

/// Writes `dir`/index.html (atomically) from `store`; an empty store gives a page that says so.
Status writeDashboard(const Store& store, const std::filesystem::path& dir);

/// Writes `dir`/index.html saying that the store cannot be read and why (`problem`).
Status writeDashboardProblem(const std::filesystem::path& dir, const std::string& problem);

}  // namespace migrate::fleet

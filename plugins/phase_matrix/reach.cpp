// Steps 1 and 2: entry points per phase (globs over their labels) and reach through the imports.

#include "reach.hpp"

#include <algorithm>

#include "migrate/sdk/glob.hpp"

namespace phase_matrix {

using namespace migrate::sdk;

namespace {

/// True when one of the entry point's labels matches one of the phase's globs.
bool belongsTo(const EntryPoint& entry, const PhaseSpec& phase) {
  for (const std::string& glob : phase.entry_points)
    for (const std::string& label : entry.labels)
      if (globMatch(glob, label)) return true;
  return false;
}

}  // namespace

std::vector<bool> reachableFrom(const std::vector<ModuleNode>& modules,
                                const std::vector<std::size_t>& starts) {
  std::vector<bool> seen(modules.size(), false);
  std::vector<std::size_t> stack;
  for (std::size_t s : starts)
    if (s < modules.size() && !seen[s]) {
      seen[s] = true;
      stack.push_back(s);
    }
  while (!stack.empty()) {
    const std::size_t m = stack.back();
    stack.pop_back();
    for (std::size_t next : modules[m].imports)
      if (next < modules.size() && !seen[next]) {
        seen[next] = true;
        stack.push_back(next);
      }
  }
  return seen;
}

Reach computeReach(const std::vector<ModuleNode>& modules, const std::vector<EntryPoint>& entry_points,
                   const std::vector<PhaseSpec>& phases) {
  Reach reach;
  reach.entry_phases.resize(entry_points.size());
  std::vector<std::vector<std::size_t>> starts(phases.size());
  std::vector<std::size_t> all_starts;
  for (std::size_t e = 0; e < entry_points.size(); ++e) {
    const EntryPoint& entry = entry_points[e];
    all_starts.insert(all_starts.end(), entry.modules.begin(), entry.modules.end());
    for (std::size_t p = 0; p < phases.size(); ++p)
      if (belongsTo(entry, phases[p])) {
        reach.entry_phases[e].push_back(p);
        starts[p].insert(starts[p].end(), entry.modules.begin(), entry.modules.end());
      }
  }
  for (std::size_t p = 0; p < phases.size(); ++p) {
    reach.phase_modules.push_back(reachableFrom(modules, starts[p]));
    const bool has_entry_point =
        std::any_of(reach.entry_phases.begin(), reach.entry_phases.end(), [p](const auto& of_entry) {
          return std::find(of_entry.begin(), of_entry.end(), p) != of_entry.end();
        });
    if (has_entry_point) reach.active.push_back(p);
  }
  // Entry points that match no phase still run their modules: those count as reached too.
  reach.reached = reachableFrom(modules, all_starts);
  return reach;
}

}  // namespace phase_matrix

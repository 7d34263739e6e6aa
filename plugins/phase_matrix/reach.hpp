#pragma once
// Steps 1 and 2 of the phase matrix: the entry points of each phase and the modules each phase
// reaches through the import graph.

#include <cstddef>
#include <vector>

#include "migrate/sdk/plan.hpp"

namespace phase_matrix {

/// What the entry points reach, per phase and overall.
struct Reach {
  /// Per entry point: the phases (indices into PlanContext::phases(), ascending) one of whose
  /// globs matches one of its labels.
  std::vector<std::vector<std::size_t>> entry_phases;
  /// Per phase, per module: reached from a module of one of the phase's entry points.
  std::vector<std::vector<bool>> phase_modules;
  /// Per module: reached from any entry point, whether it belongs to a phase or not.
  std::vector<bool> reached;
  /// The phases with at least one entry point, in configured order.
  std::vector<std::size_t> active;

  /// True when phase `phase` reaches module `module`.
  bool phaseReaches(std::size_t phase, std::size_t module) const {
    return phase < phase_modules.size() && module < phase_modules[phase].size() &&
           phase_modules[phase][module];
  }
  /// True when some entry point reaches module `module`.
  bool isReached(std::size_t module) const { return module < reached.size() && reached[module]; }
};

/// Per module of `modules`: reachable from `starts` through ModuleNode::imports, the starts
/// included; indices outside the graph are ignored.
std::vector<bool> reachableFrom(const std::vector<migrate::sdk::ModuleNode>& modules,
                                const std::vector<std::size_t>& starts);

/// Matches every entry point against every phase and walks the import graph from each phase.
Reach computeReach(const std::vector<migrate::sdk::ModuleNode>& modules,
                   const std::vector<migrate::sdk::EntryPoint>& entry_points,
                   const std::vector<migrate::sdk::PhaseSpec>& phases);

}  // namespace phase_matrix

/// Dependency-matrix rows out of the findings (issue 16): a dependency that needs no change is
/// a row of the dependency table, not a place to change.

#include <algorithm>

#include "migrate/engine/model.hpp"

namespace migrate {

void separateDependencyRows(MigrationModel& model) {
  auto rows = std::stable_partition(model.findings.begin(), model.findings.end(),
                                    [](const sdk::Finding& f) { return !sdk::isDependencyRow(f); });
  model.dependencies.insert(model.dependencies.end(), std::make_move_iterator(rows),
                            std::make_move_iterator(model.findings.end()));
  model.findings.erase(rows, model.findings.end());
}

}  // namespace migrate

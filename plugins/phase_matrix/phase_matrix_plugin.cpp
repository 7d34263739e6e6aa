// The phase_matrix plugin: which task phases (training, inference, data preparation, tests, …)
// reach each finding, the dependency × phase matrix, and the minimum migration set, effort and
// verdict of each migration goal. It has no rules and no options; everything it needs comes
// through the plan stage's PlanContext. See README.md for the algorithm.

#include "assessment.hpp"
#include "migrate/sdk/plugin.hpp"

namespace {

using namespace migrate::sdk;

class PhaseMatrixPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"phase_matrix",
            "0.1.0",
            "phase_matrix",
            "task phases reaching each finding, the dependency × phase matrix, and the effort and verdict of "
            "each migration goal",
            {}};
  }

  void plan(PlanContext& context) const override { phase_matrix::planPhaseMatrix(context); }
};

}  // namespace

MIGRATE_DEFINE_PLUGIN(PhaseMatrixPlugin)

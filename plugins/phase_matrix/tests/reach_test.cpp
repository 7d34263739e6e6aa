// Steps 1 and 2: entry points per phase, active phases, reach through the import graph.

#include <gtest/gtest.h>

#include "reach.hpp"
#include "tests/sample_repository.hpp"

namespace phase_matrix::test {
namespace {

using namespace migrate::sdk;

/// The modules set in `mask`, as indices.
std::vector<std::size_t> indices(const std::vector<bool>& mask) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.push_back(i);
  return out;
}

TEST(Reach, FollowsImportsTransitivelyIncludingTheStart) {
  // 0 → 1 → 2, 3 alone.
  const std::vector<ModuleNode> modules = {moduleNode("a.py", {1}, {}), moduleNode("b.py", {2}, {}),
                                           moduleNode("c.py", {}, {}), moduleNode("d.py", {}, {})};
  EXPECT_EQ(indices(reachableFrom(modules, {0})), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(indices(reachableFrom(modules, {1})), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(indices(reachableFrom(modules, {3})), (std::vector<std::size_t>{3}));
  EXPECT_TRUE(indices(reachableFrom(modules, {})).empty());
}

TEST(Reach, SurvivesCyclesAndIndicesOutsideTheGraph) {
  // 0 ⇄ 1, and imports / starts that point past the end of the graph.
  const std::vector<ModuleNode> modules = {moduleNode("a.py", {1, 7}, {}), moduleNode("b.py", {0}, {}),
                                           moduleNode("c.py", {}, {})};
  EXPECT_EQ(indices(reachableFrom(modules, {1, 42})), (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(indices(reachableFrom({}, {0})).empty());
}

TEST(Reach, MatchesEntryPointLabelsAgainstPhaseGlobs) {
  const PlanInput in = sampleRepository();
  const Reach reach = computeReach(in.modules, in.entry_points, in.phases);
  // Phases: 0 train, 1 infer, 2 data, 3 test, 4 distributed, 5 serve.
  ASSERT_EQ(reach.entry_phases.size(), 6u);
  EXPECT_EQ(reach.entry_phases[0], (std::vector<std::size_t>{0}));     // train.py
  EXPECT_EQ(reach.entry_phases[1], (std::vector<std::size_t>{1}));     // infer.py
  EXPECT_EQ(reach.entry_phases[2], (std::vector<std::size_t>{2}));     // prepare_data.py by prepare_*.py
  EXPECT_EQ(reach.entry_phases[3], (std::vector<std::size_t>{3}));     // tests/** matches tests/test_model.py
  EXPECT_EQ(reach.entry_phases[4], (std::vector<std::size_t>{0, 4}));  // launch.sh: train.py and torchrun
  EXPECT_TRUE(reach.entry_phases[5].empty());                          // tools/export.py: no phase
  // serve has no entry point.
  EXPECT_EQ(reach.active, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(Reach, EachPhaseReachesWhatItsEntryPointsImport) {
  const PlanInput in = sampleRepository();
  const Reach reach = computeReach(in.modules, in.entry_points, in.phases);
  ASSERT_EQ(reach.phase_modules.size(), 6u);
  using V = std::vector<std::size_t>;
  EXPECT_EQ(indices(reach.phase_modules[0]), (V{kTrainPy, kModelPy, kAttentionPy, kOpsPy}));
  EXPECT_EQ(indices(reach.phase_modules[1]), (V{kModelPy, kAttentionPy, kInferPy}));
  EXPECT_EQ(indices(reach.phase_modules[2]), (V{kPrepareDataPy, kDataPy}));
  EXPECT_EQ(indices(reach.phase_modules[3]), (V{kModelPy, kAttentionPy, kTestModelPy}));
  EXPECT_EQ(indices(reach.phase_modules[4]), (V{kTrainPy, kModelPy, kAttentionPy, kOpsPy}));
  EXPECT_TRUE(indices(reach.phase_modules[5]).empty());
  // Reached also through tools/export.py, which matches no phase; legacy/old_model.py and
  // setup.py are imported by nothing.
  EXPECT_EQ(indices(reach.reached), (V{kTrainPy, kModelPy, kAttentionPy, kInferPy, kPrepareDataPy, kOpsPy,
                                       kDataPy, kTestModelPy, kExportPy, kDistUtilsPy}));
  EXPECT_TRUE(reach.phaseReaches(1, kModelPy));
  EXPECT_FALSE(reach.phaseReaches(1, kOpsPy));
  EXPECT_FALSE(reach.phaseReaches(9, kModelPy));  // no such phase
  EXPECT_FALSE(reach.isReached(kOldModelPy));
  EXPECT_FALSE(reach.isReached(99));
}

TEST(Reach, AnEntryPointMayBelongToSeveralPhasesAndGlobsSpanDirectories) {
  const std::vector<ModuleNode> modules = {moduleNode("pkg/cli/serve.py", {}, {})};
  const std::vector<EntryPoint> entries = {
      entryPoint(EntryPoint::Kind::ConsoleScript, "serve", "pyproject.toml", {0},
                 {"pyproject.toml", "pkg/cli/serve.py", "console_script:serve"})};
  const std::vector<PhaseSpec> phases = {{"infer", "", {"**/serve.py"}, {}},
                                         {"cli", "", {"console_script:*"}, {}},
                                         {"top", "", {"serve.py"}, {}},  // no directory part: no match
                                         {"none", "", {}, {}}};
  const Reach reach = computeReach(modules, entries, phases);
  EXPECT_EQ(reach.entry_phases[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(reach.active, (std::vector<std::size_t>{0, 1}));
}

TEST(Reach, EmptyInputsGiveEmptyReach) {
  const Reach reach = computeReach({}, {}, {});
  EXPECT_TRUE(reach.entry_phases.empty());
  EXPECT_TRUE(reach.phase_modules.empty());
  EXPECT_TRUE(reach.reached.empty());
  EXPECT_TRUE(reach.active.empty());
}

}  // namespace
}  // namespace phase_matrix::test

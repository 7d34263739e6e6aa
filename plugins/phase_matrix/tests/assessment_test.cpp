// Step 7: the whole pass over a PlanContext: what it records, odd inputs, determinism.

#include <gtest/gtest.h>

#include <algorithm>

#include "assessment.hpp"
#include "tests/sample_repository.hpp"

namespace phase_matrix::test {
namespace {

using namespace migrate::sdk;
using Names = std::vector<std::string>;

TEST(Assessment, SampleRepository) {
  RecordingPlanContext context(sampleRepository());
  planPhaseMatrix(context);

  // Every finding is tagged exactly once, also those without phases.
  for (std::size_t i = 0; i < kSampleFindingCount; ++i) {
    EXPECT_EQ(context.phaseCalls(i), 1u) << "finding " << i;
    ASSERT_TRUE(context.phasesOf(i).has_value()) << "finding " << i;
  }
  EXPECT_EQ(context.outOfRangeCalls(), 0u);
  EXPECT_EQ(*context.phasesOf(kDockerfile), (Names{"train", "infer", "data", "test", "distributed"}));
  EXPECT_EQ(*context.phasesOf(kDistUtilsNccl), Names{"distributed"});
  EXPECT_TRUE(context.phasesOf(kOldModelSynchronize)->empty());
  EXPECT_TRUE(context.phasesOf(kRequirementApex)->empty());

  ASSERT_EQ(context.assessmentCalls(), 1u);
  const Assessment& a = *context.assessment();
  EXPECT_EQ(a.producer, "phase_matrix");
  EXPECT_EQ(a.active_phases, (Names{"train", "infer", "data", "test", "distributed"}));
  EXPECT_EQ(a.chosen_goal, "training");
  // Python modules with findings that nothing reaches; requirements.txt and csrc/other.cu are not
  // modules, utils/dist_utils.py is reached through tools/export.py.
  EXPECT_EQ(a.unreached_files, (Names{"legacy/old_model.py"}));  // setup.py is the environment
  EXPECT_EQ(a.notes, Names{"entry point tools/export.py (main_block) matches no phase"});
  ASSERT_EQ(a.matrix.size(), 9u);
  EXPECT_EQ(a.matrix.front().dependency, "torch.cuda");
  EXPECT_EQ(a.matrix.back().dependency, "apex");
  EXPECT_EQ(a.full.name, "full");
  EXPECT_EQ(a.full.verdict, "infeasible");
  ASSERT_EQ(a.goals.size(), 4u);  // configured order
  EXPECT_EQ(a.goals[0].name, "training");
  EXPECT_EQ(a.goals[1].name, "inference_only");
  EXPECT_EQ(a.goals[2].name, "data_prep");
  EXPECT_EQ(a.goals[3].name, "broken");
  EXPECT_EQ(a.goals[1].verdict, "hard");
  EXPECT_EQ(a.goals[2].verdict, "needs adaptation");

  // The only diagnostic: the goal naming an unknown phase.
  ASSERT_EQ(context.diagnostics().size(), 1u);
  EXPECT_EQ(context.diagnostics()[0].code, "plan-config");
}

TEST(Assessment, NoEntryPoints) {
  PlanInput in = sampleRepository();
  in.entry_points.clear();
  RecordingPlanContext context(in);
  planPhaseMatrix(context);
  // Nothing is active, so not even the Dockerfile has a phase.
  for (std::size_t i = 0; i < kSampleFindingCount; ++i) {
    ASSERT_TRUE(context.phasesOf(i).has_value());
    EXPECT_TRUE(context.phasesOf(i)->empty()) << "finding " << i;
  }
  const Assessment& a = *context.assessment();
  EXPECT_TRUE(a.active_phases.empty());
  ASSERT_EQ(a.matrix.size(), 9u);
  for (const MatrixRow& row : a.matrix) EXPECT_EQ(row.priority, "skip") << row.dependency;
  // Rows by effort alone: the kernel (8) first.
  EXPECT_EQ(a.matrix.front().dependency, "kernel fused_gelu_kernel");
  for (const GoalResult& g : a.goals) {
    EXPECT_TRUE(g.bottlenecks.empty()) << g.name;
    EXPECT_EQ(g.verdict, "feasible") << g.name;
  }
  // The full migration does not depend on reach.
  EXPECT_EQ(a.full.findings, 17u);
  EXPECT_EQ(a.full.verdict, "infeasible");
  // Every Python module with a finding is unreached (setup.py is the environment).
  EXPECT_EQ(a.unreached_files,
            (Names{"attention.py", "data.py", "infer.py", "legacy/old_model.py", "model.py", "ops.py",
                   "tests/test_model.py", "train.py", "utils/dist_utils.py"}));
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_EQ(a.notes[0].rfind("no entry point found: ", 0), 0u) << a.notes[0];
  const auto& diagnostics = context.diagnostics();
  const auto it = std::find_if(diagnostics.begin(), diagnostics.end(),
                               [](const Diagnostic& d) { return d.code == "plan-no-entry-points"; });
  ASSERT_NE(it, diagnostics.end());
  EXPECT_EQ(it->severity, Severity::Warning);
  EXPECT_EQ(it->message, a.notes[0]);
}

TEST(Assessment, EmptyEverything) {
  RecordingPlanContext context(PlanInput{});
  planPhaseMatrix(context);
  ASSERT_TRUE(context.assessment().has_value());
  const Assessment& a = *context.assessment();
  EXPECT_EQ(a.producer, "phase_matrix");
  EXPECT_TRUE(a.matrix.empty());
  EXPECT_TRUE(a.goals.empty());
  EXPECT_TRUE(a.unreached_files.empty());
  EXPECT_EQ(a.full.verdict, "feasible");
  EXPECT_EQ(a.full.effort_weeks, 0.0);
  ASSERT_EQ(context.diagnostics().size(), 1u);
  EXPECT_EQ(context.diagnostics()[0].code, "plan-no-entry-points");
}

TEST(Assessment, EntryPointsButNoPhases) {
  PlanInput in = sampleRepository();
  in.phases.clear();
  in.goals = {{"g", "", {"train"}, {}}};
  RecordingPlanContext context(in);
  planPhaseMatrix(context);
  const Assessment& a = *context.assessment();
  EXPECT_TRUE(a.active_phases.empty());
  EXPECT_EQ(a.notes.size(), 6u);  // every entry point matches no phase
  EXPECT_EQ(a.notes[4], "entry point scripts/launch.sh (launch_script) matches no phase");
  EXPECT_EQ(a.notes[3], "entry point tests/test_model.py (test_module) matches no phase");
  // Reached through entry points that match no phase: only the unreferenced files are unreached.
  EXPECT_EQ(a.unreached_files, (Names{"legacy/old_model.py"}));  // setup.py is the environment
  ASSERT_EQ(context.diagnostics().size(), 1u);
  EXPECT_EQ(context.diagnostics()[0].code, "plan-config");
  EXPECT_NE(context.diagnostics()[0].message.find("(declared: none)"), std::string::npos);
}

TEST(Assessment, IndicesOutsideTheInputsAreIgnored) {
  PlanInput in = sampleRepository();
  in.modules[kTrainPy].imports.push_back(99);
  in.entry_points[0].modules.push_back(42);
  in.bottlenecks[0].findings.push_back(1000);
  RecordingPlanContext context(in);
  planPhaseMatrix(context);
  ASSERT_TRUE(context.assessment().has_value());
  EXPECT_EQ(context.outOfRangeCalls(), 0u);
  // #001 keeps its three real places' phases (infer) in the torch.cuda row.
  EXPECT_EQ(context.assessment()->matrix.front().dependency, "torch.cuda");
}

TEST(Assessment, SameInputsSameOutputs) {
  RecordingPlanContext first(sampleRepository());
  RecordingPlanContext second(sampleRepository());
  planPhaseMatrix(first);
  planPhaseMatrix(second);
  EXPECT_EQ(first.dump(), second.dump());
  // The dump is not trivially equal: it holds the answers.
  EXPECT_NE(first.dump().find("row torch.cuda device [train|infer|data|test|distributed] P0"),
            std::string::npos)
      << first.dump();
}

TEST(Assessment, BottleneckListOrderDoesNotMatter) {
  // The engine numbers bottlenecks by impact, but the plugin sorts by id itself.
  PlanInput shuffled = sampleRepository();
  std::reverse(shuffled.bottlenecks.begin(), shuffled.bottlenecks.end());
  RecordingPlanContext a(sampleRepository());
  RecordingPlanContext b(shuffled);
  planPhaseMatrix(a);
  planPhaseMatrix(b);
  EXPECT_EQ(a.dump(), b.dump());
}

}  // namespace
}  // namespace phase_matrix::test

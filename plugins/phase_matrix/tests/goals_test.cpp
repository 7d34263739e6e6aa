// Step 5: goal membership, places, effort and weeks (the verdicts follow from step 6).

#include <gtest/gtest.h>

#include "goals.hpp"
#include "tests/sample_repository.hpp"

namespace phase_matrix::test {
namespace {

using namespace migrate::sdk;
using Names = std::vector<std::string>;

/// The result of the sample repository's goal `name`, and the diagnostics it produced.
struct SampleGoal {
  GoalResult result;
  std::vector<Diagnostic> diagnostics;
};

SampleGoal sampleGoal(const std::string& name, PlanInput in = sampleRepository()) {
  const RecordingPlanContext context(in);
  const Reach reach = computeReach(in.modules, in.entry_points, in.phases);
  const FindingPhases phases = findingPhases(context, reach);
  SampleGoal out;
  for (const GoalSpec& goal : in.goals)
    if (goal.name == name) out.result = goalResult(context, goal, phases, out.diagnostics);
  return out;
}

TEST(Goals, TrainingNeedsWhatTrainOrDistributedReaches) {
  // Out: #001 (its findings are in infer or nowhere), #002 (data, test), #012 (apex, no phase).
  // In, with the places in train or distributed: #003 1 → 4, #004 1 → 0.5, #005 2 → 5 + 3 = 8,
  // #006 1 → 2, #007 1 → 1, #008 2 (dist_utils.py counts through "distributed") → 0.3,
  // #009 1 → 0.3, #010 1 → 0.5, #011 1 → 0.5.
  // 11 places, 17.1 person-days; 17.1 × 1.3 / 5 = 4.446 weeks → 4.5 (half weeks, rounded up).
  const SampleGoal g = sampleGoal("training");
  EXPECT_EQ(g.result.name, "training");
  EXPECT_EQ(g.result.title, "Training on NPU");
  EXPECT_EQ(g.result.bottlenecks,
            (Names{"#003", "#004", "#005", "#006", "#007", "#008", "#009", "#010", "#011"}));
  EXPECT_EQ(g.result.findings, 11u);
  EXPECT_NEAR(g.result.effort_days, 17.1, 1e-9);
  EXPECT_DOUBLE_EQ(g.result.effort_weeks, 4.5);
  // #005 is an error, manual, without an NPU alternative.
  EXPECT_EQ(g.result.verdict, "infeasible");
  EXPECT_EQ(g.result.blockers,
            Names{"#005 Custom CUDA kernel: fused_gelu_kernel, other_kernel has no NPU alternative"});
  EXPECT_TRUE(g.diagnostics.empty());
}

TEST(Goals, InferenceOnlyCountsOnlyInferPlacesAndLeavesOutDeps) {
  // infer reaches infer.py, model.py, attention.py: #001 1 of 3 places → 0.1, #003 1 → 4,
  // #010 1 → 0.5. #004 and #011 would be in but deps is excluded.
  // 4.6 days × 1.3 / 5 = 1.196 weeks → 1.5. #003 is manual, high and 4 ≥ 3 days: hard.
  const SampleGoal g = sampleGoal("inference_only");
  EXPECT_EQ(g.result.bottlenecks, (Names{"#001", "#003", "#010"}));
  EXPECT_EQ(g.result.findings, 3u);
  EXPECT_NEAR(g.result.effort_days, 4.6, 1e-9);
  EXPECT_DOUBLE_EQ(g.result.effort_weeks, 1.5);
  EXPECT_EQ(g.result.verdict, "hard");
  EXPECT_EQ(g.result.blockers, Names{"#003 FlashAttention call: high difficulty, 4 person-days (manual)"});
}

TEST(Goals, DataPreparationNeedsAdaptation) {
  // data reaches prepare_data.py and data.py: #002 1 of 2 places → 0.1; the Dockerfile (#011)
  // is in every phase → 0.5. 0.6 × 1.3 / 5 = 0.156 → 0.5 weeks. #011 is manual (no error
  // among the manual ones, so the largest manual bottlenecks are listed).
  const SampleGoal g = sampleGoal("data_prep");
  EXPECT_EQ(g.result.bottlenecks, (Names{"#002", "#011"}));
  EXPECT_EQ(g.result.findings, 2u);
  EXPECT_NEAR(g.result.effort_days, 0.6, 1e-9);
  EXPECT_DOUBLE_EQ(g.result.effort_weeks, 0.5);
  EXPECT_EQ(g.result.verdict, "needs adaptation");
  EXPECT_EQ(g.result.blockers,
            Names{"#011 CUDA base image: nvidia/cuda:12.1.0-devel → an Ascend CANN base image (manual)"});
}

TEST(Goals, UnknownPhaseIsDiagnosedAndIgnored) {
  // "deploy" is no phase: the goal is "infer" alone, with deps: #001 0.1, #003 4, #004 0.5,
  // #010 0.5, #011 0.5 = 5.6 days; 5.6 × 1.3 / 5 = 1.456 → 1.5 weeks.
  const SampleGoal g = sampleGoal("broken");
  ASSERT_EQ(g.diagnostics.size(), 1u);
  EXPECT_EQ(g.diagnostics[0].code, "plan-config");
  EXPECT_EQ(g.diagnostics[0].severity, Severity::Warning);
  EXPECT_NE(g.diagnostics[0].message.find("'broken'"), std::string::npos);
  EXPECT_NE(g.diagnostics[0].message.find("'deploy'"), std::string::npos);
  EXPECT_NE(g.diagnostics[0].message.find("train, infer, data, test, distributed, serve"), std::string::npos);
  EXPECT_EQ(g.result.bottlenecks, (Names{"#001", "#003", "#004", "#010", "#011"}));
  EXPECT_EQ(g.result.findings, 5u);
  EXPECT_NEAR(g.result.effort_days, 5.6, 1e-9);
  EXPECT_DOUBLE_EQ(g.result.effort_weeks, 1.5);
}

TEST(Goals, OnlyUnknownPhasesNeedNothing) {
  PlanInput in = sampleRepository();
  in.goals = {{"nothing", "", {"deploy", "ship"}, {}}};
  const SampleGoal g = sampleGoal("nothing", in);
  EXPECT_EQ(g.diagnostics.size(), 2u);
  EXPECT_TRUE(g.result.bottlenecks.empty());
  EXPECT_EQ(g.result.findings, 0u);
  EXPECT_EQ(g.result.effort_days, 0.0);
  EXPECT_EQ(g.result.effort_weeks, 0.0);
  EXPECT_EQ(g.result.verdict, "feasible");
  EXPECT_TRUE(g.result.blockers.empty());
}

TEST(Goals, FullMigrationCountsEveryPlaceReachedOrNot) {
  // Every bottleneck with all its places: 0.2 + 0.15 + 4 + 0.5 + 8 + 2 + 1 + 0.3 + 0.3 + 0.5 + 0.5 + 1
  // = 18.45 days, 17 places; 18.45 × 1.3 / 5 = 4.797 → 5 weeks. Infeasible: #005 and #012.
  const PlanInput in = sampleRepository();
  const RecordingPlanContext context(in);
  const GoalResult full = fullResult(context);
  EXPECT_EQ(full.name, "full");
  EXPECT_EQ(full.title, "Full migration");
  EXPECT_EQ(full.bottlenecks, (Names{"#001", "#002", "#003", "#004", "#005", "#006", "#007", "#008", "#009",
                                     "#010", "#011", "#012"}));
  EXPECT_EQ(full.findings, 17u);
  EXPECT_NEAR(full.effort_days, 18.45, 1e-9);
  EXPECT_DOUBLE_EQ(full.effort_weeks, 5.0);
  EXPECT_EQ(full.verdict, "infeasible");
  EXPECT_EQ(full.blockers,
            (Names{"#005 Custom CUDA kernel: fused_gelu_kernel, other_kernel has no NPU alternative",
                   "#012 Unsupported dependency: apex has no NPU alternative"}));
}

TEST(Goals, EffortSettingsDecideTheWeeks) {
  // 17.1 days with 4 days a week and no integration factor: 4.275 → 4.5; with 10 days a week and
  // factor 1: 3.42 → 3.5.
  PlanInput in = sampleRepository();
  in.effort.days_per_week = 4;
  in.effort.integration_factor = 0;
  EXPECT_DOUBLE_EQ(sampleGoal("training", in).result.effort_weeks, 4.5);
  in.effort.days_per_week = 10;
  in.effort.integration_factor = 1;
  EXPECT_DOUBLE_EQ(sampleGoal("training", in).result.effort_weeks, 3.5);
}

}  // namespace
}  // namespace phase_matrix::test

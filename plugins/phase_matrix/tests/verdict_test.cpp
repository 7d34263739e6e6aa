// Step 6: each verdict branch and its blockers, and how numbers are written.

#include <gtest/gtest.h>

#include "migrate/sdk/verdict.hpp"
#include "tests/sample_repository.hpp"

namespace phase_matrix::test {
namespace {

using namespace migrate::sdk;
using Names = std::vector<std::string>;

/// A bottleneck for verdict tests: `first` days for the first place, 1 more for each further one.
Bottleneck make(std::string id, Severity severity, Level difficulty, bool autofix, std::string alternative,
                double first, std::vector<std::string> apis = {"lib.api"}) {
  return bottleneck(std::move(id), "R-" + id.substr(1), "device", {0},
                    {"Title " + id.substr(1), std::move(apis), std::move(alternative), severity, difficulty,
                     autofix, first, 1.0});
}

TEST(Verdict, FeasibleWhenEverythingHasAFix) {
  const Bottleneck a = make("#001", Severity::Error, Level::High, true, "", 10);
  const Bottleneck b = make("#002", Severity::Warning, Level::Low, true, "x", 1);
  // An error without alternative but with an automatic fix is not infeasible; a high-difficulty
  // bottleneck with a fix is not hard.
  const Verdict v = judge({{&a, 1}, {&b, 1}}, 3.0, EffortSettings{});
  EXPECT_EQ(v.verdict, "feasible");
  EXPECT_TRUE(v.blockers.empty());
  EXPECT_EQ(judge({}, 0.0, EffortSettings{}).verdict, "feasible");
}

TEST(Verdict, InfeasibleListsEveryManualErrorWithoutAlternative) {
  const Bottleneck ok = make("#001", Severity::Error, Level::Low, false, "torch.npu.x", 1);
  const Bottleneck none = make("#002", Severity::Error, Level::High, false, "", 9, {"a.b", "c.d"});
  const Bottleneck warning = make("#003", Severity::Warning, Level::Low, false, "", 1);
  const Bottleneck no_api = make("#004", Severity::Error, Level::Low, false, "", 1, {});
  const Verdict v = judge({{&ok, 1}, {&none, 2}, {&warning, 1}, {&no_api, 1}}, 20.0, EffortSettings{});
  EXPECT_EQ(v.verdict, "infeasible");
  EXPECT_EQ(v.blockers, (Names{"#002 Title 002: a.b, c.d has no NPU alternative",
                               "#004 Title 004: R-004 has no NPU alternative"}));
}

TEST(Verdict, HardByAManualHighDifficultyBottleneckAtTheThreshold) {
  // first 2 + 1 per further place: 1 place → 2 days (< 3), 2 places → 3 days (≥ 3: hard).
  const Bottleneck high = make("#007", Severity::Warning, Level::High, false, "alt", 2);
  EXPECT_EQ(judge({{&high, 1}}, 0.5, EffortSettings{}).verdict, "needs adaptation");
  const Verdict v = judge({{&high, 2}}, 1.0, EffortSettings{});
  EXPECT_EQ(v.verdict, "hard");
  EXPECT_EQ(v.blockers, Names{"#007 Title 007: high difficulty, 3 person-days (manual)"});
  // A medium one of the same size is not hard.
  const Bottleneck medium = make("#008", Severity::Warning, Level::Medium, false, "alt", 2);
  EXPECT_EQ(judge({{&medium, 5}}, 1.0, EffortSettings{}).verdict, "needs adaptation");
}

TEST(Verdict, HardByWeeks) {
  // Nothing manual and high, but more weeks than allowed: only the weeks sentence.
  const Bottleneck big = make("#003", Severity::Warning, Level::Medium, false, "alt", 40);
  EffortSettings effort;
  const Verdict v = judge({{&big, 1}}, 10.5, effort);
  EXPECT_EQ(v.verdict, "hard");
  EXPECT_EQ(v.blockers, Names{"total effort 10.5 weeks exceeds 8 weeks"});
  // Exactly the limit is not more than it.
  EXPECT_EQ(judge({{&big, 1}}, 8.0, effort).verdict, "needs adaptation");
  // Both reasons: the bottleneck first, then the weeks; the settings' thresholds are used.
  effort.hard_weeks = 2.5;
  effort.hard_bottleneck_days = 1.25;
  const Bottleneck high = make("#001", Severity::Info, Level::High, false, "alt", 1.25);
  const Verdict both = judge({{&high, 1}, {&big, 1}}, 3.0, effort);
  EXPECT_EQ(both.verdict, "hard");
  EXPECT_EQ(both.blockers, (Names{"#001 Title 001: high difficulty, 1.25 person-days (manual)",
                                  "total effort 3 weeks exceeds 2.5 weeks"}));
}

TEST(Verdict, NeedsAdaptationListsTheManualErrors) {
  const Bottleneck fixed = make("#001", Severity::Error, Level::Low, true, "a", 5);
  const Bottleneck manual_error =
      make("#002", Severity::Error, Level::Low, false, "torch.npu.y", 0.5, {"torch.cuda.y"});
  const Bottleneck manual_warning = make("#003", Severity::Warning, Level::Low, false, "z", 2);
  const Verdict v = judge({{&fixed, 1}, {&manual_error, 1}, {&manual_warning, 1}}, 1.0, EffortSettings{});
  EXPECT_EQ(v.verdict, "needs adaptation");
  EXPECT_EQ(v.blockers, Names{"#002 Title 002: torch.cuda.y → torch.npu.y (manual)"});
}

TEST(Verdict, NeedsAdaptationNamesAtMostFiveManualErrors) {
  std::vector<Bottleneck> errors;
  for (int i = 1; i <= 7; ++i)
    errors.push_back(make("#00" + std::to_string(i), Severity::Error, Level::Low, false, "x", 0.5));
  std::vector<GoalMember> members;
  for (const auto& b : errors) members.push_back({&b, 1});
  const Verdict v = judge(members, 1.0, EffortSettings{});
  EXPECT_EQ(v.verdict, "needs adaptation");
  ASSERT_EQ(v.blockers.size(), 6u);
  EXPECT_EQ(v.blockers[4], "#005 Title 005: lib.api → x (manual)");
  EXPECT_EQ(v.blockers[5], "… and 2 more manual bottlenecks of severity error");
}

TEST(Verdict, NeedsAdaptationOtherwiseListsTheThreeLargestManualOnes) {
  // Efforts for the places counted: #001 1, #002 2.5 (1.5 + 1), #003 2.5, #004 0.5, #005 3 (autofix).
  // Largest manual first, ties by id: #002, #003, #001.
  const Bottleneck b1 = make("#001", Severity::Warning, Level::Low, false, "a1", 1);
  const Bottleneck b2 = make("#002", Severity::Info, Level::Low, false, "a2", 1.5);
  const Bottleneck b3 = make("#003", Severity::Warning, Level::Medium, false, "", 2.5);
  const Bottleneck b4 = make("#004", Severity::Warning, Level::Low, false, "a4", 0.5);
  const Bottleneck b5 = make("#005", Severity::Warning, Level::Low, true, "a5", 3);
  const Verdict v = judge({{&b1, 1}, {&b2, 2}, {&b3, 1}, {&b4, 1}, {&b5, 1}}, 2.0, EffortSettings{});
  EXPECT_EQ(v.verdict, "needs adaptation");
  EXPECT_EQ(v.blockers, (Names{"#002 Title 002: lib.api → a2 (manual)", "#003 Title 003: lib.api (manual)",
                               "#001 Title 001: lib.api → a1 (manual)"}));
}

TEST(Verdict, InfeasibleBeatsHardBeatsAdaptation) {
  const Bottleneck impossible = make("#001", Severity::Error, Level::Low, false, "", 0.1);
  const Bottleneck high = make("#002", Severity::Warning, Level::High, false, "x", 10);
  EXPECT_EQ(judge({{&impossible, 1}, {&high, 1}}, 20.0, EffortSettings{}).verdict, "infeasible");
  EXPECT_EQ(judge({{&high, 1}}, 20.0, EffortSettings{}).verdict, "hard");
}

TEST(FormatNumber, AtMostTwoDecimalsNoTrailingZeros) {
  EXPECT_EQ(formatNumber(0.5), "0.5");
  EXPECT_EQ(formatNumber(1.25), "1.25");
  EXPECT_EQ(formatNumber(3), "3");
  EXPECT_EQ(formatNumber(3.0000001), "3");
  EXPECT_EQ(formatNumber(0.1 + 0.2), "0.3");
  EXPECT_EQ(formatNumber(2.006), "2.01");
  EXPECT_EQ(formatNumber(1.999), "2");
  EXPECT_EQ(formatNumber(10.10), "10.1");
  EXPECT_EQ(formatNumber(120), "120");
  EXPECT_EQ(formatNumber(0), "0");
  EXPECT_EQ(formatNumber(-0.001), "0");
  EXPECT_EQ(formatNumber(-1.5), "-1.5");
}

}  // namespace
}  // namespace phase_matrix::test

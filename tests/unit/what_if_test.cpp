// fleet/what_if: a plan's verdict judged again with a rule or a dependency solved, with the plan
// stage's verdict model; the inputs round-trip through the store's JSON.

#include "fleet/what_if.hpp"

#include <gtest/gtest.h>

namespace migrate::fleet {
namespace {

PlanMember member(const std::string& id, const std::string& rule, sdk::Severity severity, bool autofix,
                  std::size_t places, std::map<std::string, std::size_t> packages = {}) {
  PlanMember m;
  m.bottleneck.id = id;
  m.bottleneck.rule_id = rule;
  m.bottleneck.npu_alternative = "the NPU way";
  m.bottleneck.severity = severity;
  m.bottleneck.difficulty = sdk::Level::Low;
  m.bottleneck.autofix = autofix;
  m.bottleneck.effort_first = 0.5;
  m.bottleneck.effort_each = 0.25;
  m.places = places;
  m.packages = std::move(packages);
  return m;
}

PlanInputs plan() {
  PlanInputs in;
  in.goal = "single_card_training";
  in.verdict = "needs adaptation";
  in.members = {member("#001", "DEP-005", sdk::Severity::Error, false, 2, {{"cupy", 1}, {"flash-attn", 1}}),
                member("#002", "DEP-017", sdk::Severity::Error, false, 1, {{"cupy", 1}}),
                member("#003", "DEV-016", sdk::Severity::Warning, true, 4)};
  return in;
}

TEST(WhatIf, SolvingARuleOrADependencyJudgesTheRestAgain) {
  const PlanInputs in = plan();
  EXPECT_EQ(verdictIf(in, {}), "needs adaptation") << "nothing solved: the plan's own verdict";
  EXPECT_EQ(verdictIf(in, {"DEP-005", {}}), "needs adaptation") << "the import still needs hand work";
  EXPECT_EQ(verdictIf(in, {{}, "cupy"}), "needs adaptation") << "flash-attn still needs replacing";
  PlanInputs only_cupy = in;
  only_cupy.members[0].packages = {{"cupy", 2}};
  EXPECT_EQ(verdictIf(only_cupy, {{}, "cupy"}), "feasible") << "only automatic fixes are left";
  EXPECT_EQ(verdictIf(in, {{}, "xformers"}), "needs adaptation") << "not in the plan: nothing moves";
  // Weeks count too: many places of a manual bottleneck make it hard, and solving it does not.
  PlanInputs big = in;
  big.members[2].bottleneck.autofix = false;
  big.members[2].places = 200;  // 0.5 + 0.25 × 199 days
  EXPECT_EQ(verdictIf(big, {}), "hard");
  EXPECT_EQ(verdictIf(big, {"DEV-016", {}}), "needs adaptation");
  EXPECT_LT(verdictRank("hard"), verdictRank("needs adaptation"));
  EXPECT_LT(verdictRank("infeasible"), verdictRank("hard"));
  EXPECT_LT(verdictRank("needs adaptation"), verdictRank("feasible"));
  EXPECT_EQ(verdictRank("partially adapted"), -1);
}

TEST(WhatIf, TheInputsRoundTripThroughTheStoresJson) {
  PlanInputs in = plan();
  in.effort.hard_weeks = 6;
  auto back = decodePlanInputs(encodePlanInputs(in));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->goal, in.goal);
  EXPECT_EQ(back->verdict, in.verdict);
  EXPECT_DOUBLE_EQ(back->effort.hard_weeks, 6);
  ASSERT_EQ(back->members.size(), 3u);
  EXPECT_EQ(back->members[0].packages, in.members[0].packages);
  EXPECT_EQ(back->members[1].bottleneck.severity, sdk::Severity::Error);
  EXPECT_TRUE(back->members[2].bottleneck.autofix);
  EXPECT_DOUBLE_EQ(back->members[0].bottleneck.effort_each, 0.25);
  for (const char* solved : {"cupy", "flash-attn"})
    EXPECT_EQ(verdictIf(*back, {{}, solved}), verdictIf(in, {{}, solved}));
  auto broken = decodePlanInputs("{\"goal\": 1}");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("unreadable plan inputs"), std::string::npos);
}

TEST(WhatIf, PackagesAreNamedAsPep503NormalisesThem) {
  EXPECT_EQ(normalizedPackage("Flash_Attn"), "flash-attn");
  EXPECT_EQ(normalizedPackage("zope.interface"), "zope-interface");
  EXPECT_EQ(normalizedPackage("a__b--c"), "a-b-c");
  sdk::Finding import;
  import.api = "flash_attn.flash_attn_interface";
  EXPECT_EQ(packageOf(import), "flash-attn") << "an import rule's finding: its top-level module";
  sdk::Finding requirement;
  requirement.api = "cupy-cuda12x";
  requirement.details["package"] = "cupy";
  EXPECT_EQ(packageOf(requirement), "cupy") << "the table's package, not the wheel's name";
}

}  // namespace
}  // namespace migrate::fleet

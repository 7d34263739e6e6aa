// The report's conclusions on hand-made models: the adaptation status by seed 000's rules (the
// fully adapted case included, which the bundled example on a machine without an NPU never
// reaches), report groups, effort per phase, repair suggestions, and the rendered report of a
// fully adapted run.

#include <gtest/gtest.h>

#include "emit/template_store.hpp"
#include "report/report_data.hpp"
#include "report/report_facts.hpp"

namespace migrate::report {
namespace {

sdk::Finding finding(const std::string& rule, const std::string& domain, std::vector<std::string> phases) {
  sdk::Finding f;
  f.rule_id = rule;
  f.domain = domain;
  f.file = "train.py";
  f.range.line = 1;
  f.phases = std::move(phases);
  return f;
}

/// A run that adapted its only bottleneck (two places) and verified everything on an NPU.
MigrationModel fullyAdapted() {
  MigrationModel m;
  m.source = {"path", "proj", "", "", {}};
  for (const char* s : {"analyze", "plan", "emit", "verify"})
    m.stages.push_back({s, "completed", "done", 1.0});
  m.findings = {finding("DEV-001", "device", {"train", "inference"}),
                finding("DEV-001", "device", {"train"})};
  m.plan.computed = true;
  sdk::Bottleneck b;
  b.id = "#001";
  b.rule_id = "DEV-001";
  b.domain = "device";
  b.title = "torch.cuda device API";
  b.findings = {0, 1};
  b.effort_first = 0.5;
  b.effort_each = 0.1;
  b.effort_days = 0.6;
  m.plan.bottlenecks = {b};
  sdk::Assessment a;
  a.active_phases = {"train", "inference"};
  a.full = {"full", "Full migration", {"#001"}, 2, 0.6, 0.5, "feasible", {}};
  a.chosen_goal = "full";
  m.plan.assessment = a;
  m.emit.computed = true;
  m.emit.project = "proj";
  m.emit.fixed_findings = {0, 1};
  m.verify.computed = true;
  m.verify.status = "completed";
  m.verify.host = "npu-host";
  m.verify.checks = {{"environment", "npu-devices", "passed", "8 devices", 0, "", {}},
                     {"function", "tests", "passed", "ok", 0, "", {}},
                     {"benchmark", "benchmark", "skipped", "disabled", 0, "", {}}};
  return m;
}

AdaptationStatus statusOf(const MigrationModel& m) {
  return adaptationStatus(m, bottleneckStates(m));
}

TEST(ReportFacts, FullyAdaptedWhenEverythingIsFixedAndEveryCheckPassedOnAnNpu) {
  const MigrationModel m = fullyAdapted();
  const auto states = bottleneckStates(m);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_TRUE(states[0].adapted());
  EXPECT_EQ(statusOf(m).level, "fully") << "a disabled benchmark does not count";
}

TEST(ReportFacts, EachShortfallLowersTheStatusAndSaysWhy) {
  {
    MigrationModel m = fullyAdapted();
    m.verify.checks[0].status = "skipped";
    const auto s = statusOf(m);
    EXPECT_EQ(s.level, "partially");
    ASSERT_EQ(s.reasons.size(), 1u);
    EXPECT_NE(s.reasons[0].find("not verified on an NPU: environment/npu-devices"), std::string::npos);
  }
  {
    MigrationModel m = fullyAdapted();
    m.emit.fixed_findings = {0};
    const auto s = statusOf(m);
    EXPECT_EQ(s.level, "partially");
    EXPECT_NE(s.reasons[0].find("1 bottleneck remains (of 1)"), std::string::npos) << s.reasons[0];
    EXPECT_EQ(bottleneckStates(m)[0].fixed, 1u);
  }
  {
    MigrationModel m = fullyAdapted();
    m.emit.manual_work.push_back({"OPS-001", "k.cu", 3, "port the kernel"});
    EXPECT_EQ(statusOf(m).level, "partially");
  }
  {
    MigrationModel m = fullyAdapted();
    m.verify.status = "unreachable";
    m.verify.detail = "Connection refused";
    const auto s = statusOf(m);
    EXPECT_EQ(s.level, "partially");
    EXPECT_NE(s.reasons[0].find("could not run on npu-host (unreachable): Connection refused"),
              std::string::npos);
  }
  {
    MigrationModel m = fullyAdapted();
    m.verify.checks[1].status = "failed";
    EXPECT_EQ(statusOf(m).level, "failed");
    EXPECT_EQ(statusOf(m).reasons[0], "1 verification check failed");
  }
  {
    MigrationModel m = fullyAdapted();
    m.stages[2] = {"emit", "failed", "disk full", 0};
    EXPECT_EQ(statusOf(m).level, "failed");
    EXPECT_EQ(statusOf(m).reasons[0], "the emit stage failed: disk full");
  }
  {
    MigrationModel m = fullyAdapted();
    m.stages.resize(1);  // the run stopped after analyze
    m.verify = {};
    const auto s = statusOf(m);
    EXPECT_EQ(s.level, "failed");
    EXPECT_EQ(s.reasons.back(), "the adaptation was not verified (the run stopped before the verify stage)");
  }
  {
    MigrationModel m = fullyAdapted();
    m.stages[1] = {"plan", "skipped", "not selected in the pipeline's stages", 0};
    EXPECT_EQ(statusOf(m).level, "partially");
  }
}

TEST(ReportFacts, GroupsByRuleThenDomainThenTheFirstGroup) {
  EXPECT_EQ(groupOf("DEV-005", "device"), "concurrency") << "a listed rule wins over its domain";
  EXPECT_EQ(groupOf("DEV-999", "device"), "configuration");
  EXPECT_EQ(groupOf("DIST-001", "distributed"), "concurrency");
  EXPECT_EQ(groupOf("OPS-017", "custom_ops"), "boundary");
  EXPECT_EQ(groupOf("X-1", "a_third_party_domain"), "operators");
  ASSERT_EQ(reportGroups().size(), 7u);
  for (const ReportGroup& g : reportGroups()) EXPECT_FALSE(g.title.empty()) << g.id;
}

TEST(ReportFacts, EffortPerPhaseCountsThePlacesEachPhaseReaches) {
  const auto effort = effortPerPhase(fullyAdapted());
  ASSERT_EQ(effort.size(), 2u);
  EXPECT_EQ(effort[0].first, "train");
  EXPECT_DOUBLE_EQ(effort[0].second, 0.6);  // both places: first + each
  EXPECT_EQ(effort[1].first, "inference");
  EXPECT_DOUBLE_EQ(effort[1].second, 0.5);  // one place: first only
  MigrationModel none = fullyAdapted();
  none.plan.assessment.reset();
  EXPECT_TRUE(effortPerPhase(none).empty());
}

TEST(ReportFacts, RepairSuggestionsMatchStageAndCheck) {
  EXPECT_NE(repairSuggestion("imports", "npu_ops").find("generated support module"), std::string::npos);
  EXPECT_NE(repairSuggestion("imports", "pkg.mod").find("adapted module fails to import"), std::string::npos);
  EXPECT_NE(repairSuggestion("function", "npu-ops:rms_norm").find("npu_ops wrapper"), std::string::npos);
  EXPECT_NE(repairSuggestion("precision", "run:out.json").find("tolerances"), std::string::npos);
  EXPECT_NE(repairSuggestion("results", "line 3").find("verify/verify.log"), std::string::npos);
  EXPECT_FALSE(troubleshooting().empty());
}

TEST(ReportFacts, AFullyAdaptedRunRendersAsSuccessful) {
  const MigrationModel m = fullyAdapted();
  ReportContext context{"CodeReview_Results_2026-01-02.md", "2026-01-02", "2026-01-02 03:04:05 UTC+00:00",
                        200};
  auto text = emit::TemplateStore().render("report.md", reportData(m, context), "proj");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("| Adaptation Status | ✅ Fully Adapted |"), std::string::npos);
  EXPECT_NE(text->find("**Adaptation successful**"), std::string::npos);
  EXPECT_NE(text->find("| Adapted Bottlenecks | 1 |"), std::string::npos);
  EXPECT_NE(text->find("- **Status**: ✅ Adapted"), std::string::npos);
  EXPECT_EQ(text->find("### 5.5 Failed Verification Items"), std::string::npos);
  EXPECT_EQ(text->find("![Findings per domain"), std::string::npos) << "no chart link without a chart";
  EXPECT_NE(text->find("Report Generation Time: 2026-01-02 03:04:05 UTC+00:00"), std::string::npos);
}

}  // namespace
}  // namespace migrate::report

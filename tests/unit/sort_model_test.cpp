// sortModel: a total order of findings, and one finding per rule and range.

#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/engine/model.hpp"

namespace migrate {
namespace {

sdk::Finding at(std::string rule, std::uint32_t line, std::string message,
                std::map<std::string, std::string> details) {
  sdk::Finding f;
  f.rule_id = std::move(rule);
  f.file = "pkg/ops.py";
  f.range = {line, 1, line, 10};
  f.message = std::move(message);
  f.details = std::move(details);
  return f;
}

std::vector<sdk::Finding> sorted(std::vector<sdk::Finding> findings) {
  MigrationModel model;
  model.findings = std::move(findings);
  sortModel(model);
  return model.findings;
}

TEST(SortModel, OneRuleAtOneRangeIsOneFindingWithEveryPassDetails) {
  sdk::Finding module_pass =
      at("OPS-028", 7, "import of ext", {{"evidence", "called from an autograd Function"}});
  sdk::Finding glue_pass = at("OPS-028", 7, "import of ext", {{"declared_in", "setup.py"}});
  glue_pass.confidence = sdk::Level::High;
  const sdk::Finding other_rule = at("DEP-012", 7, "import of a CUDA library", {});
  for (const auto& input : {std::vector<sdk::Finding>{module_pass, glue_pass, other_rule},
                            std::vector<sdk::Finding>{other_rule, glue_pass, module_pass}}) {
    const auto out = sorted(input);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].rule_id, "DEP-012");
    EXPECT_EQ(out[1].rule_id, "OPS-028");
    EXPECT_EQ(out[1].confidence, sdk::Level::High);  // the more confident report is kept
    EXPECT_EQ(out[1].details,
              (std::map<std::string, std::string>{{"declared_in", "setup.py"},
                                                  {"evidence", "called from an autograd Function"}}));
  }
}

TEST(SortModel, TheReportWithAFixIsKeptAndTheOrderDoesNotDependOnArrival) {
  sdk::Finding plain = at("DEV-001", 3, "a", {{"k", "plain"}});
  sdk::Finding fixed = at("DEV-001", 3, "b", {{"k", "fixed"}});
  fixed.edits.push_back({0, 4, "npu"});
  std::vector<sdk::Finding> input{plain, fixed, at("DEV-001", 2, "c", {}), at("DEV-001", 3, "a", {})};
  const auto first = sorted(input);
  std::reverse(input.begin(), input.end());
  const auto second = sorted(input);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].range.line, 2u);
  EXPECT_EQ(first[1].message, "b");
  EXPECT_EQ(first[1].details.at("k"), "fixed");  // a key both have keeps the kept report's value
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[1].message, first[1].message);
  EXPECT_EQ(second[1].details, first[1].details);
}

}  // namespace
}  // namespace migrate

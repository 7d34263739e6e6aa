// Rule files: validation errors with positions, and the placeholders of messages.

#include <gtest/gtest.h>

#include <unordered_set>

#include "parse/python_parser.hpp"
#include "rules/rule_loader.hpp"
#include "rules/rule_set.hpp"

namespace migrate::rules {
namespace {

const char* kHeader = "format: 1\ndomain: device\nrules:\n";

std::string rule(const std::string& match, const std::string& extra = "") {
  return std::string(kHeader) +
         "  - id: T-1\n"
         "    message: \"{api} -> {npu}{note}\"\n"
         "    npu_alternative: \"{npu}\"\n"
         "    confidence: high\n"
         "    difficulty: low\n"
         "    effort_days: 0.1\n"
         "    match:\n" +
         match + extra;
}

class Sink : public sdk::FindingSink {
 public:
  std::vector<sdk::Finding> findings;
  void report(sdk::Finding f) override { findings.push_back(std::move(f)); }
  void diagnose(sdk::Diagnostic) override {}
};

TEST(RuleLoader, ErrorsNamePositionAndExpectation) {
  auto unknown = loadRules(rule("      api: [a.b]\n", "    severty: info\n"), "p:rules/x.yaml", "device");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("p:rules/x.yaml:12:5: unknown key 'severty'"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("did you mean 'severity'"), std::string::npos);

  auto two = loadRules(rule("      api: [a.b]\n      import: [x]\n"), "f", "device");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("exactly one of"), std::string::npos);

  auto regex = loadRules(rule("      string:\n        regex: '(unclosed'\n"), "f", "device");
  ASSERT_FALSE(regex.ok());
  EXPECT_NE(regex.error().message.find("not a valid regular expression"), std::string::npos);

  auto domain = loadRules(rule("      api: [a.b]\n"), "f", "attention");
  ASSERT_FALSE(domain.ok());
  EXPECT_NE(domain.error().message.find("declares domain 'device'"), std::string::npos);

  auto format = loadRules("format: 2\ndomain: device\nrules: []\n", "f", "device");
  ASSERT_FALSE(format.ok());
  EXPECT_NE(format.error().message.find("this engine reads format 1"), std::string::npos);
}

TEST(RuleLoader, DuplicateIdsAreRefused) {
  std::string text = rule("      api: [a.b]\n");
  text += text.substr(std::string(kHeader).size());
  auto dup = loadRules(text, "f", "device");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("duplicate rule id T-1"), std::string::npos);
}

TEST(RuleSet, ExactBeatsPrefixAndPlaceholdersExpand) {
  auto rules =
      loadRules(std::string(kHeader) +
                    "  - id: EXACT\n    message: \"{api} -> {npu}{note}\"\n    npu_alternative: \"{npu}\"\n"
                    "    confidence: high\n    difficulty: low\n    effort_days: 0.1\n"
                    "    match:\n      api:\n        - {name: torch.cuda.synchronize, npu: "
                    "torch.npu.synchronize, note: \"(same)\"}\n"
                    "    fix: {replace_api: true}\n"
                    "  - id: PREFIX\n    message: \"{api} unknown\"\n"
                    "    confidence: low\n    difficulty: low\n    effort_days: 0.1\n"
                    "    match:\n      api: [torch.cuda.*]\n",
                "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  auto m =
      parse::parsePython("a.py", "import torch\ntorch.cuda.synchronize()\ntorch.cuda.nvtx.range_push('x')\n");
  ASSERT_TRUE(m.ok());
  Sink sink;
  set.match(**m, sink);
  ASSERT_EQ(sink.findings.size(), 2u);
  EXPECT_EQ(sink.findings[0].rule_id, "EXACT");
  EXPECT_EQ(sink.findings[0].message, "torch.cuda.synchronize -> torch.npu.synchronize (same)");
  EXPECT_EQ(sink.findings[0].npu_alternative, "torch.npu.synchronize");
  ASSERT_EQ(sink.findings[0].edits.size(), 1u);
  EXPECT_EQ(sink.findings[0].edits[0].replacement, "torch.npu.synchronize");
  EXPECT_EQ(sink.findings[1].rule_id, "PREFIX");
  EXPECT_EQ(sink.findings[1].message, "torch.cuda.nvtx.range_push unknown");
  EXPECT_FALSE(sink.findings[1].autofix());
}

TEST(RuleSet, AliasedUsesMatchButAreNotAutoFixed) {
  auto rules =
      loadRules(rule("      api:\n        - {name: torch.cuda.synchronize, npu: torch.npu.synchronize}\n",
                     "    fix: {replace_api: true}\n"),
                "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  auto m = parse::parsePython("a.py", "import torch.cuda as tc\ntc.synchronize()\n");
  Sink sink;
  set.match(**m, sink);
  ASSERT_EQ(sink.findings.size(), 1u);
  EXPECT_EQ(sink.findings[0].api, "tc.synchronize");
  EXPECT_EQ(sink.findings[0].resolved_api, "torch.cuda.synchronize");
  EXPECT_FALSE(sink.findings[0].autofix());
}

}  // namespace
}  // namespace migrate::rules

namespace migrate::rules {
namespace {

TEST(RuleSet, TheProjectsOwnPackagesAreNotLibraryUses) {
  auto rules = loadRules(rule("      import: [mamba_ssm]\n"), "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  const std::unordered_set<std::string> roots{"mamba_ssm"};
  auto own = parse::parsePython("mamba_ssm/modules/x.py", "from mamba_ssm.ops import f\n");
  ASSERT_TRUE(own.ok());
  (*own)->setProjectRoots(&roots);
  Sink sink;
  set.match(**own, sink);
  EXPECT_TRUE(sink.findings.empty());
  auto user = parse::parsePython("train.py", "from mamba_ssm.ops import f\n");
  set.match(**user, sink);
  EXPECT_EQ(sink.findings.size(), 1u) << "without the package in the repository it is a library";
}

}  // namespace
}  // namespace migrate::rules

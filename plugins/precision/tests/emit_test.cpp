// emitPrecision with the findings the analysis reports on the bundled example (gpt/model.py's
// RMSNorm, gpt/rope.py's complex RoPE): the npu_ops sections and manual work, and the advice
// itself run on the CPU against the example's code (tests/python/check_precision_advice.py).

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "precision_emit.hpp"
#include "support/emit_test_context.hpp"
#include "support/test_support.hpp"

namespace {

using migrate::sdk::Finding;
using migrate::test::TempDir;
using migrate::test::TestEmitContext;

Finding precisionFinding(const std::string& rule, const std::string& file, std::uint32_t line,
                         const std::string& api, std::map<std::string, std::string> details) {
  Finding f;
  f.rule_id = rule;
  f.domain = "precision";
  f.file = file;
  f.range.line = line;
  f.api = api;
  f.resolved_api = api.rfind("torch.", 0) == 0 ? api : "torch.Tensor.float";
  f.details = std::move(details);
  return f;
}

/// The example's PREC-014 and PREC-005 findings, as the precision plugin reports them.
std::vector<Finding> exampleFindings() {
  const std::map<std::string, std::string> wide{
      {"complex_dtype", "complex128"}, {"float64_inputs", "true"}, {"function", "apply_rotary_emb"}};
  return {
      precisionFinding("PREC-014", "gpt/model.py", 25, "x.float()",
                       {{"norm_kind", "rms"}, {"scope", "RMSNorm.forward"}, {"upcasts", "1"}}),
      precisionFinding("PREC-005", "gpt/rope.py", 19, "torch.polar",
                       {{"complex_dtype", "complex128"},
                        {"float64_inputs", "true"},
                        {"function", "precompute_freqs_cis"}}),
      precisionFinding("PREC-005", "gpt/rope.py", 29, "torch.view_as_complex", wide),
      precisionFinding("PREC-005", "gpt/rope.py", 30, "torch.view_as_complex", wide),
  };
}

class PrecisionEmit : public testing::Test {
 protected:
  TempDir kit_;
  TestEmitContext context_{kit_.path()};

  void run(std::vector<Finding> findings) {
    context_.mutableFindings() = std::move(findings);
    precision::emitPrecision(context_);
  }
};

TEST_F(PrecisionEmit, RmsNormUpcastAndComplexRopeAskForTheirSections) {
  run(exampleFindings());
  EXPECT_EQ(context_.sections, (std::set<std::string>{"npu_ops.py:op_rms_norm", "npu_ops.py:op_rotary"}));
  EXPECT_TRUE(context_.written.empty());
}

TEST_F(PrecisionEmit, ManualWorkSaysWhatToSwapIn) {
  run(exampleFindings());
  std::map<std::uint32_t, std::string> by_line;
  for (const auto& w : context_.manual_work) by_line[w.line] = w.what;
  // One item per place: the two view_as_complex calls of apply_rotary_emb are one rewrite.
  ASSERT_EQ(by_line.size(), 3u);
  EXPECT_NE(by_line[25].find("npu_ops.rms_norm(x, weight, eps)"), std::string::npos) << by_line[25];
  EXPECT_NE(by_line[25].find("RMSNorm.forward"), std::string::npos) << by_line[25];
  EXPECT_NE(by_line[19].find("angle.cos()"), std::string::npos) << by_line[19];
  EXPECT_NE(by_line[19].find("float32 rather than float64"), std::string::npos) << by_line[19];
  EXPECT_NE(by_line[29].find("npu_ops.apply_rotary_emb(x, cos, sin, interleaved=True)"), std::string::npos);
  for (const auto& w : context_.manual_work) EXPECT_EQ(w.file, w.line == 25 ? "gpt/model.py" : "gpt/rope.py");
}

TEST_F(PrecisionEmit, OtherNormsAndFindingsAskForNothing) {
  Finding attention = precisionFinding("PREC-005", "a.py", 1, "torch.polar", {});
  attention.domain = "attention";
  run({precisionFinding("PREC-014", "m.py", 3, "x.float()", {{"norm_kind", "layer"}, {"scope", "LayerNorm"}}),
       precisionFinding("PREC-001", "m.py", 4, "torch.float64", {}), attention});
  EXPECT_TRUE(context_.sections.empty());
  EXPECT_TRUE(context_.manual_work.empty());
}

TEST_F(PrecisionEmit, AdviceComputesWhatTheExampleComputes) {
  run(exampleFindings());
  migrate::sdk::TemplateData data;
  std::string listed;
  for (const std::string& s : context_.sections) {
    const std::string section = s.substr(s.find(':') + 1);
    data.setFlag(section);
    listed += (listed.empty() ? "" : " ") + section;
  }
  data.set("sections", listed);
  TempDir ops;
  migrate::test::writeFile(ops / "npu_ops.py", context_.render("npu_ops.py", data));
  const auto script =
      migrate::test::sourceDir() / "plugins" / "precision" / "tests" / "python" / "check_precision_advice.py";
  const auto result = migrate::test::run(
      "env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 " +
      migrate::test::quote(script.string()) + " " + migrate::test::quote(ops.path().string()) + " " +
      migrate::test::quote((migrate::test::sourceDir() / "examples" / "gpt_cuda").string()));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace

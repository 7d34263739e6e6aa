// emitAttention with findings as the analysis reports them: the npu_ops sections asked for and
// the manual work listed.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "attention_emit.hpp"
#include "support/emit_test_context.hpp"
#include "support/test_support.hpp"

namespace {

using migrate::sdk::Finding;
using migrate::test::TempDir;
using migrate::test::TestEmitContext;

Finding attentionFinding(const std::string& rule, std::uint32_t line, const std::string& api,
                         const std::string& resolved, std::map<std::string, std::string> details) {
  Finding f;
  f.rule_id = rule;
  f.domain = "attention";
  f.file = "model/attn.py";
  f.range.line = line;
  f.api = api;
  f.resolved_api = resolved;
  f.details = std::move(details);
  return f;
}

Finding fixed(Finding f) {
  f.edits.push_back({10, 20, "npu_ops"});
  return f;
}

class AttentionEmit : public testing::Test {
 protected:
  TempDir kit_;
  TestEmitContext context_{kit_.path()};

  void run(std::vector<Finding> findings) {
    context_.mutableFindings() = std::move(findings);
    migrate_attention::emitAttention(context_);
  }
};

TEST_F(AttentionEmit, FixedFindingsRequireTheSectionsTheirFileImports) {
  run({fixed(
           attentionFinding("ATT-001", 12, "flash_attn_func", "flash_attn.flash_attn_func",
                            {{"npu_ops", "npu_ops.flash_attn_func"}, {"npu_ops_section", "op_flash_attn"}})),
       fixed(attentionFinding("ATT-014", 30, "xops.memory_efficient_attention",
                              "xformers.ops.memory_efficient_attention",
                              {{"npu_ops", "npu_ops.memory_efficient_attention"},
                               {"npu_ops_section", "op_rotary,op_xformers"}}))});
  EXPECT_EQ(context_.sections, (std::set<std::string>{"npu_ops.py:op_flash_attn", "npu_ops.py:op_rotary",
                                                      "npu_ops.py:op_xformers"}));
  EXPECT_TRUE(context_.manual_work.empty());
  EXPECT_TRUE(context_.written.empty());
}

TEST_F(AttentionEmit, BlockedFindingGetsTheWrapperAndTheReason) {
  run({attentionFinding(
      "ATT-014", 7, "xops.memory_efficient_attention", "xformers.ops.memory_efficient_attention",
      {{"npu_ops", "npu_ops.memory_efficient_attention"},
       {"npu_ops_section", "op_xformers"},
       {"npu_ops_blocked", "xops stays: xops.unbind (line 6) has no npu_ops counterpart"}})});
  EXPECT_EQ(context_.sections, std::set<std::string>{"npu_ops.py:op_xformers"});
  ASSERT_EQ(context_.manual_work.size(), 1u);
  const auto& work = context_.manual_work.front();
  EXPECT_EQ(work.rule_id, "ATT-014");
  EXPECT_EQ(work.file, "model/attn.py");
  EXPECT_EQ(work.line, 7u);
  EXPECT_NE(work.what.find("npu_ops.memory_efficient_attention"), std::string::npos) << work.what;
  EXPECT_NE(work.what.find("xops.unbind (line 6)"), std::string::npos) << work.what;
}

TEST_F(AttentionEmit, FixedCallWithAnArgumentTheNpuKernelLacksIsManualWork) {
  run({fixed(attentionFinding("ATT-001", 3, "flash_attn_func", "flash_attn.flash_attn_func",
                              {{"npu_ops", "npu_ops.flash_attn_func"},
                               {"npu_ops_section", "op_flash_attn"},
                               {"window_size", "(128, 0)"},
                               {"softcap", "0.0"},
                               {"alibi_slopes", "None"}})),
       fixed(attentionFinding("ATT-001", 9, "flash_attn_func", "flash_attn.flash_attn_func",
                              {{"npu_ops", "npu_ops.flash_attn_func"},
                               {"npu_ops_section", "op_flash_attn"},
                               {"window_size", "(-1,-1)"},
                               {"return_attn_probs", "False"}}))});
  ASSERT_EQ(context_.manual_work.size(), 1u);
  EXPECT_EQ(context_.manual_work.front().line, 3u);
  EXPECT_NE(context_.manual_work.front().what.find("window_size=(128, 0)"), std::string::npos);
  EXPECT_EQ(context_.manual_work.front().what.find("softcap"), std::string::npos);
  EXPECT_NE(context_.manual_work.front().what.find("NotImplementedError"), std::string::npos);
}

TEST_F(AttentionEmit, FlashAttention1NamesPointToTheVarlenWrappers) {
  run({attentionFinding("ATT-004", 4, "flash_attn_unpadded_qkvpacked_func",
                        "flash_attn.flash_attn_interface.flash_attn_unpadded_qkvpacked_func",
                        {{"library", "flash_attn_1"}})});
  EXPECT_EQ(context_.sections, std::set<std::string>{"npu_ops.py:op_flash_attn"});
  ASSERT_EQ(context_.manual_work.size(), 1u);
  EXPECT_NE(context_.manual_work.front().what.find("npu_ops.flash_attn_varlen_qkvpacked_func"),
            std::string::npos);
}

TEST_F(AttentionEmit, FlashAttentionRmsNormPointsToNpuOpsRmsNorm) {
  run({attentionFinding("ATT-011", 5, "FusedRMSNorm", "flash_attn.ops.rms_norm.RMSNorm", {})});
  EXPECT_EQ(context_.sections, std::set<std::string>{"npu_ops.py:op_rms_norm"});
  ASSERT_EQ(context_.manual_work.size(), 1u);
  EXPECT_NE(context_.manual_work.front().what.find("npu_ops.RMSNorm"), std::string::npos);
}

TEST_F(AttentionEmit, NothingForWhatNpuOpsDoesNotServe) {
  Finding precision =
      attentionFinding("PREC-014", 2, "x.float()", "torch.Tensor.float", {{"norm_kind", "rms"}});
  precision.domain = "precision";
  run({attentionFinding("ATT-005", 1, "flash_attn_with_kvcache", "flash_attn.flash_attn_with_kvcache",
                        {{"library", "flash_attn"}}),
       attentionFinding("ATT-018", 2, "F.scaled_dot_product_attention",
                        "torch.nn.functional.scaled_dot_product_attention", {{"library", "torch"}}),
       attentionFinding("ATT-011", 3, "layer_norm_fn", "flash_attn.ops.triton.layer_norm.layer_norm_fn", {}),
       precision});
  EXPECT_TRUE(context_.sections.empty());
  EXPECT_TRUE(context_.manual_work.empty());
}

TEST_F(AttentionEmit, OneManualItemPerPlaceAndRule) {
  const Finding blocked = attentionFinding("ATT-001", 8, "flash_attn_func", "flash_attn.flash_attn_func",
                                           {{"npu_ops", "npu_ops.flash_attn_func"},
                                            {"npu_ops_section", "op_flash_attn"},
                                            {"npu_ops_blocked", "x"}});
  run({blocked, blocked});
  EXPECT_EQ(context_.manual_work.size(), 1u);
}

}  // namespace

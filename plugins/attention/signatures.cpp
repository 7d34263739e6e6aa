// The documented signatures of the attention kernels the plugin maps, and findKernel.
// Signatures are the libraries' documented ones (flash-attn 2.x flash_attn_interface.py,
// flash-attn 1.x, FlashAttention-3 hopper/flash_attn_interface.py, FlashAttention-4 flash_attn.cute,
// xformers.ops.fmha, torch.nn.functional).

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels.hpp"

namespace migrate_attention {
namespace {

const std::vector<Param> kFa2Tail = {
    {"dropout_p", "dropout_p", "0.0"},
    {"softmax_scale", "softmax_scale", "None"},
    {"causal", "causal", "False"},
    {"window_size", "window_size", "(-1, -1)"},
    {"softcap", "softcap", "0.0"},
    {"alibi_slopes", "alibi_slopes", "None"},
    {"deterministic", "deterministic", "False"},
    {"return_attn_probs", "return_attn_probs", "False"},
};

std::vector<Param> concat(std::vector<Param> head, const std::vector<Param>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

const std::vector<Param> kFa1Tail = {
    {"dropout_p", "dropout_p", ""},
    {"softmax_scale", "softmax_scale", "None"},
    {"causal", "causal", "False"},
    {"return_attn_probs", "return_attn_probs", "False"},
};

const std::vector<Param> kVarlenHead = {
    {"q", "q", ""},
    {"k", "k", ""},
    {"v", "v", ""},
    {"cu_seqlens_q", "cu_seqlens_q", ""},
    {"cu_seqlens_k", "cu_seqlens_k", ""},
    {"max_seqlen_q", "max_seqlen_q", ""},
    {"max_seqlen_k", "max_seqlen_k", ""},
};

const std::vector<Param> kVarlenKvHead = {
    {"q", "q", ""},
    {"kv", "kv", ""},
    {"cu_seqlens_q", "cu_seqlens_q", ""},
    {"cu_seqlens_k", "cu_seqlens_k", ""},
    {"max_seqlen_q", "max_seqlen_q", ""},
    {"max_seqlen_k", "max_seqlen_k", ""},
};

const std::vector<Param> kVarlenQkvHead = {
    {"qkv", "qkv", ""},
    {"cu_seqlens", "cu_seqlens", ""},
    {"max_seqlen", "max_seqlen", ""},
};

const std::vector<Param> kFa3Common = {
    {"qv", "qv", "None"},
    {"q_descale", "q_descale", "None"},
    {"k_descale", "k_descale", "None"},
    {"v_descale", "v_descale", "None"},
    {"window_size", "window_size", "(-1, -1)"},
    {"attention_chunk", "attention_chunk", "0"},
    {"softcap", "softcap", "0.0"},
    {"num_splits", "num_splits", "1"},
    {"pack_gqa", "pack_gqa", "None"},
    {"deterministic", "deterministic", "False"},
    {"sm_margin", "sm_margin", "0"},
    {"return_attn_probs", "return_attn_probs", "False"},
};

const std::vector<Param> kFa4Common = {
    {"window_size", "window_size", "(None, None)"},
    {"learnable_sink", "learnable_sink", "None"},
    {"softcap", "softcap", "0.0"},
    {"num_splits", "num_splits", "1"},
    {"pack_gqa", "pack_gqa", "None"},
    {"deterministic", "deterministic", "False"},
    {"score_mod", "score_mod", "None"},
    {"mask_mod", "mask_mod", "None"},
    {"return_lse", "return_attn_probs", "False"},
};

const std::vector<Param> kXformers = {
    {"query", "q", ""},        {"key", "k", ""},
    {"value", "v", ""},        {"attn_bias", "attn_bias", "None"},
    {"p", "dropout_p", "0.0"}, {"scale", "softmax_scale", "None"},
    {"op", "op", "None"},      {"output_dtype", "output_dtype", "None"},
};

struct Family {
  std::vector<std::string_view> modules;
  std::vector<KernelSpec> kernels;
};

const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = [] {
    std::vector<Family> f;
    // flash-attn 2 (and the 1.x names still found in older code).
    f.push_back({{"flash_attn", "flash_attn.flash_attn_interface"},
                 {
                     {"ATT-001", "flash_attn", "flash_attn_func", KernelKind::Dense,
                      concat({{"q", "q", ""}, {"k", "k", ""}, {"v", "v", ""}}, kFa2Tail), 7},
                     {"ATT-002", "flash_attn", "flash_attn_varlen_func", KernelKind::Varlen,
                      concat(concat(kVarlenHead, kFa2Tail), {{"block_table", "block_table", "None"}}), 11},
                     {"ATT-002", "flash_attn_1", "flash_attn_unpadded_func", KernelKind::Varlen,
                      concat(kVarlenHead, kFa1Tail), 11},
                     {"ATT-003", "flash_attn", "flash_attn_qkvpacked_func", KernelKind::QkvPacked,
                      concat({{"qkv", "qkv", ""}}, kFa2Tail), 5},
                     {"ATT-003", "flash_attn", "flash_attn_kvpacked_func", KernelKind::KvPacked,
                      concat({{"q", "q", ""}, {"kv", "kv", ""}}, kFa2Tail), 6},
                     {"ATT-004", "flash_attn", "flash_attn_varlen_qkvpacked_func",
                      KernelKind::VarlenQkvPacked, concat(kVarlenQkvHead, kFa2Tail), 7},
                     {"ATT-004", "flash_attn_1", "flash_attn_unpadded_qkvpacked_func",
                      KernelKind::VarlenQkvPacked, concat(kVarlenQkvHead, kFa1Tail), 7},
                     {"ATT-004", "flash_attn", "flash_attn_varlen_kvpacked_func", KernelKind::VarlenKvPacked,
                      concat(kVarlenKvHead, kFa2Tail), 10},
                     {"ATT-004", "flash_attn_1", "flash_attn_unpadded_kvpacked_func",
                      KernelKind::VarlenKvPacked, concat(kVarlenKvHead, kFa1Tail), 10},
                     {"ATT-005",
                      "flash_attn",
                      "flash_attn_with_kvcache",
                      KernelKind::KvCache,
                      {{"q", "q", ""},
                       {"k_cache", "k_cache", ""},
                       {"v_cache", "v_cache", ""},
                       {"k", "k_new", "None"},
                       {"v", "v_new", "None"},
                       {"rotary_cos", "rotary_cos", "None"},
                       {"rotary_sin", "rotary_sin", "None"},
                       {"cache_seqlens", "cache_seqlens", "None"},
                       {"cache_batch_idx", "cache_batch_idx", "None"},
                       {"cache_leftpad", "cache_leftpad", "None"},
                       {"block_table", "block_table", "None"},
                       {"softmax_scale", "softmax_scale", "None"},
                       {"causal", "causal", "False"},
                       {"window_size", "window_size", "(-1, -1)"},
                       {"softcap", "softcap", "0.0"},
                       {"rotary_interleaved", "rotary_interleaved", "True"},
                       {"alibi_slopes", "alibi_slopes", "None"},
                       {"num_splits", "num_splits", "0"},
                       {"return_softmax_lse", "return_attn_probs", "False"}},
                      9},
                 }});
    // FlashAttention-3 (Hopper): the `flash_attn_interface` module of the flash_attn_3 wheel.
    f.push_back({{"flash_attn_interface", "flash_attn_3", "flash_attn_3.flash_attn_interface",
                  "hopper.flash_attn_interface"},
                 {
                     {"ATT-006", "flash_attn_3", "flash_attn_func", KernelKind::Dense,
                      concat({{"q", "q", ""},
                              {"k", "k", ""},
                              {"v", "v", ""},
                              {"softmax_scale", "softmax_scale", "None"},
                              {"causal", "causal", "False"}},
                             kFa3Common),
                      5},
                     {"ATT-006", "flash_attn_3", "flash_attn_varlen_func", KernelKind::Varlen,
                      concat(concat(kVarlenHead, {{"seqused_q", "seqused_q", "None"},
                                                  {"seqused_k", "seqused_k", "None"},
                                                  {"softmax_scale", "softmax_scale", "None"},
                                                  {"causal", "causal", "False"}}),
                             kFa3Common),
                      7},
                     {"ATT-006", "flash_attn_3", "flash_attn_qkvpacked_func", KernelKind::QkvPacked,
                      concat({{"qkv", "qkv", ""},
                              {"softmax_scale", "softmax_scale", "None"},
                              {"causal", "causal", "False"}},
                             kFa3Common),
                      3},
                     {"ATT-006", "flash_attn_3", "flash_attn_with_kvcache", KernelKind::KvCache,
                      concat({{"q", "q", ""},
                              {"k_cache", "k_cache", ""},
                              {"v_cache", "v_cache", ""},
                              {"k", "k_new", "None"},
                              {"v", "v_new", "None"},
                              {"rotary_cos", "rotary_cos", "None"},
                              {"rotary_sin", "rotary_sin", "None"},
                              {"cache_seqlens", "cache_seqlens", "None"},
                              {"cache_batch_idx", "cache_batch_idx", "None"},
                              {"page_table", "block_table", "None"},
                              {"softmax_scale", "softmax_scale", "None"},
                              {"causal", "causal", "False"}},
                             kFa3Common),
                      5},
                 }});
    // FlashAttention-4 (CuTe DSL, Hopper/Blackwell): flash_attn.cute.
    f.push_back({{"flash_attn.cute", "flash_attn.cute.interface"},
                 {
                     {"ATT-006", "flash_attn_4", "flash_attn_func", KernelKind::Dense,
                      concat({{"q", "q", ""},
                              {"k", "k", ""},
                              {"v", "v", ""},
                              {"qv", "qv", "None"},
                              {"softmax_scale", "softmax_scale", "None"},
                              {"causal", "causal", "False"}},
                             kFa4Common),
                      3},
                     {"ATT-006", "flash_attn_4", "flash_attn_varlen_func", KernelKind::Varlen,
                      concat({{"q", "q", ""},
                              {"k", "k", ""},
                              {"v", "v", ""},
                              {"qv", "qv", "None"},
                              {"cu_seqlens_q", "cu_seqlens_q", "None"},
                              {"cu_seqlens_k", "cu_seqlens_k", "None"},
                              {"max_seqlen_q", "max_seqlen_q", "None"},
                              {"max_seqlen_k", "max_seqlen_k", "None"},
                              {"page_table", "block_table", "None"},
                              {"softmax_scale", "softmax_scale", "None"},
                              {"causal", "causal", "False"}},
                             kFa4Common),
                      3},
                 }});
    f.push_back(
        {{"xformers.ops", "xformers.ops.fmha"},
         {
             {"ATT-014", "xformers", "memory_efficient_attention", KernelKind::Xformers, kXformers, 6},
             {"ATT-014", "xformers", "memory_efficient_attention_forward", KernelKind::Xformers, kXformers,
              6},
             {"ATT-014", "xformers", "memory_efficient_attention_forward_requires_grad", KernelKind::Xformers,
              kXformers, 6},
             {"ATT-014", "xformers", "memory_efficient_attention_partial", KernelKind::Xformers, kXformers,
              6},
         }});
    f.push_back({{"torch.nn.functional"},
                 {
                     {"ATT-018",
                      "torch",
                      "scaled_dot_product_attention",
                      KernelKind::Sdpa,
                      {{"query", "q", ""},
                       {"key", "k", ""},
                       {"value", "v", ""},
                       {"attn_mask", "attn_mask", "None"},
                       {"dropout_p", "dropout_p", "0.0"},
                       {"is_causal", "causal", "False"},
                       {"scale", "softmax_scale", "None"},
                       {"enable_gqa", "enable_gqa", "False"}},
                      6},
                 }});
    return f;
  }();
  return kFamilies;
}

const std::unordered_map<std::string, const KernelSpec*>& kernelIndex() {
  static const std::unordered_map<std::string, const KernelSpec*> kIndex = [] {
    std::unordered_map<std::string, const KernelSpec*> index;
    for (const Family& f : families())
      for (const KernelSpec& k : f.kernels)
        for (std::string_view m : f.modules)
          index.emplace(std::string(m) + "." + std::string(k.function), &k);
    return index;
  }();
  return kIndex;
}

}  // namespace

const KernelSpec* findKernel(const std::string& resolved) {
  const auto& index = kernelIndex();
  auto it = index.find(resolved);
  return it == index.end() ? nullptr : it->second;
}

}  // namespace migrate_attention

// The attention APIs the plugin knows, and the argument mapping to torch_npu: see kernels.hpp.
// Signatures are the libraries' documented ones (flash-attn 2.x flash_attn_interface.py,
// flash-attn 1.x, FlashAttention-3 hopper/flash_attn_interface.py, FlashAttention-4 flash_attn.cute,
// xformers.ops.fmha, torch.nn.functional); the NPU side follows shared/knowledge/ascend-facts.md.

#include "kernels.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "source_text.hpp"

namespace migrate_attention {
namespace {

using migrate::sdk::ArgumentFact;
using migrate::sdk::CallFact;
using migrate::sdk::Module;

// ---- signatures ---------------------------------------------------------------------------------

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

// ---- other names of the attention libraries ------------------------------------------------------

constexpr std::string_view kFaOut =
    "flash-attn's forward returns (out, softmax_lse, ...); npu_fusion_attention returns 7 values: "
    "attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels.";

const std::vector<NameRule>& nameRules() {
  static const std::vector<NameRule> kRules = {
      // ATT-007: flash-attn internals and compiled extensions.
      {"flash_attn.flash_attn_interface._flash_attn_forward", "ATT-007", "torch_npu.npu_fusion_attention",
       kFaOut},
      {"flash_attn.flash_attn_interface._wrapped_flash_attn_forward", "ATT-007",
       "torch_npu.npu_fusion_attention", kFaOut},
      {"flash_attn.flash_attn_interface._flash_attn_varlen_forward", "ATT-007",
       "torch_npu.npu_fusion_attention (input_layout=\"TND\")",
       "actual_seq_qlen/actual_seq_kvlen are cu_seqlens without the leading 0."},
      {"flash_attn.flash_attn_interface._wrapped_flash_attn_varlen_forward", "ATT-007",
       "torch_npu.npu_fusion_attention (input_layout=\"TND\")",
       "actual_seq_qlen/actual_seq_kvlen are cu_seqlens without the leading 0."},
      {"flash_attn.flash_attn_interface._flash_attn_backward", "ATT-007",
       "torch_npu.npu_fusion_attention_grad",
       "It needs softmax_max/softmax_sum (not softmax_lse) and the seed/offset of the forward."},
      {"flash_attn.flash_attn_interface._wrapped_flash_attn_backward", "ATT-007",
       "torch_npu.npu_fusion_attention_grad",
       "It needs softmax_max/softmax_sum (not softmax_lse) and the seed/offset of the forward."},
      {"flash_attn.flash_attn_interface._flash_attn_varlen_backward", "ATT-007",
       "torch_npu.npu_fusion_attention_grad (input_layout=\"TND\")",
       "It needs softmax_max/softmax_sum (not softmax_lse) and the seed/offset of the forward."},
      {"flash_attn.flash_attn_interface._wrapped_flash_attn_varlen_backward", "ATT-007",
       "torch_npu.npu_fusion_attention_grad (input_layout=\"TND\")",
       "It needs softmax_max/softmax_sum (not softmax_lse) and the seed/offset of the forward."},
      {"flash_attn.flash_attn_interface.*", "ATT-007",
       "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "An internal of flash-attn (autograd Function or kernel wrapper)."},
      {"flash_attn_2_cuda.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "The compiled CUDA extension of flash-attn 2."},
      {"flash_attn_cuda.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "The compiled CUDA extension of flash-attn 1."},
      {"flash_attn_3_cuda.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "The compiled CUDA extension of FlashAttention-3."},
      {"flash_attn_interface.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "An internal of FlashAttention-3 (Hopper only)."},
      {"flash_attn_3.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "An internal of FlashAttention-3 (Hopper only)."},
      {"flash_attn.cute.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "An internal of FlashAttention-4 (CuTe DSL, Hopper/Blackwell only)."},
      {"flash_attn.flash_attn_triton.*", "ATT-007", "torch_npu.npu_fusion_attention",
       "flash-attn's Triton implementation (NVIDIA Triton kernels)."},
      {"flash_attn.flash_attn_triton_og.*", "ATT-007", "torch_npu.npu_fusion_attention",
       "flash-attn's Triton implementation (NVIDIA Triton kernels)."},
      {"torch.ops.flash_attn.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "flash-attn's registered CUDA operators."},
      {"torch.ops.flash_attn_3.*", "ATT-007", "torch_npu.npu_fusion_attention / npu_fusion_attention_grad",
       "FlashAttention-3's registered CUDA operators."},
      // ATT-008: bert_padding (plain PyTorch, but shipped inside flash-attn).
      {"flash_attn.bert_padding.*", "ATT-008",
       "the same helper copied into the project (plain PyTorch + einops)", ""},
      {"flash_attn.bert_padding.unpad_input", "ATT-008",
       "the same helper copied into the project (plain PyTorch + einops)",
       "It returns 5 values since flash-attn 2.6 (seqused added) and 4 before: copy the version the code "
       "unpacks."},
      // ATT-009: flash-attn's nn.Modules and model zoo.
      {"flash_attn.modules.*", "ATT-009",
       "a module around F.scaled_dot_product_attention (native) or torch_npu.npu_fusion_attention",
       "flash-attn's modules call its CUDA kernels (attention, fused dense, rotary, layer norm) inside."},
      {"flash_attn.modules.mha.*", "ATT-009",
       "torch.nn.MultiheadAttention, or a module around F.scaled_dot_product_attention / "
       "torch_npu.npu_fusion_attention",
       "MHA / FlashSelfAttention / FlashCrossAttention take packed qkv (batch, seqlen, 3, heads, dim)."},
      {"flash_attn.models.*", "ATT-009", "the corresponding transformers model (SDPA attention runs on NPU)",
       "flash-attn's model zoo is built from its CUDA kernels."},
      {"flash_attn.flash_attention.*", "ATT-009",
       "a module around F.scaled_dot_product_attention (native) or torch_npu.npu_fusion_attention",
       "flash-attn 1.x FlashAttention / FlashMHA modules."},
      {"flash_attn.flash_blocksparse_attention.*", "ATT-009",
       "torch_npu.npu_fusion_attention with an atten_mask describing the block pattern",
       "Block-sparse attention has no NPU kernel of its own."},
      {"flash_attn.flash_blocksparse_attn_interface.*", "ATT-009",
       "torch_npu.npu_fusion_attention with an atten_mask describing the block pattern",
       "Block-sparse attention has no NPU kernel of its own."},
      // ATT-010: rotary embeddings.
      {"flash_attn.layers.rotary.*", "ATT-010", "torch_npu.npu_rotary_mul",
       "interleaved=False (GPT-NeoX halves) is rotary_mode=\"half\", interleaved=True (GPT-J pairs) is "
       "rotary_mode=\"interleave\"; flash-attn takes cos/sin of shape (seqlen, rotary_dim / 2), "
       "npu_rotary_mul "
       "takes them broadcastable to x with the full rotary_dim."},
      {"flash_attn.ops.triton.rotary.*", "ATT-010", "torch_npu.npu_rotary_mul",
       "interleaved=False is rotary_mode=\"half\", interleaved=True is rotary_mode=\"interleave\"."},
      // ATT-011: layer norm / RMS norm.
      {"flash_attn.ops.layer_norm.*", "ATT-011",
       "torch.nn.functional.layer_norm (native) or torch_npu.npu_rms_norm",
       "dropout_add_layer_norm fuses dropout + residual add + norm: write the three steps."},
      {"flash_attn.ops.rms_norm.*", "ATT-011", "torch_npu.npu_rms_norm(x, gamma, epsilon)[0]",
       "npu_rms_norm returns (y, rstd): take [0]."},
      {"flash_attn.ops.triton.layer_norm.*", "ATT-011",
       "torch_npu.npu_rms_norm(x, gamma, epsilon)[0] for RMSNorm, torch.nn.functional.layer_norm otherwise",
       "layer_norm_fn / rms_norm_fn also fuse the residual add and dropout (prenorm=True returns the "
       "residual)."},
      // ATT-012: fused dense / MLP / activations / cross-entropy.
      {"flash_attn.ops.fused_dense.*", "ATT-012", "torch.nn.Linear (+ the activation)",
       "FusedDense / FusedMLP / fused_mlp_func are cuBLASLt epilogue fusions."},
      {"flash_attn.ops.activations.*", "ATT-012", "torch.nn.functional.gelu / silu, or torch_npu.npu_swiglu",
       ""},
      {"flash_attn.ops.triton.mlp.*", "ATT-012", "torch.nn.Linear + activation", ""},
      {"flash_attn.ops.triton.linear.*", "ATT-012", "torch.nn.Linear + activation", ""},
      {"flash_attn.ops.triton.k_activations.*", "ATT-012", "torch.nn.functional.gelu / relu", ""},
      {"flash_attn.modules.mlp.*", "ATT-012", "an nn.Linear MLP (torch_npu.npu_swiglu for the SwiGLU gate)",
       "Mlp / GatedMlp / FusedMLP use fused dense kernels."},
      {"flash_attn.layers.patch_embed.*", "ATT-012", "nn.Conv2d / nn.Linear patch embedding",
       "PatchEmbed uses flash-attn's fused dense."},
      {"flash_attn.losses.*", "ATT-012", "torch.nn.CrossEntropyLoss",
       "flash-attn's CrossEntropyLoss (Triton) also takes label_smoothing, inplace_backward and "
       "process_group "
       "(tensor-parallel vocab): keep label_smoothing, drop the rest."},
      {"flash_attn.ops.triton.cross_entropy.*", "ATT-012", "torch.nn.functional.cross_entropy", ""},
      // ATT-013: version checks, and anything else of flash-attn.
      {"flash_attn.*", "ATT-013", "remove, or keep behind the flash-attn import guard", ""},
      {"flash_attn.__version__", "ATT-013", "remove, or keep behind the flash-attn import guard",
       "flash-attn is not installed on an NPU host; version checks that gate causal alignment "
       "(bottom-right since 2.1) should become an explicit sparse_mode choice."},
      // ATT-016: xformers (bias classes are ATT-015 and memory_efficient_attention ATT-014).
      {"xformers.*", "ATT-016", "plain PyTorch or the torch_npu op for the same job", ""},
      {"xformers.__version__", "ATT-013", "remove, or keep behind the xformers import guard",
       "xformers is not installed on an NPU host; the version check only matters for the CUDA path."},
      {"xformers.ops.unbind", "ATT-016", "torch.unbind", ""},
      {"xformers.ops.stack_or_none", "ATT-016", "torch.stack", ""},
      {"xformers.ops.SwiGLU", "ATT-016",
       "an nn.Module computing w3(silu(w1(x)) * w2(x)), or torch_npu.npu_swiglu", ""},
      {"xformers.ops.swiglu", "ATT-016", "torch_npu.npu_swiglu (or silu(x @ w1) * (x @ w2) @ w3)", ""},
      {"xformers.ops.swiglu_op.*", "ATT-016", "torch_npu.npu_swiglu", ""},
      {"xformers.ops.scaled_index_add", "ATT-016", "torch.index_add (with the scaling applied first)", ""},
      {"xformers.ops.index_select_cat", "ATT-016", "torch.cat of torch.index_select results", ""},
      {"xformers.ops.rope_padded", "ATT-016", "torch_npu.npu_rotary_mul + a KV-cache write", ""},
      {"xformers.ops.fmha.*", "ATT-016",
       "nothing for kernel selectors (drop them); torch_npu.npu_fusion_attention / npu_fusion_attention_grad "
       "for "
       "the private forward/backward",
       "xformers' fmha internals: kernel selectors (cutlass / flash / triton / ck FwOp, BwOp), "
       "Inputs/Context and "
       "the private _memory_efficient_attention_* functions are CUDA-only."},
      {"xformers.ops.MemoryEfficientAttentionFlashAttentionOp", "ATT-016",
       "nothing: drop the kernel selection", "It names a CUDA kernel of xformers."},
      {"xformers.ops.MemoryEfficientAttentionCutlassOp", "ATT-016", "nothing: drop the kernel selection",
       "It names a CUDA kernel of xformers."},
      {"xformers.ops.MemoryEfficientAttentionCutlassFwdFlashBwOp", "ATT-016",
       "nothing: drop the kernel selection", "It names a CUDA kernel of xformers."},
      {"xformers.ops.MemoryEfficientAttentionTritonFwdFlashBwOp", "ATT-016",
       "nothing: drop the kernel selection", "It names a CUDA kernel of xformers."},
      {"xformers.components.*", "ATT-016", "F.scaled_dot_product_attention (native on NPU)",
       "xformers' legacy attention components."},
      {"xformers.factory.*", "ATT-016",
       "an nn.TransformerEncoder or a hand-written block over F.scaled_dot_product_attention",
       "xformers' legacy model factory."},
      // ATT-020: flex attention (needs torch.compile with inductor/Triton).
      {"torch.nn.attention.flex_attention.*", "ATT-020",
       "F.scaled_dot_product_attention with an explicit boolean mask, or torch_npu.npu_fusion_attention "
       "(sparse_mode / atten_mask)",
       "flex_attention is compiled by inductor into Triton kernels, which the NPU does not run."},
      // ATT-024: other CUDA-only attention kernel libraries.
      {"sageattention.*", "ATT-024", "torch_npu.npu_fusion_attention or F.scaled_dot_product_attention",
       "SageAttention quantizes Q/K to INT8 in CUDA/Triton kernels; its tensor_layout \"HND\" is BNSD and "
       "\"NHD\" is BSND."},
      {"spas_sage_attn.*", "ATT-024", "torch_npu.npu_fusion_attention or F.scaled_dot_product_attention",
       "Sparse SageAttention: CUDA/Triton kernels only."},
      {"flashinfer.*", "ATT-024",
       "torch_npu.npu_fused_infer_attention_score (block_table for paged KV) for attention, the torch / "
       "torch_npu "
       "op for its other kernels (sampling, norms, quantization)",
       "FlashInfer's kernels (prefill/decode wrappers over paged KV caches, sampling, quantization) are "
       "CUDA-only."},
      {"vllm_flash_attn.*", "ATT-024", "torch_npu.npu_fusion_attention / npu_fused_infer_attention_score",
       "vLLM's build of flash-attn."},
      {"vllm.vllm_flash_attn.*", "ATT-024",
       "torch_npu.npu_fusion_attention / npu_fused_infer_attention_score", "vLLM's build of flash-attn."},
      {"transformer_engine.pytorch.DotProductAttention", "ATT-024",
       "F.scaled_dot_product_attention or torch_npu.npu_fusion_attention",
       "Transformer Engine is CUDA-only."},
      {"transformer_engine.pytorch.MultiheadAttention", "ATT-024",
       "torch.nn.MultiheadAttention or a module around torch_npu.npu_fusion_attention",
       "Transformer Engine is CUDA-only."},
      {"transformer_engine.pytorch.attention.*", "ATT-024",
       "F.scaled_dot_product_attention or torch_npu.npu_fusion_attention",
       "Transformer Engine is CUDA-only."},
  };
  return kRules;
}

struct NameIndex {
  std::unordered_map<std::string, const NameRule*> exact;
  std::unordered_map<std::string, const NameRule*> prefix;
};

const NameIndex& nameIndex() {
  static const NameIndex kIndex = [] {
    NameIndex index;
    for (const NameRule& r : nameRules()) {
      const std::string p(r.pattern);
      if (p.size() > 2 && p.compare(p.size() - 2, 2, ".*") == 0)
        index.prefix.emplace(p.substr(0, p.size() - 2), &r);
      else
        index.exact.emplace(p, &r);
    }
    return index;
  }();
  return kIndex;
}

// ---- argument mapping ---------------------------------------------------------------------------

bool isOneOf(const std::string& s, std::initializer_list<std::string_view> values) {
  for (std::string_view v : values)
    if (s == v) return true;
  return false;
}

bool isZero(const std::string& s) {
  return isOneOf(s, {"0", "0.0", "0.", ".0", "0.00"});
}

bool isNone(const std::string& s) {
  return s == "None";
}

/// Whether `s` is a primary expression (a name, attribute chain, call or subscript) that needs no
/// parentheses before `.attr`, `[i]` or an operator.
bool isSimple(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0 && !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
      return false;
    }
  }
  return depth == 0;
}

std::string paren(const std::string& s) {
  return isSimple(s) ? s : "(" + s + ")";
}

/// "(-1, -1)" → {"-1", "-1"}; false when not a two-element literal.
bool splitPair(const std::string& text, std::string& left, std::string& right) {
  std::string t = trim(text);
  if (t.size() < 2 || !((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']')))
    return false;
  t = t.substr(1, t.size() - 2);
  const std::size_t comma = t.find(',');
  if (comma == std::string::npos || t.find(',', comma + 1) != std::string::npos) return false;
  left = trim(t.substr(0, comma));
  right = trim(t.substr(comma + 1));
  return !left.empty() && !right.empty();
}

bool unbounded(const std::string& s) {
  return s == "-1" || s == "None";
}

/// The text on one line: each line break and the indentation after it become one space.
std::string oneLine(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      while (i + 1 < text.size() && std::isspace(static_cast<unsigned char>(text[i + 1]))) ++i;
      out += ' ';
      continue;
    }
    out += text[i];
  }
  return trim(out);
}

/// Whether the call passes `*args` or `**kwargs` (the engine records neither).
void noteSplats(const Module& module, const CallFact& call, Details& d) {
  const std::string_view t = module.text(call.range);
  const std::size_t open = t.find('(', call.name_range.end_byte - call.range.start_byte);
  if (open == std::string_view::npos) return;
  for (std::size_t i = open + 1; i < t.size(); ++i) {
    if (t[i] != '*') continue;
    std::size_t j = i;
    while (j > open + 1 && std::isspace(static_cast<unsigned char>(t[j - 1]))) --j;
    const char before = t[j - 1];
    if (before != '(' && before != ',') continue;
    if (i + 1 < t.size() && t[i + 1] == '*') {
      d["kwargs_splat"] = "true";
      ++i;
    } else {
      d["args_splat"] = "true";
    }
  }
}

const std::set<std::string>& mappingKeys() {
  static const std::set<std::string> kKeys{"dropout_p",   "softmax_scale",    "causal",    "window_size",
                                           "softcap",     "alibi_slopes",     "attn_bias", "attn_mask",
                                           "block_table", "return_attn_probs"};
  return kKeys;
}

void add(Details& d, const std::string& key, const std::string& value, const char* sep = "; ") {
  std::string& slot = d[key];
  if (!slot.empty()) slot += sep;
  slot += value;
}

const char* kCausalMask =
    "torch.triu(torch.ones(2048, 2048, dtype=torch.bool, device={q}.device), diagonal=1)";

std::string causalMask(const std::string& q) {
  std::string m = kCausalMask;
  m.replace(m.find("{q}"), 3, paren(q));
  return m;
}

/// sparse_mode / atten_mask / pre_tockens / next_tockens from causal and window_size.
void mapMasking(Details& d, const std::string& q, const std::string& causal_mode,
                const std::string& alignment) {
  const std::string causal = d.count("causal") ? d["causal"] : "False";
  const std::string window = d.count("window_size") ? d["window_size"] : "(-1, -1)";
  std::string left, right;
  const bool literal_window = splitPair(window, left, right);
  const bool window_active = literal_window ? !(unbounded(left) && unbounded(right)) : !isNone(window);
  if (window_active) {
    d["npu_sparse_mode"] = "4";
    d["npu_atten_mask"] = causalMask(q);
    d["npu_pre_tockens"] = literal_window ? (unbounded(left) ? "2147483647" : left) : paren(window) + "[0]";
    if (causal == "True")
      d["npu_next_tockens"] = "0";
    else
      d["npu_next_tockens"] =
          literal_window ? (unbounded(right) ? "2147483647" : right) : paren(window) + "[1]";
    d["causal_alignment"] = alignment;
    if (!literal_window)
      add(d, "npu_notes",
          "window_size is computed at run time: sparse_mode=4 (band) only when it is not (-1, -1)");
    return;
  }
  if (causal == "True") {
    d["npu_sparse_mode"] = causal_mode;
    d["npu_atten_mask"] = causalMask(q);
    d["causal_alignment"] = alignment;
  } else if (causal == "False") {
    d["npu_sparse_mode"] = "0";
    d["npu_atten_mask"] = "None";
  } else {
    d["npu_sparse_mode"] = causal_mode + " if " + paren(causal) + " else 0";
    d["npu_atten_mask"] = causalMask(q) + " if " + paren(causal) + " else None";
    d["causal_alignment"] = alignment;
  }
}

void mapScaleAndDropout(Details& d, const std::string& head_source, bool has_dropout) {
  const std::string scale = d.count("softmax_scale") ? d["softmax_scale"] : "None";
  d["npu_scale"] = isNone(scale) ? "1.0 / math.sqrt(" + paren(head_source) + ".shape[-1])" : scale;
  if (!has_dropout) {
    d["keep_prob"] = "1.0";
    return;
  }
  const std::string p = d.count("dropout_p") ? d["dropout_p"] : "0.0";
  d["keep_prob"] = isZero(p) ? "1.0" : "1.0 - " + paren(p);
}

void mapUnsupported(Details& d) {
  auto given = [&](const char* key, bool (*off)(const std::string&)) {
    auto it = d.find(key);
    return it != d.end() && !off(it->second);
  };
  if (given("softcap", isZero))
    add(d, "npu_unsupported", "softcap (tanh soft-capping has no npu_fusion_attention parameter)");
  if (given("alibi_slopes", isNone))
    add(d, "npu_unsupported", "alibi_slopes (build the ALiBi bias and pass it as pse)");
  if (given("return_attn_probs", [](const std::string& s) { return s == "False"; }))
    add(d, "npu_unsupported",
        "return_attn_probs / return_lse (npu_fusion_attention returns softmax_max/softmax_sum, not "
        "probabilities or lse)");
  if (given("qv", isNone)) add(d, "npu_unsupported", "qv (FA3 MLA query-value product)");
  for (const char* fp8 : {"q_descale", "k_descale", "v_descale"})
    if (given(fp8, isNone)) {
      add(d, "npu_unsupported", "FP8 descale factors");
      break;
    }
  if (given("score_mod", isNone) || given("mask_mod", isNone))
    add(d, "npu_unsupported", "score_mod / mask_mod (express the mask as atten_mask)");
  if (given("learnable_sink", isNone)) add(d, "npu_unsupported", "learnable_sink");
  if (given("cache_batch_idx", isNone))
    add(d, "npu_unsupported", "cache_batch_idx (gather the cache rows first)");
  if (given("cache_leftpad", isNone)) add(d, "npu_unsupported", "cache_leftpad");
}

std::string valueOr(const Details& d, const char* key, const std::string& fallback) {
  auto it = d.find(key);
  return it == d.end() ? fallback : it->second;
}

void mapFlash(const KernelSpec& spec, Details& d) {
  const bool fa1 = spec.library == "flash_attn_1";
  const bool has_dropout = spec.library == "flash_attn" || fa1;
  const std::string mode = fa1 ? "2" : "3";
  const std::string alignment = fa1 ? "top-left (flash-attn < 2.1)" : "bottom-right (flash-attn >= 2.1)";
  std::string q = valueOr(d, "q", "q");
  std::string head = q;
  d["npu_op"] = "torch_npu.npu_fusion_attention";
  d["npu_required"] = "true";
  switch (spec.kind) {
    case KernelKind::Dense:
      d["layout"] = "BSND";
      d["npu_input_layout"] = "BSND";
      d["npu_head_num"] = paren(q) + ".shape[2]";
      break;
    case KernelKind::KvPacked:
      d["layout"] = "BSND (q) + packed kv (batch, seqlen, 2, heads, dim)";
      d["npu_input_layout"] = "BSND";
      d["npu_head_num"] = paren(q) + ".shape[2]";
      d["npu_split"] = "k, v = " + paren(valueOr(d, "kv", "kv")) + ".unbind(dim=2)";
      break;
    case KernelKind::QkvPacked: {
      const std::string qkv = valueOr(d, "qkv", "qkv");
      d["layout"] = "packed qkv (batch, seqlen, 3, heads, dim)";
      d["npu_input_layout"] = "BSND";
      d["npu_head_num"] = paren(qkv) + ".shape[3]";
      d["npu_split"] = "q, k, v = " + paren(qkv) + ".unbind(dim=2)";
      q = "q";
      head = paren(qkv);
      break;
    }
    case KernelKind::Varlen:
    case KernelKind::VarlenKvPacked:
    case KernelKind::VarlenQkvPacked: {
      d["npu_input_layout"] = "TND";
      if (spec.kind == KernelKind::VarlenQkvPacked) {
        const std::string qkv = valueOr(d, "qkv", "qkv");
        d["layout"] = "packed qkv (total_tokens, 3, heads, dim)";
        d["npu_head_num"] = paren(qkv) + ".shape[2]";
        d["npu_split"] = "q, k, v = " + paren(qkv) + ".unbind(dim=1)";
        q = "q";
        head = paren(qkv);
        const std::string cu = valueOr(d, "cu_seqlens", "cu_seqlens");
        d["npu_actual_seq_qlen"] = paren(cu) + "[1:].tolist()";
        d["npu_actual_seq_kvlen"] = paren(cu) + "[1:].tolist()";
      } else {
        d["layout"] =
            spec.kind == KernelKind::Varlen ? "TND" : "TND (q) + packed kv (total_tokens, 2, heads, dim)";
        d["npu_head_num"] = paren(q) + ".shape[1]";
        if (spec.kind == KernelKind::VarlenKvPacked)
          d["npu_split"] = "k, v = " + paren(valueOr(d, "kv", "kv")) + ".unbind(dim=1)";
        if (d.count("cu_seqlens_q")) d["npu_actual_seq_qlen"] = paren(d["cu_seqlens_q"]) + "[1:].tolist()";
        if (d.count("cu_seqlens_k")) d["npu_actual_seq_kvlen"] = paren(d["cu_seqlens_k"]) + "[1:].tolist()";
      }
      add(d, "npu_notes",
          "actual_seq_qlen/actual_seq_kvlen are cumulative lengths WITHOUT the leading 0 (flash-attn's "
          "cu_seqlens "
          "start with 0)");
      if (d.count("block_table") && !isNone(d["block_table"]))
        add(d, "npu_unsupported", "block_table (paged KV: use torch_npu.npu_fused_infer_attention_score)");
      break;
    }
    case KernelKind::KvCache: {
      const std::string k_cache = valueOr(d, "k_cache", "k_cache");
      d["layout"] =
          "BSND (q) + KV cache (batch, seqlen_cache, heads_k, dim), paged when block_table is given";
      d["npu_op"] = "torch_npu.npu_fused_infer_attention_score";
      d["npu_input_layout"] = "BSND";
      d["npu_num_heads"] = paren(q) + ".shape[2]";
      d["npu_num_key_value_heads"] = paren(k_cache) + ".shape[2]";
      if (d.count("cache_seqlens")) d["npu_actual_seq_lengths_kv"] = d["cache_seqlens"];
      if (d.count("block_table") && !isNone(d["block_table"])) {
        d["npu_block_table"] = d["block_table"];
        d["npu_block_size"] = paren(k_cache) + ".shape[1]";
      }
      if (d.count("k_new") && !isNone(d["k_new"]))
        add(d, "npu_notes",
            "flash_attn_with_kvcache appends k/v to the cache in place at cache_seqlens: write them into "
            "k_cache/v_cache before the call and add their length to actual_seq_lengths_kv");
      if (d.count("rotary_cos") && !isNone(d["rotary_cos"]))
        add(d, "npu_notes",
            "rotary_cos/rotary_sin were applied inside the kernel: apply torch_npu.npu_rotary_mul to q and k "
            "first");
      mapMasking(d, q, mode, alignment);
      mapScaleAndDropout(d, head, false);
      d.erase("keep_prob");
      mapUnsupported(d);
      d["npu_returns"] = "(attention_out, softmax_lse): take [0]";
      return;
    }
    default:
      break;
  }
  mapMasking(d, q, mode, alignment);
  mapScaleAndDropout(d, head, has_dropout);
  mapUnsupported(d);
  d["npu_returns"] = "a tuple of 7 values: attention_out is [0]";
  if (spec.library == "flash_attn_3")
    add(d, "npu_notes",
        "FA3 releases before 3.0 returned (out, softmax_lse): check how the result is unpacked");
}

void mapXformers(Details& d, const std::string& bias_class) {
  const std::string q = valueOr(d, "q", "q");
  const std::string bias = valueOr(d, "attn_bias", "None");
  d["layout"] = "BMHK (= BSND)";
  d["npu_op"] = "torch_npu.npu_fusion_attention";
  d["npu_required"] = "true";
  d["npu_input_layout"] = "BSND";
  d["npu_head_num"] = paren(q) + ".shape[2]";
  if (!bias_class.empty()) d["attn_bias_class"] = bias_class;
  const auto has = [&](std::string_view part) { return bias_class.find(part) != std::string::npos; };
  if (isNone(bias)) {
    d["npu_sparse_mode"] = "0";
    d["npu_atten_mask"] = "None";
  } else if (has("Paged") || has("PaddedKeys") || has("Gappy")) {
    d["npu_op"] = "torch_npu.npu_fused_infer_attention_score";
    add(d, "npu_notes",
        bias_class +
            " describes decoding against a padded/paged KV cache: pass the per-sequence KV lengths as "
            "actual_seq_lengths_kv (and block_table for paged caches)");
    d["npu_sparse_mode"] = has("Causal") ? "3" : "0";
    d["npu_atten_mask"] = has("Causal") ? causalMask(q) : "None";
  } else if (has("BlockDiagonal")) {
    d["layout"] = "BMHK with batch 1 holding concatenated sequences (block-diagonal bias)";
    d["npu_input_layout"] = "TND";
    d["npu_head_num"] = paren(q) + ".shape[2]";
    d["npu_actual_seq_qlen"] = paren(bias) + ".q_seqinfo.seqstart_py[1:]";
    d["npu_actual_seq_kvlen"] = paren(bias) + ".k_seqinfo.seqstart_py[1:]";
    add(d, "npu_notes", "squeeze the batch dimension of q/k/v (1, total_tokens, heads, dim) for TND");
    if (has("Local")) {
      d["npu_sparse_mode"] = "4";
      d["npu_atten_mask"] = causalMask(q);
      add(d, "npu_notes", "local attention: set pre_tockens/next_tockens from the mask's window");
    } else if (has("Causal")) {
      d["npu_sparse_mode"] = "3";
      d["npu_atten_mask"] = causalMask(q);
      d["causal"] = "True (" + bias_class + ")";
      d["causal_alignment"] =
          has("BottomRight") ? "bottom-right" : "top-left per block (same as bottom-right for square blocks)";
    } else {
      d["npu_sparse_mode"] = "0";
      d["npu_atten_mask"] = "None";
    }
  } else if (has("LowerTriangular") || has("LocalAttention")) {
    const bool bottom_right = has("BottomRight");
    d["causal"] = "True (" + bias_class + ")";
    d["causal_alignment"] = bottom_right ? "bottom-right" : "top-left";
    d["npu_atten_mask"] = causalMask(q);
    if (has("Local")) {
      d["npu_sparse_mode"] = "4";
      add(d, "npu_notes", "local attention: set pre_tockens/next_tockens from the mask's window");
    } else {
      d["npu_sparse_mode"] = bottom_right ? "3" : "2";
    }
    if (has("TensorBias"))
      add(d, "npu_notes", "the tensor added to the causal mask becomes pse (an additive bias)");
  } else {
    d["npu_sparse_mode"] = "0";
    d["npu_atten_mask"] =
        "~" + paren(bias) + " (boolean mask) or None with pse=" + bias + " (additive float bias)";
    d["mask_polarity"] = "inverted: npu_fusion_attention's atten_mask is True where attention is NOT allowed";
    add(d, "npu_notes",
        "a tensor attn_bias is added to the scores in xformers: pass an additive float bias as pse");
  }
  if (d.count("op") && !isNone(d["op"])) add(d, "npu_notes", "op= selects an xformers CUDA kernel: drop it");
  mapScaleAndDropout(d, q, true);
  d["npu_returns"] = "a tuple of 7 values: attention_out is [0]";
}

void mapSdpa(Details& d) {
  const std::string q = valueOr(d, "q", "query");
  d["layout"] = "BNSD";
  d["npu_op"] = "torch_npu.npu_fusion_attention";
  d["npu_required"] = "false";
  d["npu_input_layout"] = "BNSD";
  d["npu_head_num"] = paren(q) + ".shape[1]";
  const std::string mask = valueOr(d, "attn_mask", "None");
  if (!isNone(mask)) {
    d["npu_atten_mask"] = "~" + paren(mask);
    d["npu_sparse_mode"] = "0";
    d["mask_polarity"] =
        "inverted: SDPA's boolean attn_mask is True where attention IS allowed, npu_fusion_attention's "
        "atten_mask "
        "is True where it is NOT; a float (additive) attn_mask goes to pse instead";
  } else {
    mapMasking(d, q, "2", "top-left (SDPA is_causal)");
    d.erase("window_size");
  }
  mapScaleAndDropout(d, q, true);
  if (d.count("enable_gqa") && d["enable_gqa"] != "False")
    add(d, "npu_notes", "GQA is native in npu_fusion_attention (query heads a multiple of key/value heads)");
  d["npu_returns"] = "a tuple of 7 values: attention_out is [0]";
}

}  // namespace

const KernelSpec* findKernel(const std::string& resolved) {
  const auto& index = kernelIndex();
  auto it = index.find(resolved);
  return it == index.end() ? nullptr : it->second;
}

const NameRule* findNameRule(const std::string& resolved) {
  const NameIndex& index = nameIndex();
  if (auto it = index.exact.find(resolved); it != index.exact.end()) return it->second;
  std::string prefix = resolved;
  for (auto dot = prefix.rfind('.'); dot != std::string::npos; dot = prefix.rfind('.')) {
    prefix.resize(dot);
    if (auto it = index.prefix.find(prefix); it != index.prefix.end()) return it->second;
  }
  return nullptr;
}

std::string xformersBiasClass(const std::string& resolved) {
  if (resolved.rfind("xformers.ops.", 0) != 0) return {};
  std::size_t start = 13;
  while (start < resolved.size()) {
    std::size_t dot = resolved.find('.', start);
    const std::string seg =
        resolved.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool upper = !seg.empty() && std::isupper(static_cast<unsigned char>(seg[0]));
    if (upper && (seg == "AttentionBias" || (seg.size() > 4 && seg.compare(seg.size() - 4, 4, "Mask") == 0) ||
                  (seg.size() > 4 && seg.compare(seg.size() - 4, 4, "Bias") == 0)))
      return seg;
    if (upper) return {};  // another class (an op selector, SwiGLU, ...)
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return {};
}

bool isLibraryModule(const std::string& resolved) {
  static const std::set<std::string> kModules{
      "flash_attn",
      "flash_attn.flash_attn_interface",
      "flash_attn.bert_padding",
      "flash_attn.layers",
      "flash_attn.layers.rotary",
      "flash_attn.ops",
      "flash_attn.ops.triton",
      "flash_attn.ops.triton.rotary",
      "flash_attn.ops.layer_norm",
      "flash_attn.ops.rms_norm",
      "flash_attn.ops.triton.layer_norm",
      "flash_attn.ops.fused_dense",
      "flash_attn.modules",
      "flash_attn.modules.mha",
      "flash_attn.modules.mlp",
      "flash_attn.losses",
      "flash_attn.losses.cross_entropy",
      "flash_attn.models",
      "flash_attn.cute",
      "flash_attn_interface",
      "flash_attn_3",
      "flash_attn_2_cuda",
      "xformers",
      "xformers.ops",
      "xformers.ops.fmha",
      "xformers.ops.fmha.attn_bias",
      "xformers.components",
      "sageattention",
      "flashinfer",
      "torch.nn.attention.flex_attention",
  };
  return kModules.count(resolved) != 0;
}

Details describeCall(const KernelSpec& spec, const Module& module, const CallFact& call,
                     const std::string& bias_class) {
  Details d;
  d["library"] = std::string(spec.library);
  d["function"] = std::string(spec.function);
  d["call"] = "true";
  for (const ArgumentFact& a : call.args) {
    const std::string text = oneLine(module.text(a.range));
    const Param* p = nullptr;
    if (!a.keyword.empty()) {
      for (const Param& cand : spec.params)
        if (cand.name == a.keyword) p = &cand;
      if (!p) {
        add(d, "other_kwargs", a.keyword + "=" + text, ", ");
        continue;
      }
    } else if (a.index >= 0 &&
               static_cast<std::size_t>(a.index) < std::min(spec.positional, spec.params.size())) {
      p = &spec.params[static_cast<std::size_t>(a.index)];
    } else {
      add(d, "unmapped_args", text, ", ");
      continue;
    }
    d[std::string(p->key)] = text;
  }
  noteSplats(module, call, d);
  // Defaults of the parameters that decide the mapping, so the emit stage sees every decision.
  for (const Param& p : spec.params) {
    const std::string key(p.key);
    if (d.count(key) || p.default_value.empty() || !mappingKeys().count(key)) continue;
    d[key] = std::string(p.default_value);
    add(d, "defaulted", key, ",");
  }
  if (spec.kind == KernelKind::VarlenQkvPacked) {
    if (d.count("cu_seqlens")) d["cu_seqlens_q"] = d["cu_seqlens_k"] = d["cu_seqlens"];
    if (d.count("max_seqlen")) d["max_seqlen_q"] = d["max_seqlen_k"] = d["max_seqlen"];
  }
  if (spec.kind == KernelKind::Xformers)
    mapXformers(d, bias_class);
  else if (spec.kind == KernelKind::Sdpa)
    mapSdpa(d);
  else
    mapFlash(spec, d);
  return d;
}

Details describeReference(const KernelSpec& spec) {
  Details d;
  d["library"] = std::string(spec.library);
  d["function"] = std::string(spec.function);
  d["call"] = "false";
  switch (spec.kind) {
    case KernelKind::Sdpa:
      d["layout"] = "BNSD";
      d["npu_required"] = "false";
      break;
    case KernelKind::KvCache:
      d["npu_op"] = "torch_npu.npu_fused_infer_attention_score";
      d["npu_required"] = "true";
      break;
    default:
      d["npu_op"] = "torch_npu.npu_fusion_attention";
      d["npu_required"] = "true";
      break;
  }
  if (spec.kind == KernelKind::Sdpa) d["npu_op"] = "torch_npu.npu_fusion_attention";
  return d;
}

}  // namespace migrate_attention

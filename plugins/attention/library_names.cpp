// The other names of the attention libraries (name rules) and the name lookups of kernels.hpp.

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels.hpp"

namespace migrate_attention {
namespace {

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
      // ATT-020: flex attention (needs torch.compile with inductor/Triton). Only the kernel and the
      // block-mask builder: the mask combinators (and_masks, noop_mask), create_mask (a dense mask,
      // eager) and BlockMask as a type or data structure run without inductor.
      {"torch.nn.attention.flex_attention.flex_attention", "ATT-020",
       "F.scaled_dot_product_attention with an explicit boolean mask, or torch_npu.npu_fusion_attention "
       "(sparse_mode / atten_mask)",
       "flex_attention is compiled by inductor into Triton kernels, which the NPU does not run."},
      {"torch.nn.attention.flex_attention.create_block_mask", "ATT-020",
       "F.scaled_dot_product_attention with an explicit boolean mask, or torch_npu.npu_fusion_attention "
       "(sparse_mode / atten_mask)",
       "The block mask exists to feed flex_attention, which inductor compiles into Triton kernels."},
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
      {"ring_flash_attn.*", "ATT-024",
       "torch_npu.npu_fusion_attention inside a ring / context-parallel loop over HCCL send/recv",
       "ring-flash-attn runs flash-attn's CUDA kernels block by block and exchanges K/V with NCCL P2P."},
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

}  // namespace

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
      "ring_flash_attn",
      "torch.nn.attention.flex_attention",
  };
  return kModules.count(resolved) != 0;
}

}  // namespace migrate_attention

// Replacement path and effort of a custom kernel from its name and the features of its body.
// The categories are heuristics: a name says what a kernel computes far more often than not, and
// a wrong guess costs a reviewer one look, while no guess leaves every kernel at "rewrite".

#include "kernel_advice.hpp"

#include <algorithm>
#include <cctype>

#include "common.hpp"

namespace custom_ops {
namespace {

struct Category {
  const char* name;
  const char* kind;
  const char* path;  ///< replacement for a CUDA kernel
  double days;
  const char* npu_op;  ///< a torch_npu / native op worth naming for a Triton kernel too ("" = none)
};

// Replacement texts. torch_npu names are the ones in the shared knowledge files.
const Category kAttention{
    "attention", "torch_npu_op",
    "torch_npu.npu_fusion_attention (training; 7 outputs, atten_mask True = masked out, "
    "keep_prob = 1 - dropout_p, pass scale) or torch_npu.npu_fused_infer_attention_score "
    "(inference)",
    3, "torch_npu.npu_fusion_attention / npu_fused_infer_attention_score"};
const Category kVision{"vision_sampling", "native_torch",
                       "compose native ops (F.grid_sample, index_select, torchvision ops) as the reference "
                       "path; an Ascend C kernel only if it is a bottleneck",
                       3, ""};
const Category kQuant{"quantization", "torch_npu_op",
                      "torch_npu quantized matmul ops (npu_weight_quant_batchmatmul, npu_quant_matmul) or "
                      "native dequantize + matmul; check the packing format",
                      3, "torch_npu.npu_weight_quant_batchmatmul / npu_quant_matmul"};
const Category kGemm{"gemm", "native_torch",
                     "torch.matmul / F.linear (runs on the cube unit) with the epilogue as native ops", 1.5,
                     ""};
const Category kRmsNorm{"rms_norm", "torch_npu_op", "torch_npu.npu_rms_norm(x, gamma, epsilon)[0]", 0.5,
                        "torch_npu.npu_rms_norm"};
const Category kNorm{"normalization", "native_torch",
                     "native F.layer_norm / F.group_norm / F.batch_norm (fused by torch_npu)", 0.5, ""};
const Category kRope{"rotary_embedding", "torch_npu_op",
                     "torch_npu.npu_rotary_mul(x, cos, sin) (rotary_mode \"half\" or \"interleave\")", 1,
                     "torch_npu.npu_rotary_mul"};
const Category kSwiglu{"swiglu", "torch_npu_op",
                       "torch_npu.npu_swiglu(x, dim=-1) (Atlas A2), or native F.silu(a) * b", 0.5,
                       "torch_npu.npu_swiglu"};
const Category kSoftmax{"softmax", "native_torch",
                        "native torch.softmax / F.softmax (masking and scaling as ops)", 0.5, ""};
const Category kLoss{"loss", "native_torch",
                     "native F.cross_entropy / F.kl_div / log_softmax compositions (chunk the vocabulary to "
                     "bound memory)",
                     1, ""};
const Category kOptimizer{"optimizer", "torch_npu_op",
                          "torch_npu fused optimizers (torch_npu.optim.NpuFusedAdamW, …) or torch.optim with "
                          "foreach=True",
                          1, ""};
const Category kScan{"state_space_scan", "ascend_c",
                     "no torch_npu equivalent: keep a PyTorch reference (sequential or chunked scan) for "
                     "correctness, write an Ascend C kernel for speed",
                     8, ""};
const Category kConv{"convolution", "native_torch",
                     "native F.conv1d / F.conv2d (padding for causal variants)", 1, ""};
const Category kIndex{"indexing", "native_torch",
                      "native index ops (index_select, gather, scatter_add_, F.embedding, index_put_)", 1,
                      ""};
const Category kReduction{"reduction", "native_torch",
                          "native reductions (sum, mean, amax, norm, cumsum, topk, sort) on the tensor", 1,
                          ""};
const Category kElementwise{"elementwise", "native_torch",
                            "native elementwise torch ops (one fused expression; torch_npu fuses elementwise "
                            "chains)",
                            0.5, ""};
const Category kOther{
    "other", "ascend_c",
    "rewrite as an Ascend C custom operator (tiling over the 192 KB unified buffer, vector/cube "
    "units) behind a torch_npu op, or compose native ops if the math allows",
    5, ""};

bool has(const std::vector<std::string>& tokens, std::initializer_list<const char*> words) {
  for (const auto& t : tokens)
    for (const char* w : words)
      if (t == w) return true;
  return false;
}

bool contains(const std::string& s, std::initializer_list<const char*> parts) {
  for (const char* p : parts)
    if (s.find(p) != std::string::npos) return true;
  return false;
}

const Category& categorize(std::string_view name) {
  const std::vector<std::string> t = nameTokens(name);
  const std::string joined = lower(name);
  if (has(t, {"deform",   "deformable", "msda",        "roi",      "nms",       "im2col",  "col2im",
              "bilinear", "interp",     "interpolate", "upsample", "pool",      "pooling", "voxel",
              "voxelize", "knn",        "furthest",    "iou",      "rasterize", "render",  "trilinear"}) ||
      contains(joined, {"deform", "roiali", "roipool", "grid_sample", "gridsample"}))
    return kVision;
  if (has(t, {"attn", "attention", "flash", "mha", "mqa", "gqa", "sdpa", "paged", "mla"}) ||
      contains(joined, {"attn", "attention"}))
    return kAttention;
  if (has(t, {"quant", "dequant", "quantize", "dequantize", "int8", "int4", "fp8", "nf4", "fp4", "gptq",
              "awq", "marlin", "w8a8", "w4a16", "w4a8", "bnb"}) ||
      contains(joined, {"quant"}))
    return kQuant;
  if (has(t, {"gemm", "gemv", "matmul", "mm", "bmm", "linear", "mma", "wgmma", "hgemm", "sgemm", "cutlass",
              "spmm", "sddmm"}) ||
      contains(joined, {"gemm", "gemv", "matmul"}))
    return kGemm;
  if (contains(joined, {"rmsnorm", "rms_norm"}) || (has(t, {"rms"}) && has(t, {"norm", "normalization"})))
    return kRmsNorm;
  if (contains(joined, {"layernorm", "layer_norm", "groupnorm", "group_norm", "batchnorm", "batch_norm",
                        "instancenorm"}) ||
      has(t, {"ln", "bn", "gn"}))
    return kNorm;
  if (has(t, {"rope", "rotary", "mrope"}) || contains(joined, {"rotary"})) return kRope;
  if (contains(joined, {"swiglu"}) || (has(t, {"silu", "swish"}) && has(t, {"mul", "glu", "gate", "gated"})))
    return kSwiglu;
  if (contains(joined, {"softmax"})) return kSoftmax;
  if (contains(joined, {"crossentropy", "cross_entropy", "kldiv", "kl_div"}) ||
      has(t, {"xent", "nll", "jsd", "loss", "kl", "tvd"}))
    return kLoss;
  if (has(t, {"adam", "adamw", "sgd", "lamb", "lion", "adagrad", "optimizer", "optim", "momentum"}))
    return kOptimizer;
  if (has(t, {"selective", "ssm", "mamba", "ssd", "recurrence", "recurrent", "wkv", "rwkv"})) return kScan;
  if (has(t, {"conv", "convolution", "conv1d", "conv2d", "conv3d", "depthwise"})) return kConv;
  if (has(t,
          {"embedding", "embed", "gather", "scatter", "index", "lookup", "take", "segment", "unpad",
           "permute", "transpose", "pad", "repeat", "expand", "concat", "cat", "split", "copy", "reshape"}))
    return kIndex;
  if (has(t, {"sum",       "mean",     "reduce",    "reduction", "max",  "min",   "argmax",  "argmin",
              "norm",      "l2",       "var",       "variance",  "std",  "stats", "welford", "count",
              "histogram", "hist",     "cumsum",    "prefix",    "scan", "topk",  "sort",    "unique",
              "radix",     "bincount", "logsumexp", "lse",       "amax", "dot"}))
    return kReduction;
  if (has(t,
          {"add",     "mul",        "sub",         "div",        "bias",   "gelu",    "relu",      "silu",
           "sigmoid", "tanh",       "act",         "activation", "scale",  "scaling", "dropout",   "fill",
           "cast",    "convert",    "elementwise", "pointwise",  "axpy",   "clamp",   "exp",       "log",
           "sqrt",    "rsqrt",      "pow",         "mask",       "masked", "where",   "residual",  "geglu",
           "swish",   "mish",       "elu",         "leaky",      "abs",    "neg",     "fma",       "lerp",
           "ema",     "zero",       "zeros",       "memset",     "square", "relu6",   "hardswish", "softplus",
           "clip",    "float2half", "half2float",  "to",         "dtype",  "glu",     "dyt",       "relu2"}))
    return kElementwise;
  return kOther;
}

}  // namespace

namespace {

/// Words of an identifier split at '_' and camelCase boundaries.
std::vector<std::string> wordsOf(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(lower(cur));
    cur.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      flush();
      continue;
    }
    // camelCase boundary: lower→Upper, or the last capital of an acronym before a lowercase letter.
    if (std::isupper(static_cast<unsigned char>(c)) && !cur.empty()) {
      const char prev = cur.back();
      const bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      if (std::islower(static_cast<unsigned char>(prev)) || std::isdigit(static_cast<unsigned char>(prev)) ||
          (std::isupper(static_cast<unsigned char>(prev)) && next_lower))
        flush();
    }
    cur += c;
  }
  flush();
  return out;
}

}  // namespace

std::vector<std::string> nameTokens(std::string_view name) {
  std::vector<std::string> out = wordsOf(name);
  // `optimizer32bit2` also yields `optimizer`, `32`, `bit`, `2`; `int8` stays whole as well.
  const std::size_t whole = out.size();
  for (std::size_t i = 0; i < whole; ++i) {
    const std::string t = out[i];
    std::string part;
    bool mixed = false;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (k > 0 && (std::isdigit(static_cast<unsigned char>(t[k])) != 0) !=
                       (std::isdigit(static_cast<unsigned char>(t[k - 1])) != 0)) {
        out.push_back(part);
        part.clear();
        mixed = true;
      }
      part += t[k];
    }
    if (mixed) out.push_back(part);
  }
  return out;
}

std::string describeName(std::string_view name) {
  std::vector<std::string> words;
  for (const auto& t : wordsOf(name)) {
    if (t == "kernel" || t == "kernels" || t == "cuda" || t == "triton" || t == "impl" || t == "global" ||
        t == "k" || t == "kern")
      continue;
    if (t == "fwd")
      words.push_back("forward");
    else if (t == "bwd")
      words.push_back("backward");
    else
      words.push_back(t);
  }
  if (words.empty()) return std::string(name);
  return join(words, " ");
}

KernelAdvice adviseCudaKernel(std::string_view name, const std::set<std::string>& features) {
  const Category& c = categorize(name);
  KernelAdvice a{c.name, c.kind, c.path, c.days};
  if (a.kind == "ascend_c") {
    if (features.count("warp_intrinsics")) a.effort_days += 1;
    if (features.count("shared_memory")) a.effort_days += 1;
    if (features.count("inline_ptx")) a.effort_days += 2;
    if (features.count("tensor_cores")) a.effort_days += 2;
    a.effort_days = std::min(a.effort_days, 10.0);
  } else if (features.count("inline_ptx") || features.count("tensor_cores")) {
    a.effort_days += 0.5;  // hand-tuned numerics to re-check against the replacement
  }
  return a;
}

KernelAdvice adviseTritonKernel(std::string_view name, const std::set<std::string>& features) {
  const Category& c = categorize(name);
  KernelAdvice a;
  a.category = c.name;
  a.kind = "triton_ascend";
  std::string path =
      "triton-ascend: keep the kernel, loop over BLOCK_SIZE_SUB sub-blocks so one block fits the 192 KB "
      "unified "
      "buffer, launch min(vector cores, blocks) programs (grid <= 65535) with a grid-stride loop, drop "
      "num_warps/num_stages";
  if (features.count("tma")) path += "; replace TMA descriptors with tl.load/tl.store on pointers";
  if (*c.npu_op) path += std::string("; or call ") + c.npu_op + " instead";
  a.replacement_path = path;
  double days = 1;
  if (features.count("grid_stride_loop")) days -= 0.5;
  if (features.count("autotune")) days += 0.5;
  if (features.count("dot")) days += 1;
  if (features.count("atomics")) days += 0.5;
  if (features.count("tma")) days += 2;
  if (features.count("device_capability")) days += 0.5;
  a.effort_days = days;
  return a;
}

}  // namespace custom_ops

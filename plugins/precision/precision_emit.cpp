// emitPrecision: npu_ops.py sections and manual work for RMSNorm upcasts and complex RoPE.

#include "precision_emit.hpp"

#include <set>
#include <string>
#include <tuple>

namespace precision {

using migrate::sdk::EmitContext;
using migrate::sdk::Finding;

namespace {

std::string detail(const Finding& f, const char* key) {
  auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

std::string rmsNormWork(const Finding& f) {
  const std::string scope = detail(f, "scope");
  return "the float32 upcast in " + (scope.empty() ? std::string("this RMS norm") : scope) +
         " is correct but slow on the NPU: compute the norm with npu_ops.rms_norm(x, weight, eps) or use the "
         "module npu_ops.RMSNorm(dim, eps) (torch_npu.npu_rms_norm on the NPU, the same float32 computation "
         "elsewhere)";
}

std::string complexRopeWork(const Finding& f) {
  const bool wide = detail(f, "float64_inputs") == "true";
  if (f.resolved_api == "torch.polar")
    return "build the rotary table without complex numbers: keep angle.cos() and angle.sin() of "
           "torch.polar(abs, "
           "angle) as real (seqlen, head_dim / 2) tables" +
           std::string(wide ? ", computed in float32 rather than float64" : "") +
           ", for npu_ops.apply_rotary_emb";
  return "rotate with npu_ops.apply_rotary_emb(x, cos, sin, interleaved=True) for x of shape (batch, seqlen, "
         "heads, head_dim) instead of complex multiplication (torch_npu.npu_rotary_mul on the NPU): "
         "view_as_complex pairs features (2i, 2i + 1), which is interleaved=True, and cos / sin are the "
         "complex "
         "table's .real / .imag" +
         std::string(wide ? " in float32 (the inputs are float64 here)" : "");
}

}  // namespace

void emitPrecision(EmitContext& context) {
  std::set<std::tuple<std::string, std::string, std::string>> listed;  // file, function or line, API
  for (const Finding& f : context.findings()) {
    if (f.domain != "precision") continue;
    if (f.rule_id == "PREC-014" && detail(f, "norm_kind") == "rms") {
      context.requireSection("npu_ops.py", "op_rms_norm");
      context.addManualWork({f.rule_id, f.file, f.range.line, rmsNormWork(f)});
    } else if (f.rule_id == "PREC-005") {
      context.requireSection("npu_ops.py", "op_rotary");
      const std::string function = detail(f, "function");
      const std::string place = function.empty() ? std::to_string(f.range.line) : function;
      if (listed.insert({f.file, place, f.resolved_api}).second)
        context.addManualWork({f.rule_id, f.file, f.range.line, complexRopeWork(f)});
    }
  }
}

}  // namespace precision

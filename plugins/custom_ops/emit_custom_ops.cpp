// The custom_ops plugin's emit hook: what the run's custom_ops findings ask of the kit.

#include "emit_custom_ops.hpp"

#include "common.hpp"

namespace custom_ops {

std::string detailOf(const sdk::Finding& finding, const std::string& key) {
  auto it = finding.details.find(key);
  return it == finding.details.end() ? std::string() : it->second;
}

std::string npuOpsSectionFor(const std::string& category) {
  if (category == "rms_norm") return "op_rms_norm";
  if (category == "rotary_embedding") return "op_rotary";
  if (category == "swiglu") return "op_swiglu";
  return {};
}

std::string npuOpsFunctionFor(const std::string& category) {
  if (category == "rms_norm") return "npu_ops.rms_norm(x, weight, eps)";
  if (category == "rotary_embedding") return "npu_ops.apply_rotary_emb(x, cos, sin, interleaved)";
  if (category == "swiglu") return "npu_ops.swiglu(x, dim)";
  return {};
}

void emitCustomOps(sdk::EmitContext& context) {
  const std::vector<CudaKernel> kernels = cudaKernelsOf(context.findings());
  writeAscendOps(context, kernels);
  for (const CudaKernel& k : kernels) {
    const sdk::Finding& f = *k.finding;
    const std::string category = detailOf(f, "category");
    const std::string function = npuOpsFunctionFor(category);
    if (!function.empty()) context.requireSection("npu_ops.py", npuOpsSectionFor(category));
    const std::string kind = detailOf(f, "replacement_kind");
    std::string what = "replace CUDA kernel " + k.name + ": ";
    if (!function.empty())
      what += "call " + function +
              " (the kit's npu_ops.py) at its launch sites, or implement the Ascend C scaffold ascend_ops/" +
              k.op_type + "/";
    else if (!kind.empty() && kind != "ascend_c")
      what += detailOf(f, "replacement_path") +
              "; if that is not enough, implement the Ascend C scaffold ascend_ops/" + k.op_type + "/";
    else
      what += "implement the Ascend C scaffold ascend_ops/" + k.op_type + "/";
    what += " and build it with build_ascend_ops.sh --op " + k.op_type;
    context.addManualWork({f.rule_id, f.file, f.range.line, what});
  }
  writeTritonNotes(context);
}

}  // namespace custom_ops

// PREC-011: autocast regions and the dtype they run in; isAutocast.
// PREC-020: the autocast state queried or set without a device type (CUDA autocast only).

#include <string>
#include <string_view>

#include "checks.hpp"

namespace precision {

using namespace migrate::sdk;

bool isAutocast(std::string_view resolved) {
  return resolved == "torch.autocast" || resolved == "torch.amp.autocast" ||
         resolved == "torch.cuda.amp.autocast" || resolved == "torch.amp.autocast_mode.autocast" ||
         resolved == "torch.npu.amp.autocast" || resolved == "torch_npu.npu.amp.autocast" ||
         resolved == "torch.cpu.amp.autocast";
}

void autocastRegions(const FileView& v, const Rules& rules, FindingSink& sink) {
  for (const ReferenceFact& ref : v.module().references()) {
    if (ref.call < 0 || !isAutocast(ref.resolved)) continue;
    if (ref.resolved.find("npu") != std::string::npos) continue;  // already an NPU region
    const CallFact& c = v.module().calls()[static_cast<std::size_t>(ref.call)];
    const bool generic = ref.resolved == "torch.autocast" || ref.resolved == "torch.amp.autocast" ||
                         ref.resolved == "torch.amp.autocast_mode.autocast";
    std::string device = generic ? "" : (ref.resolved.find(".cpu.") != std::string::npos ? "cpu" : "cuda");
    std::string dtype;
    const ArgumentFact* dtype_arg = nullptr;
    bool disabled = false;
    for (const ArgumentFact& a : c.args) {
      if (generic && (a.keyword == "device_type" || a.index == 0))
        device = a.kind == ValueKind::String ? a.text : "<" + a.text + ">";
      if (a.keyword == "dtype" || a.index == 1) dtype_arg = &a;
      if ((a.keyword == "enabled" || (!generic && a.index == 0)) && a.kind == ValueKind::Bool &&
          a.text == "False")
        disabled = true;
    }
    if (device == "cpu" || disabled) continue;
    std::string note;
    const std::string_view call_text = v.text(c.range);
    const bool splat =
        call_text.find("**", ref.range.end_byte - c.range.start_byte) != std::string_view::npos;
    if (!dtype_arg && splat) {
      dtype = "<from **kwargs>";
      note =
          " The dtype comes from keyword arguments: if it can be bfloat16, the target must be Atlas A2 or "
          "later (310P needs float16); without one the NPU region uses float16.";
    } else if (!dtype_arg) {
      dtype = "default";
      note =
          " No dtype is given: the NPU region casts to float16 (the NPU autocast default); say so "
          "explicitly and keep a GradScaler for float16 training.";
    } else {
      const Dtype d = v.dtypeOfArgument(*dtype_arg);
      dtype = d == Dtype::None ? dtype_arg->text : dtypeName(d);
      if (d == Dtype::BFloat16)
        note =
            " bfloat16 autocast needs Atlas A2 or later; on earlier products (310P) use float16 with a "
            "GradScaler.";
      else if (d == Dtype::Float16)
        note = " float16 runs on every Ascend product; keep the GradScaler for training.";
      else if (d == Dtype::Float32 || d == Dtype::Float64)
        continue;  // a full-precision region: nothing precision-specific to change
      else if (d == Dtype::None)
        note = " The dtype comes from '" + dtype_arg->text +
               "': if it can be bfloat16, the target must be Atlas A2 or later (310P needs float16).";
    }
    std::string shown = dtype;
    if (dtype == "default")
      shown = "the default dtype (float16 on the NPU)";
    else if (dtype_arg && v.dtypeOfArgument(*dtype_arg) == Dtype::None)
      shown = "the dtype held by '" + dtype_arg->text + "'";
    Finding f = findingFrom(rule(rules, "PREC-011"), std::string(v.module().path()), ref.range, ref.written,
                            ref.resolved, {{"note", note}, {"value", shown}});
    f.details["dtype"] = dtype;
    f.details["device_type"] = device.empty() ? "<missing>" : device;
    sink.report(std::move(f));
  }
}

}  // namespace precision

namespace precision {

void autocastQueries(const FileView& v, const Rules& rules, FindingSink& sink) {
  const auto& calls = v.module().calls();
  for (const ReferenceFact& ref : v.module().references()) {
    if (ref.call < 0) continue;
    const bool query = ref.resolved == "torch.is_autocast_enabled";
    const bool setter = ref.resolved == "torch.set_autocast_enabled";
    if (!query && !setter) continue;
    const CallFact& c = calls[static_cast<std::size_t>(ref.call)];
    // The device-type forms: is_autocast_enabled("npu"), set_autocast_enabled("npu", True).
    bool has_device = false;
    std::size_t positional = 0;
    for (const ArgumentFact& a : c.args) {
      if (a.keyword == "device_type") has_device = true;
      if (a.index >= 0) ++positional;
    }
    if (has_device || (query && !c.args.empty()) || (setter && positional != 1)) continue;
    const std::string npu =
        query ? "torch.is_autocast_enabled(\"npu\")" : "torch.set_autocast_enabled(\"npu\", flag)";
    Finding f = findingFrom(rule(rules, "PREC-020"), std::string(v.module().path()), ref.range, ref.written,
                            ref.resolved, {{"npu", npu}});
    f.details["device_type"] = "none (CUDA)";
    sink.report(std::move(f));
  }
}

}  // namespace precision

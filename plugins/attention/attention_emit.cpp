// emitAttention: npu_ops.py sections and manual work from the attention findings.

#include "attention_emit.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace migrate_attention {
namespace {

using migrate::sdk::EmitContext;
using migrate::sdk::Finding;
using migrate::sdk::ManualWork;

std::string detail(const Finding& f, const char* key) {
  auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

std::string lastSegment(const std::string& name) {
  return name.substr(name.rfind('.') + 1);
}

/// The arguments of a call switched to npu_ops that its NPU path refuses (NotImplementedError)
/// although the pure-PyTorch path takes them: `window_size=(...)`, `alibi_slopes`, ...
std::string refusedOnNpu(const Finding& f) {
  static const std::pair<const char*, const char*> kDefaults[] = {{"window_size", "(-1, -1)"},
                                                                  {"alibi_slopes", "None"},
                                                                  {"softcap", "0.0"},
                                                                  {"return_attn_probs", "False"}};
  auto compact = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
  };
  std::string out;
  for (const auto& [key, fallback] : kDefaults) {
    const std::string value = detail(f, key);
    if (!value.empty() && compact(value) != compact(fallback) && value != "0")
      out += (out.empty() ? "" : ", ") + std::string(key) + "=" + value;
  }
  return out;
}

/// Guidance for a name npu_ops serves with a different signature: the wrapper to call by hand,
/// its section, and what to watch; empty `what` when there is none.
struct HandMapping {
  std::string section;
  std::string what;
};

HandMapping handMapping(const Finding& f) {
  const std::string fn = lastSegment(f.resolved_api);
  const std::string library = detail(f, "library");
  if (library == "flash_attn_1") {
    const std::string target = fn == "flash_attn_unpadded_func" ? "flash_attn_varlen_func"
                               : fn == "flash_attn_unpadded_qkvpacked_func"
                                   ? "flash_attn_varlen_qkvpacked_func"
                                   : "flash_attn_varlen_kvpacked_func";
    return {"op_flash_attn", "replace " + f.api + " (flash-attn 1.x) by npu_ops." + target +
                                 ": the same leading arguments; pass return_attn_probs by keyword"};
  }
  if ((library == "flash_attn_3" || library == "flash_attn_4") &&
      (fn == "flash_attn_func" || fn == "flash_attn_varlen_func"))
    return {"op_flash_attn", "replace " + f.api + " (" + library + ") by npu_ops." + fn +
                                 " with softmax_scale and causal passed by keyword (flash-attn 2 order); " +
                                 "npu_ops returns the output only, not (out, lse)"};
  const bool rms = f.resolved_api.find("rms_norm") != std::string::npos ||
                   f.resolved_api.find("RMSNorm") != std::string::npos;
  if (f.rule_id == "ATT-011" && rms)
    return {"op_rms_norm",
            "replace " + f.api +
                " by npu_ops.RMSNorm(dim, eps=...) or npu_ops.rms_norm(x, weight, eps) "
                "(torch_npu.npu_rms_norm on the NPU); pass eps explicitly, and keep residual / "
                "dropout handling outside"};
  if (f.rule_id == "ATT-010")
    return {"op_rotary",
            "rotate with npu_ops.apply_rotary_emb(x, cos, sin, interleaved=...) (flash-attn's "
            "signature; torch_npu.npu_rotary_mul on the NPU) in place of " +
                f.api};
  return {};
}

}  // namespace

void emitAttention(EmitContext& context) {
  std::set<std::tuple<std::string, std::uint32_t, std::string>> listed;
  auto add = [&](const Finding& f, std::string what) {
    if (listed.insert({f.file, f.range.line, f.rule_id}).second)
      context.addManualWork(ManualWork{f.rule_id, f.file, f.range.line, std::move(what)});
  };
  auto require = [&](const std::string& sections) {
    for (std::size_t b = 0; b < sections.size();) {
      std::size_t e = sections.find(',', b);
      if (e == std::string::npos) e = sections.size();
      if (e > b) context.requireSection("npu_ops.py", sections.substr(b, e - b));
      b = e + 1;
    }
  };
  for (const Finding& f : context.findings()) {
    if (f.domain != "attention") continue;
    const std::string wrapper = detail(f, "npu_ops");
    if (f.autofix()) {
      require(detail(f, "npu_ops_section"));
      const std::string refused = refusedOnNpu(f);
      if (!refused.empty() && !wrapper.empty())
        add(f,
            f.api + " now calls " + wrapper + ", which raises NotImplementedError on the NPU for " + refused +
                " (npu_fusion_attention has no equivalent): drop the argument or keep this call off the NPU");
      continue;
    }
    if (!wrapper.empty()) {
      require(detail(f, "npu_ops_section"));
      add(f, "switch " + f.api + " to " + wrapper +
                 " by hand (same call signature); not done automatically " + "because " +
                 detail(f, "npu_ops_blocked"));
      continue;
    }
    const HandMapping m = handMapping(f);
    if (m.what.empty()) continue;
    require(m.section);
    add(f, m.what);
  }
}

}  // namespace migrate_attention

// describeCall / describeReference: a kernel call's arguments mapped onto its signature (Details).

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>

#include "kernels.hpp"
#include "npu_mapping.hpp"
#include "source_text.hpp"

namespace migrate_attention {
namespace {

using migrate::sdk::ArgumentFact;
using migrate::sdk::CallFact;
using migrate::sdk::Module;

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

}  // namespace

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

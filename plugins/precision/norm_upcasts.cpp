// PREC-014: float32 upcasts inside norm layers, and how class/function names name norm layers.

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "checks.hpp"

namespace precision {

using namespace migrate::sdk;

namespace {

/// "rms", "layer", "group", "batch", "instance" or "other" when a class name names a norm layer
/// (RMSNorm, LlamaRMSNorm, FP32LayerNorm, GroupNorm32, QKNorm); "" otherwise (Normalize,
/// GradNormClipper).
std::string normKindOfClass(const std::string& name) {
  if (name.find("Grad") != std::string::npos || name.find("Clip") != std::string::npos) return "";
  bool found = false;
  for (std::size_t p = name.find("Norm"); p != std::string::npos; p = name.find("Norm", p + 4)) {
    if (name.compare(p + 4, 2, "al") == 0) continue;  // Normal, Normalize, Normalization
    found = true;
  }
  if (!found) return "";
  if (name.find("RMS") != std::string::npos || name.find("Rms") != std::string::npos) return "rms";
  for (const auto& [word, kind] : {std::pair{"Layer", "layer"}, std::pair{"Group", "group"},
                                   std::pair{"Batch", "batch"}, std::pair{"Instance", "instance"}})
    if (name.find(word) != std::string::npos) return kind;
  return "other";
}

/// The same for a function name made of norm words only (rms_norm, _norm, layer_norm_fp32,
/// l2norm); "" for clip_grad_norm_, normalize, compute_norm.
std::string normKindOfFunction(const std::string& name) {
  static const std::set<std::string> kNormWords{"norm",      "rmsnorm",   "layernorm",
                                                "groupnorm", "batchnorm", "instancenorm",
                                                "qknorm",    "l2norm",    "adanorm"};
  static const std::set<std::string> kOtherWords{
      "",       "rms",    "layer", "group",   "batch", "instance", "qk",    "q",      "k",         "l2",
      "ada",    "fp32",   "apply", "forward", "fused", "naive",    "torch", "manual", "reference", "ref",
      "simple", "custom", "impl",  "fn",      "func",  "1d",       "2d",    "3d",     "adaptive"};
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  bool has_norm = false;
  std::string kind = "other";
  std::size_t b = 0;
  while (true) {
    const std::size_t e = lower.find('_', b);
    const std::string word = lower.substr(b, e == std::string::npos ? std::string::npos : e - b);
    const bool digits = !word.empty() && std::all_of(word.begin(), word.end(), ::isdigit);
    if (kNormWords.count(word)) {
      has_norm = true;
      if (word != "norm" && word != "qknorm" && word != "l2norm" && word != "adanorm")
        kind = word.substr(0, word.size() - 4);
    } else if (!kOtherWords.count(word) && !digits) {
      return "";
    }
    if (word == "rms" || word == "layer" || word == "group" || word == "batch" || word == "instance")
      kind = word;
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return has_norm ? kind : "";
}

}  // namespace

void normUpcasts(const FileView& v, const Rules& rules, FindingSink& sink) {
  struct Group {
    const CallFact* first = nullptr;
    int count = 0;
    std::string kind;
    std::string scope;
  };
  std::map<std::uint32_t, Group> groups;  // by the enclosing function's start (or the call's line)
  for (const CallFact& c : v.module().calls()) {
    if (c.method.empty() || c.receiver_is_module) continue;
    bool upcast = false;
    if (c.method == "float") {
      upcast = c.args.empty();
    } else if (c.method == "to" || c.method == "type") {
      for (const ArgumentFact& a : c.args)
        if ((a.index >= 0 || a.keyword == "dtype") && v.dtypeOfArgument(a) == Dtype::Float32) upcast = true;
    }
    if (!upcast) continue;
    std::string kind;
    std::string scope;
    for (const DefinitionFact* d : v.enclosing(c.range.start_byte)) {
      const std::string k =
          d->kind == DefinitionFact::Kind::Class ? normKindOfClass(d->name) : normKindOfFunction(d->name);
      if (!k.empty() && (kind.empty() || kind == "other")) {
        kind = k;
        scope = d->qualified_name;
      }
    }
    if (kind.empty()) continue;
    const DefinitionFact* fn = v.innermostFunction(c.range.start_byte);
    Group& g = groups[fn ? fn->range.start_byte : c.range.start_byte];
    ++g.count;
    if (!g.first || c.range.start_byte < g.first->range.start_byte) g.first = &c;
    g.kind = kind;
    g.scope = fn ? fn->qualified_name : scope;
  }
  for (const auto& [at, g] : groups) {
    (void)at;
    const CallFact& c = *g.first;
    std::string npu;
    std::string note;
    if (g.kind == "rms") {
      npu = "torch_npu.npu_rms_norm(x, weight, epsilon)[0]";
      note =
          " torch_npu.npu_rms_norm computes the whole RMSNorm in one fused kernel (it returns (y, rstd): "
          "take [0]).";
    } else if (g.kind == "layer" || g.kind == "group" || g.kind == "batch" || g.kind == "instance") {
      npu = "the native " + g.kind + " norm on the input dtype (drop the upcast), or keep it";
      note = " The NPU " + g.kind + " norm kernels accept bfloat16/float16 input directly.";
    } else {
      npu = "keep (correct, slower), or torch_npu.npu_rms_norm when this is an RMS norm";
    }
    if (g.count > 1) note += " (" + std::to_string(g.count) + " upcasts in " + g.scope + ".)";
    SourceRange range = c.name_range;
    range.end_line = c.range.end_line;
    range.end_column = c.range.end_column;
    range.end_byte = c.range.end_byte;
    const std::string written = callText(v, c);
    Finding f = findingFrom(rule(rules, "PREC-014"), std::string(v.module().path()), range, written,
                            "torch.Tensor." + c.method, {{"api", written}, {"npu", npu}, {"note", note}});
    f.details["norm_kind"] = g.kind;
    f.details["scope"] = g.scope;
    f.details["upcasts"] = std::to_string(g.count);
    sink.report(std::move(f));
  }
}

}  // namespace precision

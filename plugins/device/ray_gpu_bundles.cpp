// DEV-069: Ray resource dicts keyed by "GPU" (see the header).

#include "ray_gpu_bundles.hpp"

#include <algorithm>
#include <string_view>

#include "plugin_support/definitions.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

bool importsRay(const Module& module) {
  return std::any_of(module.imports().begin(), module.imports().end(), [](const ImportFact& imp) {
    return imp.module == "ray" || imp.module.rfind("ray.", 0) == 0;
  });
}

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// `{"GPU": 1}`, `{'CPU': 1, 'GPU': 1}`: the literal opens an entry of a dict display.
bool isDictKey(std::string_view src, const SourceRange& r) {
  std::size_t before = r.start_byte;
  while (before > 0 && blank(src[before - 1])) --before;
  std::size_t after = r.end_byte;
  while (after < src.size() && blank(src[after])) ++after;
  return before > 0 && (src[before - 1] == '{' || src[before - 1] == ',') && after < src.size() &&
         src[after] == ':';
}

/// `resources["GPU"] = n`, `ray.cluster_resources()["GPU"]`, `available.get("GPU", 0)`: the key
/// of a resource dict read or written by subscript, or the key a dict method looks up.
bool isResourceLookup(const StringFact& s) {
  if (s.context == StringContext::Subscript) return true;
  return s.context == StringContext::PositionalArg && s.arg_index == 0 && s.method_on_value &&
         (s.method == "get" || s.method == "pop" || s.method == "setdefault");
}

}  // namespace

void checkRayGpuBundles(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  if (!importsRay(module)) return;
  for (const StringFact& s : module.strings()) {
    if (s.value != "GPU" || s.fstring || s.context == StringContext::Docstring ||
        s.context == StringContext::Message || !(isDictKey(module.source(), s.range) || isResourceLookup(s)))
      continue;
    // The function around it (the module at top level) names the "NPU" resource too: a choice
    // by device (`info.get("GPU", 0) if "GPU" in info else info.get("NPU", 0)`).
    const std::string_view around = plugin_support::functionTextAround(module, s.range);
    if (around.find("\"NPU\"") != std::string_view::npos || around.find("'NPU'") != std::string_view::npos)
      continue;
    Finding finding =
        findingFrom(rule, std::string(module.path()), s.range, "\"GPU\"", {}, {{"value", "GPU"}});
    const std::string_view text = module.text(s.range);
    if (const std::size_t at = text.find("GPU"); at != std::string_view::npos) {
      const auto begin = static_cast<std::uint32_t>(s.range.start_byte + at);
      finding.edits.push_back({begin, begin + 3, "NPU"});
    }
    sink.report(std::move(finding));
  }
}

}  // namespace device

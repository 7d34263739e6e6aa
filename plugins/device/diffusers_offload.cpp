// DEV-096: diffusers' CPU offload left on its default CUDA device (see the header).

#include "diffusers_offload.hpp"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"

namespace device {
namespace {

using namespace migrate::sdk;
using plugin_support::bytePattern;

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// A file that may pin diffusers: requirements files, pyproject/setup, conda environments, cog.
bool manifest(std::string_view path) {
  const std::string_view name =
      path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  return (name.rfind("requirements", 0) == 0 && endsWith(name, ".txt")) || name == "pyproject.toml" ||
         name == "setup.py" || name == "setup.cfg" || name == "cog.yaml" ||
         (name.rfind("environment", 0) == 0 && (endsWith(name, ".yml") || endsWith(name, ".yaml")));
}

/// Whether a manifest's text pins diffusers below 0.34: `==`, `===`, `~=` or `<=` a version before
/// 0.34, or `<` one up to 0.34.
bool pinsOldDiffusers(std::string_view text) {
  static const RE2 kSpec(
      R"((?i)\bdiffusers\s*(?:\[[^\]\n]*\])?\s*((?:(?:[<>=!~]=?=?)\s*v?[\d.*]+\s*,?\s*)+))", bytePattern());
  static const RE2 kClause(R"((===|==|~=|<=|<|>=|>|!=)\s*v?(\d+)\.(\d+))", bytePattern());
  bool pinned = false;
  plugin_support::forEachMatch(kSpec, text, [&](const auto& m) {
    plugin_support::forEachMatch(kClause, std::string_view(m[1].data(), m[1].size()), [&](const auto& c) {
      const std::string op = plugin_support::str(c[1]);
      const int major = std::stoi(plugin_support::str(c[2]).substr(0, 6));
      const int minor = std::stoi(plugin_support::str(c[3]).substr(0, 6));
      const bool before = major == 0 && minor < 34;
      if (((op == "==" || op == "===" || op == "~=" || op == "<=") && before) ||
          (op == "<" && major == 0 && minor <= 34))
        pinned = true;
    });
  });
  return pinned;
}

/// The indentation of a line (spaces and tabs).
std::size_t indentOf(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos ? line.size() : first;
}

}  // namespace

void checkDiffusersOffload(const WorkspaceView& workspace, const RuleInfo& rule, FindingSink& sink) {
  // The manifests first: without an old pin no Python file needs reading.
  bool pinned = false;
  for (const FileEntry& file : workspace.files()) {
    if (pinned || !manifest(file.path)) continue;
    const auto text = workspace.read(file.path);
    pinned = text && pinsOldDiffusers(*text);
  }
  if (!pinned) return;
  // "Class.method" for the classes of a file that defines the offload method itself with no device
  // to pass on (`def enable_model_cpu_offload(self, gpu_id=0)`: the device is fixed inside, where the
  // other rules report it); an override that takes `device` or `*args` keeps diffusers' default.
  std::set<std::string> fixed_inside;
  std::vector<std::pair<std::string, std::string>> callers;  // path, text
  static const RE2 kClass(R"((?m)^[ \t]*class[ \t]+(\w+))", bytePattern());
  static const RE2 kOverride(R"(\bdef[ \t]+(enable_(?:model|sequential)_cpu_offload)[ \t]*\(([^)]*)\))",
                             bytePattern());
  for (const FileEntry& file : workspace.files()) {
    if (file.language != Language::Python) continue;
    auto text = workspace.read(file.path);
    if (!text || text->find("_cpu_offload") == std::string::npos) continue;
    plugin_support::forEachMatch(kOverride, *text, [&](const auto& d) {
      const std::string params = plugin_support::str(d[2]);
      if (params.find("device") != std::string::npos || params.find('*') != std::string::npos) return;
      plugin_support::forEachMatch(kClass, *text, [&](const auto& m) {
        fixed_inside.insert(plugin_support::str(m[1]) + "." + plugin_support::str(d[1]));
      });
    });
    if (text->find(".enable_model_cpu_offload(") != std::string::npos ||
        text->find(".enable_sequential_cpu_offload(") != std::string::npos)
      callers.emplace_back(file.path, std::move(*text));
  }
  static const RE2 kCall(
      R"(^[ \t]*(?:[\w.]+[ \t]*=[ \t]*)?([A-Za-z_][\w.]*)\.(enable_(?:model|sequential)_cpu_offload)\(([^()\n]*)\)[ \t]*(?:#.*)?$)",
      bytePattern());
  static const RE2 kFlagTest(R"(^[ \t]*(?:el)?if[ \t]+(?:not[ \t]+)?[A-Za-z_][\w.]*[ \t]*:)", bytePattern());
  for (const auto& [path, text] : callers) {
    const LineIndex index(text);
    std::vector<std::string_view> lines;
    for (std::size_t begin = 0; begin <= text.size();) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      lines.push_back(std::string_view(text).substr(begin, end - begin));
      begin = end + 1;
    }
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string receiver, method, args;
      if (!RE2::FullMatch(lines[i], kCall, &receiver, &method, &args)) continue;
      // A device given, or gpu_id and device by position: not the default.
      if (receiver == "self" || args.find("device") != std::string::npos ||
          args.find(',') != std::string::npos || args.find('*') != std::string::npos)
        continue;
      // The receiver's class, from its last construction above (`pipe = Cls(…)`,
      // `Cls.from_pretrained(…)`; `pipe = pipe.to("cuda")` is passed over): the repository's own
      // override with the device fixed inside?
      const RE2 assigned("^[ \\t]*" + RE2::QuoteMeta(receiver) + "[ \\t]*=[ \\t]*([A-Z]\\w*)(?:\\.\\w+)?\\(",
                         bytePattern());
      std::string cls;
      for (std::size_t k = i; k-- > 0;)
        if (RE2::PartialMatch(lines[k], assigned, &cls)) break;
      if (!cls.empty() && fixed_inside.count(cls + "." + method)) continue;
      // Under a bare flag test, the offload is an opt-in.
      const std::size_t indent = indentOf(lines[i]);
      bool opt_in = false;
      for (std::size_t k = i; k-- > 0;) {
        const std::string_view l = lines[k];
        const std::size_t at = indentOf(l);
        if (at == l.size() || l[at] == '#' || at >= indent) continue;
        opt_in = RE2::PartialMatch(l, kFlagTest);
        break;
      }
      if (opt_in) continue;
      const auto begin = static_cast<std::uint32_t>((lines[i].data() - text.data()) + lines[i].find(method));
      Finding f =
          findingFrom(rule, path, index.range(begin, begin + static_cast<std::uint32_t>(method.size())),
                      receiver + "." + method, {}, {{"value", method}});
      f.details = {{"method", method}, {"receiver", receiver}};
      if (!cls.empty()) f.details["class"] = cls;
      sink.report(std::move(f));
    }
  }
}

}  // namespace device

#include "analyze/platform_siblings.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace migrate {

namespace {

/// The words of an identifier, lowered: split at `_`, at a lower-to-upper step and before the
/// last capital of an acronym (`CUDAGraphRunner` → cuda, graph, runner).
std::vector<std::string> words(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c == '_' || !std::isalnum(c)) {
      flush();
      continue;
    }
    if (std::isupper(c) && i > 0) {
      const auto prev = static_cast<unsigned char>(name[i - 1]);
      const bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      if (std::islower(prev) || std::isdigit(prev) || (std::isupper(prev) && next_lower)) flush();
    }
    cur.push_back(static_cast<char>(std::tolower(c)));
  }
  flush();
  return out;
}

struct ClassRef {
  const ModuleSummary* module;
  const ClassSummary* cls;
};

}  // namespace

NamedDevice deviceNamedBy(std::string_view class_name) {
  for (const std::string& w : words(class_name)) {
    if (w == "npu" || w == "ascend" || w == "hccl") return NamedDevice::Npu;
    if (w == "cuda" || w == "nvidia" || w == "nccl") return NamedDevice::Cuda;
  }
  return NamedDevice::None;
}

void dropPerPlatformClassFindings(MigrationModel& model) {
  // In path order, whichever thread analysed which file: ties below go to the first path.
  std::vector<const ModuleSummary*> modules;
  for (const ModuleSummary& m : model.modules) modules.push_back(&m);
  std::sort(modules.begin(), modules.end(), [](const auto* a, const auto* b) { return a->path < b->path; });
  // The repository's classes by the names a subclass may write for them: the bare name and the
  // dotted module path with it (bases are recorded resolved where the imports allow).
  std::map<std::string, std::vector<ClassRef>> defined;
  for (const ModuleSummary* mp : modules)
    for (const ModuleSummary& m = *mp; const ClassSummary& c : m.classes) {
      defined[c.name].push_back({&m, &c});
      if (!m.dotted_name.empty()) defined[m.dotted_name + "." + c.qualified_name].push_back({&m, &c});
    }
  // The class a base names: its dotted name when the imports resolved it, else the class of
  // that name in the module nearest the subclass (the longest common directory).
  auto resolve = [&](const std::string& base, const ModuleSummary& sub) -> const ClassRef* {
    const auto dot = base.rfind('.');
    if (const auto full = defined.find(base); full != defined.end() && dot != std::string::npos)
      return &full->second.front();
    const auto bare = defined.find(dot == std::string::npos ? base : base.substr(dot + 1));
    if (bare == defined.end()) return nullptr;
    const ClassRef* best = nullptr;
    std::size_t best_len = 0;
    for (const ClassRef& r : bare->second) {
      const std::string& p = r.module->path;
      std::size_t n = 0, common = 0;
      while (n < p.size() && n < sub.path.size() && p[n] == sub.path[n])
        if (p[n++] == '/') common = n;
      if (!best || common > best_len) best = &r, best_len = common;
    }
    return best;
  };
  // Subclasses grouped by the repository class they derive from.
  std::map<const ClassSummary*, std::vector<ClassRef>> by_base;
  std::vector<const ClassSummary*> bases;  // in the order first met
  for (const ModuleSummary* mp : modules)
    for (const ModuleSummary& m = *mp; const ClassSummary& c : m.classes)
      for (const std::string& b : c.bases)
        if (const ClassRef* base = resolve(b, m)) {
          auto& subs = by_base[base->cls];
          if (subs.empty()) bases.push_back(base->cls);
          subs.push_back({&m, &c});
        }

  struct Dropped {
    ClassRef cuda;
    ClassRef npu;
    const ClassSummary* base;
  };
  std::vector<Dropped> off;
  for (const ClassSummary* base : bases) {
    const std::vector<ClassRef>& subs = by_base[base];
    const auto npu = std::find_if(subs.begin(), subs.end(), [](const ClassRef& r) {
      return deviceNamedBy(r.cls->name) == NamedDevice::Npu;
    });
    if (npu == subs.end()) continue;
    for (const ClassRef& r : subs)
      if (deviceNamedBy(r.cls->name) == NamedDevice::Cuda) off.push_back({r, *npu, base});
  }
  if (off.empty()) return;
  for (const Dropped& d : off) {
    const auto before = model.findings.size();
    std::erase_if(model.findings, [&](const sdk::Finding& f) {
      return f.file == d.cuda.module->path && f.range.line >= d.cuda.cls->line &&
             f.range.line <= d.cuda.cls->end_line;
    });
    const auto left_out = before - model.findings.size();
    if (left_out == 0) continue;
    model.diagnostics.push_back(
        {sdk::Severity::Info, "per-platform-class", d.cuda.module->path, d.cuda.cls->line,
         "class " + d.cuda.cls->name + " is CUDA's implementation of " + d.base->qualified_name + " beside " +
             d.npu.cls->name + " (" + d.npu.module->path + "), which the NPU uses: its " +
             std::to_string(left_out) + " finding" + (left_out == 1 ? "" : "s") + " left out"});
  }
}

}  // namespace migrate

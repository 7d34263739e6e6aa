#include "plan/bottlenecks.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "migrate/sdk/glob.hpp"

namespace migrate {
namespace {

int rank(sdk::Level l) {
  return static_cast<int>(l);
}
int rank(sdk::Severity s) {
  return static_cast<int>(s);
}
int scopeRank(const std::string& scope) {
  return scope == "global" ? 0 : scope == "module" ? 1 : 2;
}

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

bool isEnvironmentFile(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return sdk::globMatch("requirements*.txt", base) || sdk::globMatch("*requirements*.txt", base) ||
         sdk::globMatch("Dockerfile*", base) || sdk::globMatch("*.dockerfile", base) || base == "setup.py" ||
         base == "setup.cfg" || base == "pyproject.toml" || sdk::globMatch("environment*.y*ml", base) ||
         base == "CMakeLists.txt" || sdk::globMatch("*.cmake", base) || sdk::globMatch("*.sh", base);
}

bool isNativeSource(const std::string& path) {
  static const std::set<std::string> exts{".cu",  ".cuh", ".c",  ".cc",  ".cpp",
                                          ".cxx", ".h",   ".hh", ".hpp", ".hxx"};
  const auto dot = path.rfind('.');
  return dot != std::string::npos && exts.count(path.substr(dot)) != 0;
}

/// How widely each module is used: direct importers, and the entry points that reach it.
struct Usage {
  std::vector<std::size_t> importers;
  std::vector<std::size_t> reached_by;
  std::unordered_map<std::string, std::size_t> by_path;
};

Usage usageOf(const std::vector<sdk::ModuleNode>& graph, const std::vector<sdk::EntryPoint>& entries) {
  Usage u;
  u.importers.assign(graph.size(), 0);
  u.reached_by.assign(graph.size(), 0);
  for (std::size_t i = 0; i < graph.size(); ++i) {
    u.by_path.emplace(graph[i].path, i);
    for (std::size_t j : graph[i].imports) ++u.importers[j];
  }
  for (const auto& e : entries) {
    std::vector<bool> seen(graph.size(), false);
    std::vector<std::size_t> stack(e.modules.begin(), e.modules.end());
    while (!stack.empty()) {
      const std::size_t m = stack.back();
      stack.pop_back();
      if (m >= graph.size() || seen[m]) continue;
      seen[m] = true;
      ++u.reached_by[m];
      for (std::size_t j : graph[m].imports) stack.push_back(j);
    }
  }
  return u;
}

/// The widest scope over the files, with the reason.
std::pair<std::string, std::string> scopeOf(const std::vector<std::string>& files, const Usage& u,
                                            std::size_t entry_count) {
  std::string scope = "local";
  std::string reason;
  auto widen = [&](const std::string& s, const std::string& why) {  // the first reason for the widest scope
    if (reason.empty() || scopeRank(s) < scopeRank(scope)) {
      scope = s;
      reason = why;
    }
  };
  const std::size_t majority = std::max<std::size_t>(2, (entry_count + 1) / 2);
  for (const std::string& file : files) {
    auto it = u.by_path.find(file);
    if (isEnvironmentFile(file)) {
      widen("global", file + " sets up the environment every run uses");
      continue;
    }
    if (it == u.by_path.end()) {
      if (isNativeSource(file))
        widen("module", file + " is compiled into an extension the Python code calls");
      else
        widen("local", "only in " + file);
      continue;
    }
    const std::size_t reach = u.reached_by[it->second];
    const std::size_t importers = u.importers[it->second];
    if (reach >= majority && importers >= 2)
      widen("global", file + " is reached from " + std::to_string(reach) + " of " +
                          std::to_string(entry_count) + " entry points");
    else if (importers > 0)
      widen("module", file + " is imported by " + plural(importers, "module"));
    else
      widen("local", "only in " + file + ", which no module imports");
  }
  if (scope == "local" && files.size() >= 3) {
    scope = "module";
    reason = "spread over " + plural(files.size(), "file");
  }
  return {scope, reason};
}

std::string joined(const std::vector<std::string>& v, const std::string& sep, std::size_t max = 4) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) out += (i ? sep : "") + v[i];
  if (v.size() > max) out += sep + "… (" + std::to_string(v.size() - max) + " more)";
  return out;
}

std::string verificationStep(const std::string& domain) {
  if (domain == "attention")
    return "Compare the attention outputs with the reference (verify_precision.py; causal and padded cases).";
  if (domain == "custom_ops")
    return "Check the replacement's forward (and backward) against the original on the same inputs "
           "(verify_precision.py).";
  if (domain == "distributed")
    return "Run a two-process smoke test over the hccl backend (verify_npu.sh, function stage).";
  if (domain == "precision")
    return "Compare outputs with the reference at the tolerance of the dtype (verify_precision.py).";
  if (domain == "deps") return "Rebuild the environment from requirements-npu.txt and import every module.";
  return "Run the affected code paths on the NPU host (verify_npu.sh).";
}

std::vector<std::string> stepsFor(const sdk::Bottleneck& b, const std::vector<sdk::Finding>& findings,
                                  std::size_t files) {
  std::vector<std::string> steps;
  const std::string where =
      plural(b.findings.size(), "place") + (files > 1 ? " in " + plural(files, "file") : "");
  const std::string apis = "`" + joined(b.apis, "`, `") + "`";
  if (b.autofix) {
    steps.push_back("Apply the automatic fix (" + where + "): " + apis + " → " + b.npu_alternative +
                    ". The emit stage writes it into the adapted sources and npu_migration.patch.");
    steps.push_back("Review the changed lines.");
  } else {
    steps.push_back("Replace " + apis + " (" + where + ") with: " + b.npu_alternative +
                    ". The adapted sources mark each place with TODO(" + b.rule_id + ").");
    const auto& first = findings[b.findings.front()];
    if (auto it = first.details.find("replacement_path");
        it != first.details.end() && it->second != b.npu_alternative)
      steps.push_back("Replacement path: " + it->second + ".");
    if (b.domain == "deps") steps.push_back("Take the replacement from requirements-npu.txt.");
    if (b.domain == "attention")
      steps.push_back(
          "Route the call through npu_ops (same signature: layout, scale, keep_prob and the inverted "
          "mask are handled there).");
  }
  steps.push_back(verificationStep(b.domain));
  return steps;
}

}  // namespace

EffortRate effortRate(const PlanSpec& spec, const std::string& rule_id, sdk::Level difficulty,
                      double max_finding_effort) {
  if (auto it = spec.rules.find(rule_id); it != spec.rules.end()) return it->second;
  const EffortRate& level = spec.difficulty.at(sdk::toString(difficulty));
  EffortRate rate;
  rate.first = max_finding_effort > 0 ? max_finding_effort : level.first;
  rate.each = std::min(level.each, rate.first);
  return rate;
}

std::vector<sdk::Bottleneck> buildBottlenecks(const std::vector<sdk::Finding>& findings,
                                              const std::map<std::string, std::string>& titles,
                                              const std::vector<sdk::ModuleNode>& graph,
                                              const std::vector<sdk::EntryPoint>& entry_points,
                                              const PlanSpec& spec) {
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  std::vector<sdk::Bottleneck> out;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const sdk::Finding& f = findings[i];
    if (f.severity == sdk::Severity::Info) continue;
    const auto group = f.details.count("group") ? f.details.at("group") : std::string();
    auto [it, fresh] = index.emplace(std::make_tuple(f.rule_id, f.npu_alternative, group), out.size());
    if (fresh) {
      sdk::Bottleneck b;
      b.rule_id = f.rule_id;
      b.domain = f.domain;
      b.title = titles.count(f.rule_id) ? titles.at(f.rule_id) : f.rule_id;
      b.npu_alternative = f.npu_alternative;
      b.severity = f.severity;
      b.difficulty = f.difficulty;
      b.autofix = true;
      out.push_back(std::move(b));
    }
    sdk::Bottleneck& b = out[it->second];
    b.findings.push_back(i);
    b.severity = rank(f.severity) > rank(b.severity) ? f.severity : b.severity;
    b.difficulty = rank(f.difficulty) > rank(b.difficulty) ? f.difficulty : b.difficulty;
    b.autofix = b.autofix && f.autofix();
    const std::string api = f.resolved_api.empty() ? f.api : f.resolved_api;
    if (std::find(b.apis.begin(), b.apis.end(), api) == b.apis.end()) b.apis.push_back(api);
  }
  const Usage usage = usageOf(graph, entry_points);
  for (sdk::Bottleneck& b : out) {
    std::sort(b.apis.begin(), b.apis.end());
    std::vector<std::string> files;  // in the order of the places
    std::unordered_set<std::string> seen;
    double max_effort = 0;
    for (std::size_t i : b.findings) {
      if (seen.insert(findings[i].file).second) files.push_back(findings[i].file);
      max_effort = std::max(max_effort, findings[i].effort_days);
    }
    std::tie(b.scope, b.scope_reason) = scopeOf(files, usage, entry_points.size());
    const EffortRate rate = effortRate(spec, b.rule_id, b.difficulty, max_effort);
    b.effort_first = rate.first;
    b.effort_each = rate.each;
    b.effort_days = std::round(b.effortFor(b.findings.size()) * 1000.0) / 1000.0;
    b.steps = stepsFor(b, findings, files.size());
  }
  std::sort(out.begin(), out.end(), [](const sdk::Bottleneck& a, const sdk::Bottleneck& b) {
    return std::make_tuple(scopeRank(a.scope), -rank(a.difficulty), -a.effort_days, -rank(a.severity),
                           a.rule_id, a.findings.front()) <
           std::make_tuple(scopeRank(b.scope), -rank(b.difficulty), -b.effort_days, -rank(b.severity),
                           b.rule_id, b.findings.front());
  });
  for (std::size_t i = 0; i < out.size(); ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "#%03zu", i + 1);
    out[i].id = id;
  }
  return out;
}

}  // namespace migrate

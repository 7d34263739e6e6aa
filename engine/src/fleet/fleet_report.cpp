#include "fleet/fleet_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "csv/csv_writer.hpp"
#include "fleet/what_if.hpp"

namespace migrate::fleet {
namespace {

using Json = nlohmann::ordered_json;

/// A severity's rank (info < warning < error); -1 for none.
int severityRank(const std::string& s) {
  const auto severity = sdk::severityFromString(s);
  return severity ? static_cast<int>(*severity) : -1;
}

std::string days(double v) {
  return fmt::format("{:.2f}", v);
}

/// Judges every decoded plan again without `solved`; counts the repositories whose plan it is in.
WhatIf judge(const std::map<std::string, PlanInputs>& plans, const std::string& kind,
             const std::string& name) {
  WhatIf w{kind, name, 0, 0, {}};
  const Solved solved = kind == "rule" ? Solved{name, {}} : Solved{{}, name};
  for (const auto& [repo, in] : plans) {
    const bool involved = std::any_of(in.members.begin(), in.members.end(), [&](const PlanMember& m) {
      return kind == "rule" ? m.bottleneck.rule_id == name : m.packages.count(name) > 0;
    });
    if (!involved) continue;
    ++w.repos;
    const std::string after = verdictIf(in, solved);
    if (after == in.verdict) continue;
    ++w.changes[in.verdict + " → " + after];
    if (verdictRank(after) > verdictRank(in.verdict)) ++w.improved;
  }
  return w;
}

std::string escapeCell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

std::string reportMarkdown(const FleetReport& r) {
  std::string out = fmt::format("# Fleet report: night {} ({})\n\n", r.night.label, r.night.id);
  out += fmt::format(
      "{} repositories; {} with a plan verdict the what-if judges again (the plan stage's verdict "
      "model).\n\n",
      r.repos, r.judged);
  out += "## Rules by repositories affected\n\n";
  out +=
      "| Rule | Title | Domain | Severity | No NPU counterpart | Repositories with work left | Repositories "
      "| "
      "Remaining findings | Person-days |\n|---|---|---|---|---|---:|---:|---:|---:|\n";
  for (const ReportRule& x : r.rules)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", x.rule, escapeCell(x.title),
                       x.domain, x.severity, x.no_counterpart ? "yes" : "", x.repos_left, x.repos,
                       x.remaining, days(x.person_days));
  if (r.rules.empty()) out += "| (none) | | | | | | | | |\n";
  out += "\n## Dependencies unsupported or needing replacement\n\n";
  out += "| Package | Verdict | Replacement | Repositories | Places |\n|---|---|---|---:|---:|\n";
  for (const ReportDependency& d : r.dependencies)
    out += fmt::format("| {} | {} | {} | {} | {} |\n", escapeCell(d.package), d.verdict,
                       escapeCell(d.replacement), d.repos, d.places);
  if (r.dependencies.empty()) out += "| (none) | | | | |\n";
  out +=
      "\n## Effort left by domain\n\n| Domain | Repositories | Remaining findings | Person-days |\n"
      "|---|---:|---:|---:|\n";
  for (const ReportDomain& d : r.domains)
    out += fmt::format("| {} | {} | {} | {} |\n", d.domain, d.repos, d.remaining, days(d.person_days));
  out +=
      "\n## What if it were solved\n\n"
      "Each of the top rules and dependencies taken away from every plan it is in, and the verdict judged "
      "again.\n\n| Kind | Name | In plans of | Verdicts improved | Changes |\n|---|---|---:|---:|---|\n";
  for (const WhatIf& w : r.what_if)
    out += fmt::format("| {} | {} | {} | {} | {} |\n", w.kind, escapeCell(w.name), w.repos, w.improved,
                       escapeCell(whatIfText(w)));
  if (r.what_if.empty()) out += "| (none) | | | | |\n";
  return out;
}

std::string reportCsv(const FleetReport& r) {
  CsvWriter csv;
  csv.row("section", "name", "title", "domain", "severity", "no_npu_counterpart", "verdict", "replacement",
          "repos", "repos_with_work_left", "findings", "person_days", "improved", "changes");
  for (const ReportRule& x : r.rules)
    csv.row("rule", x.rule, x.title, x.domain, x.severity, x.no_counterpart ? "yes" : "no", "", "", x.repos,
            x.repos_left, x.remaining, days(x.person_days), "", "");
  for (const ReportDependency& d : r.dependencies)
    csv.row("dependency", d.package, "", "deps", "", "", d.verdict, d.replacement, d.repos, "", d.places, "",
            "", "");
  for (const ReportDomain& d : r.domains)
    csv.row("domain", d.domain, "", d.domain, "", "", "", "", "", d.repos, d.remaining, days(d.person_days),
            "", "");
  for (const WhatIf& w : r.what_if)
    csv.row("what-if", w.name, w.kind, "", "", "", "", "", w.repos, "", "", "", w.improved, whatIfText(w));
  return csv.take();
}

std::string reportJson(const FleetReport& r) {
  Json rules = Json::array(), deps = Json::array(), domains = Json::array(), what_if = Json::array();
  for (const ReportRule& x : r.rules)
    rules.push_back({{"rule", x.rule},
                     {"title", x.title},
                     {"domain", x.domain},
                     {"severity", x.severity},
                     {"no_npu_counterpart", x.no_counterpart},
                     {"repos", x.repos},
                     {"repos_with_work_left", x.repos_left},
                     {"remaining_findings", x.remaining},
                     {"person_days", x.person_days}});
  for (const ReportDependency& d : r.dependencies)
    deps.push_back({{"package", d.package},
                    {"verdict", d.verdict},
                    {"replacement", d.replacement},
                    {"repos", d.repos},
                    {"places", d.places}});
  for (const ReportDomain& d : r.domains)
    domains.push_back({{"domain", d.domain},
                       {"repos", d.repos},
                       {"remaining_findings", d.remaining},
                       {"person_days", d.person_days}});
  for (const WhatIf& w : r.what_if) {
    Json changes = Json::array();
    for (const auto& [change, n] : w.changes) {
      const std::size_t arrow = change.find(" → ");
      changes.push_back({{"from", change.substr(0, arrow)},
                         {"to", change.substr(arrow + std::string(" → ").size())},
                         {"repos", n}});
    }
    what_if.push_back({{"kind", w.kind},
                       {"name", w.name},
                       {"repos", w.repos},
                       {"improved", w.improved},
                       {"changes", std::move(changes)}});
  }
  const Json doc{{"schema_version", 1},
                 {"night", {{"id", r.night.id}, {"label", r.night.label}}},
                 {"repos", r.repos},
                 {"judged", r.judged},
                 {"rules", std::move(rules)},
                 {"dependencies", std::move(deps)},
                 {"domains", std::move(domains)},
                 {"what_if", std::move(what_if)}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string whatIfText(const WhatIf& w) {
  std::string out;
  for (const auto& [change, n] : w.changes)
    out += (out.empty() ? "" : "; ") + change + ": " + std::to_string(n);
  return out;
}

Result<FleetReport> buildReport(const Store& store, const Night& night, std::size_t top) {
  auto runs = store.runs(night.id);
  if (!runs) return runs.error();
  return buildReport(store, night, runs.value(), top);
}

Result<FleetReport> buildReport(const Store& store, const Night& night, const std::vector<RepoRun>& runs,
                                std::size_t top) {
  FleetReport report;
  report.night = night;
  auto info = store.ruleInfo();
  if (!info) return info.error();
  auto encoded = store.planInputs(night.id);
  if (!encoded) return encoded.error();
  report.repos = static_cast<std::int64_t>(runs.size());

  std::map<std::string, ReportRule> rules;
  std::map<std::string, ReportDependency> deps;
  std::map<std::string, ReportDomain> domains;
  for (const RepoRun& r : runs) {
    std::set<std::string> repo_domains;
    for (const FindingCount& c : r.counts) {
      ReportRule& x = rules[c.rule];
      x.rule = c.rule;
      if (severityRank(c.severity) > severityRank(x.severity)) x.severity = c.severity;
      ++x.repos;
      // Work left: findings not fixed that need something (an info finding says what holds).
      if (c.total > c.fixed && (c.severity != "info" || c.effort_days > 0)) ++x.repos_left;
      x.remaining += c.total - c.fixed;
      x.person_days += c.effort_days;
      const std::string domain = c.domain.empty() ? "other" : c.domain;
      ReportDomain& d = domains[domain];
      d.domain = domain;
      d.remaining += c.total - c.fixed;
      d.person_days += c.effort_days;
      if (c.total > c.fixed || c.effort_days > 0) repo_domains.insert(domain);
    }
    for (const std::string& d : repo_domains) ++domains[d].repos;
    for (const BlockingDep& b : r.blocking_deps) {
      ReportDependency& d = deps[b.package];
      d.package = b.package;
      if (d.verdict != "unsupported") d.verdict = b.verdict;  // the worse verdict wins
      if (d.replacement.empty()) d.replacement = b.replacement;
      ++d.repos;
      d.places += b.places;
    }
  }
  for (auto& [id, x] : rules) {
    if (auto it = info->find(id); it != info->end()) {
      x.title = it->second.title;
      x.domain = it->second.domain;
      x.no_counterpart = it->second.no_counterpart;
    }
    x.person_days = std::round(x.person_days * 100.0) / 100.0;
    report.rules.push_back(std::move(x));
  }
  std::stable_sort(report.rules.begin(), report.rules.end(), [](const ReportRule& a, const ReportRule& b) {
    return std::tie(b.repos_left, b.person_days, b.repos, b.remaining) <
           std::tie(a.repos_left, a.person_days, a.repos, a.remaining);
  });
  for (auto& [name, d] : deps) report.dependencies.push_back(std::move(d));
  std::stable_sort(report.dependencies.begin(), report.dependencies.end(),
                   [](const ReportDependency& a, const ReportDependency& b) {
                     return std::tie(b.repos, b.places) < std::tie(a.repos, a.places);
                   });
  for (auto& [name, d] : domains) {
    d.person_days = std::round(d.person_days * 100.0) / 100.0;
    report.domains.push_back(std::move(d));
  }
  std::stable_sort(report.domains.begin(), report.domains.end(),
                   [](const ReportDomain& a, const ReportDomain& b) {
                     return std::tie(b.person_days, b.repos) < std::tie(a.person_days, a.repos);
                   });

  std::map<std::string, PlanInputs> plans;
  for (const auto& [repo, text] : encoded.value()) {
    auto decoded = decodePlanInputs(text);
    if (!decoded) return makeError(store.file().string() + ": " + repo + ": " + decoded.error().message);
    plans.emplace(repo, std::move(decoded.value()));
  }
  report.judged = static_cast<std::int64_t>(plans.size());
  for (std::size_t i = 0; i < report.rules.size() && i < top; ++i)
    report.what_if.push_back(judge(plans, "rule", report.rules[i].rule));
  for (std::size_t i = 0; i < report.dependencies.size() && i < top; ++i)
    report.what_if.push_back(judge(plans, "dependency", report.dependencies[i].package));
  return report;
}

std::string formatReport(const FleetReport& report, const std::string& format) {
  if (format == "csv") return reportCsv(report);
  if (format == "json") return reportJson(report);
  return reportMarkdown(report);
}

}  // namespace migrate::fleet

#include "fleet/dashboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "emit/template_store.hpp"
#include "fleet/fleet_report.hpp"
#include "fleet/night_diff.hpp"
#include "fleet/trend_chart.hpp"
#include "migrate/engine/model.hpp"
#include "outputs/json_output.hpp"
#include "outputs/markup_text.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

bool failure(const std::string& status) {
  return status != "succeeded" && status != "cached";
}

/// Failures first in the default order, then the rest: the order `status` sorts by.
int statusRank(const std::string& status) {
  static const std::map<std::string, int> ranks{
      {"failed", 0}, {"timed_out", 1}, {"out_of_memory", 2}, {"succeeded", 3}, {"cached", 4}};
  const auto it = ranks.find(status);
  return it == ranks.end() ? 5 : it->second;
}

std::string decimals(double v, int places) {
  return fmt::format("{:.{}f}", v, places);
}

/// Links to the run's report, patch, SARIF and log, relative to the page, for the files that exist.
void addLinks(sdk::TemplateData& row, const fs::path& dir, const std::string& output_dir) {
  if (output_dir.empty()) return;
  const fs::path out = dir / output_dir;
  std::vector<std::pair<std::string, std::string>> links;  // text, relative href
  std::error_code ec;
  std::vector<std::string> reports;
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("CodeReview_Results_", 0) == 0 && it->path().extension() == ".md") reports.push_back(name);
  }
  std::sort(reports.begin(), reports.end());
  if (!reports.empty()) links.emplace_back("report", output_dir + "/" + reports.back());
  for (const auto& [text, file] : {std::pair<std::string, std::string>{"patch", "npu_migration.patch"},
                                   {"SARIF", "findings.sarif"},
                                   {"log", "run.log"}})
    if (fs::is_regular_file(out / file, ec)) links.emplace_back(text, output_dir + "/" + file);
  for (std::size_t i = 0; i < links.size(); ++i) {
    sdk::TemplateData& link = row.addItem("links");
    link.set("text", links[i].first).set("href", outputs::escapeMarkup(links[i].second));
    link.setFlag("last", i + 1 == links.size());
  }
}

sdk::TemplateData& card(sdk::TemplateData& data, const std::string& value, const std::string& label) {
  return data.addItem("cards")
      .set("value", outputs::escapeMarkup(value))
      .set("label", outputs::escapeMarkup(label));
}

void addCharts(sdk::TemplateData& data, const std::vector<NightSummary>& history,
               const std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>& new_and_fixed) {
  std::vector<std::string> labels;
  TrendSeries added{"new", "#D55E00", {}};
  TrendSeries gone{"fixed", "#009E73", {}};
  TrendSeries remaining{"remaining", "#D55E00", {}};
  TrendSeries fixed{"fixed", "#009E73", {}};
  TrendSeries effort{"person-days left", "#0072B2", {}};
  TrendSeries succeeded{"succeeded", "#009E73", {}}, cached{"cached", "#56B4E9", {}},
      failed{"failed", "#D55E00", {}}, timed_out{"timed out", "#E69F00", {}},
      oom{"out of memory", "#CC79A7", {}};
  for (const NightSummary& n : history) {
    labels.push_back(n.night.label);  // the night's date unless it was given another label
    remaining.values.push_back(static_cast<double>(n.findings - n.findings_fixed));
    fixed.values.push_back(static_cast<double>(n.findings_fixed));
    effort.values.push_back(n.effort_days);
    succeeded.values.push_back(static_cast<double>(n.succeeded));
    cached.values.push_back(static_cast<double>(n.cached));
    failed.values.push_back(static_cast<double>(n.failed));
    timed_out.values.push_back(static_cast<double>(n.timed_out));
    oom.values.push_back(static_cast<double>(n.out_of_memory));
    const auto moved = new_and_fixed.find(n.night.id);
    added.values.push_back(moved == new_and_fixed.end() ? 0.0 : static_cast<double>(moved->second.first));
    gone.values.push_back(moved == new_and_fixed.end() ? 0.0 : static_cast<double>(moved->second.second));
  }
  data.addItem("charts").set(
      "svg", trendChartSvg("Findings remaining and fixed", "findings", labels, {remaining, fixed}, false));
  data.addItem("charts").set("svg", trendChartSvg("Findings new and fixed since the night before", "findings",
                                                  labels, {added, gone}, false));
  data.addItem("charts").set("svg", trendChartSvg("Repositories by status", "repositories", labels,
                                                  {succeeded, cached, failed, timed_out, oom}, true));
  data.addItem("charts").set("svg",
                             trendChartSvg("Effort remaining", "person-days", labels, {effort}, false));
}

/// "49 passed, 2 introduced, 5 environment": the outcomes that occur, in kCheckOutcomes order;
/// a store row without outcomes (verification not run, or written before them) shows its status.
std::string verification(const RepoRun& r) {
  if (r.outcomes.empty()) return r.verify_status.empty() ? "" : r.verify_status;
  std::string out;
  for (const char* outcome : kCheckOutcomes)
    if (const auto it = r.outcomes.find(outcome); it != r.outcomes.end())
      out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + outcome;
  return out;
}

/// What the night took over from the repository's previous output: "everything (unchanged)" for a
/// cached row, else "emit 2839/2841 files, verify 11/18 checks" for the stages that kept
/// something; `percent` is the share kept (sorting), -1 when the run made everything anew.
std::string reuse(const RepoRun& r, int& percent) {
  percent = -1;
  if (r.status == "cached") {
    percent = 100;
    return "everything (unchanged)";
  }
  std::string out;
  std::int64_t kept = 0, total = 0;
  for (const StageRow& s : r.stages) {
    if (s.kept <= 0) continue;
    kept += s.kept;
    total += s.total;
    out += (out.empty() ? "" : ", ") + s.stage + " " + std::to_string(s.kept) + "/" +
           std::to_string(s.total) +
           (s.stage == "emit"     ? " files"
            : s.stage == "verify" ? " checks"
                                  : "");
  }
  if (total > 0) percent = static_cast<int>(100 * kept / total);
  return out;
}

/// The rules whose edits broke checks, by repositories affected, then checks: what to repair first.
void addBrokenRules(sdk::TemplateData& data, const std::vector<RepoRun>& runs) {
  struct Broken {
    std::int64_t repos = 0;
    std::int64_t checks = 0;
    std::vector<std::string> names;
  };
  std::map<std::string, Broken> by_rule;
  bool verified = false;
  for (const RepoRun& r : runs) {
    verified = verified || !r.outcomes.empty();
    for (const auto& [rule, checks] : r.broken_rules) {
      Broken& b = by_rule[rule];
      ++b.repos;
      b.checks += checks;
      b.names.push_back(r.name);
    }
  }
  std::vector<std::pair<std::string, Broken>> sorted(by_rule.begin(), by_rule.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::tie(b.second.repos, b.second.checks) < std::tie(a.second.repos, a.second.checks);
  });
  for (const auto& [rule, b] : sorted) {
    std::string names;
    for (const std::string& n : b.names) names += (names.empty() ? "" : ", ") + n;
    data.addItem("broken_rules")
        .set("rule", outputs::escapeMarkup(rule))
        .set("repos", std::to_string(b.repos))
        .set("checks", std::to_string(b.checks))
        .set("names", outputs::escapeMarkup(names));
  }
  data.setFlag("verified", verified);
  data.setFlag("has_broken_rules", !sorted.empty());
}

/// The blockers section: `fleet report`'s tables, the first ten of each, with their what-if.
void addBlockers(sdk::TemplateData& data, const FleetReport& report) {
  std::map<std::pair<std::string, std::string>, std::string> what_if;  // (kind, name) → text
  for (const WhatIf& w : report.what_if) {
    const std::string moved = whatIfText(w);
    what_if[{w.kind, w.name}] = w.repos == 0    ? ""
                                : moved.empty() ? fmt::format("no verdict moves ({} judged)", w.repos)
                                                : moved;
  }
  auto whatIf = [&](const char* kind, const std::string& name) {
    const auto it = what_if.find({kind, name});
    return it == what_if.end() ? std::string() : it->second;
  };
  for (std::size_t i = 0; i < report.rules.size() && i < 10; ++i) {
    const ReportRule& x = report.rules[i];
    if (x.repos_left == 0) break;
    sdk::TemplateData& row = data.addItem("blocker_rules");
    row.set("rule", outputs::escapeMarkup(x.rule))
        .set("title", outputs::escapeMarkup(x.title))
        .set("domain", outputs::escapeMarkup(x.domain))
        .set("severity", outputs::escapeMarkup(x.severity))
        .set("repos", std::to_string(x.repos_left))
        .set("remaining", std::to_string(x.remaining))
        .set("days", decimals(x.person_days, 2))
        .set("what_if", outputs::escapeMarkup(whatIf("rule", x.rule)));
    row.setFlag("no_counterpart", x.no_counterpart);
  }
  for (std::size_t i = 0; i < report.dependencies.size() && i < 10; ++i) {
    const ReportDependency& d = report.dependencies[i];
    data.addItem("blocker_deps")
        .set("package", outputs::escapeMarkup(d.package))
        .set("verdict", outputs::escapeMarkup(d.verdict))
        .set("replacement", outputs::escapeMarkup(d.replacement))
        .set("repos", std::to_string(d.repos))
        .set("what_if", outputs::escapeMarkup(whatIf("dependency", d.package)));
  }
  data.setFlag("has_blocker_deps", !report.dependencies.empty());
  for (const ReportDomain& d : report.domains)
    data.addItem("effort_domains")
        .set("domain", outputs::escapeMarkup(d.domain))
        .set("repos", std::to_string(d.repos))
        .set("remaining", std::to_string(d.remaining))
        .set("days", decimals(d.person_days, 2));
  data.set("judged", std::to_string(report.judged));
}

/// A repository's findings since the night before (fleet diff), and the page with them.
struct Change {
  std::size_t added = 0;
  std::size_t fixed = 0;
  std::string why;
  std::string link;  ///< diff/<night>/<repo>.md relative to the page; empty without changes
};

/// Each repository's change from night `before` to `latest`; a repository with new or fixed
/// findings gets DIR/diff/<latest>/<repo>.md (fleet diff's Markdown for it alone).
Result<std::map<std::string, Change>> changesSince(const Store& store, const Night& before,
                                                   const Night& latest, const fs::path& dir) {
  std::map<std::string, Change> out;
  Status written = Ok{};
  const Status st = forEachRepoDiff(store, before, latest, std::nullopt, [&](RepoDiff&& d) {
    Change& c = out[d.name];
    c.added = d.added.size();
    c.fixed = d.fixed.size();
    c.why = d.why;
    if ((c.added == 0 && c.fixed == 0) || !written) return;
    c.link = "diff/" + latest.label + "/" + d.name + ".md";
    const std::string page = formatDiff(NightDiff{before, latest, {std::move(d)}}, "md");
    std::error_code ec;
    fs::create_directories(dir / "diff" / latest.label, ec);
    written = outputs::writeFileAtomically(dir / c.link, [&](std::ostream& o) { o << page; });
  });
  if (!st) return st.error();
  if (!written) return written.error();
  return out;
}

void addRepositories(sdk::TemplateData& data, const fs::path& dir, const std::vector<RepoRun>& runs,
                     const std::map<std::string, Change>& changes) {
  const std::vector<std::pair<std::string, std::string>> columns{
      {"name", "Repository"},   {"status", "Status"},
      {"commit", "Commit"},     {"remaining", "Findings left"},
      {"domains", "By domain"}, {"effort", "Effort (person-days)"},
      {"verdict", "Verdict"},   {"verification", "Checks"},
      {"duration", "Duration"}, {"changes", "Since the night before"},
      {"reused", "Reused"}};
  for (const auto& [key, title] : columns) {
    sdk::TemplateData& c = data.addItem("columns");
    c.set("key", key).set("title", title);
    c.setFlag("numeric", key == "remaining" || key == "effort" || key == "duration" || key == "reused" ||
                             key == "changes");
  }
  std::vector<const RepoRun*> sorted;
  for (const RepoRun& r : runs) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const RepoRun* a, const RepoRun* b) {
    return failure(a->status) && !failure(b->status);
  });
  std::size_t failures = 0;
  for (const RepoRun* r : sorted) {
    const std::string name = outputs::escapeMarkup(r->name);
    if (failure(r->status)) {
      ++failures;
      sdk::TemplateData& f = data.addItem("failures");
      f.set("name", name).set("status", r->status).set("reason", outputs::escapeMarkup(r->reason));
      const fs::path log = dir / r->output_dir / "fleet-child.log";
      std::error_code ec;
      if (!r->output_dir.empty() && fs::is_regular_file(log, ec))
        f.set("log", outputs::escapeMarkup(r->output_dir + "/fleet-child.log"));
    }
    std::map<std::string, std::int64_t> domains;
    for (const FindingCount& c : r->counts) domains[c.domain] += c.total - c.fixed;
    std::string by_domain;
    for (const auto& [domain, left] : domains)
      if (left > 0) by_domain += (by_domain.empty() ? "" : ", ") + domain + " " + std::to_string(left);
    int reused_percent = -1;
    const std::string reused = reuse(*r, reused_percent);
    sdk::TemplateData& row = data.addItem("repos");
    row.set("reused", outputs::escapeMarkup(reused)).set("reused_percent", std::to_string(reused_percent));
    const auto change = changes.find(r->name);
    if (change != changes.end()) {
      const Change& c = change->second;
      row.set("changes", outputs::escapeMarkup(fmt::format("+{} −{} ({})", c.added, c.fixed, c.why)))
          .set("changes_added", std::to_string(c.added))
          .set("changes_link", outputs::escapeMarkup(c.link));
      row.setFlag("has_changes_link", !c.link.empty());
    } else {
      row.set("changes", "").set("changes_added", "-1");
    }
    row.set("name", name)
        .set("status", r->status)
        .set("status_rank", std::to_string(statusRank(r->status)))
        .set("commit", outputs::escapeMarkup(r->commit))
        .set("commit_short",
             outputs::escapeMarkup(r->commit.substr(0, r->commit.rfind("tree:", 0) == 0 ? 17 : 12)))
        .set("remaining", std::to_string(r->findings - r->findings_fixed))
        .set("domains_text", outputs::escapeMarkup(by_domain))
        .set("effort", decimals(r->effort_days, 2))
        .set("verdict", outputs::escapeMarkup(r->verdict))
        .set("verification", outputs::escapeMarkup(verification(*r)))
        .set("introduced", std::to_string(r->outcomes.count("introduced") ? r->outcomes.at("introduced") : 0))
        .set("duration", decimals(r->duration_s, 1));
    addLinks(row, dir, r->output_dir);
  }
  data.set("failure_count", std::to_string(failures));
  data.set("repo_count", std::to_string(runs.size()));
}

/// Takes `data` to fill in the page's defaults without copying it (a row per repository).
Status render(sdk::TemplateData data, const fs::path& dir) {
  const emit::TemplateStore templates;
  auto page = templates.render("fleet_dashboard.html", std::move(data), "fleet");
  if (!page) return page.error();
  return outputs::writeFileAtomically(dir / "index.html", [&](std::ostream& out) { out << page.value(); });
}

}  // namespace

Status writeDashboard(const Store& store, const fs::path& dir) {
  sdk::TemplateData data;
  auto latest = store.latestNight();
  auto history = store.history();
  if (!latest) return latest.error();
  if (!history) return history.error();
  std::vector<RepoRun> runs;
  if (latest.value()) {
    const Night& n = *latest.value();
    auto rows = store.runs(n.id);
    if (!rows) return rows.error();
    runs = std::move(rows.value());
    data.set("night_id", std::to_string(n.id))
        .set("night_label", outputs::escapeMarkup(n.label))
        .set("night_state", n.state)
        .set("night_started", outputs::escapeMarkup(n.started_at))
        .set("night_finished", outputs::escapeMarkup(n.finished_at))
        .set("night_shard", outputs::escapeMarkup(n.shard));
  } else {
    data.set("night_id", "none").set("night_label", "no night yet").set("night_state", "empty");
  }
  data.set("night_count", std::to_string(history->size()));
  data.setFlag("has_repos", !runs.empty());
  data.set("empty_reason", latest.value()
                               ? "The latest night has no repository yet (it was interrupted before "
                                 "the first one finished); run `migrate-pipeline fleet run` again."
                               : "The store holds no night yet: run `migrate-pipeline fleet run`.");
  if (!runs.empty()) {
    std::map<std::string, std::int64_t> by_status;
    std::map<std::string, std::int64_t> verdicts;
    std::int64_t findings_left = 0;
    double effort = 0;
    for (const RepoRun& r : runs) {
      ++by_status[r.status];
      if (!r.verdict.empty()) ++verdicts[r.verdict];
      findings_left += r.findings - r.findings_fixed;
      effort += r.effort_days;
    }
    card(data, std::to_string(runs.size()), "repositories");
    for (const char* status : {"succeeded", "cached", "failed", "timed_out", "out_of_memory"})
      if (by_status.count(status)) card(data, std::to_string(by_status[status]), status);
    card(data, std::to_string(findings_left), "findings remaining");
    std::int64_t introduced = 0;
    bool verified = false;
    for (const RepoRun& r : runs) {
      verified = verified || !r.outcomes.empty();
      if (const auto it = r.outcomes.find("introduced"); it != r.outcomes.end()) introduced += it->second;
    }
    if (verified) card(data, std::to_string(introduced), "checks the migration broke");
    card(data, decimals(effort, 1), "person-days remaining");
    std::size_t i = 0;
    for (const auto& [verdict, count] : verdicts) {
      sdk::TemplateData& v = data.addItem("verdicts");
      v.set("name", outputs::escapeMarkup(verdict)).set("count", std::to_string(count));
      v.setFlag("last", ++i == verdicts.size());
    }
    auto moved = store.newAndFixedPerNight();
    if (!moved) return moved.error();
    addCharts(data, history.value(), moved.value());
    // Since the night before the latest: findings new and fixed, and why (fleet diff).
    std::map<std::string, Change> changes;
    const Night* before = nullptr;
    for (const NightSummary& s : history.value())
      if (s.night.id < latest.value()->id) before = &s.night;
    if (before) {
      auto found = changesSince(store, *before, *latest.value(), dir);
      if (!found) return found.error();
      changes = std::move(found.value());
      std::size_t added = 0, fixed = 0;
      for (const auto& [name, c] : changes) {
        added += c.added;
        fixed += c.fixed;
      }
      card(data, std::to_string(added), "new since " + before->label);
      card(data, std::to_string(fixed), "fixed since " + before->label);
    }
    addRepositories(data, dir, runs, changes);
    addBrokenRules(data, runs);
    auto report = buildReport(store, *latest.value(), runs);
    if (!report) return report.error();
    addBlockers(data, report.value());
  }
  std::vector<RepoRun>().swap(runs);  // the page needs only `data` now: not both at once
  return render(std::move(data), dir);
}

Status writeDashboardProblem(const fs::path& dir, const std::string& problem) {
  sdk::TemplateData data;
  data.set("night_id", "none").set("night_label", "store unreadable").set("night_state", "unknown");
  data.set("night_count", "0");
  data.set("empty_reason", outputs::escapeMarkup("The fleet store cannot be read: " + problem));
  return render(std::move(data), dir);
}

}  // namespace migrate::fleet

/// Sections 7 (follow-up work) and 8 (seed 002's migration assessment: summary, dependency ×
/// phase matrix, findings per domain, roadmap, risk matrix).

#include <algorithm>
#include <map>
#include <set>

#include "report/report_sections.hpp"
#include "report/report_text.hpp"

namespace migrate::report {
namespace {

/// Person-days of a working week; the horizons of the follow-up work are one and four weeks.
constexpr double kWeekDays = 5.0;

const std::vector<std::pair<std::string, std::string>>& knownDomains() {
  static const std::vector<std::pair<std::string, std::string>> domains{
      {"deps", "Third-Party Dependencies"},         {"device", "Device Layer"},
      {"attention", "Attention Mechanism"},         {"custom_ops", "Custom Operators"},
      {"distributed", "Distributed Communication"}, {"precision", "Precision Strategy"}};
  return domains;
}

/// Effort of the places of a bottleneck the emit stage left.
double remainingDays(const BottleneckState& s) {
  const std::size_t left = s.left();
  if (left == 0) return 0;
  return s.bottleneck->effort_first + s.bottleneck->effort_each * static_cast<double>(left - 1);
}

std::string bottleneckLine(const BottleneckState& s) {
  const sdk::Bottleneck& b = *s.bottleneck;
  const std::size_t left = s.left();
  return b.id + " " + oneLine(b.title) + ": " + plural(left, "place", "places") + ", " +
         number(remainingDays(s)) + " person-days (" + sdk::toString(b.difficulty) + " difficulty)";
}

void addDomains(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  std::vector<std::pair<std::string, std::string>> domains = knownDomains();
  std::set<std::string> others;
  for (const sdk::Finding& f : m.findings) others.insert(f.domain);
  for (const PluginRecord& p : m.plugins)
    if (p.rules > 0) others.insert(p.domain);  // a plugin without rules (phase_matrix) reports no findings
  for (const auto& [id, title] : knownDomains()) others.erase(id);
  others.erase("");
  for (const std::string& d : others) domains.emplace_back(d, d);
  std::map<std::string, const RuleRecord*> rules;
  for (const RuleRecord& r : m.rules) rules[r.info.id] = &r;
  int n = 0;
  for (const auto& [domain, title] : domains) {
    struct RuleCount {
      std::size_t places = 0, fixed = 0;
      std::string alternative, message;
    };
    std::map<std::string, RuleCount> by_rule;
    std::set<std::string> files;
    std::size_t serious = 0, fixed_here = 0;
    for (std::size_t i = 0; i < m.findings.size(); ++i) {
      const sdk::Finding& f = m.findings[i];
      if (f.domain != domain) continue;
      RuleCount& rc = by_rule[f.rule_id];
      ++rc.places;
      rc.fixed += m.emit.isFixed(i);
      if (rc.alternative.empty()) rc.alternative = f.npu_alternative;
      if (rc.message.empty()) rc.message = f.message;
      files.insert(f.file);
      serious += f.severity != sdk::Severity::Info ? 1 : 0;
      fixed_here += m.emit.isFixed(i);
    }
    std::size_t bottlenecks = 0;
    double days = 0;
    for (const BottleneckState& s : in.states)
      if (s.bottleneck->domain == domain) {
        ++bottlenecks;
        days += s.bottleneck->effort_days;
      }
    std::size_t findings = 0;
    for (const auto& [id, rc] : by_rule) findings += rc.places;
    auto& item = data.addItem("domains");
    item.set("number", std::to_string(++n)).set("title", title + " (`" + domain + "`)");
    item.set("summary", findings == 0
                            ? "No finding."
                            : plural(findings, "finding", "findings") + " (" + std::to_string(serious) +
                                  " warnings or errors) in " + plural(files.size(), "file", "files") + "; " +
                                  std::to_string(fixed_here) + " fixed automatically; " +
                                  plural(bottlenecks, "bottleneck", "bottlenecks") + ", " + number(days) +
                                  " person-days.");
    item.setFlag("has_rules", !by_rule.empty());
    std::size_t shown = 0;
    for (const auto& [id, rc] : by_rule) {
      if (shown++ >= in.max_items) break;
      const auto r = rules.find(id);
      item.addItem("rules")
          .set("id", id)
          .set("title", cell(r != rules.end() ? r->second->info.title : rc.message))
          .set("places", std::to_string(rc.places))
          .set("fixed", std::to_string(rc.fixed))
          .set("npu_alternative", cell(rc.alternative));
    }
  }
}

void addRoadmap(const ReportInput& in, const sdk::Assessment& a, sdk::TemplateData& data) {
  std::map<std::string, const BottleneckState*> by_id;
  for (const BottleneckState& s : in.states) by_id[s.bottleneck->id] = &s;
  int n = 0;
  auto step = [&](const std::string& title, const std::string& text) {
    data.addItem("roadmap").set("number", std::to_string(++n)).set("title", title).set("text", oneLine(text));
  };
  step("Environment", "install the driver, CANN and " +
                          std::string("torch with torch_npu (requirements-npu.txt) on an Ascend host; ") +
                          "`bash verify_npu.sh --stage environment` passes.");
  // Goals from the smallest to the full migration, each adding the bottlenecks it needs beyond
  // the earlier steps.
  std::vector<const sdk::GoalResult*> goals;
  for (const auto& g : a.goals) goals.push_back(&g);
  std::stable_sort(goals.begin(), goals.end(), [](const auto* x, const auto* y) {
    return x->bottlenecks.size() < y->bottlenecks.size();
  });
  goals.push_back(&a.full);
  std::set<std::string> done;
  for (const sdk::GoalResult* g : goals) {
    std::vector<std::string> ids;
    double days = 0;
    std::size_t automatic = 0;
    for (const std::string& id : g->bottlenecks) {
      if (!done.insert(id).second) continue;
      const auto it = by_id.find(id);
      if (it != by_id.end() && it->second->adapted()) {
        ++automatic;
        continue;
      }
      ids.push_back(id);
      if (it != by_id.end()) days += remainingDays(*it->second);
    }
    const std::string title = g == &a.full ? std::string("Full migration") : g->title;
    if (ids.empty() && automatic == 0) {
      step(title, "nothing beyond the steps above.");
      continue;
    }
    std::string text = ids.empty()
                           ? std::string("no manual bottleneck")
                           : plural(ids.size(), "bottleneck", "bottlenecks") + " by hand (" +
                                 joined(ids, in.max_items, "") + "), " + number(days) + " person-days";
    if (automatic) text += "; " + std::to_string(automatic) + " more already adapted by the tool";
    step(title, text + "; verdict for this goal: " + g->verdict + ".");
  }
  step("Verification and tuning",
       "precision against the original outputs (verify.precision), the benchmark on the NPU "
       "(verify.benchmark), "
       "then operator-level tuning where the profile shows CPU fallbacks or unfused attention.");
}

}  // namespace

void addFollowUp(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  const VerifyResult& v = m.verify;
  for (const CheckResult& c : v.checks)
    if (c.broken())
      data.addItem("short_term")
          .set("text",
               oneLine("Fix the failed verification check " + c.stage + "/" + c.check + " (section 5.5)."));
  if (const std::size_t env = v.outcomes("environment"))
    data.addItem("short_term")
        .set("text", "Give the target what " + plural(env, "check needs", "checks need") +
                         " (section 5.4: packages, tools, devices), then verify again.");
  const std::size_t skipped = skippedChecks(v).size();
  if (!v.computed || v.status != "completed" || skipped)
    data.addItem("short_term")
        .set("text",
             "Run the verification on an Ascend host: `migrate-pipeline verify OUTPUT_DIR --set "
             "verify.target=<host>`" +
                 (skipped ? " (" + plural(skipped, "check needs", "checks need") + " an NPU)."
                          : std::string(".")));
  if (!m.diagnostics.empty())
    data.addItem("short_term")
        .set("text", "Review the " + plural(m.diagnostics.size(), "diagnostic", "diagnostics") +
                         " in findings.json (files not analysed, plugin problems).");

  // Remaining bottlenecks: those the chosen goal needs first, then the rest, by cumulative effort.
  std::set<std::string> goal_ids;
  if (const auto& a = m.plan.assessment)
    goal_ids.insert(a->chosen().bottlenecks.begin(), a->chosen().bottlenecks.end());
  std::vector<const BottleneckState*> open;
  for (const BottleneckState& s : in.states)
    if (!s.adapted()) open.push_back(&s);
  std::stable_sort(open.begin(), open.end(), [&](const auto* x, const auto* y) {
    return goal_ids.count(x->bottleneck->id) > goal_ids.count(y->bottleneck->id);
  });
  double cumulative = 0;
  std::map<std::string, std::size_t> shown, hidden;
  for (const BottleneckState* s : open) {
    cumulative += remainingDays(*s);
    const std::string horizon = cumulative <= kWeekDays       ? "short_term"
                                : cumulative <= 4 * kWeekDays ? "mid_term"
                                                              : "long_term";
    if (shown[horizon]++ < in.max_items)
      data.addItem(horizon).set("text", bottleneckLine(*s));
    else
      ++hidden[horizon];
  }
  for (const auto& [horizon, n] : hidden)
    data.addItem(horizon).set(
        "text", "…and " + plural(n, "more bottleneck", "more bottlenecks") + " (findings.json).");
  const bool benchmarked = std::any_of(v.checks.begin(), v.checks.end(), [](const CheckResult& c) {
    return c.stage == "benchmark" && c.status == "passed";
  });
  if (!benchmarked)
    data.addItem("long_term")
        .set("text",
             "Benchmark the adapted code on the NPU (verify.benchmark) against the GPU baseline and tune the "
             "hot paths (fused torch_npu operators, fewer host synchronisations, graph mode for inference).");
}

void addAssessment(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  data.setEmptyList("assessment");
  data.setEmptyList("roadmap");
  data.set("no_assessment_reason", m.plan.computed
                                       ? "the phase_matrix plugin is not in the pipeline, so there are no "
                                         "phases, goals or verdict"
                                       : oneLine(in.missing("plan")));
  data.set("assessment_anchor", anchorOf("8. " + in.project + " Ascend NPU Migration Assessment"));
  addDomains(in, data);
  data.setEmptyList("risks");
  std::size_t shown = 0;
  for (const BottleneckState& s : in.states) {
    if (shown++ >= in.max_items) break;
    const sdk::Bottleneck& b = *s.bottleneck;
    sdk::Level confidence = sdk::Level::High;
    for (std::size_t i : b.findings)
      if (i < m.findings.size()) confidence = std::min(confidence, m.findings[i].confidence);
    std::vector<std::string> apis;
    for (const std::string& api : b.apis) apis.push_back(code(api));
    std::string level = sdk::toString(confidence);
    level[0] = static_cast<char>(level[0] - 'a' + 'A');
    data.addItem("risks")
        .set("pattern", apis.empty() ? cell(b.title) : joined(apis, 3, ""))
        .set("replacement", cell(b.npu_alternative.empty() ? "none known" : b.npu_alternative))
        .set("confidence", level);
  }
  if (!m.plan.assessment) return;
  const sdk::Assessment& a = *m.plan.assessment;
  const sdk::GoalResult& g = a.chosen();
  auto& item = data.addItem("assessment");
  item.set("verdict", g.verdict).set("weeks", number(g.effort_weeks)).set("days", number(g.effort_days));
  item.set("goal_title", oneLine(g.title))
      .set("full_verdict", a.full.verdict)
      .set("full_weeks", number(a.full.effort_weeks));
  for (const std::string& b : g.blockers) item.addItem("blockers").set("text", oneLine(b));
  std::vector<const sdk::GoalResult*> goals;
  for (const auto& x : a.goals) goals.push_back(&x);
  goals.push_back(&a.full);
  for (const sdk::GoalResult* x : goals)
    item.addItem("goals")
        .set("title", cell(x == &a.full ? "Full migration" : x->title))
        .set("bottlenecks", std::to_string(x->bottlenecks.size()))
        .set("findings", std::to_string(x->findings))
        .set("days", number(x->effort_days))
        .set("weeks", number(x->effort_weeks))
        .set("verdict", x->verdict);
  std::string header, rule;
  for (const std::string& p : a.active_phases) {
    header += (header.empty() ? "" : " | ") + cell(p);
    rule += "---|";
  }
  item.set("phase_header", header.empty() ? "Phases" : header);
  item.set("phase_rule", rule.empty() ? "---|" : rule);
  shown = 0;
  for (const sdk::MatrixRow& r : a.matrix) {
    if (shown++ >= in.max_items) break;
    std::string cells;
    for (const std::string& p : a.active_phases) {
      const bool on = std::find(r.phases.begin(), r.phases.end(), p) != r.phases.end();
      cells += std::string(cells.empty() ? "" : " | ") + (on ? "✅" : "·");
    }
    item.addItem("matrix")
        .set("dependency", cell(r.dependency))
        .set("phase_cells", a.active_phases.empty() ? "—" : cells)
        .set("priority", r.priority)
        .set("replacement", cell(r.replacement))
        .set("effort", number(r.effort_days));
  }
  item.set("matrix_more",
           a.matrix.size() > in.max_items ? std::to_string(a.matrix.size() - in.max_items) : "");
  std::vector<std::string> unreached;
  for (const std::string& f : a.unreached_files) unreached.push_back(code(f));
  item.setFlag("has_unreached", !unreached.empty());
  item.set("unreached", joined(unreached, in.max_items, ""));
  addRoadmap(in, a, data);
}

}  // namespace migrate::report

#include "fleet/run_record.hpp"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "fleet/fleet_spec.hpp"
#include "fleet/what_if.hpp"
#include "outputs/run_outputs.hpp"
#include "pipeline/plan_spec.hpp"
#include "report/fingerprints.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

/// `text` on one line, at most `max` bytes.
std::string oneLine(std::string text, std::size_t max = 300) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > max) text = text.substr(0, max - 3) + "...";
  return text;
}

std::string tail(const fs::path& log, std::size_t bytes) {
  std::ifstream in(log, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  in.seekg(size > static_cast<std::streamoff>(bytes) ? size - static_cast<std::streamoff>(bytes) : 0);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The last line of the child's output that starts with `prefix`, without it.
std::string lastLine(const std::string& text, const std::string& prefix) {
  std::string found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) found = line.substr(prefix.size());
  return found;
}

std::string signalName(int sig) {
  const char* d = ::strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

/// The plan settings the run used (its output's pipeline.yaml over the defaults); the defaults
/// when that file is missing or unreadable.
PlanSpec planSettingsOf(const fs::path& out) {
  PlanSpec spec = defaultPlanSpec();
  try {
    const YAML::Node doc = YAML::LoadFile((out / "pipeline.yaml").string());
    readPlanSpec(yaml::Reader((out / "pipeline.yaml").string()), doc["plan"], spec);
  } catch (const std::exception&) {
    return defaultPlanSpec();
  }
  return spec;
}

/// What `fleet report` ranks: each rule's remaining person-days, what the rules are, and the
/// dependencies that block or need replacing.
void readInsight(const MigrationModel& m, RepoRun& run) {
  std::map<std::string, double> effort;  // rule → person-days of the places not fixed
  for (const sdk::Bottleneck& b : m.plan.bottlenecks) {
    std::size_t left = 0;
    for (std::size_t index : b.findings) left += m.emit.isFixed(index) ? 0 : 1;
    effort[b.rule_id] += b.effortFor(left);
  }
  for (FindingCount& c : run.counts)
    if (auto it = effort.find(c.rule); it != effort.end())
      c.effort_days = std::round(it->second * 100.0) / 100.0;
  run.rule_info.clear();  // the rules of the run's findings (a bottleneck's rule is one of them)
  for (const RuleRecord& r : m.rules)
    if (std::any_of(run.counts.begin(), run.counts.end(),
                    [&](const FindingCount& c) { return c.rule == r.info.id; }))
      run.rule_info.push_back({r.info.id, r.info.title, r.info.domain, r.no_npu_counterpart});
  std::map<std::string, BlockingDep> deps;
  for (const sdk::Finding& f : m.findings) {
    if (f.domain != "deps") continue;
    const auto verdict = f.details.find("verdict");
    if (verdict == f.details.end() ||
        (verdict->second != "unsupported" && verdict->second != "needs replacement"))
      continue;
    const std::string name = packageOf(f);
    BlockingDep& d = deps[name];
    d.package = name;
    d.verdict = verdict->second;
    if (auto r = f.details.find("replacement"); r != f.details.end() && d.replacement.empty())
      d.replacement = r->second;
    if (d.replacement.empty()) d.replacement = f.npu_alternative;
    ++d.places;
  }
  run.blocking_deps.clear();
  for (auto& [name, d] : deps) run.blocking_deps.push_back(std::move(d));
}

}  // namespace

bool readOutputs(const fs::path& out, RepoRun& run, std::string& error) {
  auto model = readRunOutputs(out);
  if (!model) {
    error = model.error().message;
    return false;
  }
  const MigrationModel& m = model.value();
  std::map<std::string, FindingCount> by_rule;
  for (std::size_t i = 0; i < m.findings.size(); ++i) {
    const sdk::Finding& f = m.findings[i];
    FindingCount& c = by_rule[f.rule_id];
    c.rule = f.rule_id;
    c.domain = f.domain;
    if (c.total == 0 || f.severity > *sdk::severityFromString(c.severity))
      c.severity = sdk::toString(f.severity);
    ++c.total;
    c.fixed += m.emit.isFixed(i) ? 1 : 0;
  }
  run.found.clear();
  const std::vector<std::string> fingerprints = sarif::findingFingerprints(m.findings);
  for (std::size_t i = 0; i < m.findings.size(); ++i)
    run.found.push_back({fingerprints[i], m.findings[i].rule_id, m.findings[i].file,
                         static_cast<std::int64_t>(m.findings[i].range.line), m.emit.isFixed(i)});
  run.counts.clear();
  for (auto& [rule, c] : by_rule) run.counts.push_back(std::move(c));
  run.findings = static_cast<std::int64_t>(m.findings.size());
  run.findings_fixed = static_cast<std::int64_t>(m.emit.fixed_findings.size());
  run.effort_days = 0.0;
  for (const sdk::Bottleneck& b : m.plan.bottlenecks) {
    std::size_t left = 0;
    for (std::size_t index : b.findings) left += m.emit.isFixed(index) ? 0 : 1;
    run.effort_days += b.effortFor(left);
  }
  run.verdict = m.plan.assessment ? m.plan.assessment->chosen().verdict : "";
  readInsight(m, run);
  const auto inputs = planInputsOf(m, planSettingsOf(out));
  run.plan_inputs = inputs ? encodePlanInputs(*inputs) : std::string();
  run.verify_status = m.verify.computed ? m.verify.status : "";
  run.checks_passed = static_cast<std::int64_t>(m.verify.count("passed"));
  // Failed = what the migration broke (introduced, or not run); a check the host cannot run
  // (environment) or that fails on the original tree too (pre-existing) is no failure of it.
  run.checks_failed = static_cast<std::int64_t>(m.verify.broken());
  run.checks_skipped = static_cast<std::int64_t>(m.verify.count("skipped"));
  run.outcomes.clear();
  run.broken_rules.clear();
  for (const char* outcome : kCheckOutcomes)
    if (const std::size_t n = m.verify.outcomes(outcome); n > 0)
      run.outcomes[outcome] = static_cast<std::int64_t>(n);
  // "ACME-001 at shop/core.py:5": a check broken by two edits of one rule counts once for it. An
  // edit no finding made ("an edit without a finding (e.g. the npu_compat import) at …") is the kit's.
  for (const CheckResult& c : m.verify.checks) {
    std::set<std::string> rules;
    for (const std::string& edit : c.broken_by)
      rules.insert(edit.rfind("an edit without a finding", 0) == 0 ? "(kit edit)"
                                                                   : edit.substr(0, edit.find(' ')));
    for (const std::string& rule : rules) ++run.broken_rules[rule];
  }
  run.stages.clear();
  for (const StageRecord& s : m.stages)
    run.stages.push_back({s.name, s.status, oneLine(s.detail, 2000), s.seconds,
                          static_cast<std::int64_t>(s.kept), static_cast<std::int64_t>(s.total)});
  return true;
}

void classifyOutcome(const ChildOutcome& outcome, const ChildLimits& limits, const fs::path& log,
                     RepoRun& run) {
  run.exit_code.reset();
  run.reason.clear();
  const std::string text = tail(log, 64 * 1024);
  if (!outcome.started) {
    run.status = "failed";
    run.reason = oneLine(outcome.error);
    return;
  }
  if (outcome.timed_out) {
    run.status = "timed_out";
    run.reason = "killed after " + formatDuration(limits.timeout) + " (timeout; raise it in the manifest)";
    return;
  }
  if (outcome.out_of_memory) {
    run.status = "out_of_memory";
    run.reason = "killed at " + std::to_string(static_cast<long long>(outcome.peak_rss_mb)) +
                 " MiB resident (memory limit " + formatMemory(limits.memory_bytes) +
                 "; raise memory in the manifest)";
    return;
  }
  if (outcome.signal != 0) {
    const std::string crash = lastLine(text, "fatal: ");
    const bool oom_text = text.find("std::bad_alloc") != std::string::npos ||
                          text.find("Cannot allocate memory") != std::string::npos;
    if (outcome.signal == SIGKILL || (oom_text && crash.empty())) {
      run.status = "out_of_memory";
      run.reason = "killed by " + signalName(outcome.signal) + " at " +
                   std::to_string(static_cast<long long>(outcome.peak_rss_mb)) +
                   " MiB resident (the system ran out of memory?)";
    } else {
      run.status = "failed";
      run.reason = crash.empty() ? "crashed with " + signalName(outcome.signal) : oneLine(crash);
    }
    return;
  }
  run.exit_code = outcome.exit_code;
  if (outcome.exit_code == 0) {
    run.status = "succeeded";
    return;
  }
  run.status = "failed";
  for (const StageRow& s : run.stages)
    if (s.status == "failed") {
      run.reason = oneLine("stage " + s.stage + " failed: " + s.detail);
      return;
    }
  std::string error = lastLine(text, "error: ");
  const char* what = outcome.exit_code == 2   ? "pipeline error: "
                     : outcome.exit_code == 3 ? "source not acquired: "
                     : outcome.exit_code == 4 ? "plugins: "
                                              : "";
  if (error.empty())
    error = "exited with code " + std::to_string(outcome.exit_code) + "; see " + log.string();
  run.reason = oneLine(std::string(what) + error);
}

}  // namespace migrate::fleet

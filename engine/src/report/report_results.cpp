/// Sections 4 (adaptation code list), 5 (verification results) and 6 (adaptation guide).

#include <algorithm>
#include <map>

#include "report/report_sections.hpp"
#include "report/report_text.hpp"
#include "verify/check_results.hpp"

namespace migrate::report {
namespace {

constexpr std::size_t kOutputLines = 40;

/// What a kit file is for, by its path (and the plugin that wrote it).
std::string functionOf(const EmittedFile& f, const MigrationModel& m) {
  static const std::map<std::string, std::string> kByPath{
      {"npu_compat.py",
       "Device detection and compatibility layer: torch.npu when torch_npu is there, a CPU "
       "fallback otherwise"},
      {"npu_migration.patch", "The adaptation as a patch against the original repository (`git apply`)"},
      {"change_list.csv",
       "Every change made to the repository's files: line, rule, text before and after (CSV)"},
      {"requirements-npu.txt",
       "Dependencies for Ascend: torch with its paired torch_npu, replacements of "
       "NVIDIA-only packages"},
      {"build_ascend_ops.sh",
       "Compilation script of the custom operators: CANN checks, msopgen and build per "
       "operator, diagnosis of known build failures"},
      {"triton_notes.md", "What each Triton kernel needs for triton-ascend"},
      {"verify_npu.sh", "Verification script: environment, imports, function, precision, benchmark"},
      {"verify_precision.py", "Compares the outputs of the original and the adapted code (rtol/atol)"},
      {"verify_pytest_plugin.py",
       "Records the repository's pytest tests one by one, each under a time limit, on both trees"},
      {"verify_config.json", "What the verification imports, tests and compares"},
      {"adapted/", "The adapted copy of the repository"}};
  if (f.path == "npu_ops.py") {
    const auto& sections = m.emit.npu_ops_sections;
    return "NPU operator wrappers that keep the original interfaces" +
           (sections.empty() ? std::string() : " (" + joined(sections) + ")");
  }
  if (const auto it = kByPath.find(f.path); it != kByPath.end()) return it->second;
  if (f.kind.rfind("plugin:", 0) == 0) return "Written by the " + f.kind.substr(7) + " plugin";
  return f.kind;
}

/// Kit files, with each ascend_ops/<operator>/ scaffold as one row.
void addNewFiles(const ReportInput& in, sdk::TemplateData& e) {
  const MigrationModel& m = in.model;
  std::map<std::string, std::size_t> scaffolds;
  for (const EmittedFile& f : m.emit.files) {
    if (f.path.rfind("ascend_ops/", 0) == 0 && f.path.find('/', 11) != std::string::npos) {
      ++scaffolds[f.path.substr(0, f.path.find('/', 11) + 1)];
      continue;
    }
    e.addItem("new_files")
        .set("path", code(f.path))
        .set("function", cell(functionOf(f, m)))
        .set("status", "✅");
  }
  for (const auto& [dir, files] : scaffolds)
    e.addItem("new_files")
        .set("path", code(dir))
        .set("function", cell("Ascend C operator scaffold (" + plural(files, "file", "files") +
                              "): msopgen definition, kernel and host stubs"))
        .set("status", "⚠️ scaffold: the kernel body is to be ported");
  for (const AdaptedFile& a : m.emit.adapted)
    if (a.status == "added")
      e.addItem("new_files")
          .set("path", code(m.emit.adapted_dir + "/" + a.path))
          .set("function", "Added to the adapted tree")
          .set("status", "✅");
}

void addModifiedFiles(const ReportInput& in, sdk::TemplateData& e) {
  const MigrationModel& m = in.model;
  std::map<std::string, std::map<std::string, int>> fixed_rules;  // file → rule → count
  for (std::size_t i : m.emit.fixed_findings)
    if (i < m.findings.size()) ++fixed_rules[m.findings[i].file][m.findings[i].rule_id];
  e.setEmptyList("modified_files");
  for (const AdaptedFile& a : m.emit.adapted) {
    if (a.status != "modified") continue;
    std::string rules;
    for (const auto& [rule, n] : fixed_rules[a.path])
      rules += (rules.empty() ? "" : ", ") + rule + (n > 1 ? " ×" + std::to_string(n) : "");
    std::string content = a.edits ? plural(a.edits, "edit", "edits") : "no automatic edit";
    if (!rules.empty()) content += " (" + rules + ")";
    if (a.todos) content += "; " + plural(a.todos, "TODO comment", "TODO comments") + " for manual work";
    e.addItem("modified_files")
        .set("path", code(a.path))
        .set("content", cell(content))
        .set("status",
             a.todos ? "⚠️ " + plural(a.todos, "place", "places") + " left for manual work" : "✅");
  }
}

std::string resultBadge(const std::string& status) {
  if (status == "passed") return "✅ passed";
  if (status == "failed") return "❌ failed";
  if (status == "error") return "❌ error";
  return "⏭️ skipped";
}

/// The check's outcome against the original tree (its status when there is none).
std::string outcomeBadge(const CheckResult& c) {
  if (c.outcome.empty()) return resultBadge(c.status);
  if (c.outcome == "passed") return "✅ passed";
  if (c.outcome == "fixed") return "✅ fixed";
  if (c.outcome == "introduced") return "❌ introduced";
  if (c.outcome == "error") return "❌ error";
  if (c.outcome == "pre-existing") return "➖ pre-existing";
  if (c.outcome == "environment") return "🧩 environment";
  return "⏭️ skipped";
}

/// The repository file of a module the imports stage names ("pkg.mod" → pkg/mod.py).
std::string fileOfModule(const MigrationModel& m, const std::string& module) {
  std::string base = module;
  for (char& c : base)
    if (c == '.') c = '/';
  for (const AdaptedFile& a : m.emit.adapted)
    if (a.path == base + ".py" || a.path == base + "/__init__.py") return a.path;
  for (const sdk::Finding& f : m.findings)
    if (f.file == base + ".py" || f.file == base + "/__init__.py") return f.file;
  return "";
}

/// The last lines of a check's output, tidied for a code block.
std::string outputTail(const std::string& output) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : output) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else if (c == '\t' || static_cast<unsigned char>(c) >= 0x20) {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  std::string out;
  for (std::size_t i = lines.size() > kOutputLines ? lines.size() - kOutputLines : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

void addFailedCheck(const ReportInput& in, const CheckResult& c, sdk::TemplateData& item) {
  const MigrationModel& m = in.model;
  item.set("stage", c.stage)
      .set("check", oneLine(c.check))
      .set("result", c.outcome.empty() ? c.status : c.outcome);
  item.set("cause", oneLine(c.cause));
  item.set("broken_by", c.broken_by.empty() ? "" : code(joined(c.broken_by)));
  item.set("attribution", oneLine(c.attribution));
  item.set("detail", oneLine(c.detail.empty() ? "(no detail)" : c.detail));
  item.set("suggestion", repairSuggestion(c.stage, c.check));
  for (const std::string& h : c.hints) item.addItem("hints").set("text", oneLine(h));
  const std::string file = c.stage == "imports" ? fileOfModule(m, c.check) : "";
  item.set("code_file", file.empty() ? "" : code(m.emit.adapted_dir + "/" + file));
  std::string todos;
  for (const sdk::ManualWork& w : m.emit.manual_work)
    if (!file.empty() && w.file == file)
      todos += (todos.empty() ? "" : ", ") + ("line " + std::to_string(w.line) + " (" + w.rule_id + ")");
  item.set("code_todos", todos);
  const std::string output = outputTail(c.output);
  item.setFlag("has_output", !output.empty());
  item.set("output", output);
  item.set("fence", fenceFor(output));
}

void addIssueSummary(const ReportInput& in, sdk::TemplateData& data) {
  std::map<sdk::Level, std::size_t> open;
  std::size_t resolved = 0;
  for (const BottleneckState& s : in.states) {
    if (s.adapted())
      ++resolved;
    else
      ++open[s.bottleneck->difficulty];
  }
  auto row = [&](const std::string& type, std::size_t n, const std::string& severity) {
    data.addItem("issue_summary")
        .set("type", type)
        .set("quantity", std::to_string(n))
        .set("severity", severity);
  };
  row("Resolved bottlenecks (adapted automatically)", resolved, "—");
  row("Unresolved bottlenecks, high difficulty", open[sdk::Level::High], "High");
  row("Unresolved bottlenecks, medium difficulty", open[sdk::Level::Medium], "Medium");
  row("Unresolved bottlenecks, low difficulty", open[sdk::Level::Low], "Low");
  const VerifyResult& v = in.model.verify;
  row("Failed verification checks (introduced by the migration, or not run)", v.broken(), "High");
  row("Verification checks the target cannot run (missing packages, tools or devices)",
      v.outcomes("environment"), "Medium");
  row("Verification checks that fail on the original tree too (pre-existing)", v.outcomes("pre-existing"),
      "Low");
  row("Verification checks skipped (need an NPU host or a component that is missing)",
      skippedChecks(v).size(), "Medium");
  row("Diagnostics (files not analysed, plugin problems)", in.model.diagnostics.size(), "Low");
}

}  // namespace

void addCodeList(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  data.setEmptyList("emitted");
  data.set("no_emit_reason", oneLine(in.missing("emit")));
  if (!m.emit.computed) return;
  auto& e = data.addItem("emitted");
  addNewFiles(in, e);
  addModifiedFiles(in, e);
  e.setFlag("has_manual", !m.emit.manual_work.empty());
  std::size_t shown = 0;
  for (const sdk::ManualWork& w : m.emit.manual_work) {
    if (shown++ >= in.max_items) break;
    e.addItem("manual")
        .set("place",
             code(w.file.empty() ? "(repository)" : w.file + (w.line ? ":" + std::to_string(w.line) : "")))
        .set("rule", cell(w.rule_id))
        .set("what", cell(w.what));
  }
  e.set("manual_more", m.emit.manual_work.size() > in.max_items
                           ? std::to_string(m.emit.manual_work.size() - in.max_items)
                           : "");
}

void addVerification(const ReportInput& in, sdk::TemplateData& data) {
  const VerifyResult& v = in.model.verify;
  data.setEmptyList("verified");
  data.set("no_verify_reason", oneLine(in.missing("verify")));
  addIssueSummary(in, data);
  data.setEmptyList("failed_checks");
  for (const CheckResult& c : v.checks)
    if (c.broken()) addFailedCheck(in, c, data.addItem("failed_checks"));
  data.setFlag("has_failed_checks", v.broken() > 0);
  // What the target lacks, once per cause, with how many checks it stopped.
  std::map<std::string, std::size_t> causes;
  for (const CheckResult& c : v.checks)
    if (c.outcome == "environment") ++causes[c.cause];
  data.setEmptyList("environment_causes");
  data.setFlag("has_environment_causes", !causes.empty());
  for (const auto& [cause, n] : causes)
    data.addItem("environment_causes").set("cause", cell(cause)).set("checks", plural(n, "check", "checks"));
  if (!v.computed) return;
  auto& ver = data.addItem("verified");
  ver.set("host", cell(v.host)).set("target", cell(v.target)).set("verify_status", v.status);
  ver.set("verify_detail", oneLine(v.detail));
  ver.setFlag("compared", v.compared());
  auto rows = [&](const std::string& list, std::initializer_list<const char*> stages) {
    ver.setEmptyList(list);
    for (const char* stage : stages)
      for (const CheckResult* c : in.checks(stage))
        ver.addItem(list)
            .set("stage", c->stage)
            .set("check", cell(c->check))
            .set("result", outcomeBadge(*c) + (c->reused ? " (kept)" : ""))
            .set("detail", cell(c->detail));
  };
  rows("environment_checks", {"environment"});
  rows("function_checks", {"imports", "function"});
  rows("precision_checks", {"precision", "benchmark"});
}

void addGuide(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  std::string pair = "torch and the torch_npu release paired with it";
  if (const auto& a = m.plan.assessment)
    for (const sdk::MatrixRow& r : a->matrix)
      if (r.dependency == "torch" && r.replacement.find("torch_npu") != std::string::npos)
        pair = code(r.replacement);
  data.set("torch_pair", pair);
  data.set("commit", m.source.commit);
  bool custom_ops = false;
  for (const EmittedFile& f : m.emit.files) custom_ops = custom_ops || f.path == "build_ascend_ops.sh";
  data.setFlag("has_custom_ops", custom_ops);
  data.setEmptyList("run_commands");
  bool tests = false;
  std::size_t shown = 0;
  for (const sdk::EntryPoint& e : m.plan.structure.entry_points) {
    if (shown >= in.max_items) break;
    std::string command, note;
    switch (e.kind) {
      case sdk::EntryPoint::Kind::MainBlock:
        command = "python3 " + e.name;
        break;
      case sdk::EntryPoint::Kind::LaunchScript:
        command = "bash " + e.name;
        note = e.launcher.empty() ? "" : "launches with " + e.launcher;
        break;
      case sdk::EntryPoint::Kind::ConsoleScript:
        command = e.name;
        note = "console script declared in " + e.file;
        break;
      case sdk::EntryPoint::Kind::TestModule:
        if (tests) continue;
        tests = true;
        command = "python3 -m pytest";
        note = "the repository's tests";
        break;
      case sdk::EntryPoint::Kind::Library:
        command = "python3 -c \"import " + e.name + "\"";
        note = "a library: import it from your code";
        break;
    }
    ++shown;
    data.addItem("run_commands").set("command", code(command)).set("note", oneLine(note));
  }
  for (const TroubleshootingRow& r : troubleshooting())
    data.addItem("troubleshooting")
        .set("issue", cell(r.issue))
        .set("cause", cell(r.cause))
        .set("solution", cell(r.solution));
  for (const verify::KnownError& e : verify::knownErrors())
    data.addItem("troubleshooting")
        .set("issue", cell("Error " + e.match))
        .set("cause", cell(e.name))
        .set("solution", cell(e.hint));
}

}  // namespace migrate::report

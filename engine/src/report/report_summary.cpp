/// Sections 1 (executive summary) and 2 (original code analysis) of the report.

#include <algorithm>

#include "report/report_sections.hpp"
#include "report/report_text.hpp"

namespace migrate::report {
namespace {

const char* badge(const std::string& level) {
  if (level == "fully") return "✅ Fully Adapted";
  if (level == "partially") return "⚠️ Partially Adapted";
  return "❌ Adaptation Failed";
}

std::string verificationLine(const ReportInput& in) {
  const VerifyResult& v = in.model.verify;
  if (!v.computed) return cell("not run: " + in.missing("verify"));
  if (v.status != "completed")
    return cell("❌ could not run on " + v.host + " (" + v.status + "): " + v.detail);
  const std::size_t bad = v.broken();
  const std::string counts =
      v.compared()
          ? v.outcomeCounts()
          : std::to_string(v.count("passed")) + " passed, " + std::to_string(v.count("failed")) +
                " failed, " + std::to_string(v.count("skipped")) + " skipped, " +
                std::to_string(v.count("error")) + " errors";  // a verify.json from before the outcomes
  return cell(std::string(bad                                               ? "❌ "
                          : v.count("skipped") || v.outcomes("environment") ? "⚠️ "
                                                                            : "✅ ") +
              "on " + v.host + ": " + counts);
}

/// "✅ Compatible" for a deps verdict; unknown verdicts pass through.
std::string compatibility(const std::string& verdict) {
  if (verdict == "compatible") return "✅ Compatible";
  if (verdict == "needs replacement") return "⚠️ Needs replacement";
  if (verdict == "unsupported") return "❌ Unsupported";
  if (verdict == "not involved") return "➖ Not involved";
  if (verdict.empty()) return "❔ Not assessed (project-local or not in the compatibility table)";
  return cell(verdict);
}

}  // namespace

void addSummary(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  data.set("project", cell(in.project));
  data.set("file_name", in.context.file_name);
  data.set("review_date", in.context.review_date);
  data.set("generated_at", in.context.generated_at);
  data.set("pipeline", cell(m.pipeline_name));
  data.set("repository", code(m.source.location.empty() ? "(not acquired)" : m.source.location) +
                             (m.source.commit.empty() ? "" : " at commit " + code(m.source.commit)));
  data.set("status_badge", badge(in.status.level));
  data.setFlag("adaptation_successful", in.status.level == "fully");
  for (const std::string& r : in.status.reasons) data.addItem("status_reasons").set("text", oneLine(r));

  const std::size_t adapted = static_cast<std::size_t>(std::count_if(
      in.states.begin(), in.states.end(), [](const BottleneckState& s) { return s.adapted(); }));
  data.set("bottlenecks_total", std::to_string(in.states.size()));
  data.set("bottlenecks_adapted", std::to_string(adapted));
  data.set("bottlenecks_remaining", std::to_string(in.states.size() - adapted));
  data.set("findings_total", std::to_string(m.findings.size()));
  data.set("findings_fixed", std::to_string(m.emit.fixed_findings.size()));
  data.set("manual_total", std::to_string(m.emit.manual_work.size()));
  if (const auto& a = m.plan.assessment) {
    const sdk::GoalResult* g = &a->chosen();
    data.set("feasibility", cell(g->verdict + " (" + g->title + "); full migration: " + a->full.verdict));
    data.set("effort",
             cell(number(g->effort_weeks) + " weeks (" + number(g->effort_days) + " person-days) for " +
                  g->title + "; " + number(a->full.effort_weeks) + " weeks for the full migration"));
  } else {
    const std::string why = m.plan.computed ? "no assessment (the phase_matrix plugin is not in the pipeline)"
                                            : "not assessed: " + in.missing("plan");
    data.set("feasibility", cell(why));
    data.set("effort", cell(why));
  }
  data.set("verification_line", verificationLine(in));

  data.setEmptyList("stages");
  data.setEmptyList("failed_stages");
  for (const StageRecord& s : m.stages) {
    if (s.name == "report") continue;
    auto& row = data.addItem("stages");
    row.set("name", s.name).set("status", s.status).set("detail", cell(s.detail));
    if (s.status == "failed")
      data.addItem("failed_stages")
          .set("name", s.name)
          .set("status", s.status)
          .set("detail", oneLine(s.detail));
  }
}

void addCodeAnalysis(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  data.set("no_plan_reason", m.plan.computed ? "" : oneLine(in.missing("plan")));
  data.setEmptyList("dependencies");
  if (!m.plan.computed) {
    data.setEmptyList("structure");
    data.setFlag("has_dependencies", false);
    return;
  }
  const CodeStructure& s = m.plan.structure;
  auto& st = data.addItem("structure");
  std::uint64_t python = 0, native = 0;
  for (const LanguageStats& l : s.languages) {
    if (l.language == "Python") python += l.lines;
    if (l.language == "CUDA" || l.language == "C/C++") native += l.lines;
    st.addItem("languages")
        .set("language", l.language)
        .set("files", std::to_string(l.files))
        .set("lines", std::to_string(l.lines));
  }
  st.set("files", std::to_string(s.files));
  st.set("python_lines", std::to_string(python));
  st.set("native_lines", std::to_string(native));
  st.set("entry_point_count", std::to_string(s.entry_points.size()));
  st.setEmptyList("core_modules");
  for (const CoreModule& c : s.core_modules)
    st.addItem("core_modules")
        .set("path", code(c.path))
        .set("lines", std::to_string(c.lines))
        .set("importers", std::to_string(c.importers))
        .set("description", cell(c.description));
  st.setEmptyList("entry_points");
  for (const sdk::EntryPoint& e : s.entry_points) {
    st.addItem("entry_points")
        .set("name", code(e.name))
        .set("kind", std::string(sdk::toString(e.kind)) + (e.launcher.empty() ? "" : " (" + e.launcher + ")"))
        .set("file", code(e.file))
        .set("labels", cell(joined(e.labels)));
  }
  st.setFlag("has_models", !s.models.empty());
  for (const ModelClass& mc : s.models) {
    std::string layers;
    for (const auto& [category, types] : mc.layers) {
      layers += (layers.empty() ? "" : "; ") + category + ": " + joined(types);
    }
    st.addItem("models")
        .set("name", code(mc.name))
        .set("where", code(mc.path + ":" + std::to_string(mc.line)))
        .set("layers", cell(layers))
        .set("submodules", cell(joined(mc.submodules)))
        .set("custom_ops", cell(joined(mc.custom_ops)));
  }

  // Dependencies: the libraries the code imports or the project declares, with the replacement
  // the assessment's matrix names for them.
  data.setFlag("has_dependencies", !s.libraries.empty());
  for (const LibraryUse& l : s.libraries) {
    std::string replacement;
    if (const auto& a = m.plan.assessment)
      for (const sdk::MatrixRow& r : a->matrix)
        if (r.dependency == l.name) replacement = r.replacement;
    if (replacement.empty() && l.verdict == "compatible") replacement = "works as is";
    data.addItem("dependencies")
        .set("name", code(l.name))
        .set("version", l.declared.empty() ? "not declared" : cell(l.declared))
        .set("compatibility", compatibility(l.verdict))
        .set("replacement", cell(replacement));
  }
}

}  // namespace migrate::report

#include "report/reporter.hpp"

#include <map>

#include "emit/emitter.hpp"
#include "emit/template_store.hpp"
#include "outputs/json_output.hpp"
#include "report/chart_svg.hpp"
#include "report/report_data.hpp"
#include "report/report_facts.hpp"
#include "report/sarif.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

constexpr const char* kChartFile = "migration_chart.svg";
constexpr const char* kReportPrefix = "CodeReview_Results_";

std::tm localTime(std::time_t now) {
  std::tm tm{};
  localtime_r(&now, &tm);
  return tm;
}

std::string formatTime(std::time_t now, const char* format) {
  const std::tm tm = localTime(now);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

/// "2026-11-22 15:49:01 UTC+08:00".
std::string generationTime(std::time_t now) {
  std::string zone = formatTime(now, "%z");  // +0800
  if (zone.size() == 5) zone = zone.substr(0, 3) + ":" + zone.substr(3);
  return formatTime(now, "%Y-%m-%d %H:%M:%S") + " UTC" + zone;
}

Status writeAtomically(const fs::path& file, const std::string& text) {
  return outputs::writeFileAtomically(file, [&](std::ostream& out) { out << text; });
}

/// Findings per domain (fixed automatically / remaining) and effort per phase.
std::vector<report::ChartPanel> chartPanels(const MigrationModel& model) {
  const std::vector<std::string> order{"deps",       "device",      "attention",
                                       "custom_ops", "distributed", "precision"};
  std::map<std::string, std::pair<double, double>> per_domain;
  for (std::size_t i = 0; i < model.findings.size(); ++i) {
    auto& [done, left] = per_domain[model.findings[i].domain];
    (model.emit.isFixed(i) ? done : left) += 1;
  }
  report::ChartPanel findings{"Findings per domain", "findings", {"fixed automatically", "remaining"}, {}};
  for (const std::string& d : order)
    if (auto it = per_domain.find(d); it != per_domain.end()) {
      findings.bars.push_back({d, {it->second.first, it->second.second}});
      per_domain.erase(it);
    }
  for (const auto& [d, counts] : per_domain) findings.bars.push_back({d, {counts.first, counts.second}});
  report::ChartPanel effort{"Effort per phase", "person-days", {"person-days"}, {}};
  for (const auto& [phase, days] : report::effortPerPhase(model)) effort.bars.push_back({phase, {days}});
  return {findings, effort};
}

/// The link from a report in `dir` to `target`: relative when possible.
std::string linkTo(const fs::path& target, const fs::path& dir) {
  const fs::path rel = target.lexically_relative(dir);
  return rel.empty() ? target.generic_string() : rel.generic_string();
}

/// Removes the reports an earlier run left in the output directory (other dates).
void removeStaleReports(const fs::path& out, const std::string& keep) {
  std::error_code ec;
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != keep && name.rfind(kReportPrefix, 0) == 0 && it->path().extension() == ".md")
      fs::remove(it->path(), ec);
  }
}

}  // namespace

std::string reportFileName(std::time_t now) {
  return kReportPrefix + formatTime(now, "%Y-%m-%d") + ".md";
}

Result<ReportOutputs> writeReport(const MigrationModel& model, const PipelineSpec& spec, const fs::path& out,
                                  std::time_t now) {
  ReportOutputs outputs;
  outputs.sarif = out / "findings.sarif";
  if (auto st = writeSarif(model, outputs.sarif); !st) return st.error();
  outputs.chart = out / kChartFile;
  if (auto st = writeAtomically(
          outputs.chart,
          report::renderChartSvg("Migration of " + projectNameOf(model.source), chartPanels(model)));
      !st)
    return makeError(st.error().message + " (findings.sarif was written)");

  report::ReportContext context;
  context.file_name = reportFileName(now);
  context.review_date = formatTime(now, "%Y-%m-%d");
  context.generated_at = generationTime(now);
  context.max_items = spec.report.max_items;
  const emit::TemplateStore templates(spec.emit.templates);
  // The copies differ only in the chart's link, relative to where each copy is.
  sdk::TemplateData data = report::reportData(model, context);
  const std::string project = data.find("project")->text;
  auto render = [&](const fs::path& dir) {
    data.set("chart", linkTo(outputs.chart, dir));
    return templates.render("report.md", data, project);
  };

  removeStaleReports(out, context.file_name);
  outputs.report = out / context.file_name;
  auto text = render(out);
  if (!text) return text.error();
  if (auto st = writeAtomically(outputs.report, *text); !st) return st.error();

  if (!spec.report.directory.empty()) {
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::absolute(spec.report.directory), ec);
    if (dir != fs::weakly_canonical(out, ec)) {
      fs::create_directories(dir, ec);
      if (ec)
        return makeError("cannot create the report directory " + dir.string() + ": " + ec.message() +
                         " (the report is in " + outputs.report.string() + ")");
      auto copy = render(dir);
      if (!copy) return copy.error();
      outputs.copy = dir / context.file_name;
      if (auto st = writeAtomically(outputs.copy, *copy); !st)
        return makeError(st.error().message + " (the report is in " + outputs.report.string() + ")");
    }
  }
  return outputs;
}

}  // namespace migrate

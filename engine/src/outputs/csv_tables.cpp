#include "outputs/csv_tables.hpp"

#include <cstdio>
#include <set>

#include "csv/csv_writer.hpp"
#include "outputs/json_output.hpp"

namespace migrate::outputs {
namespace {

std::string detailOf(const sdk::Finding& f, const char* key) {
  const auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

std::string days(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ";") + s;
  return out;
}

std::string findingsCsv(const MigrationModel& m) {
  CsvWriter csv;
  csv.row("rule_id", "domain", "severity", "file", "line", "column", "end_line", "end_column", "api",
          "resolved_api", "message", "npu_alternative", "confidence", "difficulty", "effort_days", "autofix",
          "fixed", "phases");
  for (std::size_t i = 0; i < m.findings.size(); ++i) {
    const sdk::Finding& f = m.findings[i];
    csv.row(f.rule_id, f.domain, sdk::toString(f.severity), f.file, std::int64_t{f.range.line},
            std::int64_t{f.range.column}, std::int64_t{f.range.end_line}, std::int64_t{f.range.end_column},
            f.api, f.resolved_api, f.message, f.npu_alternative, sdk::toString(f.confidence),
            sdk::toString(f.difficulty), days(f.effort_days), f.autofix() ? "yes" : "no",
            !m.emit.computed    ? ""
            : m.emit.isFixed(i) ? "yes"
                                : "no",
            joined(f.phases));
  }
  return csv.take();
}

std::string dependenciesCsv(const MigrationModel& m) {
  CsvWriter csv;
  csv.row("name", "package", "ecosystem", "spec", "verdict", "replacement", "declared_in", "file", "line",
          "rule_id", "note");
  for (const auto* list : {&m.findings, &m.dependencies})
    for (const sdk::Finding& f : *list) {
      const std::string verdict = detailOf(f, "verdict");
      if (verdict.empty()) continue;
      const std::string name = detailOf(f, "name");
      csv.row(name.empty() ? f.api : name, detailOf(f, "package"), detailOf(f, "ecosystem"),
              detailOf(f, "spec"), verdict,
              detailOf(f, "replacement").empty() ? f.npu_alternative : detailOf(f, "replacement"),
              detailOf(f, "source"), f.file, std::int64_t{f.range.line}, f.rule_id, detailOf(f, "note"));
    }
  return csv.take();
}

/// The findings of the rules whose API has no NPU counterpart (RuleRecord::no_npu_counterpart),
/// one row per API and place, in findings.json's order.
std::string unsupportedApisCsv(const MigrationModel& m) {
  std::set<std::string> unsupported;
  for (const RuleRecord& r : m.rules)
    if (r.no_npu_counterpart) unsupported.insert(r.info.id);
  CsvWriter csv;
  csv.row("api", "written", "rule_id", "domain", "severity", "file", "line", "column", "message",
          "npu_alternative");
  for (const sdk::Finding& f : m.findings) {
    if (!unsupported.count(f.rule_id)) continue;
    csv.row(f.resolved_api.empty() ? f.api : f.resolved_api, f.api, f.rule_id, f.domain,
            sdk::toString(f.severity), f.file, std::int64_t{f.range.line}, std::int64_t{f.range.column},
            f.message, f.npu_alternative);
  }
  return csv.take();
}

}  // namespace

Status writeCsvTables(const MigrationModel& model, const std::filesystem::path& out) {
  for (const auto& table :
       {std::pair{"findings.csv", findingsCsv(model)}, std::pair{"dependencies.csv", dependenciesCsv(model)},
        std::pair{"unsupported_apis.csv", unsupportedApisCsv(model)}}) {
    const std::string& text = table.second;  // clang 14 cannot capture a structured binding
    if (auto st = writeFileAtomically(out / table.first, [&](std::ostream& o) { o << text; }); !st) return st;
  }
  return Ok{};
}

}  // namespace migrate::outputs

// The inverse of findings_json.cpp: findings.json back into a MigrationModel.

#include "json/json_reader.hpp"
#include "migrate/engine/findings_json.hpp"
#include "outputs/plan_json_reader.hpp"
#include "outputs/run_outputs.hpp"

namespace migrate {
namespace {

using json::Field;

const std::vector<std::string> kSeverities{"info", "warning", "error"};
const std::vector<std::string> kLevels{"low", "medium", "high"};

sdk::Severity severity(const Field& f) {
  return f.as<sdk::Severity>(sdk::severityFromString, kSeverities);
}

sdk::Level level(const Field& f) {
  return f.as<sdk::Level>(sdk::levelFromString, kLevels);
}

sdk::Finding readFinding(const Field& f) {
  sdk::Finding x;
  x.rule_id = f["rule_id"].string();
  x.domain = f["domain"].string();
  x.file = f["file"].string();
  // The byte range of the finding itself is not written; start_byte and end_byte stay 0.
  x.range.line = f["line"].uint32();
  x.range.column = f["column"].uint32();
  x.range.end_line = f["end_line"].uint32();
  x.range.end_column = f["end_column"].uint32();
  x.api = f["api"].string();
  x.resolved_api = f["resolved_api"].string();
  x.message = f["message"].string();
  x.npu_alternative = f["npu_alternative"].string();
  x.severity = severity(f["severity"]);
  x.confidence = level(f["confidence"]);
  x.difficulty = level(f["difficulty"]);
  x.effort_days = f["effort_days"].number();
  x.edits = f["edits"].list([](const Field& e) {
    return sdk::Edit{e["start_byte"].uint32(), e["end_byte"].uint32(), e["replacement"].string()};
  });
  // `autofix` is derived from the edits; a file where they disagree was not written by us.
  const Field autofix = f["autofix"];
  if (autofix.boolean() != x.autofix())
    autofix.fail(std::string("is ") + (x.autofix() ? "false" : "true") + " but the finding has " +
                 std::to_string(x.edits.size()) + " edits");
  for (const auto& [key, value] : f["details"].members()) x.details[key] = value.string();
  x.phases = f["phases"].strings();
  return x;
}

sdk::Diagnostic readDiagnostic(const Field& f) {
  sdk::Diagnostic d;
  d.severity = severity(f["severity"]);
  d.code = f["code"].string();
  d.file = f["file"].string();
  d.line = f["line"].uint32();
  d.message = f["message"].string();
  return d;
}

RuleRecord readRule(const Field& f) {
  RuleRecord r;
  r.plugin = f["plugin"].string();
  r.info.id = f["id"].string();
  r.info.domain = f["domain"].string();
  r.info.title = f["title"].string();
  r.info.message = f["message"].string();
  r.info.npu_alternative = f["npu_alternative"].string();
  r.info.severity = severity(f["severity"]);
  r.info.confidence = level(f["confidence"]);
  r.info.difficulty = level(f["difficulty"]);
  r.info.effort_days = f["effort_days"].number();
  // `no_npu_counterpart` came without a schema bump: rules written before it have none.
  r.no_npu_counterpart = f.has("no_npu_counterpart") && f["no_npu_counterpart"].boolean();
  return r;
}

void readModel(const Field& doc, MigrationModel& m) {
  m.tool_version = doc["tool"]["version"].string();
  const Field run = doc["run"];
  m.pipeline_name = run["pipeline"].string();
  m.pipeline_file = run["pipeline_file"].string();
  m.started_at = run["started_at"].string();
  m.stages = run["stages"].list([](const Field& s) {
    StageRecord r{s["name"].string(), s["status"].string(), s["detail"].string(), s["seconds"].number()};
    if (s.has("reused")) {
      r.kept = s["reused"]["kept"].size();
      r.total = s["reused"]["of"].size();
    }
    return r;
  });
  const Field source = doc["source"];
  m.source.kind = source["kind"].string();
  m.source.location = source["location"].string();
  m.source.ref = source["ref"].string();
  m.source.commit = source["commit"].string();
  // PluginRecord::file (the library's path) is not written; it stays empty.
  m.plugins = doc["plugins"].list([](const Field& p) {
    return PluginRecord{p["name"].string(), p["version"].string(), p["domain"].string(), p["rules"].size(),
                        ""};
  });
  const Field inv = doc["inventory"];
  m.inventory.files = inv["files"].size();
  m.inventory.python_files = inv["python_files"].size();
  m.inventory.python_parsed = inv["python_parsed"].size();
  m.inventory.python_lines = inv["python_lines"].unsignedInt();
  m.inventory.bytes = inv["bytes"].unsignedInt();
  m.inventory.skipped = inv["skipped"].size();
  m.findings = doc["findings"].list(readFinding);
  // `dependencies` came without a schema bump: files written before it have none.
  if (doc.has("dependencies")) m.dependencies = doc["dependencies"].list(readFinding);
  m.diagnostics = doc["diagnostics"].list(readDiagnostic);
  // `rules` came without a schema bump: files written before it have none.
  if (doc.has("rules")) m.rules = doc["rules"].list(readRule);
  // `domains` is written only when rule packs declare domains.
  if (doc.has("domains"))
    m.domains = doc["domains"].list([](const Field& d) {
      return DomainRecord{d["name"].string(), d["title"].string(), d["pack"].string()};
    });
  // `modules` (the per-file summaries of the analysis) are not in the file; they stay empty.
  const Field plan = doc["plan"];
  if (!plan.isNull()) m.plan = readPlanJson(plan, m.findings.size());
}

}  // namespace

Result<MigrationModel> readFindingsJson(const std::filesystem::path& file) {
  MigrationModel model;
  Status read =
      json::readDocument(file, kFindingsSchemaVersion, [&](const Field& doc) { readModel(doc, model); });
  if (!read) return read.error();
  return model;
}

}  // namespace migrate

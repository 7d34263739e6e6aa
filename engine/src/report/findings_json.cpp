#include "migrate/engine/findings_json.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/plan_json.hpp"

namespace migrate {
namespace {

using nlohmann::ordered_json;

ordered_json findingJson(const sdk::Finding& f) {
  ordered_json j;
  j["rule_id"] = f.rule_id;
  j["domain"] = f.domain;
  j["file"] = f.file;
  j["line"] = f.range.line;
  j["column"] = f.range.column;
  j["end_line"] = f.range.end_line;
  j["end_column"] = f.range.end_column;
  j["api"] = f.api;
  j["resolved_api"] = f.resolved_api;
  j["message"] = f.message;
  j["npu_alternative"] = f.npu_alternative;
  j["severity"] = sdk::toString(f.severity);
  j["confidence"] = sdk::toString(f.confidence);
  j["difficulty"] = sdk::toString(f.difficulty);
  j["effort_days"] = f.effort_days;
  j["autofix"] = f.autofix();
  ordered_json edits = ordered_json::array();
  for (const auto& e : f.edits)
    edits.push_back({{"start_byte", e.start_byte}, {"end_byte", e.end_byte}, {"replacement", e.replacement}});
  j["edits"] = edits;
  ordered_json details = ordered_json::object();
  for (const auto& [k, v] : f.details) details[k] = v;
  j["details"] = details;
  j["phases"] = f.phases;
  return j;
}

/// `value` as pretty JSON whose lines after the first are indented by `indent` more spaces.
void writeIndented(std::ostream& out, const ordered_json& value, const std::string& indent) {
  // Invalid UTF-8 in a source (a finding's `api` text) is replaced, never fatal.
  const std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  for (char c : text) {
    out << c;
    if (c == '\n') out << indent;
  }
}

/// Writes an array member element by element, so that a run with a million findings never holds
/// them all as JSON values at once.
template <typename T, typename F>
void writeArray(std::ostream& out, const char* key, const std::vector<T>& items, F&& toJson) {
  out << "  \"" << key << "\": [";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out << (i ? ",\n    " : "\n    ");
    writeIndented(out, toJson(items[i]), "    ");
  }
  out << (items.empty() ? "]" : "\n  ]");
}

void writeFindingsJson(std::ostream& out, const MigrationModel& m) {
  ordered_json j;
  j["schema_version"] = kFindingsSchemaVersion;
  j["tool"] = {{"name", "migrate-pipeline"}, {"version", m.tool_version}};
  j["run"] = {
      {"pipeline", m.pipeline_name}, {"pipeline_file", m.pipeline_file}, {"started_at", m.started_at}};
  ordered_json stages = ordered_json::array();
  for (const auto& s : m.stages)
    stages.push_back({{"name", s.name}, {"status", s.status}, {"detail", s.detail}, {"seconds", s.seconds}});
  j["run"]["stages"] = stages;
  j["source"] = {{"kind", m.source.kind},
                 {"location", m.source.location},
                 {"ref", m.source.ref},
                 {"commit", m.source.commit}};
  ordered_json plugins = ordered_json::array();
  for (const auto& p : m.plugins)
    plugins.push_back({{"name", p.name}, {"version", p.version}, {"domain", p.domain}, {"rules", p.rules}});
  j["plugins"] = plugins;
  j["inventory"] = {{"files", m.inventory.files},
                    {"python_files", m.inventory.python_files},
                    {"python_parsed", m.inventory.python_parsed},
                    {"python_lines", m.inventory.python_lines},
                    {"bytes", m.inventory.bytes},
                    {"skipped", m.inventory.skipped}};
  out << "{";
  for (auto it = j.begin(); it != j.end(); ++it) {
    out << "\n  " << ordered_json(it.key()).dump() << ": ";
    writeIndented(out, it.value(), "  ");
    out << ",";
  }
  out << "\n";
  writeArray(out, "findings", m.findings, findingJson);
  out << ",\n";
  writeArray(out, "diagnostics", m.diagnostics, [](const sdk::Diagnostic& d) {
    return ordered_json{{"severity", sdk::toString(d.severity)},
                        {"code", d.code},
                        {"file", d.file},
                        {"line", d.line},
                        {"message", d.message}};
  });
  out << ",\n  \"plan\": ";
  writeIndented(out, m.plan.computed ? planJson(m.plan) : ordered_json(nullptr), "  ");
  out << "\n}\n";
}

}  // namespace

Status writeFindingsJson(const MigrationModel& model, const std::filesystem::path& file) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return makeError("cannot write " + tmp.string());
    writeFindingsJson(out, model);
    if (!out) return makeError("writing " + tmp.string() + " failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) return makeError("cannot move " + tmp.string() + " to " + file.string() + ": " + ec.message());
  return Ok{};
}

}  // namespace migrate

#include "migrate/engine/findings_json.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "outputs/json_output.hpp"
#include "outputs/plan_json.hpp"

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

/// Writes an array member element by element, so that a run with a million findings never holds
/// them all as JSON values at once.
template <typename T, typename F>
void writeArray(std::ostream& out, const char* key, const std::vector<T>& items, F&& toJson) {
  out << "  \"" << key << "\": [";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out << (i ? ",\n    " : "\n    ");
    outputs::writeIndented(out, toJson(items[i]), "    ");
  }
  out << (items.empty() ? "]" : "\n  ]");
}

/// The rules some finding names, sorted by id.
std::vector<const RuleRecord*> firedRules(const MigrationModel& m) {
  std::set<std::string> ids;
  for (const auto& f : m.findings) ids.insert(f.rule_id);
  for (const auto& f : m.dependencies) ids.insert(f.rule_id);
  std::vector<const RuleRecord*> fired;
  for (const RuleRecord& r : m.rules)
    if (ids.count(r.info.id)) fired.push_back(&r);
  return fired;
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
  outputs::writeMembers(out, j, "  ");
  out << "\n";
  writeArray(out, "findings", m.findings, findingJson);
  out << ",\n";
  writeArray(out, "dependencies", m.dependencies, findingJson);
  out << ",\n";
  writeArray(out, "diagnostics", m.diagnostics, [](const sdk::Diagnostic& d) {
    return ordered_json{{"severity", sdk::toString(d.severity)},
                        {"code", d.code},
                        {"file", d.file},
                        {"line", d.line},
                        {"message", d.message}};
  });
  out << ",\n";
  writeArray(out, "rules", firedRules(m), [](const RuleRecord* r) {
    const sdk::RuleInfo& i = r->info;
    return ordered_json{{"id", i.id},
                        {"plugin", r->plugin},
                        {"domain", i.domain},
                        {"title", i.title},
                        {"message", i.message},
                        {"npu_alternative", i.npu_alternative},
                        {"severity", sdk::toString(i.severity)},
                        {"confidence", sdk::toString(i.confidence)},
                        {"difficulty", sdk::toString(i.difficulty)},
                        {"effort_days", i.effort_days},
                        {"no_npu_counterpart", r->no_npu_counterpart}};
  });
  if (!m.domains.empty()) {  // only with rule packs that declare domains
    out << ",\n";
    writeArray(out, "domains", m.domains, [](const DomainRecord& d) {
      return ordered_json{{"name", d.name}, {"title", d.title}, {"pack", d.pack}};
    });
  }
  out << ",\n  \"plan\": ";
  outputs::writeIndented(out, m.plan.computed ? planJson(m.plan) : ordered_json(nullptr), "  ");
  out << "\n}\n";
}

}  // namespace

Status writeFindingsJson(const MigrationModel& model, const std::filesystem::path& file) {
  return outputs::writeFileAtomically(file, [&](std::ostream& out) { writeFindingsJson(out, model); });
}

}  // namespace migrate

#include "migrate/engine/findings_json.hpp"

#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "outputs/finding_text.hpp"
#include "outputs/json_output.hpp"
#include "outputs/plan_json.hpp"

namespace migrate {
namespace outputs {

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

void appendFindingText(std::string& out, const sdk::Finding& f) {
  // Members at 6 spaces, array elements at 8, their members at 10: the finding is an element of
  // an array member of the document (writeIndented with "    ", dump with 2).
  auto member = [&](const char* name, bool first = false) {
    out += first ? "{\n      \"" : ",\n      \"";
    out += name;
    out += "\": ";
  };
  auto text = [&](const char* name, const std::string& value) {
    member(name);
    appendJsonString(out, value);
  };
  auto number = [&](const char* name, std::uint64_t value) {
    member(name);
    out += std::to_string(value);
  };
  member("rule_id", true);
  appendJsonString(out, f.rule_id);
  text("domain", f.domain);
  text("file", f.file);
  number("line", f.range.line);
  number("column", f.range.column);
  number("end_line", f.range.end_line);
  number("end_column", f.range.end_column);
  text("api", f.api);
  text("resolved_api", f.resolved_api);
  text("message", f.message);
  text("npu_alternative", f.npu_alternative);
  text("severity", sdk::toString(f.severity));
  text("confidence", sdk::toString(f.confidence));
  text("difficulty", sdk::toString(f.difficulty));
  member("effort_days");
  // The library's shortest round-trip form; a run has a handful of distinct values, each printed once.
  thread_local std::unordered_map<double, std::string> printed;
  if (std::isfinite(f.effort_days)) {
    auto [at, fresh] = printed.try_emplace(f.effort_days);
    if (fresh) at->second = ordered_json(f.effort_days).dump();
    out += at->second;
  } else {
    out += ordered_json(f.effort_days).dump();  // null; a NaN would never be found again in the map
  }
  member("autofix");
  out += f.autofix() ? "true" : "false";
  member("edits");
  if (f.edits.empty()) out += "[]";
  for (std::size_t i = 0; i < f.edits.size(); ++i) {
    const sdk::Edit& e = f.edits[i];
    out += i ? ",\n        {\n          \"start_byte\": " : "[\n        {\n          \"start_byte\": ";
    out += std::to_string(e.start_byte);
    out += ",\n          \"end_byte\": ";
    out += std::to_string(e.end_byte);
    out += ",\n          \"replacement\": ";
    appendJsonString(out, e.replacement);
    out += "\n        }";
    if (i + 1 == f.edits.size()) out += "\n      ]";
  }
  member("details");
  if (f.details.empty()) out += "{}";
  for (auto it = f.details.begin(); it != f.details.end(); ++it) {
    out += it == f.details.begin() ? "{\n        " : ",\n        ";
    appendJsonString(out, it->first);
    out += ": ";
    appendJsonString(out, it->second);
    if (std::next(it) == f.details.end()) out += "\n      }";
  }
  member("phases");
  if (f.phases.empty()) out += "[]";
  for (std::size_t i = 0; i < f.phases.size(); ++i) {
    out += i ? ",\n        " : "[\n        ";
    appendJsonString(out, f.phases[i]);
    if (i + 1 == f.phases.size()) out += "\n      ]";
  }
  out += "\n    }";
}

}  // namespace outputs

namespace {

using nlohmann::ordered_json;

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

/// The findings as writeArray writes them, with the text writer (no JSON value per finding).
void writeFindingArray(std::ostream& out, const char* key, const std::vector<sdk::Finding>& items) {
  out << "  \"" << key << "\": [";
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    text.clear();
    text += i ? ",\n    " : "\n    ";
    outputs::appendFindingText(text, items[i]);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
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
  for (const auto& s : m.stages) {
    stages.push_back({{"name", s.name}, {"status", s.status}, {"detail", s.detail}, {"seconds", s.seconds}});
    if (s.kept > 0) stages.back()["reused"] = {{"kept", s.kept}, {"of", s.total}};
  }
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
  writeFindingArray(out, "findings", m.findings);
  out << ",\n";
  writeFindingArray(out, "dependencies", m.dependencies);
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

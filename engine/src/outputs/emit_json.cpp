#include "outputs/emit_json.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "json/json_reader.hpp"

namespace migrate::outputs {

Status writeEmitManifest(const MigrationModel& model, const std::filesystem::path& file) {
  const EmitResult& e = model.emit;
  nlohmann::ordered_json doc;
  doc["schema_version"] = kEmitSchemaVersion;
  doc["tool"] = {{"name", "migrate-pipeline"}, {"version", model.tool_version}};
  doc["project"] = e.project;
  doc["original_root"] = e.original_root;
  doc["layout"] = e.layout;
  doc["adapted_dir"] = e.adapted_dir;
  doc["summary"] = {{"edits_applied", e.edits_applied},
                    {"findings_fixed", e.findings_fixed},
                    {"conflicts", e.conflicts},
                    {"files_adapted", e.adapted.size()},
                    {"manual_work", e.manual_work.size()}};
  doc["npu_ops_sections"] = e.npu_ops_sections;
  doc["modules"] = e.modules;
  doc["files"] = nlohmann::ordered_json::array();
  for (const EmittedFile& f : e.files) doc["files"].push_back({{"path", f.path}, {"kind", f.kind}});
  doc["adapted"] = nlohmann::ordered_json::array();
  for (const AdaptedFile& f : e.adapted)
    doc["adapted"].push_back(
        {{"path", f.path}, {"status", f.status}, {"edits", f.edits}, {"todos", f.todos}});
  doc["fixed_findings"] = e.fixed_findings;
  doc["manual_work"] = nlohmann::ordered_json::array();
  for (const sdk::ManualWork& w : e.manual_work)
    doc["manual_work"].push_back(
        {{"rule_id", w.rule_id}, {"file", w.file}, {"line", w.line}, {"what", w.what}});
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return makeError("cannot write " + file.string());
  return Ok{};
}

Result<EmitResult> readEmitManifest(const std::filesystem::path& file) {
  using json::Field;
  EmitResult e;
  e.computed = true;
  const Status read = json::readDocument(file, kEmitSchemaVersion, [&](const Field& doc) {
    e.project = doc["project"].string();
    e.original_root = doc["original_root"].string();
    e.layout = doc["layout"].string();
    e.adapted_dir = doc["adapted_dir"].string();
    const Field summary = doc["summary"];
    e.edits_applied = summary["edits_applied"].size();
    e.findings_fixed = summary["findings_fixed"].size();
    e.conflicts = summary["conflicts"].size();
    e.npu_ops_sections = doc["npu_ops_sections"].strings();
    e.modules = doc["modules"].strings();
    e.files = doc["files"].list([](const Field& f) {
      return EmittedFile{f["path"].string(), f["kind"].string()};
    });
    e.adapted = doc["adapted"].list([](const Field& f) {
      return AdaptedFile{f["path"].string(), f["status"].string(), f["edits"].size(), f["todos"].size()};
    });
    // Added without a schema bump: older files have no fixed_findings.
    if (doc.has("fixed_findings")) e.fixed_findings = doc["fixed_findings"].sizes();
    e.manual_work = doc["manual_work"].list([](const Field& w) {
      return sdk::ManualWork{w["rule_id"].string(), w["file"].string(), w["line"].uint32(),
                             w["what"].string()};
    });
  });
  if (!read) return read.error();
  return e;
}

std::vector<std::string> previousKitFiles(const std::filesystem::path& file) {
  std::vector<std::string> paths;
  std::ifstream in(file, std::ios::binary);
  if (!in) return paths;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("files") || !doc["files"].is_array()) return paths;
  for (const auto& f : doc["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string()) continue;
    const std::string path = f["path"].get<std::string>();
    const std::filesystem::path p(path);
    bool inside = !path.empty() && p.is_relative();
    for (const auto& part : p) inside = inside && part != "..";
    if (inside) paths.push_back(path);
  }
  return paths;
}

}  // namespace migrate::outputs

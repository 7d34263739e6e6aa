#include "emit/emit_manifest.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace migrate::emit {

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

}  // namespace migrate::emit

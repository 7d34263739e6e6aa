#include "emit/emit_manifest.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace migrate::emit {

Status writeEmitManifest(const MigrationModel& model, const std::filesystem::path& file) {
  const EmitResult& e = model.emit;
  nlohmann::ordered_json doc;
  doc["schema_version"] = kEmitSchemaVersion;
  doc["tool"] = {{"name", "migrate-pipeline"}, {"version", model.tool_version}};
  doc["layout"] = e.layout;
  doc["adapted_dir"] = e.adapted_dir;
  doc["summary"] = {{"edits_applied", e.edits_applied},
                    {"findings_fixed", e.findings_fixed},
                    {"conflicts", e.conflicts},
                    {"files_adapted", e.adapted.size()},
                    {"manual_work", e.manual_work.size()}};
  doc["npu_ops_sections"] = e.npu_ops_sections;
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

}  // namespace migrate::emit

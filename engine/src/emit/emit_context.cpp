#include "emit/emit_context.hpp"

#include <fstream>
#include <stdexcept>

#include "emit/support_modules.hpp"

namespace migrate::emit {

bool isReservedKitPath(const std::string& relative_path) {
  const std::string first = relative_path.substr(0, relative_path.find('/'));
  static const std::set<std::string> reserved{
      "adapted",       "findings.json", "emit.json", "run.log", "npu_migration.patch",
      "npu_compat.py", "npu_ops.py",    "_work"};
  return reserved.count(first) != 0;
}

std::string EngineEmitContext::render(std::string_view name, const sdk::TemplateData& data) const {
  auto text = templates_.render(name, data, project_);
  if (!text) throw std::runtime_error(text.error().message);
  return *text;
}

void EngineEmitContext::requireSection(std::string_view support_module, std::string_view section) {
  const std::string module(support_module);
  const std::string name(section);
  if (!isKnownSection(templates_, module, name)) {
    diagnostics_.push_back({sdk::Severity::Warning, "unknown-section", "", 0,
                            "plugin " + plugin_ + " asked for section '" + name + "' of " + module +
                                ", which its template does not have; ignored"});
    return;
  }
  contributions_.sections[module].insert(name);
}

void EngineEmitContext::writeFile(std::string_view relative_path, std::string_view content, bool executable) {
  const std::string rel(relative_path);
  const std::filesystem::path p(rel);
  bool safe = !rel.empty() && p.is_relative() && rel.find('\\') == std::string::npos;
  for (const auto& part : p) safe = safe && part != ".." && part != ".";
  if (!safe)
    throw std::invalid_argument("writeFile: '" + rel + "' is not a relative path inside the kit directory");
  if (isReservedKitPath(rel))
    throw std::invalid_argument("writeFile: '" + rel + "' belongs to the engine's part of the kit");
  const std::filesystem::path target = kit_dir_ / p;
  std::filesystem::create_directories(target.parent_path());
  {
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + target.string());
  }
  if (executable)
    std::filesystem::permissions(target,
                                 std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                                     std::filesystem::perms::others_exec,
                                 std::filesystem::perm_options::add);
  for (const EmittedFile& f : contributions_.files)
    if (f.path == rel) return;
  contributions_.files.push_back({rel, "plugin:" + plugin_});
}

}  // namespace migrate::emit

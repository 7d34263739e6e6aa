#include "support/emit_test_context.hpp"

#include <fstream>
#include <stdexcept>

#include "emit/template_store.hpp"
#include "migrate/engine/workspace.hpp"

namespace migrate::test {

void InMemoryWorkspace::add(const std::string& path, std::string content) {
  files_.push_back({path, content.size(), languageOf(path)});
  contents_[path] = std::move(content);
}

std::optional<std::string> InMemoryWorkspace::read(const std::string& path) const {
  auto it = contents_.find(path);
  if (it == contents_.end()) return std::nullopt;
  return it->second;
}

std::string TestEmitContext::render(std::string_view name, const sdk::TemplateData& data) const {
  // The source tree's templates take precedence over the embedded copies: no rebuild after an edit.
  const emit::TemplateStore templates(std::filesystem::path(MIGRATE_SOURCE_DIR) / "templates");
  auto out = templates.render(name, data, project_);
  if (!out) throw std::runtime_error(out.error().message);
  return *out;
}

void TestEmitContext::requireSection(std::string_view support_module, std::string_view section) {
  sections.insert(std::string(support_module) + ":" + std::string(section));
}

void TestEmitContext::writeFile(std::string_view relative_path, std::string_view content, bool executable) {
  const std::filesystem::path target = kit_dir_ / std::string(relative_path);
  std::filesystem::create_directories(target.parent_path());
  std::ofstream(target, std::ios::binary) << content;
  if (executable)
    std::filesystem::permissions(target,
                                 std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
                                 std::filesystem::perm_options::add);
  written[std::string(relative_path)] = executable;
}

}  // namespace migrate::test

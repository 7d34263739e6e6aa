#include "support/emit_test_context.hpp"

#include <fstream>
#include <stdexcept>

#include "analyze/analyzer.hpp"
#include "emit/template_store.hpp"
#include "migrate/engine/workspace.hpp"
#include "progress/progress.hpp"

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

Result<std::unique_ptr<ConfiguredPlugin>> ConfiguredPlugin::load(const std::string& name) {
  auto loaded = loadPlugin(pluginDir() / ("migrate_" + name + ".so"));
  if (!loaded) return loaded.error();
  std::unique_ptr<ConfiguredPlugin> p(new ConfiguredPlugin(std::move(*loaded)));
  auto options = resolveOptions(PluginSelection{name, true, {}, ""}, p->loaded_.info);
  if (!options) return options.error();
  p->context_ = makePluginContext(p->loaded_, options.value(), [](bool, std::string_view) {});
  p->loaded_.plugin->configure(*p->context_);
  return p;
}

ConfiguredPlugin::Analysis ConfiguredPlugin::analyze(const std::filesystem::path& root, int jobs) const {
  std::vector<sdk::Diagnostic> diagnostics;
  Analysis a{buildInventory(root, {}, diagnostics), {}};
  auto progress = makeProgress(false, [](const std::string&) {});
  analyzeWorkspace(a.workspace, {{&loaded_}}, {.jobs = jobs}, *progress, a.model);
  return a;
}

std::filesystem::path RepositoryMaker::make(const std::map<std::string, std::string>& files) {
  const std::filesystem::path dir = dir_ / ("repo" + std::to_string(++made_));
  for (const auto& [path, content] : files) writeFile(dir / path, content);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace migrate::test

#pragma once
/// The EmitContext one plugin's emit hook sees: templates, the kit directory (guarded), and
/// the sections, manual work and diagnostics it contributes.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "emit/template_store.hpp"
#include "migrate/engine/model.hpp"
#include "migrate/sdk/emit.hpp"

namespace migrate::emit {

/// What the plugins' emit hooks contributed, gathered over all plugins.
struct PluginContributions {
  std::map<std::string, std::set<std::string>> sections;  ///< support module -> sections
  std::vector<EmittedFile> files;
  std::vector<sdk::ManualWork> manual_work;
};

class EngineEmitContext final : public sdk::EmitContext {
 public:
  EngineEmitContext(const MigrationModel& model, const sdk::WorkspaceView& workspace,
                    const TemplateStore& templates, std::filesystem::path kit_dir, std::string project,
                    std::string plugin, PluginContributions& contributions,
                    std::vector<sdk::Diagnostic>& diagnostics)
      : model_(model),
        workspace_(workspace),
        templates_(templates),
        kit_dir_(std::move(kit_dir)),
        project_(std::move(project)),
        plugin_(std::move(plugin)),
        contributions_(contributions),
        diagnostics_(diagnostics) {}

  const std::vector<sdk::Finding>& findings() const override { return model_.findings; }
  const std::vector<sdk::Finding>& dependencies() const override { return model_.dependencies; }
  const sdk::WorkspaceView& workspace() const override { return workspace_; }
  const std::string& projectName() const override { return project_; }
  std::string render(std::string_view name, const sdk::TemplateData& data) const override;
  void requireSection(std::string_view support_module, std::string_view section) override;
  void writeFile(std::string_view relative_path, std::string_view content, bool executable) override;
  void addManualWork(sdk::ManualWork work) override { contributions_.manual_work.push_back(std::move(work)); }
  void diagnose(sdk::Diagnostic diagnostic) override { diagnostics_.push_back(std::move(diagnostic)); }

 private:
  const MigrationModel& model_;
  const sdk::WorkspaceView& workspace_;
  const TemplateStore& templates_;
  std::filesystem::path kit_dir_;
  std::string project_;
  std::string plugin_;
  PluginContributions& contributions_;
  std::vector<sdk::Diagnostic>& diagnostics_;
};

/// Files and directories of the kit directory that belong to the engine: plugins may not write them.
bool isReservedKitPath(const std::string& relative_path);

}  // namespace migrate::emit

#pragma once
// For the plugins' emit tests: an sdk::EmitContext (findings and files given by the test,
// templates rendered from the source tree's templates/ with the engine's renderer, files
// written under a directory the test chooses, everything else recorded), a configured plugin
// library, and throwaway repositories.

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/result.hpp"
#include "migrate/engine/workspace.hpp"
#include "migrate/sdk/emit.hpp"
#include "support/test_support.hpp"

namespace migrate::test {

class InMemoryWorkspace final : public sdk::WorkspaceView {
 public:
  /// Adds a file (language from its extension).
  void add(const std::string& path, std::string content);
  const std::vector<sdk::FileEntry>& files() const override { return files_; }
  std::optional<std::string> read(const std::string& path) const override;

 private:
  std::vector<sdk::FileEntry> files_;
  std::map<std::string, std::string> contents_;
};

class TestEmitContext final : public sdk::EmitContext {
 public:
  /// Files written by the plugin go under `kit_dir` (created on demand).
  explicit TestEmitContext(std::filesystem::path kit_dir, std::string project = "project")
      : kit_dir_(std::move(kit_dir)), project_(std::move(project)) {}

  std::vector<sdk::Finding>& mutableFindings() { return findings_; }
  std::vector<sdk::Finding>& mutableDependencies() { return dependencies_; }
  InMemoryWorkspace& mutableWorkspace() { return workspace_; }

  const std::vector<sdk::Finding>& findings() const override { return findings_; }
  const std::vector<sdk::Finding>& dependencies() const override { return dependencies_; }
  const sdk::WorkspaceView& workspace() const override { return workspace_; }
  const std::string& projectName() const override { return project_; }
  std::string render(std::string_view name, const sdk::TemplateData& data) const override;
  void requireSection(std::string_view support_module, std::string_view section) override;
  void writeFile(std::string_view relative_path, std::string_view content, bool executable) override;
  void addManualWork(sdk::ManualWork work) override { manual_work.push_back(std::move(work)); }
  void diagnose(sdk::Diagnostic diagnostic) override { diagnostics.push_back(std::move(diagnostic)); }

  /// "npu_ops.py:op_flash_attn" per requireSection call.
  std::set<std::string> sections;
  /// Relative paths written, with whether they were marked executable.
  std::map<std::string, bool> written;
  std::vector<sdk::ManualWork> manual_work;
  std::vector<sdk::Diagnostic> diagnostics;

 private:
  std::filesystem::path kit_dir_;
  std::string project_;
  std::vector<sdk::Finding> findings_;
  std::vector<sdk::Finding> dependencies_;
  InMemoryWorkspace workspace_;
};

/// A plugin library of the build (its plugin directory), loaded and configured with its
/// default options as a run would do it: for the plugins' emit tests.
class ConfiguredPlugin {
 public:
  /// Loads migrate_<name>.so; the error names the file and why.
  static Result<std::unique_ptr<ConfiguredPlugin>> load(const std::string& name);

  const LoadedPlugin& loaded() const { return loaded_; }
  sdk::Plugin& plugin() const { return *loaded_.plugin; }

  /// What the analyze stage finds in `root` with this plugin alone.
  struct Analysis {
    Workspace workspace;
    MigrationModel model;
  };
  Analysis analyze(const std::filesystem::path& root, int jobs = 1) const;

 private:
  explicit ConfiguredPlugin(LoadedPlugin loaded) : loaded_(std::move(loaded)) {}
  LoadedPlugin loaded_;
  std::unique_ptr<sdk::PluginContext> context_;
};

/// Makes directories holding the files a test gives (path → content), each new, removed with it.
class RepositoryMaker {
 public:
  std::filesystem::path make(const std::map<std::string, std::string>& files);

 private:
  TempDir dir_;
  int made_ = 0;
};

}  // namespace migrate::test

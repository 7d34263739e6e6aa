// A plugin with two repository passes, to watch the engine cache them one by one and keep a pass's
// per-file memos: "text-files" reads the text files, "python-lines" combines a per-file memo of
// each Python file (its line count). Each pass appends what it did to the file named by
// MIGRATE_TEST_PASSES_LOG: "run PASS", then "read PATH" or "recalled PATH".
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>

#include "migrate/sdk/plugin.hpp"
#include "passes_embedded_rules.hpp"

namespace {
using namespace migrate::sdk;

void log(const std::string& line) {
  static std::mutex mutex;
  const char* file = std::getenv("MIGRATE_TEST_PASSES_LOG");
  if (!file) return;
  std::lock_guard lock(mutex);
  std::ofstream(file, std::ios::app) << line << "\n";
}

class PassesPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"passes",
            "0.0.1",
            "passes",
            "two repository passes",
            {{"duplicate_pass", OptionSpec::Type::Bool, "false", "list text-files a second time"}}};
  }
  std::vector<RuleSource> ruleSources() const override {
    return {{"plugins/rules/passes.yaml", migrateEmbeddedRule("plugins/rules/passes.yaml")}};
  }
  void configure(const PluginContext& context) override {
    duplicate_ = context.options().at("duplicate_pass").asBool();
    marked_ = &context.requireRule("PAS-001");
    lines_ = &context.requireRule("PAS-002");
  }
  std::vector<RepositoryPass> repositoryPasses() const override {
    std::vector<RepositoryPass> passes = {
        {"text-files", [this](const WorkspaceView& w, FindingSink& s) { textFiles(w, s); }},
        {"python-lines", [this](const WorkspaceView& w, FindingSink& s) { pythonLines(w, s); }}};
    if (duplicate_) passes.push_back(passes.front());
    return passes;
  }

 private:
  void textFiles(const WorkspaceView& workspace, FindingSink& sink) const {
    log("run text-files");
    for (const FileEntry& f : workspace.files()) {
      if (f.language != Language::Text) continue;
      const auto text = workspace.read(f.path);
      log("read " + f.path);
      if (text && text->find("PASSES-MARK") != std::string::npos)
        sink.report(findingFrom(*marked_, f.path, {1, 1, 1, 2, 0, 1}, f.path));
    }
  }

  void pythonLines(const WorkspaceView& workspace, FindingSink& sink) const {
    log("run python-lines");
    long total = 0;
    std::string first;
    for (const FileEntry& f : workspace.files()) {
      if (f.language != Language::Python) continue;
      if (first.empty()) first = f.path;
      if (auto memo = workspace.recall(f.path, "lines/1")) {
        log("recalled " + f.path);
        total += std::stol(*memo);
        continue;
      }
      const auto text = workspace.read(f.path);
      log("read " + f.path);
      if (!text) continue;
      const long lines = static_cast<long>(std::count(text->begin(), text->end(), '\n'));
      workspace.remember(f.path, "lines/1", std::to_string(lines));
      total += lines;
    }
    if (!first.empty())
      sink.report(findingFrom(*lines_, first, {1, 1, 1, 2, 0, 1}, std::to_string(total) + " Python lines"));
  }

  bool duplicate_ = false;
  const RuleInfo* marked_ = nullptr;
  const RuleInfo* lines_ = nullptr;
};
}  // namespace

MIGRATE_DEFINE_PLUGIN(PassesPlugin)

#pragma once
/// The repository under analysis: where it came from, and the inventory of its files.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/result.hpp"
#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate {

struct SourceInfo {
  std::string kind;            ///< "path" or "git"
  std::string location;        ///< the path or URL as given
  std::string ref;             ///< requested ref (git)
  std::string commit;          ///< HEAD commit SHA when the source is a git repository, else empty
  std::filesystem::path root;  ///< the directory analysed
};

/// Makes the source available: checks a local path, or clones a git URL with libgit2 into
/// `work_dir` and checks out `ref` (branch, tag or commit). `progress` receives clone progress.
Result<SourceInfo> acquireSource(const SourceSpec& source, const std::filesystem::path& work_dir,
                                 const std::function<void(const std::string&)>& progress);

struct InventoryOptions {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::uint64_t max_file_bytes = 2 * 1024 * 1024;
};

class Workspace final : public sdk::WorkspaceView {
 public:
  Workspace(std::filesystem::path root, std::vector<sdk::FileEntry> files)
      : root_(std::move(root)), files_(std::move(files)) {}
  const std::vector<sdk::FileEntry>& files() const override { return files_; }
  std::optional<std::string> read(const std::string& path) const override;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
  std::vector<sdk::FileEntry> files_;
};

/// Lists the files to analyse under `root`, sorted by path: honours .gitignore (through libgit2,
/// also for directories that are not repositories), include/exclude globs; skips `.git`, binary
/// and oversized files and symlinks (escaping ones with a warning) with a diagnostic each.
Workspace buildInventory(const std::filesystem::path& root, const InventoryOptions& options,
                         std::vector<sdk::Diagnostic>& diagnostics);

/// Glob match on '/'-separated paths: `*` and `?` within a segment, `**` across segments.
bool globMatch(std::string_view pattern, std::string_view path);

sdk::Language languageOf(const std::string& relative_path);

}  // namespace migrate

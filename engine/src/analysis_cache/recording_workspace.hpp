#pragma once
/// A workspace view that remembers which files a plugin's repository pass read, with their
/// content hashes, so that the pass's results can be cached for as long as those files stay
/// unchanged.

#include <mutex>
#include <utility>

#include "analysis_cache/cache_key.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate::cache {

class RecordingWorkspace final : public sdk::WorkspaceView {
 public:
  explicit RecordingWorkspace(const sdk::WorkspaceView& inner) : inner_(inner) {}
  const std::vector<sdk::FileEntry>& files() const override { return inner_.files(); }
  std::optional<std::string> read(const std::string& path) const override {
    auto text = inner_.read(path);
    const Key hash = text ? contentHash(*text) : Key{};  // unreadable: all zero
    std::lock_guard lock(mutex_);
    reads_.emplace_back(path, hash);
    return text;
  }
  /// Every file read so far, in the order read.
  std::vector<std::pair<std::string, Key>> reads() const {
    std::lock_guard lock(mutex_);
    return reads_;
  }

 private:
  const sdk::WorkspaceView& inner_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<std::string, Key>> reads_;
};

}  // namespace migrate::cache

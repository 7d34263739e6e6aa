#pragma once
/// The content hash of each file one run has read, shared by the analysis's tasks: a warm run
/// needs only hashes (the cache keys), and several repository passes and the per-file loop read the
/// same files; each file is read and hashed once per run, however many of them ask.

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "analysis_cache/cache_key.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate::cache {

class ContentHashes {
 public:
  explicit ContentHashes(const sdk::WorkspaceView& workspace) : workspace_(workspace) {}

  /// A file's hash, and its text when this call had to read it (nullopt when the hash was known
  /// or the file is unreadable). An unreadable file hashes to all zero, as in a repository entry.
  struct Lookup {
    Key hash{};
    std::optional<std::string> text;
    bool readable = true;
  };
  Lookup lookup(const std::string& path) {
    {
      std::lock_guard lock(mutex_);
      if (const auto it = known_.find(path); it != known_.end())
        return {it->second.first, std::nullopt, it->second.second};
    }
    Lookup out;
    out.text = workspace_.read(path);
    out.readable = out.text.has_value();
    if (out.text) out.hash = contentHash(*out.text);
    std::lock_guard lock(mutex_);
    known_.emplace(path, std::make_pair(out.hash, out.readable));
    return out;
  }

  const sdk::WorkspaceView& workspace() const { return workspace_; }

 private:
  const sdk::WorkspaceView& workspace_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::pair<Key, bool>> known_;
};

}  // namespace migrate::cache

#pragma once
/// The workspace a repository pass sees when the run has a cache: it remembers which files the
/// pass read (or recalled a memo of), with their content hashes, so that the pass's results can be
/// cached for as long as those files stay unchanged; and it keeps the pass's per-file memos in the
/// cache store.

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "analysis_cache/cache_key.hpp"
#include "analysis_cache/cache_store.hpp"
#include "analysis_cache/content_hashes.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate::cache {

class RecordingWorkspace final : public sdk::WorkspaceView {
 public:
  /// `pass` names the plugin and its pass ("custom_ops/extension-glue"); `context` is the run's.
  RecordingWorkspace(const sdk::WorkspaceView& inner, ContentHashes& hashes, CacheStore& store,
                     std::string context, std::string pass)
      : inner_(inner), hashes_(hashes), store_(store), context_(std::move(context)), pass_(std::move(pass)) {}

  const std::vector<sdk::FileEntry>& files() const override { return inner_.files(); }
  std::optional<std::string> read(const std::string& path) const override {
    auto text = inner_.read(path);
    record(path, text ? contentHash(*text) : Key{});  // unreadable: all zero
    return text;
  }
  std::optional<std::string> recall(const std::string& path, std::string_view kind) const override {
    const auto known = hashes_.lookup(path);
    record(path, known.hash);
    if (!known.readable) return std::nullopt;
    return store_.find(memoKey(context_, pass_, kind, path, known.hash));
  }
  void remember(const std::string& path, std::string_view kind, std::string value) const override {
    Key hash;
    {
      std::lock_guard lock(mutex_);
      const auto it = last_.find(path);
      if (it == last_.end()) return;  // not read by this pass: no content to key it by
      hash = it->second;
    }
    if (hash == Key{}) return;  // unreadable
    store_.put(memoKey(context_, pass_, kind, path, hash), std::move(value));
  }

  /// Every file read (or recalled) so far, in order (a file read again unchanged once).
  std::vector<std::pair<std::string, Key>> reads() const {
    std::lock_guard lock(mutex_);
    return reads_;
  }

 private:
  void record(const std::string& path, const Key& hash) const {
    std::lock_guard lock(mutex_);
    const auto [it, added] = last_.try_emplace(path, hash);
    if (!added && it->second == hash) return;  // read again, unchanged: recorded once
    it->second = hash;
    reads_.emplace_back(path, hash);
  }

  const sdk::WorkspaceView& inner_;
  ContentHashes& hashes_;
  CacheStore& store_;
  std::string context_;
  std::string pass_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<std::string, Key>> reads_;
  mutable std::map<std::string, Key> last_;  ///< each path's hash as last read or recalled
};

}  // namespace migrate::cache

#pragma once
/// The per-file analysis cache on disk: one SQLite file (DIR/analysis.db) of entries addressed by
/// a 128-bit key. SQLite gives what a cache shared by concurrent runs needs without hand-written
/// locking: atomic transactions (no reader ever sees a torn entry), WAL for readers beside a
/// writer, and a busy timeout for writers queueing behind each other.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "migrate/engine/result.hpp"

struct sqlite3;

namespace migrate::sql {
class Statement;
}

namespace migrate::cache {

using Key = std::array<unsigned char, 16>;

/// Cache schema version (PRAGMA user_version); a file of another version is emptied.
inline constexpr int kSchemaVersion = 2;  ///< 2: a rowid table with a key index

class CacheStore {
 public:
  /// Opens or creates DIR/analysis.db. A file that is not a database or has another schema is
  /// replaced, and `note` says so; an unusable directory is an error.
  static Result<std::unique_ptr<CacheStore>> open(const std::filesystem::path& dir, std::uint64_t max_bytes,
                                                  std::string& note);
  ~CacheStore();
  CacheStore(const CacheStore&) = delete;
  CacheStore& operator=(const CacheStore&) = delete;

  /// The entry under `key`, if any. Thread-safe.
  std::optional<std::string> find(const Key& key);
  /// Queues an entry for commit(). Thread-safe.
  void put(const Key& key, std::string bytes);
  /// Writes the queued entries and the use dates of the found ones in one transaction, then
  /// drops the least recently used entries beyond the size cap. Returns what went wrong, if
  /// anything; the cache stays consistent either way.
  Status commit();

  const std::filesystem::path& file() const { return file_; }

 private:
  CacheStore(sqlite3* db, std::filesystem::path file, std::uint64_t max_bytes);
  Status evict();
  void endReading();

  sqlite3* db_;
  std::filesystem::path file_;
  std::uint64_t max_bytes_;
  std::int64_t today_;
  std::mutex mutex_;
  std::unique_ptr<sql::Statement> find_;  ///< the lookup statement, prepared once
  /// The lookups share one read transaction until commit(): one snapshot, not a lock and a read
  /// of the WAL index for each of a warm run's thousands of lookups.
  bool reading_ = false;
  std::vector<std::pair<Key, std::string>> pending_;
  std::vector<Key> touched_;
};

/// The cache directory when the pipeline names none: $XDG_CACHE_HOME/migrate-pipeline, else
/// ~/.cache/migrate-pipeline; empty when neither variable is set.
std::filesystem::path defaultCacheDir();

}  // namespace migrate::cache

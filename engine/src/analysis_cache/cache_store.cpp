#include "analysis_cache/cache_store.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>

#include "sqlite/sqlite_statement.hpp"

namespace migrate::cache {
namespace fs = std::filesystem;

namespace {

using sql::execute;
using sql::sqlError;
using sql::Statement;
using sql::Transaction;

// A rowid table with the key in its own index, not a WITHOUT ROWID table keyed by it: there every
// b-tree cell holds a whole entry, and a lookup compared its key against entries read in full
// (overflow pages and all) at each level; here the search walks small (key, rowid) cells and
// reads one entry. The value comes last, so that size and use are read without it (eviction).
const char* const kSchema =
    "CREATE TABLE IF NOT EXISTS entries("
    "  key BLOB NOT NULL UNIQUE,"
    "  size INTEGER NOT NULL,"
    "  used INTEGER NOT NULL,"  // days since 1970-01-01 (UTC) of the last run that used it
    "  value BLOB NOT NULL"
    ");"
    "CREATE INDEX IF NOT EXISTS entries_by_use ON entries(used);";

std::int64_t daysSinceEpoch() {
  using namespace std::chrono;
  return duration_cast<days>(system_clock::now().time_since_epoch()).count();
}

std::string_view keyView(const Key& key) {
  return {reinterpret_cast<const char*>(key.data()), key.size()};
}

/// Opens `file` and brings its schema to kSchemaVersion; "" on success, else what failed.
/// `foreign` is set when the file held something this release does not read.
std::string prepare(sqlite3* db, bool& foreign) {
  std::string error;
  sqlite3_busy_timeout(db, 10000);
  std::int64_t v = 0;
  {
    Statement version(db, "PRAGMA user_version");
    if (!version.next()) return version.ok() ? "no schema version" : version.error();
    v = version.integer(0);
  }
  if (v != 0 && v != kSchemaVersion) {
    foreign = true;
    if (!execute(db, "DROP TABLE IF EXISTS entries", error)) return error;
  }
  if (!execute(db, "PRAGMA journal_mode=WAL", error) || !execute(db, "PRAGMA synchronous=NORMAL", error) ||
      !execute(db, kSchema, error))
    return error;
  const std::string set = "PRAGMA user_version=" + std::to_string(kSchemaVersion);
  if (!execute(db, set.c_str(), error)) return error;
  return {};
}

void removeDatabase(const fs::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(file.string() + suffix, ec);
}

}  // namespace

fs::path defaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "migrate-pipeline";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "migrate-pipeline";
  return {};
}

Result<std::unique_ptr<CacheStore>> CacheStore::open(const fs::path& dir, std::uint64_t max_bytes,
                                                     std::string& note) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return makeError(dir.string() + ": cannot create the cache directory (" + ec.message() + ")");
  const fs::path file = dir / "analysis.db";
  for (int attempt = 0; attempt < 2; ++attempt) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(file.c_str(), &db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    bool foreign = false;
    std::string error = rc == SQLITE_OK ? prepare(db, foreign) : sqlite3_errstr(rc);
    if (error.empty()) {
      if (foreign) note = file.string() + ": written by another release; emptied";
      return std::unique_ptr<CacheStore>(new CacheStore(db, file, max_bytes));
    }
    sqlite3_close_v2(db);
    if (attempt == 0 &&
        (error.find("not a database") != std::string::npos || error.find("malformed") != std::string::npos)) {
      note = file.string() + ": not a usable cache (" + error + "); replaced by an empty one";
      removeDatabase(file);
      continue;
    }
    return makeError(sqlError(file, "opening the analysis cache", error).message);
  }
  return makeError(file.string() + ": the analysis cache could not be recreated");
}

CacheStore::CacheStore(sqlite3* db, fs::path file, std::uint64_t max_bytes)
    : db_(db), file_(std::move(file)), max_bytes_(max_bytes), today_(daysSinceEpoch()) {}

CacheStore::~CacheStore() {
  find_.reset();
  endReading();
  sqlite3_close_v2(db_);
}

void CacheStore::endReading() {
  std::string error;
  if (reading_) execute(db_, "COMMIT", error);  // it wrote nothing: it cannot fail to end
  reading_ = false;
}

std::optional<std::string> CacheStore::find(const Key& key) {
  std::lock_guard lock(mutex_);
  // One prepared statement for all lookups (a warm run makes one per file); a failed one is
  // dropped and prepared again at the next lookup.
  if (!find_) find_ = std::make_unique<Statement>(db_, "SELECT value, used FROM entries WHERE key = ?1");
  if (!reading_) {
    std::string error;
    reading_ = execute(db_, "BEGIN", error);
  }
  Statement& q = *find_;
  q.bindBlob(1, keyView(key));
  std::optional<std::string> value;
  if (q.next()) {  // else absent, or the file is busy or broken: analyse anew
    if (q.integer(1) != today_) touched_.push_back(key);
    value.emplace(q.blob(0));
  }
  if (q.ok())
    q.reset();
  else
    find_.reset();
  return value;
}

void CacheStore::put(const Key& key, std::string bytes) {
  std::lock_guard lock(mutex_);
  pending_.emplace_back(key, std::move(bytes));
}

Status CacheStore::commit() {
  std::lock_guard lock(mutex_);
  find_.reset();
  endReading();
  if (pending_.empty() && touched_.empty()) return Ok{};
  std::string error;
  Transaction txn(db_);
  if (!txn.begin(error)) return sqlError(file_, "writing the analysis cache", error);
  Statement insert(db_, "INSERT OR REPLACE INTO entries(key, value, size, used) VALUES (?1, ?2, ?3, ?4)");
  for (const auto& [key, bytes] : pending_) {
    insert.bindBlob(1, keyView(key)).bindBlob(2, bytes).bindInt(3, static_cast<std::int64_t>(bytes.size()));
    insert.bindInt(4, today_);
    if (!insert.run()) return sqlError(file_, "writing the analysis cache", insert.error());
    insert.reset();
  }
  Statement touch(db_, "UPDATE entries SET used = ?2 WHERE key = ?1");
  for (const Key& key : touched_) {
    touch.bindBlob(1, keyView(key)).bindInt(2, today_);
    if (!touch.run()) return sqlError(file_, "writing the analysis cache", touch.error());
    touch.reset();
  }
  if (!txn.commit(error)) return sqlError(file_, "writing the analysis cache", error);
  const bool grew = !pending_.empty();
  pending_.clear();
  touched_.clear();
  return grew ? evict() : Status(Ok{});
}

Status CacheStore::evict() {
  Statement total(db_, "SELECT COALESCE(SUM(size), 0) FROM entries");
  if (!total.next()) return sqlError(file_, "measuring the analysis cache", total.error());
  std::int64_t size = total.integer(0);
  const auto cap = static_cast<std::int64_t>(max_bytes_);
  if (size <= cap) return Ok{};
  // Down to 90 % of the cap, so that the next runs do not evict again at once.
  const std::int64_t target = cap - cap / 10;
  std::string error;
  Transaction txn(db_);
  if (!txn.begin(error)) return sqlError(file_, "evicting from the analysis cache", error);
  std::vector<std::string> doomed;
  {
    Statement oldest(db_, "SELECT key, size FROM entries ORDER BY used, size DESC");
    while (size > target && oldest.next()) {
      doomed.emplace_back(oldest.blob(0));
      size -= oldest.integer(1);
    }
    if (!oldest.ok()) return sqlError(file_, "evicting from the analysis cache", oldest.error());
  }
  Statement remove(db_, "DELETE FROM entries WHERE key = ?1");
  for (const std::string& key : doomed) {
    remove.bindBlob(1, key);
    if (!remove.run()) return sqlError(file_, "evicting from the analysis cache", remove.error());
    remove.reset();
  }
  if (!txn.commit(error)) return sqlError(file_, "evicting from the analysis cache", error);
  return Ok{};
}

}  // namespace migrate::cache

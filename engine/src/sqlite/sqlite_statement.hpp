#pragma once
/// A thin layer over the SQLite C API for the fleet's store and the analysis cache: prepared
/// statements with bound values, constant SQL, write transactions, and errors naming the file and
/// the operation.

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "migrate/engine/result.hpp"

namespace migrate::sql {

/// "<file>: <what> failed (SQLite: <message>)".
inline Error sqlError(const std::filesystem::path& file, const std::string& what,
                      const std::string& sqlite_message) {
  return makeError(file.string() + ": " + what + " failed (SQLite: " + sqlite_message + ")");
}

/// One prepared statement: binds by index, steps, reads columns. The first failure (prepare,
/// bind or step) is kept with SQLite's message; later calls do nothing.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) : db_(db) {
    if (db_ == nullptr) {
      code_ = SQLITE_MISUSE;
      error_ = "the store is closed";
      return;
    }
    check(sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bindText(int index, std::string_view text) {
    if (ok())
      check(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
    return *this;
  }
  Statement& bindInt(int index, std::int64_t value) {
    if (ok()) check(sqlite3_bind_int64(stmt_, index, value));
    return *this;
  }
  Statement& bindBlob(int index, std::string_view bytes) {
    if (ok()) check(sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bindReal(int index, double value) {
    if (ok()) check(sqlite3_bind_double(stmt_, index, value));
    return *this;
  }
  Statement& bindNull(int index) {
    if (ok()) check(sqlite3_bind_null(stmt_, index));
    return *this;
  }
  Statement& bindOptionalInt(int index, std::optional<std::int64_t> value) {
    return value ? bindInt(index, *value) : bindNull(index);
  }
  /// Empty text is bound as NULL (columns where NULL means "not yet").
  Statement& bindTextOrNull(int index, std::string_view text) {
    return text.empty() ? bindNull(index) : bindText(index, text);
  }

  /// Steps once: true when a row is available; false when done or failed (see ok()).
  bool next() {
    if (!ok()) return false;
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) check(rc);
    return false;
  }
  /// Runs a statement to its end; false when it failed.
  bool run() {
    while (next()) {
    }
    return ok();
  }
  /// Makes the statement ready to run again with new bindings.
  void reset() {
    if (!ok()) return;
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool ok() const { return code_ == SQLITE_OK; }
  /// The primary result code of the first failure (SQLITE_OK when none).
  int code() const { return code_ & 0xff; }
  int extendedCode() const { return code_; }
  const std::string& error() const { return error_; }

  bool isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::string text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? std::string() : std::string(data, static_cast<std::size_t>(size));
  }
  /// A BLOB (or text) column's bytes, valid until the next step or reset.
  std::string_view blob(int column) const {
    const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? std::string_view() : std::string_view(data, static_cast<std::size_t>(size));
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  std::optional<std::int64_t> optionalInteger(int column) const {
    if (isNull(column)) return std::nullopt;
    return integer(column);
  }

 private:
  void check(int rc) {
    if (rc == SQLITE_OK || !ok()) return;
    code_ = rc;
    error_ = sqlite3_errmsg(db_);
    if (error_.empty()) error_ = sqlite3_errstr(rc);
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int code_ = SQLITE_OK;
  std::string error_;
};

/// Runs constant SQL without values (transaction control, the schema).
inline bool execute(sqlite3* db, const char* sql, std::string& error) {
  if (db == nullptr) {
    error = "the store is closed";
    return false;
  }
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return true;
  error = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return false;
}

/// A write transaction (BEGIN IMMEDIATE: the write lock up front, so no deadlock later); rolled
/// back unless committed, also when leaving by an exception.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  ~Transaction() {
    if (active_ && sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  bool begin(std::string& error) {
    active_ = execute(db_, "BEGIN IMMEDIATE", error);
    return active_;
  }
  bool commit(std::string& error) {
    if (!execute(db_, "COMMIT", error)) return false;
    active_ = false;
    return true;
  }

 private:
  sqlite3* db_;
  bool active_ = false;
};

}  // namespace migrate::sql

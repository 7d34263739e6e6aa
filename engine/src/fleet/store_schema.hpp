#pragma once
/// The store's schema (version kStoreSchemaVersion): created in a new database, checked in an
/// existing one.

#include <sqlite3.h>

#include <filesystem>

#include "migrate/engine/result.hpp"

namespace migrate::fleet {

/// Creates the schema when the database has none; refuses a database that holds other tables
/// or is not a database at all, naming the file and what to do.
Status createSchemaIfAbsent(sqlite3* db, const std::filesystem::path& file);

/// Refuses a store whose schema version is missing, malformed or newer than this program reads;
/// migrates an older store (migrateFrom).
Status checkSchemaVersion(sqlite3* db, const std::filesystem::path& file);

/// Migrates a store of schema version `version` to kStoreSchemaVersion, step by step: 1 → 2 adds
/// the tables of verification outcomes and of the rules whose edits broke checks
/// (check_outcomes, broken_rules); 2 → 3 adds what each stage took over from the previous output
/// (stages.kept, stages.total). The rows already stored are kept as they are. In one
/// transaction: a store is never left half migrated.
Status migrateFrom(int version, sqlite3* db, const std::filesystem::path& file);

}  // namespace migrate::fleet

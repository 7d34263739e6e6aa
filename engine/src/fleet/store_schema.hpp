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
/// migrates a version-1 store (migrateFromVersion1).
Status checkSchemaVersion(sqlite3* db, const std::filesystem::path& file);

/// Version 1 → 2: adds the tables of verification outcomes and of the rules whose edits broke
/// checks (check_outcomes, broken_rules); the rows already stored are kept as they are. In one
/// transaction: a store is never left half migrated.
Status migrateFromVersion1(sqlite3* db, const std::filesystem::path& file);

}  // namespace migrate::fleet

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

/// Refuses a store whose schema version is missing, malformed or newer than this program reads.
Status checkSchemaVersion(sqlite3* db, const std::filesystem::path& file);

}  // namespace migrate::fleet

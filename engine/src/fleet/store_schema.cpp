#include "fleet/store_schema.hpp"

#include <charconv>
#include <iterator>
#include <optional>
#include <string>

#include "fleet/fleet_store.hpp"
#include "sqlite/sqlite_statement.hpp"

namespace migrate::fleet {
namespace {

namespace fs = std::filesystem;
using sql::execute;
using sql::sqlError;
using sql::Statement;
using sql::Transaction;

constexpr const char* kWhatToDo = "; move it away or choose another --output directory";

// The schema of version kStoreSchemaVersion. Only constant SQL here: values are always bound.
constexpr const char* kSchema = R"sql(
-- Facts about the store itself; key 'schema_version' holds kStoreSchemaVersion as text.
CREATE TABLE meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- One row per night: a `fleet run` over the manifest (or one shard of it), resumable until
-- completed. finished_at is NULL until the night completed.
CREATE TABLE nights(
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL UNIQUE,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  state TEXT NOT NULL CHECK(state IN ('running', 'interrupted', 'completed')),
  shard TEXT NOT NULL DEFAULT '',
  tool_version TEXT NOT NULL DEFAULT '',
  manifest TEXT NOT NULL DEFAULT ''
);

-- One row per repository per night: the outcome of its child run (or the cache decision).
-- exit_code is NULL when the child did not exit by itself (killed) or did not run (cached);
-- cached_from is the night whose row a cached row carries over (NULL otherwise);
-- output_dir is relative to the fleet directory, '' when there is none; delivery is '' (not
-- configured or not delivered), 'delivered', 'unchanged', 'nothing' or 'failed' (reason says why).
CREATE TABLE runs(
  night_id INTEGER NOT NULL REFERENCES nights(id),
  repo TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  ref TEXT NOT NULL DEFAULT '',
  commit_sha TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL
    CHECK(status IN ('succeeded', 'failed', 'timed_out', 'out_of_memory', 'cached')),
  reason TEXT NOT NULL DEFAULT '',
  exit_code INTEGER NULL,
  duration_s REAL NOT NULL DEFAULT 0,
  peak_rss_mb REAL NOT NULL DEFAULT 0,
  cache_key TEXT NOT NULL DEFAULT '',
  output_dir TEXT NOT NULL DEFAULT '',
  cached_from INTEGER NULL,
  findings INTEGER NOT NULL DEFAULT 0,
  findings_fixed INTEGER NOT NULL DEFAULT 0,
  effort_days REAL NOT NULL DEFAULT 0,
  verdict TEXT NOT NULL DEFAULT '',
  verify_status TEXT NOT NULL DEFAULT '',
  checks_passed INTEGER NOT NULL DEFAULT 0,
  checks_failed INTEGER NOT NULL DEFAULT 0,
  checks_skipped INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL DEFAULT '',
  finished_at TEXT NOT NULL DEFAULT '',
  delivery TEXT NOT NULL DEFAULT '',
  delivery_branch TEXT NOT NULL DEFAULT '',
  delivery_commit TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(night_id, repo)
);
-- A repository's rows across nights, newest last (lastRun, cache decisions).
CREATE INDEX runs_by_repo ON runs(repo, night_id);

-- The stages of one row's child run, in the child's order (ord counts from 0).
CREATE TABLE stages(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  stage TEXT NOT NULL,
  ord INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT '',
  detail TEXT NOT NULL DEFAULT '',
  seconds REAL NOT NULL DEFAULT 0,
  PRIMARY KEY(night_id, repo, stage),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
);

-- One row's findings per rule: total, and how many of them the emit stage fixed.
CREATE TABLE finding_counts(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  rule TEXT NOT NULL,
  domain TEXT NOT NULL DEFAULT '',
  severity TEXT NOT NULL DEFAULT '',
  total INTEGER NOT NULL DEFAULT 0,
  fixed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(night_id, repo, rule),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
);
)sql";

// What version 2 adds to version 1 (the migration runs it on a version-1 store; a new store gets
// it with the rest).
constexpr const char* kSchemaV2 = R"sql(
-- One row's verification checks per outcome (passed, introduced, pre-existing, environment,
-- fixed, skipped, error), the outcomes that occur.
CREATE TABLE check_outcomes(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  outcome TEXT NOT NULL,
  checks INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(night_id, repo, outcome),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
);

-- One row's `introduced` checks per rule whose edits broke them (attribution).
CREATE TABLE broken_rules(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  rule TEXT NOT NULL,
  checks INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(night_id, repo, rule),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
);
)sql";

// What version 3 adds to version 2.
constexpr const char* kSchemaV3 = R"sql(
-- What each stage took over from the repository's previous output instead of making it again
-- (emit: files of adapted/; verify: checks), of how many.
ALTER TABLE stages ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
ALTER TABLE stages ADD COLUMN total INTEGER NOT NULL DEFAULT 0;

-- The tool's part of the cache key (engine, plugins, rules, templates, rule packs, pipeline; not
-- the commit): a night whose results moved tells "the code changed" from "the tool changed".
ALTER TABLE runs ADD COLUMN tool_key TEXT NOT NULL DEFAULT '';

-- Every finding of a run that ran (a cached row has those of the run it carries over): its
-- fingerprint (findings.sarif's partialFingerprints "migratePipeline/v1", which does not move
-- with the line), rule and place, and whether the emit stage fixed it.
CREATE TABLE findings(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  rule TEXT NOT NULL,
  file TEXT NOT NULL DEFAULT '',
  line INTEGER NOT NULL DEFAULT 0,
  fixed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(night_id, repo, fingerprint),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
) WITHOUT ROWID;
)sql";

// What version 4 adds to version 3: what `fleet report` ranks and its what-if judges.
constexpr const char* kSchemaV4 = R"sql(
-- Person-days of the work a rule leaves in a repository (its bottlenecks' effort for the places
-- the emit stage did not fix).
ALTER TABLE finding_counts ADD COLUMN effort_days REAL NOT NULL DEFAULT 0;

-- What a rule is, as the latest run that reported it says: its title, domain, and whether its API
-- has no NPU counterpart.
CREATE TABLE rule_info(
  rule TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  domain TEXT NOT NULL DEFAULT '',
  no_counterpart INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- A row's dependencies whose verdict is 'unsupported' or 'needs replacement', with the places
-- that name them (a cached row carries those of the run it carries over).
CREATE TABLE blocking_deps(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  package TEXT NOT NULL,
  verdict TEXT NOT NULL DEFAULT '',
  replacement TEXT NOT NULL DEFAULT '',
  places INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(night_id, repo, package),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
) WITHOUT ROWID;

-- What the plan's verdict of a run that ran was judged from (fleet/what_if.hpp, as JSON): the
-- chosen goal's bottlenecks with their places, and the effort settings. A cached row reads the
-- one of the run it carries over. A rowid table: its rows of a kilobyte or more would each take
-- an overflow page in a WITHOUT ROWID one.
CREATE TABLE plan_inputs(
  night_id INTEGER NOT NULL,
  repo TEXT NOT NULL,
  inputs TEXT NOT NULL,
  PRIMARY KEY(night_id, repo),
  FOREIGN KEY(night_id, repo) REFERENCES runs(night_id, repo) ON DELETE CASCADE
);
)sql";

// The steps from version N to N + 1, from version 1 on.
constexpr const char* kMigrations[] = {kSchemaV2, kSchemaV3, kSchemaV4};
static_assert(std::size(kMigrations) == kStoreSchemaVersion - 1, "one migration step per version");

struct SchemaPresence {
  bool meta = false;
  bool other = false;
};

Result<SchemaPresence> inspectSchema(sqlite3* db, const fs::path& file) {
  Statement s(db,
              "SELECT name = 'meta' AND type = 'table' FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'");
  SchemaPresence p;
  while (s.next()) (s.integer(0) != 0 ? p.meta : p.other) = true;
  if (!s.ok()) {
    if (s.code() == SQLITE_NOTADB) {
      return makeError(file.string() + " is not a fleet store (SQLite: " + s.error() + ")" + kWhatToDo);
    }
    return sqlError(file, "reading the store's schema", s.error());
  }
  return p;
}

}  // namespace

Status createSchemaIfAbsent(sqlite3* db, const fs::path& file) {
  auto presence = inspectSchema(db, file);
  if (!presence) return presence.error();
  if (presence->meta) return Ok{};

  std::string error;
  Transaction tx(db);
  if (!tx.begin(error)) return sqlError(file, "creating the store's schema", error);
  presence = inspectSchema(db, file);  // another process may have created it meanwhile
  if (!presence) return presence.error();
  if (presence->meta) return Ok{};
  if (presence->other) {
    return makeError(file.string() +
                     " is not a fleet store (a SQLite database without the store's meta table)" + kWhatToDo);
  }
  if (!execute(db, kSchema, error)) return sqlError(file, "creating the store's schema", error);
  for (const char* step : kMigrations)
    if (!execute(db, step, error)) return sqlError(file, "creating the store's schema", error);
  Statement version(db, "INSERT INTO meta(key, value) VALUES('schema_version', ?1)");
  version.bindText(1, std::to_string(kStoreSchemaVersion));
  if (!version.run()) return sqlError(file, "writing the store's schema version", version.error());
  if (!tx.commit(error)) return sqlError(file, "creating the store's schema", error);
  return Ok{};
}

Status checkSchemaVersion(sqlite3* db, const fs::path& file) {
  Statement s(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  std::optional<std::string> value;
  if (s.next()) value = s.text(0);
  if (!s.ok()) return sqlError(file, "reading the store's schema version", s.error());
  if (!value) {
    return makeError(file.string() +
                     ": the store has no schema version (meta table without 'schema_version')" + kWhatToDo);
  }
  int version = 0;
  const char* end = value->data() + value->size();
  const auto parsed = std::from_chars(value->data(), end, version);
  const std::string reads = "this migrate-pipeline reads (" + std::to_string(kStoreSchemaVersion) + ")";
  if (parsed.ec != std::errc() || parsed.ptr != end || version < 1) {
    return makeError(file.string() + ": store schema version '" + *value + "' is not one " + reads +
                     kWhatToDo);
  }
  if (version > kStoreSchemaVersion) {
    return makeError(file.string() + ": store schema version " + std::to_string(version) + " is newer than " +
                     reads + "; use a newer migrate-pipeline or another --output directory");
  }
  if (version < kStoreSchemaVersion) return migrateFrom(version, db, file);
  return Ok{};
}

Status migrateFrom(int version, sqlite3* db, const fs::path& file) {
  const std::string what = "migrating the store from schema version " + std::to_string(version);
  std::string error;
  Transaction tx(db);
  if (!tx.begin(error)) return sqlError(file, what, error);
  // Another process may have migrated it meanwhile: the version is read again inside the write.
  Statement current(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (current.next() && current.text(0) != std::to_string(version)) return Ok{};
  if (!current.ok()) return sqlError(file, what, current.error());
  for (int step = version; step < kStoreSchemaVersion; ++step)
    if (!execute(db, kMigrations[step - 1], error)) return sqlError(file, what, error);
  Statement stamp(db, "UPDATE meta SET value = ?1 WHERE key = 'schema_version'");
  stamp.bindText(1, std::to_string(kStoreSchemaVersion));
  if (!stamp.run()) return sqlError(file, "writing the store's schema version", stamp.error());
  if (!tx.commit(error)) return sqlError(file, what, error);
  return Ok{};
}

/// The earlier of two ISO 8601 UTC times; an empty one counts as unknown.

}  // namespace migrate::fleet

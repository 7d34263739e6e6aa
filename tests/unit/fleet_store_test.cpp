// The fleet's store against a real SQLite file, and the status/history output built from it.

#include <csv.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/fleet_store.hpp"
#include "fleet/fleet_tables.hpp"
#include "support/test_support.hpp"

namespace migrate::fleet {
namespace {

using migrate::test::TempDir;

/// Runs `sql` on `file` through a separate connection; the first column of the first row.
std::string queryOne(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::string out;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  const int rc = sqlite3_step(stmt);
  EXPECT_TRUE(rc == SQLITE_ROW || rc == SQLITE_DONE) << sqlite3_errmsg(db);
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

Store openStore(const std::filesystem::path& file) {
  auto store = Store::open(file);
  if (!store) ADD_FAILURE() << store.error().message;
  return std::move(store.value());
}

Night begin(Store& store, const std::string& label, const std::string& started_at = "2026-11-26T02:00:00Z") {
  auto night = store.beginNight(label, started_at, "", "1.4.0", "fleet.yaml");
  EXPECT_TRUE(night.ok()) << night.error().message;
  return night.value();
}

RepoRun makeRun(const std::string& name, const std::string& status = "succeeded") {
  RepoRun r;
  r.name = name;
  r.source = "https://git.example.com/" + name + ".git";
  r.ref = "main";
  r.commit = "0123456789abcdef0123456789abcdef01234567";
  r.status = status;
  r.exit_code = 0;
  r.duration_s = 12.25;
  r.peak_rss_mb = 512.5;
  r.cache_key = "ck-" + name;
  r.tool_key = "tk-1";
  r.output_dir = "2026-11-26/" + name;
  r.findings = 15;
  r.findings_fixed = 4;
  r.effort_days = 2.5;
  r.verdict = "partially_adapted";
  r.verify_status = "completed";
  r.checks_passed = 7;
  r.checks_failed = 1;
  r.checks_skipped = 2;
  r.started_at = "2026-11-26T02:01:00Z";
  r.finished_at = "2026-11-26T02:01:12Z";
  r.stages = {{"analyze", "completed", "", 3.0},
              {"emit", "completed", "", 0.5, 2839, 2841},
              {"verify", "failed", "disk", 0.5, 11, 18}};
  r.counts = {{"cuda.device", "device", "error", 12, 4, 1.25},
              {"cuda.stream", "attention", "warning", 3, 0, 0.5}};
  r.blocking_deps = {{"cupy", "unsupported", "numpy / torch", 2},
                     {"flash-attn", "needs replacement", "npu_ops", 1}};
  r.rule_info = {{"cuda.device", "Device API", "device", false},
                 {"cuda.stream", "Stream API", "attention", true}};
  r.plan_inputs = R"({"goal":"full","verdict":"feasible"})";
  r.outcomes = {{"passed", 7}, {"introduced", 1}, {"environment", 3}, {"skipped", 2}};
  r.broken_rules = {{"DEV-001", 1}};
  r.found = {{"f00d", "cuda.device", "model.py", 3, true}, {"beef", "cuda.stream", "train.py", 12, false}};
  return r;
}

void expectSameRun(const RepoRun& a, const RepoRun& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.ref, b.ref);
  EXPECT_EQ(a.commit, b.commit);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.exit_code, b.exit_code);
  EXPECT_DOUBLE_EQ(a.duration_s, b.duration_s);
  EXPECT_DOUBLE_EQ(a.peak_rss_mb, b.peak_rss_mb);
  EXPECT_EQ(a.cache_key, b.cache_key);
  EXPECT_EQ(a.tool_key, b.tool_key);
  EXPECT_EQ(a.output_dir, b.output_dir);
  EXPECT_EQ(a.cached_from, b.cached_from);
  EXPECT_EQ(a.findings, b.findings);
  EXPECT_EQ(a.findings_fixed, b.findings_fixed);
  EXPECT_DOUBLE_EQ(a.effort_days, b.effort_days);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.verify_status, b.verify_status);
  EXPECT_EQ(a.checks_passed, b.checks_passed);
  EXPECT_EQ(a.checks_failed, b.checks_failed);
  EXPECT_EQ(a.checks_skipped, b.checks_skipped);
  EXPECT_EQ(a.started_at, b.started_at);
  EXPECT_EQ(a.finished_at, b.finished_at);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (std::size_t i = 0; i < a.stages.size(); ++i) {
    EXPECT_EQ(a.stages[i].stage, b.stages[i].stage);
    EXPECT_EQ(a.stages[i].status, b.stages[i].status);
    EXPECT_EQ(a.stages[i].detail, b.stages[i].detail);
    EXPECT_DOUBLE_EQ(a.stages[i].seconds, b.stages[i].seconds);
    EXPECT_EQ(a.stages[i].kept, b.stages[i].kept);
    EXPECT_EQ(a.stages[i].total, b.stages[i].total);
  }
  ASSERT_EQ(a.counts.size(), b.counts.size());
  for (std::size_t i = 0; i < a.counts.size(); ++i) {
    EXPECT_EQ(a.counts[i].rule, b.counts[i].rule);
    EXPECT_EQ(a.counts[i].domain, b.counts[i].domain);
    EXPECT_EQ(a.counts[i].severity, b.counts[i].severity);
    EXPECT_EQ(a.counts[i].total, b.counts[i].total);
    EXPECT_EQ(a.counts[i].fixed, b.counts[i].fixed);
    EXPECT_DOUBLE_EQ(a.counts[i].effort_days, b.counts[i].effort_days);
  }
  ASSERT_EQ(a.blocking_deps.size(), b.blocking_deps.size());
  for (std::size_t i = 0; i < a.blocking_deps.size(); ++i) {
    EXPECT_EQ(a.blocking_deps[i].package, b.blocking_deps[i].package);
    EXPECT_EQ(a.blocking_deps[i].verdict, b.blocking_deps[i].verdict);
    EXPECT_EQ(a.blocking_deps[i].replacement, b.blocking_deps[i].replacement);
    EXPECT_EQ(a.blocking_deps[i].places, b.blocking_deps[i].places);
  }
  EXPECT_EQ(a.outcomes, b.outcomes);
  EXPECT_EQ(a.broken_rules, b.broken_rules);
}

/// Makes a store look as version 3 wrote it: without what version 4 added.
void dropVersion4(const std::filesystem::path& file) {
  queryOne(file, "ALTER TABLE finding_counts DROP COLUMN effort_days");
  queryOne(file, "DROP TABLE rule_info");
  queryOne(file, "DROP TABLE blocking_deps");
  queryOne(file, "DROP TABLE plan_inputs");
}

/// Makes a store look as version 2 wrote it: without what versions 3 and 4 added.
void dropVersion3(const std::filesystem::path& file) {
  dropVersion4(file);
  queryOne(file, "ALTER TABLE stages DROP COLUMN kept");
  queryOne(file, "ALTER TABLE stages DROP COLUMN total");
  queryOne(file, "ALTER TABLE runs DROP COLUMN tool_key");
  queryOne(file, "DROP TABLE findings");
}

/// What a row written before version 4 reads as: no effort per rule, no blocking dependencies.
void forgetVersion4(RepoRun& run) {
  for (FindingCount& c : run.counts) c.effort_days = 0;
  run.blocking_deps.clear();
}

std::vector<std::string> names(const std::vector<RepoRun>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(r.name);
  return out;
}

TEST(FleetStore, CreatesAndReopensWithRowsIntact) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  RepoRun run = makeRun("alpha");
  run.exit_code.reset();
  run.reason = "child killed";
  std::int64_t id = 0;
  {
    Store store = openStore(file);
    id = begin(store, "2026-11-26").id;
    auto recorded = store.recordRun(id, run);
    ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  Store store = openStore(file);
  auto night = store.night(id);
  ASSERT_TRUE(night.ok());
  ASSERT_TRUE(night->has_value());
  EXPECT_EQ((*night)->label, "2026-11-26");
  EXPECT_EQ((*night)->state, "running");
  EXPECT_EQ((*night)->tool_version, "1.4.0");
  EXPECT_EQ((*night)->manifest, "fleet.yaml");
  EXPECT_EQ((*night)->finished_at, "");
  auto runs = store.runs(id);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  expectSameRun(runs->front(), run);
  EXPECT_FALSE(runs->front().exit_code.has_value());
  EXPECT_EQ(queryOne(file, "SELECT exit_code IS NULL FROM runs"), "1");
  EXPECT_EQ(queryOne(file, "SELECT value FROM meta WHERE key = 'schema_version'"), "4");
  EXPECT_EQ(queryOne(file, "SELECT checks FROM check_outcomes WHERE outcome = 'introduced'"), "1");
  EXPECT_EQ(queryOne(file, "SELECT rule || ':' || checks FROM broken_rules"), "DEV-001:1");
}

// A store written by the previous release (schema version 1: the tables of version 2 without
// check_outcomes and broken_rules) is migrated when opened: its rows stay, the new tables are
// there, a new row records its outcomes, and a second open leaves it alone.
TEST(FleetStore, MigratesAVersion1StoreKeepingItsRows) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  RepoRun old = makeRun("alpha");
  old.outcomes.clear();
  old.broken_rules.clear();
  std::int64_t id = 0;
  {
    Store store = openStore(file);
    id = begin(store, "2026-11-26").id;
    ASSERT_TRUE(store.recordRun(id, old).ok());
  }
  queryOne(file, "DROP TABLE check_outcomes");
  queryOne(file, "DROP TABLE broken_rules");
  dropVersion3(file);
  queryOne(file, "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  ASSERT_EQ(queryOne(file, "SELECT count(*) FROM sqlite_master WHERE name = 'broken_rules'"), "0");

  Store store = openStore(file);
  EXPECT_EQ(queryOne(file, "SELECT value FROM meta WHERE key = 'schema_version'"), "4");
  EXPECT_EQ(
      queryOne(file, "SELECT count(*) FROM sqlite_master WHERE name IN ('check_outcomes', 'broken_rules')"),
      "2");
  auto runs = store.runs(id);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  for (StageRow& s : old.stages) s.kept = s.total = 0;  // version 1 did not keep them
  old.tool_key.clear();
  forgetVersion4(old);
  expectSameRun(runs->front(), old);
  const RepoRun fresh = makeRun("beta");
  ASSERT_TRUE(store.recordRun(id, fresh).ok());
  auto again = Store::open(file);
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto both = again->runs(id);
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 2u);
  expectSameRun(both->at(1), fresh);
}

// A store of version 2 (the release before the stages' reuse counts, the tool key and the
// findings by fingerprint) gains them: its rows read as having made everything, with no tool
// key and no findings; a new row keeps its own.
TEST(FleetStore, MigratesAVersion2StoreKeepingItsRows) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  RepoRun old = makeRun("alpha");
  std::int64_t id = 0;
  {
    Store store = openStore(file);
    id = begin(store, "2026-11-26").id;
    ASSERT_TRUE(store.recordRun(id, old).ok());
  }
  dropVersion3(file);
  queryOne(file, "UPDATE meta SET value = '2' WHERE key = 'schema_version'");

  Store store = openStore(file);
  EXPECT_EQ(queryOne(file, "SELECT value FROM meta WHERE key = 'schema_version'"), "4");
  auto runs = store.runs(id);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  for (StageRow& s : old.stages) s.kept = s.total = 0;
  old.tool_key.clear();
  forgetVersion4(old);
  expectSameRun(runs->front(), old);
  auto none = store.foundFindings(id, "alpha");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty()) << "version 2 kept no findings";
  const RepoRun fresh = makeRun("beta");
  ASSERT_TRUE(store.recordRun(id, fresh).ok());
  auto both = store.runs(id);
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 2u);
  expectSameRun(both->at(1), fresh);
  EXPECT_EQ(queryOne(file, "SELECT kept || '/' || total FROM stages WHERE repo = 'beta' AND stage = 'emit'"),
            "2839/2841");
  auto found = store.foundFindings(id, "beta");
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ(found->front().fingerprint, "f00d");
  EXPECT_TRUE(found->front().fixed);
  EXPECT_EQ(found->back().line, 12);
}

// A store of version 3 (the release before `fleet report`) gains what the report reads: its rows
// read as having no effort per rule, no blocking dependencies and no plan to judge; a new row
// keeps its own, and what it says of its rules.
TEST(FleetStore, MigratesAVersion3StoreKeepingItsRows) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  RepoRun old = makeRun("alpha");
  std::int64_t id = 0;
  {
    Store store = openStore(file);
    id = begin(store, "2026-11-26").id;
    ASSERT_TRUE(store.recordRun(id, old).ok());
  }
  dropVersion4(file);
  queryOne(file, "UPDATE meta SET value = '3' WHERE key = 'schema_version'");

  Store store = openStore(file);
  EXPECT_EQ(queryOne(file, "SELECT value FROM meta WHERE key = 'schema_version'"), "4");
  auto runs = store.runs(id);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  forgetVersion4(old);
  expectSameRun(runs->front(), old);
  auto inputs = store.planInputs(id);
  ASSERT_TRUE(inputs.ok()) << inputs.error().message;
  EXPECT_TRUE(inputs->empty()) << "version 3 kept no plan inputs";
  const RepoRun fresh = makeRun("beta");
  ASSERT_TRUE(store.recordRun(id, fresh).ok());
  auto both = store.runs(id);
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 2u);
  expectSameRun(both->at(1), fresh);
  inputs = store.planInputs(id);
  ASSERT_TRUE(inputs.ok());
  EXPECT_EQ(inputs->at("beta"), fresh.plan_inputs);
  auto info = store.ruleInfo();
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->at("cuda.stream").title, "Stream API");
  EXPECT_TRUE(info->at("cuda.stream").no_counterpart);
}

// The dashboard's trend of findings new and fixed: by fingerprint against each repository's
// previous row, as `fleet diff` counts them; a cached row moves nothing, a failed row is no
// baseline.
TEST(FleetStore, CountsTheFindingsNewAndFixedPerNight) {
  TempDir dir;
  Store store = openStore(dir / "fleet.db");
  const std::int64_t n1 = begin(store, "n1").id, n2 = begin(store, "n2").id, n3 = begin(store, "n3").id;
  RepoRun alpha = makeRun("alpha");
  alpha.found = {{"aaaa", "R", "a.py", 1, false}, {"bbbb", "R", "a.py", 2, false}};
  ASSERT_TRUE(store.recordRun(n1, alpha).ok());
  alpha.found = {
      {"bbbb", "R", "a.py", 3, false}, {"cccc", "R", "a.py", 4, false}, {"dddd", "R", "b.py", 1, false}};
  ASSERT_TRUE(store.recordRun(n2, alpha).ok());
  RepoRun cached = makeRun("alpha", "cached");
  cached.cached_from = n2;
  cached.found.clear();
  ASSERT_TRUE(store.recordRun(n3, cached).ok());
  RepoRun beta = makeRun("beta", "failed");
  beta.found.clear();
  ASSERT_TRUE(store.recordRun(n1, beta).ok());
  beta = makeRun("beta");
  ASSERT_TRUE(store.recordRun(n2, beta).ok());  // after a failed row: nothing to compare with
  beta.found = {{"f00d", "cuda.device", "model.py", 3, true}};
  ASSERT_TRUE(store.recordRun(n3, beta).ok());  // one of its two findings gone
  auto moved = store.newAndFixedPerNight();
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  const std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> expected{{n2, {2, 1}}, {n3, {0, 1}}};
  EXPECT_EQ(moved.value(), expected);
}

TEST(FleetStore, UsesWalModeAndForeignKeys) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  Store store = openStore(file);
  EXPECT_EQ(queryOne(file, "PRAGMA journal_mode"), "wal");
  // foreign keys on: a row of a night that does not exist is refused
  auto recorded = store.recordRun(42, makeRun("alpha"));
  ASSERT_FALSE(recorded.ok());
  EXPECT_NE(recorded.error().message.find(file.string()), std::string::npos) << recorded.error().message;
  EXPECT_NE(recorded.error().message.find("FOREIGN KEY"), std::string::npos) << recorded.error().message;
  EXPECT_EQ(queryOne(file, "SELECT count(*) FROM runs"), "0");
}

TEST(FleetStore, RefusesNewerSchemaVersion) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  { Store store = openStore(file); }
  queryOne(file, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  auto store = Store::open(file);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().message,
            file.string() +
                ": store schema version 7 is newer than this migrate-pipeline reads (4); use a newer "
                "migrate-pipeline or another --output directory");
}

TEST(FleetStore, RefusesFileThatIsNoDatabase) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  const std::string garbage(4096, 'x');
  migrate::test::writeFile(file, garbage);
  auto store = Store::open(file);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().message, file.string() +
                                       " is not a fleet store (SQLite: file is not a database); move it away "
                                       "or choose another --output directory");
  EXPECT_EQ(migrate::test::readFile(file), garbage);  // left as it was
}

TEST(FleetStore, RefusesDatabaseOfSomethingElse) {
  TempDir dir;
  const auto file = dir / "other.db";
  queryOne(file, "CREATE TABLE customers(id INTEGER)");
  auto store = Store::open(file);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find(file.string() + " is not a fleet store"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(queryOne(file, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'"), "0");
}

TEST(FleetStore, NightsLabelsStateAndLatest) {
  TempDir dir;
  Store store = openStore(dir / "fleet.db");
  auto empty = store.latestNight();
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());

  const Night first = begin(store, "2026-11-25");
  const Night second = begin(store, "2026-11-26");
  EXPECT_LT(first.id, second.id);
  auto taken = store.beginNight("2026-11-25", "2026-11-25T02:00:00Z", "", "1.4.0", "fleet.yaml");
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(taken.error().message.find("2026-11-25"), std::string::npos);

  ASSERT_TRUE(store.setNightState(first.id, "completed", "2026-11-25T04:00:00Z").ok());
  auto bad = store.setNightState(first.id, "sleeping", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("CHECK"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(store.setNightState(999, "completed", "x").ok());

  auto latest = store.latestNight();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->label, "2026-11-26");
  auto by_label = store.nightByLabel("2026-11-25");
  ASSERT_TRUE(by_label.ok() && by_label->has_value());
  EXPECT_EQ((*by_label)->state, "completed");
  EXPECT_EQ((*by_label)->finished_at, "2026-11-25T04:00:00Z");
  auto missing = store.nightByLabel("2030-01-01");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  // back to running (a resumed night): no longer finished
  ASSERT_TRUE(store.setNightState(first.id, "running", "").ok());
  auto all = store.nights();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].label, "2026-11-25");
  EXPECT_EQ((*all)[0].state, "running");
  EXPECT_EQ((*all)[0].finished_at, "");
  EXPECT_EQ((*all)[1].label, "2026-11-26");
}

TEST(FleetStore, RecordRunReplacesRowStagesAndCounts) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  Store store = openStore(file);
  const Night night = begin(store, "2026-11-26");
  ASSERT_TRUE(store.recordRun(night.id, makeRun("alpha", "failed")).ok());

  RepoRun again = makeRun("alpha");
  again.stages = {{"parse", "completed", "", 2.0}};
  again.counts = {{"cuda.memory", "memory", "info", 1, 1}};
  again.findings = 1;
  auto recorded = store.recordRun(night.id, again);
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;

  auto runs = store.runs(night.id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  expectSameRun(runs->front(), again);
  EXPECT_EQ(queryOne(file, "SELECT count(*) FROM stages"), "1");
  EXPECT_EQ(queryOne(file, "SELECT count(*) FROM finding_counts"), "1");
}

TEST(FleetStore, RunsSortedByNameStagesInOrderCountsByRule) {
  TempDir dir;
  Store store = openStore(dir / "fleet.db");
  const Night night = begin(store, "2026-11-26");
  const Night other = begin(store, "2026-11-27");
  for (const char* name : {"zeta", "alpha", "Mid", "beta"}) {
    RepoRun r = makeRun(name);
    r.stages = {{"verify", "completed", "", 1}, {"acquire", "completed", "", 1}, {"parse", "skipped", "", 0}};
    r.counts = {{"z.rule", "device", "error", 1, 0}, {"a.rule", "memory", "info", 2, 1}};
    ASSERT_TRUE(store.recordRun(night.id, r).ok());
  }
  ASSERT_TRUE(store.recordRun(other.id, makeRun("gamma")).ok());
  auto runs = store.runs(night.id);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(names(*runs), (std::vector<std::string>{"Mid", "alpha", "beta", "zeta"}));
  for (const auto& r : *runs) {
    ASSERT_EQ(r.stages.size(), 3u);
    EXPECT_EQ(r.stages[0].stage, "verify");
    EXPECT_EQ(r.stages[1].stage, "acquire");
    EXPECT_EQ(r.stages[2].stage, "parse");
    ASSERT_EQ(r.counts.size(), 2u);
    EXPECT_EQ(r.counts[0].rule, "a.rule");
    EXPECT_EQ(r.counts[1].rule, "z.rule");
  }
  auto none = store.runs(999);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(FleetStore, LastRunWithAndWithoutBound) {
  TempDir dir;
  Store store = openStore(dir / "fleet.db");
  const Night n1 = begin(store, "n1");
  const Night n2 = begin(store, "n2");
  const Night n3 = begin(store, "n3");
  RepoRun first = makeRun("alpha");
  first.commit = "c1";
  RepoRun third = makeRun("alpha");
  third.commit = "c3";
  third.stages = {{"emit", "completed", "", 4}};
  ASSERT_TRUE(store.recordRun(n1.id, first).ok());
  ASSERT_TRUE(store.recordRun(n3.id, third).ok());
  ASSERT_TRUE(store.recordRun(n2.id, makeRun("beta")).ok());

  auto any = store.lastRun("alpha");
  ASSERT_TRUE(any.ok());
  ASSERT_TRUE(any->has_value());
  expectSameRun(**any, third);

  auto before3 = store.lastRun("alpha", n3.id);
  ASSERT_TRUE(before3.ok() && before3->has_value());
  expectSameRun(**before3, first);  // n2 has no row for alpha

  auto before1 = store.lastRun("alpha", n1.id);
  ASSERT_TRUE(before1.ok());
  EXPECT_FALSE(before1->has_value());
  auto unknown = store.lastRun("nobody");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
}

TEST(FleetStore, HistoryCountsEachNight) {
  TempDir dir;
  Store store = openStore(dir / "fleet.db");
  const Night n1 = begin(store, "2026-11-25");
  const Night n2 = begin(store, "2026-11-26");
  const Night n3 = begin(store, "2026-11-27");  // no rows
  const std::vector<std::pair<std::string, std::string>> rows = {{"a", "succeeded"},     {"b", "succeeded"},
                                                                 {"c", "failed"},        {"d", "timed_out"},
                                                                 {"e", "out_of_memory"}, {"f", "cached"}};
  for (const auto& [name, status] : rows) {
    RepoRun r = makeRun(name, status);
    r.findings = 10;
    r.findings_fixed = 3;
    r.effort_days = 0.25;
    ASSERT_TRUE(store.recordRun(n1.id, r).ok());
  }
  ASSERT_TRUE(store.recordRun(n2.id, makeRun("a", "cached")).ok());
  ASSERT_TRUE(store.setNightState(n1.id, "completed", "2026-11-25T05:00:00Z").ok());

  auto history = store.history();
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 3u);
  const NightSummary& s1 = (*history)[0];
  EXPECT_EQ(s1.night.id, n1.id);
  EXPECT_EQ(s1.night.state, "completed");
  EXPECT_EQ(s1.repos, 6);
  EXPECT_EQ(s1.succeeded, 2);
  EXPECT_EQ(s1.failed, 1);
  EXPECT_EQ(s1.timed_out, 1);
  EXPECT_EQ(s1.out_of_memory, 1);
  EXPECT_EQ(s1.cached, 1);
  EXPECT_EQ(s1.findings, 60);
  EXPECT_EQ(s1.findings_fixed, 18);
  EXPECT_DOUBLE_EQ(s1.effort_days, 1.5);
  const NightSummary& s2 = (*history)[1];
  EXPECT_EQ(s2.night.id, n2.id);
  EXPECT_EQ(s2.repos, 1);
  EXPECT_EQ(s2.cached, 1);
  EXPECT_EQ(s2.succeeded, 0);
  EXPECT_EQ(s2.findings, 15);
  const NightSummary& s3 = (*history)[2];
  EXPECT_EQ(s3.night.id, n3.id);
  EXPECT_EQ(s3.repos, 0);
  EXPECT_EQ(s3.findings, 0);
  EXPECT_DOUBLE_EQ(s3.effort_days, 0.0);
}

TEST(FleetStore, FailedRecordLeavesNoPartialRow) {
  TempDir dir;
  const auto file = dir / "fleet.db";
  Store store = openStore(file);
  const Night night = begin(store, "2026-11-26");
  const RepoRun original = makeRun("alpha");
  ASSERT_TRUE(store.recordRun(night.id, original).ok());

  // the status violates the CHECK: nothing of the new row, the old one stays
  auto bad_status = store.recordRun(night.id, makeRun("alpha", "exploded"));
  ASSERT_FALSE(bad_status.ok());
  EXPECT_NE(bad_status.error().message.find(file.string()), std::string::npos);
  EXPECT_NE(bad_status.error().message.find("recording the run of 'alpha'"), std::string::npos);
  EXPECT_NE(bad_status.error().message.find("CHECK constraint failed"), std::string::npos)
      << bad_status.error().message;

  // fails after the old row was deleted and the new one inserted (a stage twice): rolled back
  RepoRun twice = makeRun("alpha");
  twice.commit = "new";
  twice.stages = {{"parse", "completed", "", 1}, {"parse", "completed", "", 1}};
  auto duplicate = store.recordRun(night.id, twice);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.error().message.find("stage 'parse'"), std::string::npos) << duplicate.error().message;

  // a new repository that fails halfway leaves no row either
  RepoRun fresh = makeRun("beta");
  fresh.counts = {{"r", "d", "info", 1, 0}, {"r", "d", "info", 1, 0}};
  ASSERT_FALSE(store.recordRun(night.id, fresh).ok());

  auto runs = store.runs(night.id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  expectSameRun(runs->front(), original);
  EXPECT_EQ(queryOne(file, "SELECT count(*) FROM stages"), "3");
  // and the store still takes writes (no transaction left open)
  EXPECT_TRUE(store.recordRun(night.id, makeRun("beta")).ok());
}

TEST(FleetStore, ReferencedOutputDirs) {
  TempDir dir;
  Store store = openStore(dir / "fleet.db");
  const Night n1 = begin(store, "n1");
  const Night n2 = begin(store, "n2");
  const Night n3 = begin(store, "n3");
  RepoRun a = makeRun("a");
  a.output_dir = "n1/a";
  RepoRun b = makeRun("b");
  b.output_dir = "";
  ASSERT_TRUE(store.recordRun(n1.id, a).ok());
  ASSERT_TRUE(store.recordRun(n1.id, b).ok());
  RepoRun a2 = makeRun("a", "cached");
  a2.output_dir = "n1/a";  // carried over
  RepoRun c = makeRun("c");
  c.output_dir = "n2/c";
  ASSERT_TRUE(store.recordRun(n2.id, a2).ok());
  ASSERT_TRUE(store.recordRun(n2.id, c).ok());
  RepoRun d = makeRun("d");
  d.output_dir = "n3/d";
  ASSERT_TRUE(store.recordRun(n3.id, d).ok());

  auto dirs = store.referencedOutputDirs({n2.id});
  ASSERT_TRUE(dirs.ok());
  EXPECT_EQ(*dirs, (std::vector<std::string>{"n1/a", "n2/c"}));
  dirs = store.referencedOutputDirs({n1.id, n2.id});
  ASSERT_TRUE(dirs.ok());
  EXPECT_EQ(*dirs, (std::vector<std::string>{"n1/a", "n2/c"}));
  dirs = store.referencedOutputDirs({n3.id, 999});
  ASSERT_TRUE(dirs.ok());
  EXPECT_EQ(*dirs, (std::vector<std::string>{"n3/d"}));
  dirs = store.referencedOutputDirs({});
  ASSERT_TRUE(dirs.ok());
  EXPECT_TRUE(dirs->empty());
}

TEST(FleetStore, MergesShardStores) {
  TempDir dir;
  std::filesystem::create_directories(dir / "shard-1");
  std::filesystem::create_directories(dir / "shard-2");
  Store a = openStore(dir / "shard-1/fleet.db");
  Store b = openStore(dir / "shard-2/fleet.db");
  Store target = openStore(dir / "fleet.db");

  // shard 1: nights 26 (completed) and 27 (completed)
  auto a26 = a.beginNight("2026-11-26", "2026-11-26T02:00:05Z", "1/2", "1.4.0", "fleet.yaml");
  ASSERT_TRUE(a26.ok());
  ASSERT_TRUE(a.recordRun(a26->id, makeRun("alpha")).ok());
  ASSERT_TRUE(a.setNightState(a26->id, "completed", "2026-11-26T03:00:00Z").ok());
  auto a27 = a.beginNight("2026-11-27", "2026-11-27T02:00:00Z", "1/2", "1.4.0", "fleet.yaml");
  ASSERT_TRUE(a27.ok());
  ASSERT_TRUE(a.recordRun(a27->id, makeRun("alpha")).ok());
  ASSERT_TRUE(a.setNightState(a27->id, "completed", "2026-11-27T03:00:00Z").ok());

  // shard 2: an extra night first (so its ids differ), 26 completed later, 27 interrupted
  auto b25 = b.beginNight("2026-11-25", "2026-11-25T02:00:00Z", "2/2", "1.4.0", "fleet.yaml");
  ASSERT_TRUE(b25.ok());
  auto b26 = b.beginNight("2026-11-26", "2026-11-26T02:00:01Z", "2/2", "1.4.0", "fleet.yaml");
  ASSERT_TRUE(b26.ok());
  RepoRun beta = makeRun("beta");
  beta.output_dir = "2026-11-26/beta";
  beta.counts = {{"cuda.device", "device", "error", 5, 5}};
  ASSERT_TRUE(b.recordRun(b26->id, beta).ok());
  ASSERT_TRUE(b.setNightState(b26->id, "completed", "2026-11-26T04:00:00Z").ok());
  auto b27 = b.beginNight("2026-11-27", "2026-11-27T02:00:00Z", "2/2", "1.4.0", "fleet.yaml");
  ASSERT_TRUE(b27.ok());
  RepoRun beta_cached = makeRun("beta", "cached");
  beta_cached.cached_from = b26->id;
  beta_cached.output_dir = "2026-11-26/beta";
  RepoRun gamma_cached = makeRun("gamma", "cached");
  gamma_cached.cached_from = 99;  // no such night in the shard
  gamma_cached.output_dir = "";
  ASSERT_TRUE(b.recordRun(b27->id, beta_cached).ok());
  ASSERT_TRUE(b.recordRun(b27->id, gamma_cached).ok());
  ASSERT_TRUE(b.setNightState(b27->id, "interrupted", "").ok());

  const auto rebase1 = [](const std::string& d) { return "shard-1/" + d; };
  const auto rebase2 = [](const std::string& d) { return "shard-2/" + d; };
  auto merged = target.mergeFrom(a, rebase1);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  merged = target.mergeFrom(b, rebase2);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_FALSE(target.mergeFrom(target, rebase1).ok());

  auto n26 = target.nightByLabel("2026-11-26");
  auto n27 = target.nightByLabel("2026-11-27");
  auto n25 = target.nightByLabel("2026-11-25");
  ASSERT_TRUE(n26.ok() && n26->has_value() && n27.ok() && n27->has_value() && n25.ok() && n25->has_value());
  EXPECT_EQ((*n26)->state, "completed");
  EXPECT_EQ((*n26)->started_at, "2026-11-26T02:00:01Z");   // the earlier start
  EXPECT_EQ((*n26)->finished_at, "2026-11-26T04:00:00Z");  // the later finish
  EXPECT_EQ((*n26)->shard, "1/2");                         // created by the first merge
  EXPECT_EQ((*n27)->state, "interrupted");                 // shard 2 did not complete it
  EXPECT_EQ((*n27)->finished_at, "");
  EXPECT_EQ((*n25)->state, "running");  // created from shard 2 with its state
  EXPECT_EQ((*n25)->shard, "2/2");

  auto rows26 = target.runs((*n26)->id);
  ASSERT_TRUE(rows26.ok());
  EXPECT_EQ(names(*rows26), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ((*rows26)[0].output_dir, "shard-1/2026-11-26/alpha");
  EXPECT_EQ((*rows26)[1].output_dir, "shard-2/2026-11-26/beta");
  ASSERT_EQ((*rows26)[1].counts.size(), 1u);
  EXPECT_EQ((*rows26)[1].counts[0].fixed, 5);
  EXPECT_EQ((*rows26)[0].stages.size(), 3u);

  auto rows27 = target.runs((*n27)->id);
  ASSERT_TRUE(rows27.ok());
  EXPECT_EQ(names(*rows27), (std::vector<std::string>{"alpha", "beta", "gamma"}));
  // The findings came along: a run's own, and a cached row's through the run it carries over.
  for (const std::int64_t night : {(*n26)->id, (*n27)->id}) {
    auto found = target.foundFindings(night, "beta");
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_EQ(found->size(), 2u) << night;
    // So did what `fleet report` reads: the plans to judge and what the rules are.
    auto inputs = target.planInputs(night);
    ASSERT_TRUE(inputs.ok()) << inputs.error().message;
    EXPECT_EQ(inputs->at("beta"), beta.plan_inputs) << night;
  }
  auto info = target.ruleInfo();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->at("cuda.device").title, "Device API");
  EXPECT_EQ((*rows27)[1].cached_from, std::optional<std::int64_t>((*n26)->id));
  EXPECT_NE((*n26)->id, b26->id);  // so the translation is what the test sees
  EXPECT_FALSE((*rows27)[2].cached_from.has_value());
  EXPECT_EQ((*rows27)[2].output_dir, "");

  // merging a shard again replaces its rows rather than adding
  ASSERT_TRUE(target.mergeFrom(b, rebase2).ok());
  rows26 = target.runs((*n26)->id);
  ASSERT_TRUE(rows26.ok());
  EXPECT_EQ(rows26->size(), 2u);
  auto history = target.history();
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].repos + (*history)[1].repos + (*history)[2].repos, 5);
}

TEST(FleetStore, MoveKeepsTheConnection) {
  TempDir dir;
  Store first = openStore(dir / "fleet.db");
  const Night night = begin(first, "n1");
  Store moved(std::move(first));
  EXPECT_TRUE(moved.recordRun(night.id, makeRun("alpha")).ok());
  Store other = openStore(dir / "other.db");
  other = std::move(moved);
  EXPECT_EQ(other.file(), dir / "fleet.db");
  auto runs = other.runs(night.id);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
}

// ---- status and history output ----

Night sampleNight() {
  Night n;
  n.id = 3;
  n.label = "2026-11-26";
  n.started_at = "2026-11-26T02:00:00Z";
  n.finished_at = "2026-11-26T05:00:00Z";
  n.state = "completed";
  return n;
}

std::vector<RepoRun> sampleRuns() {
  RepoRun failed = makeRun("zeta", "failed");
  failed.reason = "build failed, see \"log\"\nline two";
  failed.output_dir = "2026-11-26/zeta/../zeta";
  failed.effort_days = 1.0 / 3.0;
  RepoRun cached = makeRun("beta", "cached");
  cached.cached_from = 2;
  cached.output_dir = "";
  RepoRun ok = makeRun("alpha");
  ok.counts = {
      {"r1", "device", "error", 12, 0}, {"r2", "attention", "info", 2, 0}, {"r3", "attention", "info", 1, 0}};
  return {failed, cached, ok};
}

/// Parses CSV with libcsv: rows of fields.
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  struct Sink {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
  } sink;
  csv_parser parser;
  EXPECT_EQ(csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI), 0);
  const auto on_field = [](void* data, std::size_t size, void* out) {
    static_cast<Sink*>(out)->row.emplace_back(static_cast<const char*>(data), size);
  };
  const auto on_row = [](int, void* out) {
    auto* s = static_cast<Sink*>(out);
    s->rows.push_back(std::move(s->row));
    s->row.clear();
  };
  EXPECT_EQ(csv_parse(&parser, text.data(), text.size(), on_field, on_row, &sink), text.size());
  EXPECT_EQ(csv_fini(&parser, on_field, on_row, &sink), 0);
  csv_free(&parser);
  return sink.rows;
}

TEST(FleetTables, StatusJsonHasTheRequiredKeys) {
  const std::string text = formatStatus(sampleNight(), sampleRuns(), "json", "/srv/fleet");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(doc["night"], 3);
  EXPECT_EQ(doc["label"], "2026-11-26");
  EXPECT_EQ(doc["state"], "completed");
  EXPECT_EQ(doc["finished_at"], "2026-11-26T05:00:00Z");
  const auto& repos = doc["repos"];
  ASSERT_EQ(repos.size(), 3u);
  std::vector<std::string> keys;
  for (const auto& item : repos[0].items()) keys.push_back(item.key());
  const std::vector<std::string> required = {
      "name",        "commit",  "status",     "reason",    "findings", "findings_by_domain",
      "effort_days", "verdict", "duration_s", "output_dir"};
  ASSERT_GE(keys.size(), required.size());
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + static_cast<long>(required.size())),
            required);

  EXPECT_EQ(repos[0]["name"], "alpha");  // sorted by name
  EXPECT_EQ(repos[0]["findings_by_domain"], nlohmann::json::parse(R"({"attention": 3, "device": 12})"));
  EXPECT_EQ(repos[0]["output_dir"], "/srv/fleet/2026-11-26/alpha");
  EXPECT_EQ(repos[0]["cached_from"], nullptr);
  EXPECT_EQ(repos[0]["effort_days"], 2.5);
  EXPECT_EQ(repos[1]["name"], "beta");
  EXPECT_EQ(repos[1]["cached_from"], 2);
  EXPECT_EQ(repos[1]["output_dir"], nullptr);
  EXPECT_EQ(repos[2]["name"], "zeta");
  EXPECT_EQ(repos[2]["status"], "failed");
  EXPECT_EQ(repos[2]["reason"], "build failed, see \"log\"\nline two");
  EXPECT_EQ(repos[2]["output_dir"], "/srv/fleet/2026-11-26/zeta");  // lexically normal
  EXPECT_EQ(repos[2]["effort_days"], 0.33);
  EXPECT_EQ(repos[2]["duration_s"], 12.3);  // 12.25 → one decimal (round half away from zero)

  Night running = sampleNight();
  running.finished_at.clear();
  EXPECT_EQ(nlohmann::json::parse(formatStatus(running, {}, "json", "/srv"))["finished_at"], nullptr);
}

TEST(FleetTables, StatusJsonSurvivesInvalidUtf8) {
  auto runs = sampleRuns();
  runs[0].reason = "bad byte \xff\xfe here";
  std::string text;
  EXPECT_NO_THROW(text = formatStatus(sampleNight(), runs, "json", "/srv"));
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["repos"][2]["reason"], "bad byte \xEF\xBF\xBD\xEF\xBF\xBD here");
}

TEST(FleetTables, StatusCsvQuotesAndParsesBack) {
  const std::string text = formatStatus(sampleNight(), sampleRuns(), "csv", "/srv/fleet");
  // the reason's field, quoted by libcsv (RFC 4180: quotes doubled, newline kept inside)
  EXPECT_NE(text.find(",\"build failed, see \"\"log\"\"\nline two\","), std::string::npos) << text;
  EXPECT_EQ(text.substr(0, text.find("\r\n")),
            "name,commit,status,reason,findings,findings_fixed,findings_by_domain,effort_days,verdict,"
            "verify_status,duration_s,peak_rss_mb,output_dir");
  const auto rows = parseCsv(text);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(row.size(), 13u);
  EXPECT_EQ(rows[1][0], "alpha");
  EXPECT_EQ(rows[1][6], "attention=3;device=12");
  EXPECT_EQ(rows[1][7], "2.50");
  EXPECT_EQ(rows[1][10], "12.3");  // as in JSON: half away from zero
  EXPECT_EQ(rows[1][12], "/srv/fleet/2026-11-26/alpha");
  EXPECT_EQ(rows[2][0], "beta");
  EXPECT_EQ(rows[2][12], "");
  EXPECT_EQ(rows[3][0], "zeta");
  EXPECT_EQ(rows[3][3], "build failed, see \"log\"\nline two");
  EXPECT_EQ(rows[3][7], "0.33");
  // every record ends in CRLF
  EXPECT_EQ(text.substr(text.size() - 2), "\r\n");
}

TEST(FleetTables, StatusTableNamesTheNightAndEachRepository) {
  auto runs = sampleRuns();
  runs[0].reason = std::string(100, 'r') + " tail";
  const std::string text = formatStatus(sampleNight(), runs, "table", "/srv/fleet");
  const std::string first_line = text.substr(0, text.find('\n'));
  EXPECT_EQ(first_line, "night 3 (2026-11-26), completed, 3 repositories: 1 succeeded, 1 cached, 1 failed");
  EXPECT_NE(text.find("NAME"), std::string::npos);
  EXPECT_NE(text.find("REASON"), std::string::npos);
  const std::size_t alpha = text.find("\nalpha ");
  const std::size_t beta = text.find("\nbeta ");
  const std::size_t zeta = text.find("\nzeta ");
  ASSERT_NE(alpha, std::string::npos);
  ASSERT_NE(beta, std::string::npos);
  ASSERT_NE(zeta, std::string::npos);
  EXPECT_LT(alpha, beta);
  EXPECT_LT(beta, zeta);
  EXPECT_NE(text.find("0123456789ab "), std::string::npos);  // 12 characters of the commit
  EXPECT_EQ(text.find("0123456789abc"), std::string::npos);
  EXPECT_NE(text.find(std::string(79, 'r') + "…\n"), std::string::npos);  // 80 characters with "…"
  EXPECT_EQ(text.find(std::string(80, 'r')), std::string::npos);
  EXPECT_EQ(text.find(" \n"), std::string::npos);  // no trailing blanks
  // columns line up: STATUS starts at the same offset on every line
  std::vector<std::string> lines;
  for (std::size_t pos = text.find('\n') + 1; pos < text.size();) {
    const std::size_t end = text.find('\n', pos);
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  ASSERT_EQ(lines.size(), 4u);
  const std::size_t status_column = lines[0].find("STATUS");
  EXPECT_EQ(lines[1].find("succeeded"), status_column);
  EXPECT_EQ(lines[2].find("cached"), status_column);
  EXPECT_EQ(lines[3].find("failed"), status_column);
}

TEST(FleetTables, HistoryInEachFormat) {
  NightSummary s;
  s.night = sampleNight();
  s.repos = 12;
  s.succeeded = 9;
  s.cached = 2;
  s.failed = 1;
  s.findings = 140;
  s.findings_fixed = 40;
  s.effort_days = 7.125;
  NightSummary running;
  running.night.id = 4;
  running.night.label = "2026-11-27, rerun";
  running.night.state = "running";
  running.night.started_at = "2026-11-27T02:00:00Z";

  const auto doc = nlohmann::ordered_json::parse(formatHistory({s, running}, "json"));
  ASSERT_EQ(doc["nights"].size(), 2u);
  std::vector<std::string> keys;
  for (const auto& item : doc["nights"][0].items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "label", "state", "started_at", "finished_at", "repos",
                                            "succeeded", "failed", "timed_out", "out_of_memory", "cached",
                                            "findings", "findings_fixed", "effort_days"}));
  EXPECT_EQ(doc["nights"][0]["repos"], 12);
  EXPECT_EQ(doc["nights"][0]["effort_days"], 7.13);
  EXPECT_EQ(doc["nights"][1]["finished_at"], nullptr);

  const auto rows = parseCsv(formatHistory({s, running}, "csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].size(), keys.size());
  EXPECT_EQ(rows[0][0], "id");
  EXPECT_EQ(rows[1][1], "2026-11-26");
  EXPECT_EQ(rows[1][5], "12");
  EXPECT_EQ(rows[2][1], "2026-11-27, rerun");

  const std::string table = formatHistory({s, running}, "table");
  EXPECT_NE(table.find("2026-11-26"), std::string::npos);
  EXPECT_NE(table.find("2026-11-27, rerun"), std::string::npos);
  EXPECT_NE(table.find("SUCCEEDED"), std::string::npos);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
  EXPECT_EQ(formatHistory({}, "table"), "no nights in the store yet\n");
  EXPECT_EQ(nlohmann::json::parse(formatHistory({}, "json"))["nights"].size(), 0u);
}

}  // namespace
}  // namespace migrate::fleet

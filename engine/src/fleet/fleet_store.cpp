#include "fleet/fleet_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "fleet/store_schema.hpp"
#include "sqlite/sqlite_statement.hpp"

namespace migrate::fleet {
namespace {

namespace fs = std::filesystem;
using sql::execute;
using sql::sqlError;
using sql::Statement;
using sql::Transaction;

constexpr const char* kNightColumns =
    "id, label, started_at, finished_at, state, shard, tool_version, manifest";

constexpr const char* kRunColumns =
    "repo, source, ref, commit_sha, status, reason, exit_code, duration_s, peak_rss_mb, cache_key, "
    "output_dir, cached_from, findings, findings_fixed, effort_days, verdict, verify_status, "
    "checks_passed, checks_failed, checks_skipped, started_at, finished_at, delivery, delivery_branch, "
    "delivery_commit, tool_key";
constexpr int kRunColumnCount = 26;

constexpr const char* kWhatToDo = "; move it away or choose another --output directory";

Night readNight(const Statement& s) {
  Night n;
  n.id = s.integer(0);
  n.label = s.text(1);
  n.started_at = s.text(2);
  n.finished_at = s.text(3);
  n.state = s.text(4);
  n.shard = s.text(5);
  n.tool_version = s.text(6);
  n.manifest = s.text(7);
  return n;
}

RepoRun readRun(const Statement& s) {
  RepoRun r;
  r.name = s.text(0);
  r.source = s.text(1);
  r.ref = s.text(2);
  r.commit = s.text(3);
  r.status = s.text(4);
  r.reason = s.text(5);
  if (!s.isNull(6)) r.exit_code = static_cast<int>(s.integer(6));
  r.duration_s = s.real(7);
  r.peak_rss_mb = s.real(8);
  r.cache_key = s.text(9);
  r.output_dir = s.text(10);
  r.cached_from = s.optionalInteger(11);
  r.findings = s.integer(12);
  r.findings_fixed = s.integer(13);
  r.effort_days = s.real(14);
  r.verdict = s.text(15);
  r.verify_status = s.text(16);
  r.checks_passed = s.integer(17);
  r.checks_failed = s.integer(18);
  r.checks_skipped = s.integer(19);
  r.started_at = s.text(20);
  r.finished_at = s.text(21);
  r.delivery = s.text(22);
  r.delivery_branch = s.text(23);
  r.delivery_commit = s.text(24);
  r.tool_key = s.text(25);
  return r;
}

/// The nights matching `where` (constant SQL with bound parameters set by `bind`).
Result<std::vector<Night>> queryNights(sqlite3* db, const fs::path& file, const std::string& where,
                                       const std::function<void(Statement&)>& bind, const std::string& what) {
  Statement s(db, std::string("SELECT ") + kNightColumns + " FROM nights " + where);
  bind(s);
  std::vector<Night> out;
  while (s.next()) out.push_back(readNight(s));
  if (!s.ok()) return sqlError(file, what, s.error());
  return out;
}

Result<std::optional<Night>> queryOneNight(sqlite3* db, const fs::path& file, const std::string& where,
                                           const std::function<void(Statement&)>& bind,
                                           const std::string& what) {
  auto found = queryNights(db, file, where, bind, what);
  if (!found) return found.error();
  if (found->empty()) return std::optional<Night>();
  return std::optional<Night>(std::move(found->front()));
}

/// Reads the stages, finding counts, verification outcomes and broken rules of `runs` (rows of `night`; all
/// its rows, or the one of `repo` when given).
Status loadDetails(sqlite3* db, const fs::path& file, std::int64_t night, const std::string* repo,
                   std::vector<RepoRun>& runs) {
  std::unordered_map<std::string, RepoRun*> by_name;
  for (auto& r : runs) by_name[r.name] = &r;
  const std::string what = "reading the stages and finding counts of night " + std::to_string(night);

  Statement stages(db,
                   "SELECT repo, stage, status, detail, seconds, kept, total FROM stages "
                   "WHERE night_id = ?1 AND (?2 IS NULL OR repo = ?2) ORDER BY repo, ord");
  stages.bindInt(1, night);
  if (repo != nullptr) stages.bindText(2, *repo);
  while (stages.next()) {
    auto it = by_name.find(stages.text(0));
    if (it == by_name.end()) continue;
    it->second->stages.push_back(StageRow{stages.text(1), stages.text(2), stages.text(3), stages.real(4),
                                          stages.integer(5), stages.integer(6)});
  }
  if (!stages.ok()) return sqlError(file, what, stages.error());

  Statement counts(db,
                   "SELECT repo, rule, domain, severity, total, fixed, effort_days FROM finding_counts "
                   "WHERE night_id = ?1 AND (?2 IS NULL OR repo = ?2) ORDER BY repo, rule");
  counts.bindInt(1, night);
  if (repo != nullptr) counts.bindText(2, *repo);
  while (counts.next()) {
    auto it = by_name.find(counts.text(0));
    if (it == by_name.end()) continue;
    it->second->counts.push_back(FindingCount{counts.text(1), counts.text(2), counts.text(3),
                                              counts.integer(4), counts.integer(5), counts.real(6)});
  }
  if (!counts.ok()) return sqlError(file, what, counts.error());

  Statement deps(db,
                 "SELECT repo, package, verdict, replacement, places FROM blocking_deps "
                 "WHERE night_id = ?1 AND (?2 IS NULL OR repo = ?2) ORDER BY repo, package");
  deps.bindInt(1, night);
  if (repo != nullptr) deps.bindText(2, *repo);
  while (deps.next())
    if (auto it = by_name.find(deps.text(0)); it != by_name.end())
      it->second->blocking_deps.push_back(
          BlockingDep{deps.text(1), deps.text(2), deps.text(3), deps.integer(4)});
  if (!deps.ok()) return sqlError(file, what, deps.error());

  // Verification outcomes and the rules whose edits broke checks: (repo, key, checks) rows.
  for (const auto& [table, key, member] : {std::tuple{"check_outcomes", "outcome", &RepoRun::outcomes},
                                           std::tuple{"broken_rules", "rule", &RepoRun::broken_rules}}) {
    Statement rows(db, std::string("SELECT repo, ") + key + ", checks FROM " + table +
                           " WHERE night_id = ?1 AND (?2 IS NULL OR repo = ?2)");
    rows.bindInt(1, night);
    if (repo != nullptr) rows.bindText(2, *repo);
    while (rows.next())
      if (auto it = by_name.find(rows.text(0)); it != by_name.end())
        (it->second->*member)[rows.text(1)] = rows.integer(2);
    if (!rows.ok()) return sqlError(file, what, rows.error());
  }
  return Ok{};
}

/// Records what `rows` say of their rules (the latest word wins). Runs inside the caller's
/// transaction.
template <typename Rows>
Status insertRuleInfo(sqlite3* db, const fs::path& file, const std::string& what, const Rows& rows) {
  Statement info(
      db, "INSERT OR REPLACE INTO rule_info(rule, title, domain, no_counterpart) VALUES(?1, ?2, ?3, ?4)");
  for (const RuleInfoRow& r : rows) {
    info.reset();
    info.bindText(1, r.rule).bindText(2, r.title).bindText(3, r.domain).bindInt(4, r.no_counterpart ? 1 : 0);
    if (!info.run()) return sqlError(file, what + " (rule '" + r.rule + "')", info.error());
  }
  return Ok{};
}

/// Replaces the row of (night, run.name) with `run`, its stages and counts. Runs inside the
/// caller's transaction.
Status insertRun(sqlite3* db, const fs::path& file, std::int64_t night, const RepoRun& run) {
  const std::string what = "recording the run of '" + run.name + "' in night " + std::to_string(night);

  Statement remove(db, "DELETE FROM runs WHERE night_id = ?1 AND repo = ?2");
  remove.bindInt(1, night).bindText(2, run.name);
  if (!remove.run()) return sqlError(file, what, remove.error());

  Statement insert(db,
                   "INSERT INTO runs(night_id, repo, source, ref, commit_sha, status, reason, exit_code, "
                   "duration_s, peak_rss_mb, cache_key, output_dir, cached_from, findings, findings_fixed, "
                   "effort_days, verdict, verify_status, checks_passed, checks_failed, checks_skipped, "
                   "started_at, finished_at, delivery, delivery_branch, delivery_commit, tool_key) "
                   "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
                   "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)");
  insert.bindInt(1, night)
      .bindText(2, run.name)
      .bindText(3, run.source)
      .bindText(4, run.ref)
      .bindText(5, run.commit)
      .bindText(6, run.status)
      .bindText(7, run.reason)
      .bindOptionalInt(8, run.exit_code ? std::optional<std::int64_t>(*run.exit_code) : std::nullopt)
      .bindReal(9, run.duration_s)
      .bindReal(10, run.peak_rss_mb)
      .bindText(11, run.cache_key)
      .bindText(12, run.output_dir)
      .bindOptionalInt(13, run.cached_from)
      .bindInt(14, run.findings)
      .bindInt(15, run.findings_fixed)
      .bindReal(16, run.effort_days)
      .bindText(17, run.verdict)
      .bindText(18, run.verify_status)
      .bindInt(19, run.checks_passed)
      .bindInt(20, run.checks_failed)
      .bindInt(21, run.checks_skipped)
      .bindText(22, run.started_at)
      .bindText(23, run.finished_at)
      .bindText(24, run.delivery)
      .bindText(25, run.delivery_branch)
      .bindText(26, run.delivery_commit)
      .bindText(27, run.tool_key);
  if (!insert.run()) return sqlError(file, what, insert.error());

  Statement stage(db,
                  "INSERT INTO stages(night_id, repo, stage, ord, status, detail, seconds, kept, total) "
                  "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  std::int64_t ord = 0;
  for (const auto& st : run.stages) {
    stage.reset();
    stage.bindInt(1, night)
        .bindText(2, run.name)
        .bindText(3, st.stage)
        .bindInt(4, ord++)
        .bindText(5, st.status)
        .bindText(6, st.detail)
        .bindReal(7, st.seconds)
        .bindInt(8, st.kept)
        .bindInt(9, st.total);
    if (!stage.run()) return sqlError(file, what + " (stage '" + st.stage + "')", stage.error());
  }

  Statement count(
      db,
      "INSERT INTO finding_counts(night_id, repo, rule, domain, severity, total, fixed, effort_days) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  for (const auto& c : run.counts) {
    count.reset();
    count.bindInt(1, night)
        .bindText(2, run.name)
        .bindText(3, c.rule)
        .bindText(4, c.domain)
        .bindText(5, c.severity)
        .bindInt(6, c.total)
        .bindInt(7, c.fixed)
        .bindReal(8, c.effort_days);
    if (!count.run()) return sqlError(file, what + " (rule '" + c.rule + "')", count.error());
  }

  Statement dep(db,
                "INSERT INTO blocking_deps(night_id, repo, package, verdict, replacement, places) "
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  for (const BlockingDep& d : run.blocking_deps) {
    dep.reset();
    dep.bindInt(1, night)
        .bindText(2, run.name)
        .bindText(3, d.package)
        .bindText(4, d.verdict)
        .bindText(5, d.replacement)
        .bindInt(6, d.places);
    if (!dep.run()) return sqlError(file, what + " (dependency '" + d.package + "')", dep.error());
  }

  if (auto st = insertRuleInfo(db, file, what, run.rule_info); !st) return st;

  if (!run.plan_inputs.empty()) {
    Statement inputs(db, "INSERT INTO plan_inputs(night_id, repo, inputs) VALUES(?1, ?2, ?3)");
    inputs.bindInt(1, night).bindText(2, run.name).bindText(3, run.plan_inputs);
    if (!inputs.run()) return sqlError(file, what + " (plan inputs)", inputs.error());
  }

  for (const auto& [table, key, values] : {std::tuple{"check_outcomes", "outcome", &run.outcomes},
                                           std::tuple{"broken_rules", "rule", &run.broken_rules}}) {
    Statement row(db, std::string("INSERT INTO ") + table + "(night_id, repo, " + key +
                          ", checks) VALUES(?1, ?2, ?3, ?4)");
    for (const auto& [name, checks] : *values) {
      row.reset();
      row.bindInt(1, night).bindText(2, run.name).bindText(3, name).bindInt(4, checks);
      if (!row.run()) return sqlError(file, what + " (" + key + " '" + name + "')", row.error());
    }
  }

  Statement finding(db,
                    "INSERT OR IGNORE INTO findings(night_id, repo, fingerprint, rule, file, line, fixed) "
                    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  for (const FoundFinding& f : run.found) {
    finding.reset();
    finding.bindInt(1, night)
        .bindText(2, run.name)
        .bindText(3, f.fingerprint)
        .bindText(4, f.rule)
        .bindText(5, f.file)
        .bindInt(6, f.line)
        .bindInt(7, f.fixed ? 1 : 0);
    if (!finding.run()) return sqlError(file, what + " (finding " + f.fingerprint + ")", finding.error());
  }
  return Ok{};
}

/// Whether the database has the `meta` table, and whether it has any other schema object.
std::string earlier(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return std::min(a, b);
}

std::string later(const std::string& a, const std::string& b) {
  return std::max(a, b);
}

}  // namespace

Store::Store(std::filesystem::path file, sqlite3* db) : file_(std::move(file)), db_(db) {}

Store::Store(Store&& other) noexcept
    : file_(std::move(other.file_)), db_(std::exchange(other.db_, nullptr)) {}

Store& Store::operator=(Store&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close_v2(db_);
    file_ = std::move(other.file_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

Store::~Store() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Result<Store> Store::open(const std::filesystem::path& file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Store store(file, raw);  // closes `raw` on every way out below
  if (rc != SQLITE_OK || raw == nullptr) {
    const std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    return makeError(file.string() + ": opening the fleet store failed (SQLite: " + message +
                     "); check that the directory exists and is writable");
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 10'000);

  {
    // The first statement reads the file's header: a file that is no database fails here.
    Statement wal(raw, "PRAGMA journal_mode = WAL");
    std::string mode;
    if (wal.next()) mode = wal.text(0);
    if (!wal.ok()) {
      if (wal.code() == SQLITE_NOTADB) {
        return makeError(file.string() + " is not a fleet store (SQLite: " + wal.error() + ")" + kWhatToDo);
      }
      return sqlError(file, "switching the store to WAL mode", wal.error());
    }
    if (mode != "wal") {
      return makeError(file.string() + ": switching the store to WAL mode failed (the journal mode stays '" +
                       mode + "'); choose an --output directory on a local file system");
    }
  }
  Statement foreign_keys(raw, "PRAGMA foreign_keys = ON");
  if (!foreign_keys.run()) return sqlError(file, "turning on foreign keys", foreign_keys.error());

  if (auto created = createSchemaIfAbsent(raw, file); !created) return created.error();
  if (auto version = checkSchemaVersion(raw, file); !version) return version.error();
  return store;
}

Result<Night> Store::beginNight(const std::string& label, const std::string& started_at,
                                const std::string& shard, const std::string& tool_version,
                                const std::string& manifest) {
  Statement s(db_,
              "INSERT INTO nights(label, started_at, finished_at, state, shard, tool_version, manifest) "
              "VALUES(?1, ?2, NULL, 'running', ?3, ?4, ?5)");
  s.bindText(1, label)
      .bindText(2, started_at)
      .bindText(3, shard)
      .bindText(4, tool_version)
      .bindText(5, manifest);
  if (!s.run()) {
    if (s.extendedCode() == SQLITE_CONSTRAINT_UNIQUE) {
      return makeError(file_.string() + ": starting night '" + label +
                       "' failed: the store has a night of that label already");
    }
    return sqlError(file_, "starting night '" + label + "'", s.error());
  }
  Night n;
  n.id = sqlite3_last_insert_rowid(db_);
  n.label = label;
  n.started_at = started_at;
  n.state = "running";
  n.shard = shard;
  n.tool_version = tool_version;
  n.manifest = manifest;
  return n;
}

Status Store::setNightState(std::int64_t night, const std::string& state, const std::string& finished_at) {
  // A night that is not completed has no finished_at (a resumed night runs again).
  Statement s(db_, "UPDATE nights SET state = ?1, finished_at = ?2 WHERE id = ?3");
  s.bindText(1, state);
  if (state == "completed") {
    s.bindTextOrNull(2, finished_at);
  } else {
    s.bindNull(2);
  }
  s.bindInt(3, night);
  const std::string what = "setting night " + std::to_string(night) + " to '" + state + "'";
  if (!s.run()) return sqlError(file_, what, s.error());
  if (sqlite3_changes(db_) == 0) return makeError(file_.string() + ": " + what + " failed: no such night");
  return Ok{};
}

Result<std::optional<Night>> Store::night(std::int64_t id) const {
  return queryOneNight(
      db_, file_, "WHERE id = ?1", [&](Statement& s) { s.bindInt(1, id); },
      "reading night " + std::to_string(id));
}

Result<std::optional<Night>> Store::nightByLabel(const std::string& label) const {
  return queryOneNight(
      db_, file_, "WHERE label = ?1", [&](Statement& s) { s.bindText(1, label); },
      "reading night '" + label + "'");
}

Result<std::optional<Night>> Store::latestNight() const {
  return queryOneNight(
      db_, file_, "ORDER BY id DESC LIMIT 1", [](Statement&) {}, "reading the latest night");
}

Result<std::vector<Night>> Store::nights() const {
  return queryNights(
      db_, file_, "ORDER BY id", [](Statement&) {}, "reading the nights");
}

Status Store::recordRun(std::int64_t night, const RepoRun& run) {
  const std::string what = "recording the run of '" + run.name + "' in night " + std::to_string(night);
  std::string error;
  Transaction tx(db_);
  if (!tx.begin(error)) return sqlError(file_, what, error);
  if (auto inserted = insertRun(db_, file_, night, run); !inserted) return inserted;
  if (!tx.commit(error)) return sqlError(file_, what, error);
  return Ok{};
}

Result<std::vector<RepoRun>> Store::runs(std::int64_t night) const {
  Statement s(db_, std::string("SELECT ") + kRunColumns + " FROM runs WHERE night_id = ?1 ORDER BY repo");
  s.bindInt(1, night);
  std::vector<RepoRun> out;
  while (s.next()) {
    out.push_back(readRun(s));
    out.back().night = night;
  }
  if (!s.ok()) return sqlError(file_, "reading the runs of night " + std::to_string(night), s.error());
  if (auto details = loadDetails(db_, file_, night, nullptr, out); !details) return details.error();
  return out;
}

Result<std::optional<RepoRun>> Store::lastRun(const std::string& name, std::int64_t before_night) const {
  Statement s(db_,
              std::string("SELECT ") + kRunColumns +
                  ", night_id FROM runs WHERE repo = ?1 AND night_id < ?2 ORDER BY night_id DESC LIMIT 1");
  s.bindText(1, name).bindInt(2, before_night > 0 ? before_night : std::numeric_limits<std::int64_t>::max());
  std::vector<RepoRun> found;
  std::int64_t night = 0;
  if (s.next()) {
    found.push_back(readRun(s));
    night = s.integer(kRunColumnCount);
    found.back().night = night;
  }
  if (!s.ok()) return sqlError(file_, "reading the last run of '" + name + "'", s.error());
  if (found.empty()) return std::optional<RepoRun>();
  if (auto details = loadDetails(db_, file_, night, &name, found); !details) return details.error();
  return std::optional<RepoRun>(std::move(found.front()));
}

Result<std::vector<FoundFinding>> Store::foundFindings(std::int64_t night, const std::string& repo) const {
  Statement s(db_,
              "SELECT f.fingerprint, f.rule, f.file, f.line, f.fixed FROM runs r JOIN findings f "
              "ON f.night_id = coalesce(r.cached_from, r.night_id) AND f.repo = r.repo "
              "WHERE r.night_id = ?1 AND r.repo = ?2 ORDER BY f.file, f.line, f.rule, f.fingerprint");
  s.bindInt(1, night).bindText(2, repo);
  std::vector<FoundFinding> out;
  while (s.next()) out.push_back({s.text(0), s.text(1), s.text(2), s.integer(3), s.integer(4) != 0});
  if (!s.ok())
    return sqlError(file_, "reading the findings of '" + repo + "' in night " + std::to_string(night),
                    s.error());
  return out;
}

Result<std::map<std::string, std::string>> Store::planInputs(std::int64_t night) const {
  Statement s(
      db_,
      "SELECT r.repo, p.inputs FROM runs r JOIN plan_inputs p "
      "ON p.night_id = coalesce(r.cached_from, r.night_id) AND p.repo = r.repo WHERE r.night_id = ?1");
  s.bindInt(1, night);
  std::map<std::string, std::string> out;
  while (s.next()) out[s.text(0)] = s.text(1);
  if (!s.ok()) return sqlError(file_, "reading the plan inputs of night " + std::to_string(night), s.error());
  return out;
}

Result<std::map<std::string, RuleInfoRow>> Store::ruleInfo() const {
  Statement s(db_, "SELECT rule, title, domain, no_counterpart FROM rule_info");
  std::map<std::string, RuleInfoRow> out;
  while (s.next()) out[s.text(0)] = RuleInfoRow{s.text(0), s.text(1), s.text(2), s.integer(3) != 0};
  if (!s.ok()) return sqlError(file_, "reading what the store knows of the rules", s.error());
  return out;
}

Result<std::vector<NightSummary>> Store::history() const {
  Statement s(
      db_,
      "SELECT n.id, n.label, n.started_at, n.finished_at, n.state, n.shard, n.tool_version, n.manifest, "
      "count(r.repo), "
      "count(*) FILTER (WHERE r.status = 'succeeded'), "
      "count(*) FILTER (WHERE r.status = 'failed'), "
      "count(*) FILTER (WHERE r.status = 'timed_out'), "
      "count(*) FILTER (WHERE r.status = 'out_of_memory'), "
      "count(*) FILTER (WHERE r.status = 'cached'), "
      "coalesce(sum(r.findings), 0), coalesce(sum(r.findings_fixed), 0), total(r.effort_days) "
      "FROM nights n LEFT JOIN runs r ON r.night_id = n.id GROUP BY n.id ORDER BY n.id");
  std::vector<NightSummary> out;
  while (s.next()) {
    NightSummary summary;
    summary.night = readNight(s);
    summary.repos = s.integer(8);
    summary.succeeded = s.integer(9);
    summary.failed = s.integer(10);
    summary.timed_out = s.integer(11);
    summary.out_of_memory = s.integer(12);
    summary.cached = s.integer(13);
    summary.findings = s.integer(14);
    summary.findings_fixed = s.integer(15);
    summary.effort_days = s.real(16);
    out.push_back(std::move(summary));
  }
  if (!s.ok()) return sqlError(file_, "reading the history", s.error());
  return out;
}

Result<std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>> Store::newAndFixedPerNight() const {
  // Each run that ran (not cached) with the repository's row just before it, both comparable;
  // their findings are those of the runs they are or carry over.
  static const char* const kPairs =
      "WITH pairs AS ("
      " SELECT r.night_id AS night, r.repo AS repo, r.night_id AS now_src,"
      "  (SELECT coalesce(p.cached_from, p.night_id) FROM runs p WHERE p.repo = r.repo AND p.night_id < "
      "r.night_id"
      "   AND p.status IN ('succeeded', 'cached') AND NOT EXISTS (SELECT 1 FROM runs q WHERE q.repo = r.repo"
      "   AND q.night_id > p.night_id AND q.night_id < r.night_id) ORDER BY p.night_id DESC LIMIT 1) AS "
      "before_src"
      " FROM runs r WHERE r.status = 'succeeded' AND r.cached_from IS NULL) ";
  Statement s(db_, std::string(kPairs) +
                       "SELECT night,"
                       " (SELECT count(*) FROM findings f WHERE f.night_id = now_src AND f.repo = pairs.repo "
                       "AND NOT EXISTS"
                       "  (SELECT 1 FROM findings g WHERE g.night_id = before_src AND g.repo = pairs.repo"
                       "   AND g.fingerprint = f.fingerprint)),"
                       " (SELECT count(*) FROM findings g WHERE g.night_id = before_src AND g.repo = "
                       "pairs.repo AND NOT EXISTS"
                       "  (SELECT 1 FROM findings f WHERE f.night_id = now_src AND f.repo = pairs.repo"
                       "   AND f.fingerprint = g.fingerprint))"
                       " FROM pairs WHERE before_src IS NOT NULL");
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> out;
  while (s.next()) {
    auto& [added, fixed] = out[s.integer(0)];
    added += s.integer(1);
    fixed += s.integer(2);
  }
  if (!s.ok()) return sqlError(file_, "counting the findings new and fixed per night", s.error());
  return out;
}

Result<std::vector<std::string>> Store::referencedOutputDirs(const std::vector<std::int64_t>& nights) const {
  Statement s(db_, "SELECT DISTINCT output_dir FROM runs WHERE night_id = ?1 AND output_dir <> ''");
  std::set<std::string> dirs;
  for (const std::int64_t night : nights) {
    s.reset();
    s.bindInt(1, night);
    while (s.next()) dirs.insert(s.text(0));
    if (!s.ok()) {
      return sqlError(file_, "reading the output directories of night " + std::to_string(night), s.error());
    }
  }
  return std::vector<std::string>(dirs.begin(), dirs.end());
}

Status Store::mergeFrom(const Store& shard, const std::function<std::string(const std::string&)>& rebase) {
  const std::string what = "merging " + shard.file_.string();
  if (&shard == this || (db_ != nullptr && shard.db_ == db_)) {
    return makeError(file_.string() + ": " + what + " failed: a store cannot be merged into itself");
  }

  // Everything of the shard first, so that this store's write lock is held only for writing.
  auto shard_nights = shard.nights();
  if (!shard_nights) return shard_nights.error();
  std::vector<std::vector<RepoRun>> shard_runs;
  for (const auto& n : *shard_nights) {
    auto rows = shard.runs(n.id);
    if (!rows) return rows.error();
    auto inputs = shard.planInputs(n.id);
    if (!inputs) return inputs.error();
    for (RepoRun& r : *rows) {
      if (r.status == "cached") continue;  // its findings are those of the run it carries over
      auto found = shard.foundFindings(n.id, r.name);
      if (!found) return found.error();
      r.found = std::move(found.value());
      if (auto it = inputs->find(r.name); it != inputs->end()) r.plan_inputs = it->second;
    }
    shard_runs.push_back(std::move(*rows));
  }

  auto rule_info = shard.ruleInfo();
  if (!rule_info) return rule_info.error();
  std::vector<RuleInfoRow> rules;
  for (auto& [rule, row] : *rule_info) rules.push_back(std::move(row));

  std::string error;
  Transaction tx(db_);
  if (!tx.begin(error)) return sqlError(file_, what, error);
  if (auto st = insertRuleInfo(db_, file_, what, rules); !st) return st;

  std::map<std::int64_t, std::int64_t> ids;  // the shard's night id → this store's
  for (const auto& sn : *shard_nights) {
    auto existing = nightByLabel(sn.label);
    if (!existing) return existing.error();
    const std::string night_what = what + " (night '" + sn.label + "')";
    if (!*existing) {
      Statement insert(
          db_,
          "INSERT INTO nights(label, started_at, finished_at, state, shard, tool_version, manifest) "
          "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      insert.bindText(1, sn.label)
          .bindText(2, sn.started_at)
          .bindTextOrNull(3, sn.state == "completed" ? sn.finished_at : std::string())
          .bindText(4, sn.state)
          .bindText(5, sn.shard)
          .bindText(6, sn.tool_version)
          .bindText(7, sn.manifest);
      if (!insert.run()) return sqlError(file_, night_what, insert.error());
      ids[sn.id] = sqlite3_last_insert_rowid(db_);
      continue;
    }
    const Night& mine = **existing;
    ids[sn.id] = mine.id;
    const bool completed = mine.state == "completed" && sn.state == "completed";
    // Not completed: "running" (work may still go on somewhere) wins over "interrupted".
    const std::string state = completed                                          ? "completed"
                              : mine.state == "running" || sn.state == "running" ? "running"
                                                                                 : "interrupted";
    Statement update(db_, "UPDATE nights SET started_at = ?1, finished_at = ?2, state = ?3 WHERE id = ?4");
    update.bindText(1, earlier(mine.started_at, sn.started_at))
        .bindTextOrNull(2, completed ? later(mine.finished_at, sn.finished_at) : std::string())
        .bindText(3, state)
        .bindInt(4, mine.id);
    if (!update.run()) return sqlError(file_, night_what, update.error());
  }

  for (std::size_t i = 0; i < shard_nights->size(); ++i) {
    const std::int64_t night = ids.at((*shard_nights)[i].id);
    for (RepoRun& row : shard_runs[i]) {
      if (!row.output_dir.empty()) row.output_dir = rebase(row.output_dir);
      if (row.cached_from) {
        const auto it = ids.find(*row.cached_from);
        row.cached_from = it != ids.end() ? std::optional<std::int64_t>(it->second) : std::nullopt;
      }
      if (auto inserted = insertRun(db_, file_, night, row); !inserted) return inserted;
    }
  }
  if (!tx.commit(error)) return sqlError(file_, what, error);
  return Ok{};
}

}  // namespace migrate::fleet

// End to end: the per-file analysis cache through the real executable — a warm run reuses every
// file and writes the same findings, a changed file is analysed anew, a broken entry or file is
// replaced with a diagnostic, concurrent runs share one cache, --no-cache leaves it alone.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;
namespace fs = std::filesystem;

/// A copy of the bundled example (the tests change files in it) and a cache directory of its own.
class AnalysisCache : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy(test::sourceDir() / "examples" / "gpt_cuda", repo(), fs::copy_options::recursive);
  }
  fs::path repo() const { return dir_ / "repo"; }
  fs::path cacheDir() const { return dir_ / "cache"; }

  /// analyze-only on the copy into DIR/out-<name>; the output and the statistics line's count.
  test::CommandResult analyze(const std::string& name, const std::string& extra = "") const {
    return run(quote(test::cli().string()) + " run " +
               quote((test::sourceDir() / "pipelines" / "analyze-only.yaml").string()) + " --source " +
               quote(repo().string()) + " --output " + quote((dir_ / ("out-" + name)).string()) + " --set " +
               quote("cache.dir=" + cacheDir().string()) + " " + extra);
  }
  json findings(const std::string& name) const {
    return json::parse(readFile(dir_ / ("out-" + name) / "findings.json"));
  }

  static long fromCache(const std::string& output) {
    static const std::regex count(R"((\d+) Python files from the analysis cache)");
    std::smatch m;
    return std::regex_search(output, m, count) ? std::stol(m[1]) : -1;
  }
  static bool hasDiagnostic(const json& doc, const std::string& code) {
    for (const auto& d : doc["diagnostics"])
      if (d["code"] == code) return true;
    return false;
  }

  TempDir dir_;
};

TEST_F(AnalysisCache, AWarmRunReusesEveryFileAndWritesTheSameFindings) {
  auto cold = analyze("cold", "--stages analyze,plan,emit");
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_EQ(fromCache(cold.output), 0) << cold.output;
  ASSERT_TRUE(fs::exists(cacheDir() / "analysis.db"));
  auto warm = analyze("warm", "--stages analyze,plan,emit");
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_EQ(fromCache(warm.output), 15) << warm.output;
  const json a = findings("cold"), b = findings("warm");
  EXPECT_EQ(a["findings"], b["findings"]);
  EXPECT_EQ(a["diagnostics"], b["diagnostics"]);
  EXPECT_EQ(a["plan"], b["plan"]) << "the plan stage's module summaries come back too";
  const std::string patch = readFile(dir_ / "out-cold" / "npu_migration.patch");
  EXPECT_FALSE(patch.empty());
  EXPECT_EQ(readFile(dir_ / "out-warm" / "npu_migration.patch"), patch)
      << "the fixes' byte ranges come back too";
  auto uncached = analyze("none", "--no-cache");
  ASSERT_EQ(uncached.exit_code, 0) << uncached.output;
  EXPECT_EQ(fromCache(uncached.output), 0);
  EXPECT_EQ(findings("none")["findings"], a["findings"]);
}

TEST_F(AnalysisCache, AChangedFileIsAnalysedAnewAndTheRestReused) {
  ASSERT_EQ(analyze("cold").exit_code, 0);
  const fs::path train = repo() / "train.py";
  writeFile(train, readFile(train) + "\nx = torch.cuda.device_count()\n");
  auto warm = analyze("warm");
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_EQ(fromCache(warm.output), 14) << warm.output;
  auto fresh = analyze("fresh", "--no-cache");
  ASSERT_EQ(fresh.exit_code, 0);
  EXPECT_EQ(findings("warm")["findings"], findings("fresh")["findings"]);
  EXPECT_NE(findings("warm")["findings"], findings("cold")["findings"]);
}

TEST_F(AnalysisCache, ARepositoryPassIsRunAgainWhenAFileItReadChanges) {
  ASSERT_EQ(analyze("cold").exit_code, 0);
  writeFile(repo() / "requirements.txt", readFile(repo() / "requirements.txt") + "\ncupy-cuda12x==13.0.0\n");
  ASSERT_EQ(analyze("warm").exit_code, 0);
  ASSERT_EQ(analyze("fresh", "--no-cache").exit_code, 0);
  EXPECT_EQ(findings("warm")["findings"], findings("fresh")["findings"]);
  EXPECT_NE(findings("warm")["findings"], findings("cold")["findings"]) << "the deps pass saw the new line";
}

TEST_F(AnalysisCache, ABrokenEntryIsIgnoredWithADiagnosticAndRewritten) {
  ASSERT_EQ(analyze("cold").exit_code, 0);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((cacheDir() / "analysis.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE entries SET value = x'ff00ff'", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto broken = analyze("broken");
  ASSERT_EQ(broken.exit_code, 0) << broken.output;
  EXPECT_EQ(fromCache(broken.output), 0);
  EXPECT_TRUE(hasDiagnostic(findings("broken"), "cache-entry-ignored"));
  EXPECT_EQ(findings("broken")["findings"], findings("cold")["findings"]);
  auto again = analyze("again");
  EXPECT_EQ(fromCache(again.output), 15) << "the entries were rewritten";
  EXPECT_FALSE(hasDiagnostic(findings("again"), "cache-entry-ignored"));
}

TEST_F(AnalysisCache, AFileThatIsNotADatabaseIsReplaced) {
  writeFile(cacheDir() / "analysis.db", std::string(8192, 'x'));
  auto r = analyze("cold");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not a usable cache"), std::string::npos) << r.output;
  EXPECT_TRUE(hasDiagnostic(findings("cold"), "cache-replaced"));
  EXPECT_EQ(fromCache(analyze("warm").output), 15);
}

TEST_F(AnalysisCache, AnUnusableDirectoryMeansNoCacheNotAFailedRun) {
  writeFile(dir_ / "blocker", "a file where the cache directory should be");
  auto r = run(quote(test::cli().string()) + " run " +
               quote((test::sourceDir() / "pipelines" / "analyze-only.yaml").string()) + " --source " +
               quote(repo().string()) + " --output " + quote((dir_ / "out").string()) + " --set " +
               quote("cache.dir=" + (dir_ / "blocker" / "cache").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("analysing without the cache"), std::string::npos) << r.output;
}

TEST_F(AnalysisCache, ConcurrentRunsShareOneCache) {
  std::vector<test::CommandResult> results(3);
  std::vector<std::thread> runs;
  for (std::size_t i = 0; i < results.size(); ++i)
    runs.emplace_back([&, i] { results[i] = analyze("run" + std::to_string(i)); });
  for (auto& t : runs) t.join();
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].exit_code, 0) << results[i].output;
    EXPECT_EQ(findings("run" + std::to_string(i))["findings"], findings("run0")["findings"]);
  }
  EXPECT_EQ(fromCache(analyze("after").output), 15);
}

TEST_F(AnalysisCache, EntriesBeyondTheSizeCapAreEvicted) {
  ASSERT_EQ(analyze("cold", "--set cache.max_size_mb=1").exit_code, 0);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((cacheDir() / "analysis.db").c_str(), &db), SQLITE_OK);
  // Fill the cache past 1 MiB with entries older than any the run uses.
  ASSERT_EQ(
      sqlite3_exec(db,
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) "
                   "INSERT INTO entries(key, value, size, used) SELECT randomblob(16), zeroblob(65536), "
                   "65536, 1 FROM n",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  writeFile(repo() / "new_module.py", "import torch\nx = torch.cuda.is_available()\n");
  ASSERT_EQ(analyze("warm", "--set cache.max_size_mb=1").exit_code, 0);
  ASSERT_EQ(sqlite3_open((cacheDir() / "analysis.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "SELECT SUM(size), SUM(used = 1) FROM entries", -1, &q, nullptr);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_LE(sqlite3_column_int64(q, 0), 1 << 20);
  EXPECT_LT(sqlite3_column_int64(q, 1), 40) << "the oldest entries went first";
  sqlite3_finalize(q);
  sqlite3_close(db);
  EXPECT_EQ(fromCache(analyze("again", "--set cache.max_size_mb=1").output), 16)
      << "this run's entries stayed";
}

}  // namespace
}  // namespace migrate

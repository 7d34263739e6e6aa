// End to end: the per-file analysis cache through the real executable — a warm run reuses every
// file and writes the same findings, a changed file is analysed anew, a broken entry or file is
// replaced with a diagnostic, concurrent runs share one cache, --no-cache leaves it alone.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
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

/// The test plugin `passes` alone (two repository passes), logging what its passes do.
class RepositoryPasses : public AnalysisCache {
 protected:
  test::CommandResult analyzeWithPasses(const std::string& name, const std::string& extra = "") const {
    std::error_code ec;
    fs::remove(log(), ec);
    return run("MIGRATE_TEST_PASSES_LOG=" + quote(log().string()) + " " + quote(test::cli().string()) +
               " run " + quote((test::sourceDir() / "pipelines" / "analyze-only.yaml").string()) +
               " --source " + quote(repo().string()) + " --output " +
               quote((dir_ / ("out-" + name)).string()) + " --plugin-dir " +
               quote(test::testPluginDir().string()) + " --set plugins=null --set plugins.passes={} --set " +
               quote("cache.dir=" + cacheDir().string()) + " " + extra);
  }
  fs::path log() const { return dir_ / "passes.log"; }
  /// The log's lines that start with `prefix`, without it.
  std::vector<std::string> logged(const std::string& prefix) const {
    std::vector<std::string> out;
    std::istringstream in(fs::exists(log()) ? readFile(log()) : "");
    for (std::string line; std::getline(in, line);)
      if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
    std::sort(out.begin(), out.end());
    return out;
  }
  json finding(const std::string& name, const std::string& rule) const {
    const json doc = findings(name);
    for (const auto& f : doc["findings"])
      if (f["rule_id"] == rule) return f;
    return nullptr;
  }
  std::vector<std::string> pythonFiles() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(repo()))
      if (e.path().extension() == ".py") out.push_back(fs::relative(e.path(), repo()).generic_string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(RepositoryPasses, EachPassIsCachedOnItsOwnAndKeepsItsPerFileMemos) {
  writeFile(repo() / "notes.txt", "PASSES-MARK\n");
  auto cold = analyzeWithPasses("cold");
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_EQ(logged("run "), (std::vector<std::string>{"python-lines", "text-files"}));
  const std::vector<std::string> read = logged("read ");
  for (const std::string& py : pythonFiles())
    EXPECT_TRUE(std::binary_search(read.begin(), read.end(), py)) << py << " was not read";
  EXPECT_TRUE(logged("recalled ").empty()) << "a cold cache has no memo";
  ASSERT_FALSE(finding("cold", "PAS-001").is_null()) << cold.output;
  ASSERT_FALSE(finding("cold", "PAS-002").is_null()) << cold.output;

  auto warm = analyzeWithPasses("warm");
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_TRUE(logged("run ").empty()) << "nothing changed: both passes come from the cache";
  EXPECT_EQ(findings("warm")["findings"], findings("cold")["findings"]);

  // One Python file changed: only the pass that read it runs, and it reads only that file.
  writeFile(repo() / "train.py", readFile(repo() / "train.py") + "\n# one more line\n");
  auto changed = analyzeWithPasses("changed");
  ASSERT_EQ(changed.exit_code, 0) << changed.output;
  EXPECT_EQ(logged("run "), std::vector<std::string>{"python-lines"});
  EXPECT_EQ(logged("read "), std::vector<std::string>{"train.py"});
  std::vector<std::string> others = pythonFiles();
  std::erase(others, "train.py");
  EXPECT_EQ(logged("recalled "), others);
  EXPECT_NE(finding("changed", "PAS-002")["message"], finding("cold", "PAS-002")["message"]);
  EXPECT_EQ(finding("changed", "PAS-001"), finding("cold", "PAS-001"));

  // A text file changed: only the other pass runs.
  writeFile(repo() / "notes.txt", "no mark now\n");
  auto text = analyzeWithPasses("text");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_EQ(logged("run "), std::vector<std::string>{"text-files"});
  EXPECT_TRUE(finding("text", "PAS-001").is_null());

  // Without the cache there is no memo, and everything is read; the findings are the same.
  auto uncached = analyzeWithPasses("uncached", "--no-cache");
  ASSERT_EQ(uncached.exit_code, 0) << uncached.output;
  EXPECT_TRUE(logged("recalled ").empty());
  EXPECT_EQ(findings("uncached")["findings"], findings("text")["findings"]);
}

TEST_F(RepositoryPasses, AMemoBelongsToOneContentOfTheFile) {
  ASSERT_EQ(analyzeWithPasses("cold").exit_code, 0);
  const std::string original = readFile(repo() / "train.py");
  writeFile(repo() / "train.py", original + "\nx = 1\n");
  ASSERT_EQ(analyzeWithPasses("edited").exit_code, 0);
  EXPECT_EQ(logged("read "), std::vector<std::string>{"train.py"}) << "the first memo is not this content's";
  // Back to the first content: the pass runs (its entry is the edited run's), and every file,
  // train.py included, comes from a memo.
  writeFile(repo() / "train.py", original);
  ASSERT_EQ(analyzeWithPasses("restored").exit_code, 0);
  EXPECT_EQ(logged("run "), std::vector<std::string>{"python-lines"});
  EXPECT_TRUE(logged("read ").empty());
  EXPECT_EQ(logged("recalled "), pythonFiles());
  EXPECT_EQ(findings("restored")["findings"], findings("cold")["findings"]);
}

TEST_F(RepositoryPasses, ASecondPassOfTheSameNameIsAPluginErrorAndNotRun) {
  auto r = analyzeWithPasses("dup", "--set " + quote("plugins.passes={options: {duplicate_pass: true}}"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(logged("run "), (std::vector<std::string>{"python-lines", "text-files"})) << "each pass ran once";
  bool named = false;
  const json doc = findings("dup");
  for (const auto& d : doc["diagnostics"])
    named = named || (d["code"] == "plugin-error" &&
                      d["message"].get<std::string>().find("'text-files' twice") != std::string::npos);
  EXPECT_TRUE(named) << doc["diagnostics"].dump();
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

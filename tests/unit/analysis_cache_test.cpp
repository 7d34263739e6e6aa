// The analysis cache's parts: the entry encoding (lossless, and refusing what it did not write),
// the keys (everything that changes an analysis changes the key), the store.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "analysis_cache/cache_key.hpp"
#include "analysis_cache/cache_store.hpp"
#include "analysis_cache/entries.hpp"
#include "support/test_support.hpp"

namespace migrate::cache {
namespace {

sdk::Finding sampleFinding(const std::string& file) {
  sdk::Finding f;
  f.rule_id = "DEV-001";
  f.domain = "device";
  f.file = file;
  f.range = {3, 5, 3, 22, 40, 57};
  f.api = "tc.synchronize";
  f.resolved_api = "torch.cuda.synchronize";
  f.message = "a message with \"quotes\" and ünïcode";
  f.npu_alternative = "torch.npu.synchronize";
  f.severity = sdk::Severity::Error;
  f.confidence = sdk::Level::High;
  f.difficulty = sdk::Level::Low;
  f.effort_days = 0.25;
  f.edits = {{40, 57, "torch.npu.synchronize"}};
  f.details = {{"kernel", "flash"}, {"mask", "causal"}};
  f.phases = {"train"};
  return f;
}

void expectSameFinding(const sdk::Finding& a, const sdk::Finding& b) {
  EXPECT_EQ(a.rule_id, b.rule_id);
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(std::tie(a.range.line, a.range.column, a.range.end_line, a.range.end_column, a.range.start_byte,
                     a.range.end_byte),
            std::tie(b.range.line, b.range.column, b.range.end_line, b.range.end_column, b.range.start_byte,
                     b.range.end_byte));
  EXPECT_EQ(a.api, b.api);
  EXPECT_EQ(a.resolved_api, b.resolved_api);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.npu_alternative, b.npu_alternative);
  EXPECT_EQ(a.severity, b.severity);
  EXPECT_EQ(a.confidence, b.confidence);
  EXPECT_EQ(a.difficulty, b.difficulty);
  EXPECT_EQ(a.effort_days, b.effort_days);
  ASSERT_EQ(a.edits.size(), b.edits.size());
  EXPECT_EQ(a.edits[0].replacement, b.edits[0].replacement);
  EXPECT_EQ(a.edits[0].end_byte, b.edits[0].end_byte);
  EXPECT_EQ(a.details, b.details);
  EXPECT_EQ(a.phases, b.phases);
}

TEST(AnalysisCacheEntries, AFileAnalysisComesBackAsItWent) {
  FileAnalysis a;
  a.findings = {sampleFinding("pkg/m.py"), sampleFinding("pkg/other.py")};
  a.diagnostics = {{sdk::Severity::Warning, "parse-error", "pkg/m.py", 7, "syntax error near line 7"}};
  a.summary.path = "pkg/m.py";
  a.summary.dotted_name = "pkg.m";
  a.summary.lines = 120;
  a.summary.import_targets = {"torch", "torch.nn"};
  a.summary.main_block = true;
  a.summary.top_level = {{"train", "Trains.", 10, 40}};
  a.summary.classes = {{"Net", "Net", {"torch.nn.Module"}, "A net.", 50, 90, {{"torch.nn.Linear", 2}}}};
  a.summary.console_scripts = {"tool = pkg.m:main"};
  a.lines = 120;
  a.layout = PythonLayout{14, {{14, 90, 14}, {20, 90, 14}, {70000, 70040, 69990}, {70010, 70012, 69990}}};
  std::string why;
  auto back = decode(encode(a, "pkg/m.py"), "pkg/m.py", why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->layout, a.layout);
  ASSERT_EQ(back->findings.size(), 2u);
  expectSameFinding(back->findings[0], a.findings[0]);
  expectSameFinding(back->findings[1], a.findings[1]);
  ASSERT_EQ(back->diagnostics.size(), 1u);
  EXPECT_EQ(back->diagnostics[0].file, "pkg/m.py");
  EXPECT_EQ(back->diagnostics[0].line, 7u);
  EXPECT_EQ(back->summary.path, "pkg/m.py");
  EXPECT_EQ(back->summary.classes[0].calls, a.summary.classes[0].calls);
  EXPECT_EQ(back->summary.console_scripts, a.summary.console_scripts);
  EXPECT_TRUE(back->summary.main_block);
  EXPECT_EQ(back->lines, 120u);
}

TEST(AnalysisCacheEntries, AFileThatDidNotParseKeepsNoSummary) {
  FileAnalysis a;
  a.lines = 3;
  std::string why;
  auto back = decode(encode(a, "x.py"), "x.py", why);
  ASSERT_TRUE(back) << why;
  EXPECT_TRUE(back->summary.path.empty());
  EXPECT_EQ(back->lines, 3u);
  EXPECT_FALSE(back->layout);
}

TEST(AnalysisCacheEntries, ARepositoryPassComesBackWithWhatItRead) {
  RepositoryAnalysis a;
  a.reads = {{"requirements.txt", contentHash("torch\n")}, {"setup.py", contentHash("")}};
  a.findings = {sampleFinding("requirements.txt")};
  std::string why;
  auto back = decodeRepository(encode(a), why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->reads, a.reads);
  ASSERT_EQ(back->findings.size(), 1u);
  expectSameFinding(back->findings[0], a.findings[0]);
}

TEST(AnalysisCacheEntries, WhatItDidNotWriteIsRefusedWithAReason) {
  std::string why;
  EXPECT_FALSE(decode("", "x.py", why));
  EXPECT_FALSE(why.empty());
  why.clear();
  EXPECT_FALSE(decode("\xff\x00\x01garbage", "x.py", why));
  EXPECT_FALSE(why.empty());
  // Another format number: the same shape, read by nobody.
  FileAnalysis a;
  std::string bytes = encode(a, "x.py");
  ASSERT_FALSE(bytes.empty());
  bytes[1] = static_cast<char>(kEntryFormat + 1);  // CBOR: array header, then the small integer
  why.clear();
  EXPECT_FALSE(decode(bytes, "x.py", why));
  EXPECT_NE(why.find("entry format"), std::string::npos) << why;
  a.findings = {sampleFinding("x.py")};
  bytes = encode(a, "x.py");
  why.clear();
  EXPECT_FALSE(decodeRepository(bytes, why)) << "a file entry is not a repository entry";
}

TEST(AnalysisCacheEntries, EveryTruncationOrExtraByteIsRefused) {
  // libcbor checks every length against what is left; the reader, that nothing follows.
  FileAnalysis a;
  a.findings = {sampleFinding("x.py"), sampleFinding("y.py")};
  a.findings[0].edits = {{1, 2, "npu"}};
  a.findings[0].details = {{"k", "v"}};
  a.findings[0].effort_days = 0.02;  // not exact as a float: written as a double
  a.diagnostics = {{sdk::Severity::Warning, "parse-error", "x.py", 7, "syntax error"}};
  a.summary.path = "x.py";
  a.summary.classes = {{"Net", "Net", {"torch.nn.Module"}, "", 5, 9, {{"torch.nn.Linear", 2}}}};
  a.lines = 9;
  const std::string bytes = encode(a, "x.py");
  std::string why;
  auto back = decode(bytes, "x.py", why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->findings[0].effort_days, 0.02);
  EXPECT_EQ(back->findings[0].details, a.findings[0].details);
  EXPECT_EQ(back->summary.classes[0].calls, a.summary.classes[0].calls);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    why.clear();
    EXPECT_FALSE(decode(std::string_view(bytes).substr(0, n), "x.py", why)) << n;
    EXPECT_FALSE(why.empty()) << n;
  }
  why.clear();
  EXPECT_FALSE(decode(std::string(200000, '\x81') + '\x00', "x.py", why))
      << "deep nesting: read item by item, without recursion";
  why.clear();
  EXPECT_FALSE(decode(bytes + '\0', "x.py", why));
  EXPECT_NE(why.find("bytes after the entry"), std::string::npos) << why;
}

TEST(AnalysisCacheKeys, AFileKeyIsTheSameFromTheContentOrItsHash) {
  EXPECT_EQ(fileKey("context", "a.py", "import torch\n"),
            fileKey("context", "a.py", contentHash("import torch\n")));
}

TEST(AnalysisCacheKeys, EveryInputChangesTheKey) {
  const Key base = fileKey("context", "a.py", "import torch\n");
  EXPECT_EQ(base, fileKey("context", "a.py", "import torch\n"));
  EXPECT_NE(base, fileKey("context2", "a.py", "import torch\n"));
  EXPECT_NE(base, fileKey("context", "b.py", "import torch\n"));
  EXPECT_NE(base, fileKey("context", "a.py", "import torch \n"));
  EXPECT_NE(fileKey("ab", "c", ""), fileKey("a", "bc", "")) << "parts are length-prefixed";
  const std::vector<sdk::FileEntry> files{{"a.py", 10, sdk::Language::Python}};
  const std::vector<sdk::FileEntry> more{{"a.py", 10, sdk::Language::Python},
                                         {"b.cu", 4, sdk::Language::Cuda}};
  const Key inventory = inventoryDigest(files);
  EXPECT_NE(inventory, inventoryDigest(more));
  EXPECT_NE(repositoryKey("c", "deps/repository", inventory),
            repositoryKey("c", "deps/repository", inventoryDigest(more)));
  EXPECT_NE(repositoryKey("c", "deps/repository", inventory),
            repositoryKey("c", "device/repository", inventory));
  EXPECT_NE(repositoryKey("c", "ops/native", inventory), repositoryKey("c", "ops/glue", inventory));
  const Key hash = contentHash("import torch\n");
  const Key memo = memoKey("c", "ops/glue", "summary/1", "a.py", hash);
  EXPECT_NE(memo, memoKey("c2", "ops/glue", "summary/1", "a.py", hash));
  EXPECT_NE(memo, memoKey("c", "ops/native", "summary/1", "a.py", hash));
  EXPECT_NE(memo, memoKey("c", "ops/glue", "summary/2", "a.py", hash));
  EXPECT_NE(memo, memoKey("c", "ops/glue", "summary/1", "b.py", hash));
  EXPECT_NE(memo, memoKey("c", "ops/glue", "summary/1", "a.py", contentHash("import torch \n")));
}

TEST(AnalysisCacheKeys, TheBuildsNameTheExecutableByItsBuildId) {
  const std::string builds = loadedBuilds({});
  EXPECT_NE(builds.find("(executable) build-id "), std::string::npos) << builds;
}

TEST(AnalysisCacheStore, StoredEntriesAreFoundAfterCommitAndSurviveReopening) {
  test::TempDir dir;
  std::string note;
  auto store = CacheStore::open(dir.path(), 1 << 20, note);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_TRUE(note.empty());
  const Key k = contentHash("k");
  EXPECT_FALSE((*store)->find(k));
  (*store)->put(k, "value");
  ASSERT_TRUE((*store)->commit()) << "commit";
  ASSERT_TRUE((*store)->find(k));
  EXPECT_EQ(*(*store)->find(k), "value");
  store = CacheStore::open(dir.path(), 1 << 20, note);
  ASSERT_TRUE(store);
  EXPECT_EQ((*store)->find(k).value_or(""), "value");
}

TEST(AnalysisCacheStore, AFileOfTheEarlierSchemaIsEmptiedAndThenUsed) {
  // Schema 1 kept whole entries in the cells of a WITHOUT ROWID table (lookups read entries in
  // full at each level of the search); schema 2 is a rowid table with a key index.
  test::TempDir dir;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "analysis.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE entries(key BLOB PRIMARY KEY, value BLOB NOT NULL, size INTEGER "
                           "NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID;"
                           "INSERT INTO entries VALUES (x'00', x'01', 1, 0); PRAGMA user_version=1;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  std::string note;
  auto store = CacheStore::open(dir.path(), 1 << 20, note);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_NE(note.find("another release"), std::string::npos) << note;
  const Key k = contentHash("k");
  EXPECT_FALSE((*store)->find(k));
  (*store)->put(k, std::string(20000, 'v'));  // beyond a page: the value overflows
  ASSERT_TRUE((*store)->commit());
  EXPECT_EQ((*store)->find(k).value_or("").size(), 20000u);
  EXPECT_FALSE((*store)->find(contentHash("other")));
  EXPECT_EQ((*store)->find(k).value_or("").size(), 20000u) << "the lookup statement is used again";
}

}  // namespace
}  // namespace migrate::cache

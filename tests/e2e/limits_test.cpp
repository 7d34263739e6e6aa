// Limits that hold on hostile input, through the CLI: a parse that takes too long
// (limits.parse_timeout_ms), a line of megabytes, and a plugin that crashes on one file. Each is
// named with its file and the run keeps what it produced. (Files over limits.max_file_bytes and
// expressions nested too deeply have their own tests in inventory_test and python_facts_test; a
// repository of 200,000 files is measured by bench/limits.sh.)

#include <gtest/gtest.h>

#include <csignal>
#include <map>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using json = nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;
namespace fs = std::filesystem;

/// A Python file of about 1.5 MB whose one long line ends in two CUDA calls.
std::string longLine() {
  std::string s = "import torch\nx = [";
  for (int i = 0; i < 220'000; ++i) s += "123456,";
  return s + "0]; torch.cuda.synchronize(); y = torch.zeros(1).cuda()\n";
}

test::CommandResult runOn(const fs::path& repo, const fs::path& out, const std::string& extra) {
  return run(quote(test::cli().string()) + " run " +
             quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --source " +
             quote(repo.string()) + " --output " + quote(out.string()) +
             " --set 'report.directory=\"\"' --set limits.max_file_bytes=4000000 " + extra);
}

/// rule id → lines of findings in `file`.
std::multimap<std::string, int> findingsIn(const json& findings, const std::string& file) {
  std::multimap<std::string, int> out;
  for (const auto& f : findings["findings"])
    if (f["file"] == file) out.emplace(f["rule_id"], f["line"].get<int>());
  return out;
}

const json* diagnostic(const json& findings, const std::string& code, const std::string& file) {
  for (const auto& d : findings["diagnostics"])
    if (d["code"] == code && d["file"] == file) return &d;
  return nullptr;
}

TEST(Limits, AParseOverTheTimeoutIsNamedSkippedAndNotCached) {
  TempDir dir;
  writeFile(dir / "repo" / "long.py", longLine());
  writeFile(dir / "repo" / "small.py", "import torch\ntorch.cuda.set_device(0)\n");
  const std::string cache = " --set " + quote("cache.dir=" + (dir / "cache").string());
  const auto r =
      runOn(dir / "repo", dir / "out", "--set 'stages=[analyze]' --set limits.parse_timeout_ms=1" + cache);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json first = json::parse(readFile(dir / "out" / "findings.json"));
  const json* d = diagnostic(first, "parse-failed", "long.py");
  ASSERT_NE(d, nullptr) << first["diagnostics"].dump(2);
  EXPECT_NE((*d)["message"].get<std::string>().find("longer than 1 ms (limits.parse_timeout_ms)"),
            std::string::npos);
  EXPECT_TRUE(findingsIn(first, "long.py").empty());
  EXPECT_EQ(findingsIn(first, "small.py").count("DEV-001"), 1u);

  // With the default limit the same file is analysed: the abandoned parse was not cached.
  const auto again = runOn(dir / "repo", dir / "out2", "--set 'stages=[analyze]'" + cache);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const json second = json::parse(readFile(dir / "out2" / "findings.json"));
  EXPECT_EQ(diagnostic(second, "parse-failed", "long.py"), nullptr);
  EXPECT_EQ(findingsIn(second, "long.py").count("DEV-001"), 1u);
  EXPECT_NE(readFile(dir / "out2" / "run.log").find("; 1 Python files from the analysis cache"),
            std::string::npos);
}

TEST(Limits, ALineOfMegabytesIsAnalysedFixedAndKeptOutOfTheReport) {
  TempDir dir;
  writeFile(dir / "repo" / "long.py", longLine());
  const auto r = runOn(dir / "repo", dir / "out", "--no-cache --set 'stages=[analyze, plan, emit, report]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json findings = json::parse(readFile(dir / "out" / "findings.json"));
  const auto found = findingsIn(findings, "long.py");
  EXPECT_EQ(found.count("DEV-001"), 1u);  // torch.cuda.synchronize
  EXPECT_EQ(found.count("DEV-016"), 1u);  // .cuda()
  const std::string adapted = readFile(dir / "out" / "adapted" / "long.py");
  EXPECT_NE(adapted.find("torch.npu.synchronize(); y = torch.zeros(1).npu()"), std::string::npos);
  // The report quotes code, but not a megabyte of it.
  EXPECT_LT(fs::file_size(test::reportIn(dir / "out")), 200'000u);
}

TEST(Limits, APluginThatCrashesIsNamedWithItsFileInRunLogAndTheExitStatus) {
  TempDir dir;
  writeFile(dir / "repo" / "fine.py", "import torch\n");
  writeFile(dir / "repo" / "model.py", "# MIGRATE_TEST_CRASH\n");
  writeFile(dir / "pipeline.yaml",
            "version: 1\nsource: {path: repo}\nplugin_dir: " + quote(test::testPluginDir().string()) +
                "\nplugins: [misbehaving]\nstages: [analyze, plan, emit, report]\n");
  const auto r = run(quote(test::cli().string()) + " run " + quote((dir / "pipeline.yaml").string()) +
                     " -q --no-cache --output " + quote((dir / "out").string()));
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.output;
  const std::string line = "fatal: plugin misbehaving on model.py in analyzeModule crashed (SIGSEGV)";
  EXPECT_NE(r.output.find(line), std::string::npos) << r.output;
  const std::string log = readFile(dir / "out" / "run.log");
  EXPECT_NE(log.find(line), std::string::npos) << log;
  EXPECT_NE(log.find("inventory: 2 files selected"), std::string::npos) << log;  // what came before is kept
  EXPECT_TRUE(fs::exists(dir / "out" / "pipeline.yaml"));
}

}  // namespace
}  // namespace migrate

// The report stage end to end through the CLI on the bundled example: the report is written to
// the working directory and the output directory; it matches its golden file (dates, the
// example's path and commit masked) and has every section of seeds 000 and 002; its tables are
// well-formed and its code snippets are the real code before and after the fix; findings.sarif
// passes Microsoft's validator; the chart parses as XML. Re-rendering from disk
// (`migrate-pipeline report`) with a verification that failed gives the failed-verification
// golden report; a run that fails early still writes a report saying why.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "support/sarif_validator.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using json = nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
namespace fs = std::filesystem;

const fs::path kExample = test::sourceDir() / "examples" / "gpt_cuda";
const fs::path kGolden = test::sourceDir() / "tests" / "golden" / "report";

/// Runs the CLI with `cwd` as the working directory.
test::CommandResult cliIn(const fs::path& cwd, const std::string& args) {
  return run("cd " + quote(cwd.string()) + " && " + quote(test::cli().string()) + " " + args);
}

std::string fullPipeline() {
  return quote((test::sourceDir() / "pipelines" / "full.yaml").string());
}

/// The report with what changes from run to run and machine to machine masked: dates and times,
/// the example's absolute path and the commit of this checkout.
std::string masked(std::string text) {
  for (std::size_t at = text.find(kExample.string()); at != std::string::npos;
       at = text.find(kExample.string(), at))
    text.replace(at, kExample.string().size(), "<example>");
  text = std::regex_replace(text, std::regex(R"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC[+-]\d{2}:\d{2})"),
                            "<generation time>");
  text = std::regex_replace(text, std::regex(R"(\d{4}-\d{2}-\d{2})"), "<date>");
  text = std::regex_replace(text, std::regex("[0-9a-f]{40}"), "<commit>");
  return text;
}

/// Compares with the golden file; MIGRATE_UPDATE_GOLDEN=1 writes it instead.
void expectGolden(const std::string& name, const std::string& actual) {
  const fs::path golden = kGolden / name;
  if (std::getenv("MIGRATE_UPDATE_GOLDEN")) test::writeFile(golden, actual);
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; create it with MIGRATE_UPDATE_GOLDEN=1";
  const std::string expected = readFile(golden);
  if (expected == actual) return;
  TempDir tmp;
  test::writeFile(tmp / "actual.md", actual);
  const auto diff =
      run("diff -u " + quote(golden.string()) + " " + quote((tmp / "actual.md").string()) + " | head -80");
  ADD_FAILURE() << name
                << " differs from the golden file (MIGRATE_UPDATE_GOLDEN=1 rewrites it after review):\n"
                << diff.output;
}

/// The code blocks following "Code at `place`..." lines: (file, before, after-or-empty, applied).
struct CodeBlock {
  std::string file, before, after;
  bool applied = false;
};

std::vector<CodeBlock> codeBlocks(const std::string& report) {
  std::vector<CodeBlock> blocks;
  std::istringstream in(report);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto fenced = [&](std::size_t& i) {  // the block starting at or after line i
    while (i < lines.size() && lines[i].rfind("```", 0) != 0) ++i;
    const std::string fence = lines[i].substr(0, lines[i].find_first_not_of('`'));
    std::string body;
    for (++i; i < lines.size() && lines[i] != fence; ++i) body += (body.empty() ? "" : "\n") + lines[i];
    return body;
  };
  static const std::regex kPlace(R"(^Code at `([^`:]+):\d+`)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, kPlace)) continue;
    CodeBlock b;
    b.file = m[1];
    const bool has_after = lines[i].find("before modification") != std::string::npos;
    b.before = fenced(++i);
    if (has_after) {
      while (i < lines.size() && lines[i].rfind("After modification", 0) != 0) ++i;
      b.applied = lines[i].find("applied in the adapted tree") != std::string::npos;
      b.after = fenced(i);
    }
    blocks.push_back(b);
  }
  return blocks;
}

/// The example run once (stages analyze, plan, emit, report) from a working directory of its own.
class ReportExample : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    fs::create_directories(cwd());
    const auto r = cliIn(cwd(), "run " + fullPipeline() + " -q --source " + quote(kExample.string()) +
                                    " --output " + quote(out().string()) +
                                    " --set jobs=2 --set 'stages=[analyze, plan, emit, report]'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path out() { return dir_->path() / "out"; }
  static fs::path cwd() { return dir_->path() / "cwd"; }
  static std::string report() { return readFile(test::reportIn(out())); }

  static TempDir* dir_;
};
TempDir* ReportExample::dir_ = nullptr;

TEST_F(ReportExample, IsWrittenToTheWorkingDirectoryAndTheOutputDirectoryWithAWorkingChartLink) {
  ASSERT_TRUE(fs::exists(test::reportIn(cwd())));
  ASSERT_TRUE(fs::exists(test::reportIn(out())));
  const std::string copy = readFile(test::reportIn(cwd()));
  EXPECT_NE(copy.find("](../out/migration_chart.svg)"), std::string::npos);
  EXPECT_NE(report().find("](migration_chart.svg)"), std::string::npos);
  EXPECT_TRUE(fs::exists(cwd() / "../out/migration_chart.svg"));
  std::string same = copy;
  for (std::size_t at = same.find("../out/migration_chart.svg"); at != std::string::npos;
       at = same.find("../out/migration_chart.svg", at))
    same.replace(at, 26, "migration_chart.svg");
  EXPECT_EQ(same, report()) << "the two copies differ only in the chart's link";
  const json findings = json::parse(readFile(out() / "findings.json"));
  EXPECT_EQ(findings["run"]["stages"][4]["name"], "report");
  EXPECT_EQ(findings["run"]["stages"][4]["status"], "completed");
}

TEST_F(ReportExample, MatchesTheGoldenFile) {
  expectGolden("example.md", masked(report()));
}

TEST_F(ReportExample, HasEverySectionOfTheSeedsInOrderAndNoUnrenderedTag) {
  const std::string text = report();
  const std::vector<std::string> sections{"## 1. Executive Summary",
                                          "| Adaptation Status | ⚠️ Partially Adapted |",
                                          "| Total Identified Bottlenecks |",
                                          "| Adapted Bottlenecks |",
                                          "| Remaining Bottlenecks |",
                                          "## 2. Original Code Analysis",
                                          "### 2.1 Code Structure Overview",
                                          "- Lines of CUDA/C++ Code:",
                                          "### 2.2 Dependency Analysis",
                                          "## 3. Detailed Analysis of Migration Bottlenecks",
                                          "### 3.1 Operator Compatibility Issues",
                                          "### 3.2 Model Loading and Weight Management Issues",
                                          "### 3.3 Computing Performance Bottlenecks",
                                          "### 3.4 NPU Memory and KV Cache Management",
                                          "### 3.5 Python–C++ Boundary Issues",
                                          "### 3.6 Concurrency and Asynchronous Issues",
                                          "### 3.7 Configuration and Maintainability Issues",
                                          "## 4. Adaptation Code List",
                                          "### 4.1 Newly Added Files",
                                          "### 4.2 Modified Files",
                                          "## 5. Verification Results",
                                          "### 5.4 Issue Summary",
                                          "## 6. Adaptation Guide",
                                          "### 6.1 Prerequisites",
                                          "### 6.2 Quick Adaptation Steps",
                                          "### 6.3 Common Troubleshooting",
                                          "## 7. Follow-Up Work Suggestions",
                                          "### 7.1 Short-Term (Within 1 Week)",
                                          "### 7.2 Mid-Term (Within 1 Month)",
                                          "### 7.3 Long-Term",
                                          "Ascend NPU Migration Assessment",
                                          "- Overall feasibility:",
                                          "- Estimated effort:",
                                          "- Blockers:",
                                          "### 8.2 Dependency Matrix (per task phase)",
                                          "### 8.3 Detailed Findings (per domain)",
                                          "#### Domain 1: Third-Party Dependencies",
                                          "#### Domain 2: Device Layer",
                                          "#### Domain 3: Attention Mechanism",
                                          "#### Domain 4: Custom Operators",
                                          "#### Domain 5: Distributed Communication",
                                          "#### Domain 6: Precision Strategy",
                                          "### 8.4 Migration Roadmap",
                                          "### 8.5 Risk Matrix",
                                          "Report Generation Time: "};
  std::size_t at = 0;
  for (const std::string& s : sections) {
    const std::size_t found = text.find(s, at);
    ASSERT_NE(found, std::string::npos) << "missing or out of order: " << s;
    at = found + s.size();
  }
  EXPECT_EQ(text.find("{{"), std::string::npos);
  // The contents' links point at headings, by GitHub's anchor rule.
  std::set<std::string> anchors;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("## ", 0) != 0) continue;
    std::string slug;
    for (char c : line.substr(3))
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')
        slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      else if (c == ' ')
        slug += '-';
    anchors.insert(slug);
  }
  std::size_t links = 0;
  static const std::regex kLink(R"(\]\(#([^)]+)\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kLink); it != std::sregex_iterator();
       ++it, ++links)
    EXPECT_EQ(anchors.count((*it)[1]), 1u) << (*it)[1];
  EXPECT_EQ(links, 8u);
  EXPECT_EQ(text.find("Domain 7"), std::string::npos) << "phase_matrix has no rules, so no domain section";
  EXPECT_NE(text.find("_Not verified: the verify stage did not run: not selected"), std::string::npos);
}

TEST_F(ReportExample, NumbersAgreeWithFindingsJsonAndEmitJson) {
  const json findings = json::parse(readFile(out() / "findings.json"));
  const json emit = json::parse(readFile(out() / "emit.json"));
  const std::string text = report();
  const std::size_t total = findings["plan"]["bottlenecks"].size();
  EXPECT_NE(text.find("| Total Identified Bottlenecks | " + std::to_string(total) + " |"), std::string::npos);
  for (const auto& b : findings["plan"]["bottlenecks"])
    EXPECT_NE(text.find("#### Issue " + b["id"].get<std::string>() + ": "), std::string::npos) << b["id"];
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(\| Adapted Bottlenecks \| (\d+) \|)")));
  const std::size_t adapted = std::stoul(m[1]);
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(\| Remaining Bottlenecks \| (\d+) \|)")));
  EXPECT_EQ(adapted + std::stoul(m[1]), total);
  EXPECT_GT(adapted, 0u);
  EXPECT_NE(text.find("| Findings | " + std::to_string(findings["findings"].size()) + " (" +
                      std::to_string(emit["fixed_findings"].size()) + " fixed automatically, " +
                      std::to_string(emit["manual_work"].size()) + " places of manual work) |"),
            std::string::npos);
  for (const auto& a : emit["adapted"])
    EXPECT_NE(text.find("| `" + a["path"].get<std::string>() + "` |"), std::string::npos) << a["path"];
}

TEST_F(ReportExample, TablesAreWellFormed) {
  std::istringstream in(report());
  std::size_t columns = 0, tables = 0, number = 0;
  auto cellsOf = [](const std::string& row) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < row.size(); ++i)
      if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++n;
    return n;
  };
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("|", 0) != 0) {
      columns = 0;
      continue;
    }
    if (columns == 0) {
      columns = cellsOf(line);
      ++tables;
      continue;
    }
    EXPECT_EQ(cellsOf(line), columns) << "line " << number << ": " << line;
    EXPECT_EQ(line.find("|  |"), std::string::npos) << "an empty cell on line " << number;
  }
  EXPECT_GT(tables, 15u);
}

TEST_F(ReportExample, CodeSnippetsAreTheOriginalAndTheAdaptedCode) {
  const auto blocks = codeBlocks(report());
  ASSERT_GT(blocks.size(), 30u);
  std::size_t applied = 0;
  for (const CodeBlock& b : blocks) {
    EXPECT_NE(readFile(kExample / b.file).find(b.before), std::string::npos) << b.file << ":\n" << b.before;
    if (!b.applied) continue;
    ++applied;
    EXPECT_NE(readFile(out() / "adapted" / b.file).find(b.after), std::string::npos) << b.file << ":\n"
                                                                                     << b.after;
    EXPECT_NE(b.before, b.after);
  }
  EXPECT_GT(applied, 10u);
}

TEST_F(ReportExample, SarifPassesMicrosoftsValidatorWithOneRunPerPlugin) {
  EXPECT_EQ(test::validateSarif(out() / "findings.sarif"), "");
  const json sarif = json::parse(readFile(out() / "findings.sarif"));
  const json findings = json::parse(readFile(out() / "findings.json"));
  ASSERT_EQ(sarif["runs"].size(), findings["plugins"].size());
  std::size_t results = 0;
  for (const auto& r : sarif["runs"]) results += r["results"].size();
  EXPECT_EQ(results, findings["findings"].size());
}

TEST_F(ReportExample, ChartIsWellFormedSvgWithBothPanels) {
  const auto r =
      run("/usr/bin/python3 -c " +
          quote("import sys, xml.etree.ElementTree as ET\n"
                "root = ET.parse(sys.argv[1]).getroot()\n"
                "texts = ' '.join(t.text or '' for t in root.iter('{http://www.w3.org/2000/svg}text'))\n"
                "assert root.tag == '{http://www.w3.org/2000/svg}svg', root.tag\n"
                "assert 'Findings per domain' in texts and 'Effort per phase' in texts, texts\n"
                "assert 'custom_ops' in texts and 'train' in texts, texts\n") +
          " " + quote((out() / "migration_chart.svg").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(ReportExample, IsDeterministicAcrossRunsAndThreadCounts) {
  TempDir again;
  const auto r = cliIn(again.path(), "run " + fullPipeline() + " -q --source " + quote(kExample.string()) +
                                         " --output " + quote((again / "out").string()) +
                                         " --set jobs=1 --set 'stages=[analyze, plan, emit, report]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(masked(readFile(test::reportIn(again / "out"))), masked(report()));
  auto sarif = [](const fs::path& file) {  // without the run's start time
    json doc = json::parse(readFile(file));
    for (auto& run_doc : doc["runs"])
      for (auto& i : run_doc["invocations"]) i.erase("startTimeUtc");
    return doc;
  };
  EXPECT_TRUE(sarif(again / "out" / "findings.sarif") == sarif(out() / "findings.sarif"));
  EXPECT_TRUE(readFile(again / "out" / "migration_chart.svg") == readFile(out() / "migration_chart.svg"));
}

TEST_F(ReportExample, ReRenderedFromDiskWithAFailedVerification) {
  TempDir copy;
  ASSERT_EQ(run("cp -r " + quote(out().string()) + " " + quote((copy / "out").string())).exit_code, 0);
  fs::copy_file(kGolden / "failed_verify.json", copy / "out" / "verify.json");
  const auto r =
      cliIn(copy.path(), "report " + quote((copy / "out").string()) + " -q --set report.directory=out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = readFile(test::reportIn(copy / "out"));
  expectGolden("example_failed_verification.md", masked(text));
  // What the seed asks of a failed verification, whatever the golden file says.
  EXPECT_NE(text.find("| Adaptation Status | ❌ Adaptation Failed |"), std::string::npos);
  EXPECT_NE(text.find("4 verification checks failed"), std::string::npos);
  EXPECT_NE(text.find("### 5.5 Failed Verification Items (manual intervention required)"), std::string::npos);
  for (const char* check :
       {"imports / gpt.kernels.triton_rmsnorm: failed", "function / tests: failed",
        "function / npu-ops:flash_attn_func: error", "precision / train_infer:losses.json: failed"})
    EXPECT_NE(text.find(std::string("#### ❌ ") + check), std::string::npos) << check;
  EXPECT_NE(text.find("- **Known error**: 507035 (ACL_ERROR_RT_VECTOR_CORE_EXCEPTION)"), std::string::npos);
  EXPECT_NE(text.find("- **Modified code**: `adapted/gpt/kernels/triton_rmsnorm.py` in the adapted tree"),
            std::string::npos);
  EXPECT_NE(text.find("- Fix the failed verification check function/tests (section 5.5)."),
            std::string::npos);
  const json findings = json::parse(readFile(copy / "out" / "findings.json"));
  EXPECT_EQ(findings["run"]["stages"][4]["status"], "completed") << "the report stage ran again";
}

TEST(Report, WrittenWhenTheRunFailsEarlySayingWhichStageAndWhy) {
  TempDir dir;
  const auto r =
      cliIn(dir.path(), "run " + fullPipeline() + " -q --source " + quote((dir / "nowhere").string()) +
                            " --output " + quote((dir / "out").string()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  ASSERT_TRUE(fs::exists(test::reportIn(dir.path()))) << r.output;
  const std::string text = readFile(test::reportIn(dir.path()));
  EXPECT_NE(text.find("| Adaptation Status | ❌ Adaptation Failed |"), std::string::npos);
  EXPECT_NE(text.find("> **Stage analyze failed:**"), std::string::npos);
  EXPECT_NE(text.find("- the analyze stage failed: "), std::string::npos);
  EXPECT_NE(text.find("nowhere"), std::string::npos) << "the reason names the missing source";
  for (const char* s :
       {"## 2. Original Code Analysis", "## 4. Adaptation Code List", "## 5. Verification Results", "## 8. ",
        "_Not available: the plan stage did not run (the run stopped before it)_"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  std::string copy = text;
  for (std::size_t at = copy.find("](out/"); at != std::string::npos; at = copy.find("](out/", at))
    copy.replace(at, 6, "](");
  EXPECT_EQ(readFile(test::reportIn(dir / "out")), copy) << "the copies differ only in the chart link";
  EXPECT_EQ(test::validateSarif(dir / "out" / "findings.sarif"), "") << "an empty SARIF log is still valid";
}

TEST(Report, AReportDirectoryThatCannotBeMadeFailsTheStageAndKeepsTheOutputDirectoryCopy) {
  TempDir dir;
  test::writeFile(dir / "a-file", "not a directory\n");
  const auto r =
      cliIn(dir.path(), "run " + fullPipeline() + " -q --source " + quote(kExample.string()) + " --output " +
                            quote((dir / "out").string()) +
                            " --set 'stages=[analyze, report]' --set report.directory=a-file/reports");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_NE(r.output.find("cannot create the report directory"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the report is in"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(test::reportIn(dir / "out")));
  const json findings = json::parse(readFile(dir / "out" / "findings.json"));
  EXPECT_EQ(findings["run"]["stages"][4]["status"], "failed");
}

TEST(Report, AnEmptyReportDirectoryMeansTheOutputDirectoryOnly) {
  TempDir dir;
  const auto r =
      cliIn(dir.path(), "run " + fullPipeline() + " -q --source " + quote(kExample.string()) +
                            " --output out --set 'stages=[analyze, report]' --set 'report.directory=\"\"'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(test::reportIn(dir / "out")));
  EXPECT_FALSE(fs::exists(test::reportIn(dir.path())));
  const std::string text = readFile(test::reportIn(dir / "out"));
  EXPECT_NE(text.find("_Not available: the emit stage did not run: not selected"), std::string::npos);
  EXPECT_NE(text.find("| Adaptation Status | ❌ Adaptation Failed |"), std::string::npos)
      << "nothing was adapted";
}

TEST(Report, ReportCommandNeedsARunsOutputDirectory) {
  TempDir dir;
  const auto none = run(quote(test::cli().string()) + " report " + quote(dir.path().string()));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("has no pipeline.yaml"), std::string::npos) << none.output;
  test::writeFile(dir / "pipeline.yaml", "version: 1\nname: x\nsource: {path: .}\nplugins: {device: {}}\n");
  const auto no_findings = run(quote(test::cli().string()) + " report " + quote(dir.path().string()));
  EXPECT_EQ(no_findings.exit_code, 5) << no_findings.output;
  EXPECT_NE(no_findings.output.find("findings.json"), std::string::npos) << no_findings.output;
}

}  // namespace
}  // namespace migrate

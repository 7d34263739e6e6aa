// Reading a run's outputs back (findings.json, emit.json, verify.json): the readers are the exact
// inverses of the writers, checked byte for byte on a real run of the bundled example through the
// CLI; and every kind of bad file gives an error naming the file and the JSON path.

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>
#include <sstream>

#include "migrate/engine/findings_json.hpp"
#include "outputs/emit_json.hpp"
#include "outputs/finding_text.hpp"
#include "outputs/json_output.hpp"
#include "outputs/run_outputs.hpp"
#include "outputs/verify_json.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using test::quote;
using test::readFile;
using test::TempDir;
using test::writeFile;

/// Runs the CLI on the bundled example with `stages` into `out`.
test::CommandResult runExample(const fs::path& out, const std::string& stages) {
  return test::run(quote(test::cli().string()) + " run " +
                   quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " -q --output " +
                   quote(out.string()) + " --set jobs=2 --set " + quote("stages=[" + stages + "]"));
}

ordered_json readJson(const fs::path& p) {
  return ordered_json::parse(readFile(p));
}

void writeJson(const fs::path& p, const ordered_json& j) {
  writeFile(p, j.dump(2));
}

/// "" when `actual` is `expected`, else the first line where they differ (a whole findings.json
/// in a failure message would hide it).
std::string firstDifference(const std::string& actual, const std::string& expected) {
  if (actual == expected) return "";
  std::size_t line = 1, at = 0;
  while (at < actual.size() && at < expected.size() && actual[at] == expected[at])
    line += actual[at++] == '\n';
  const auto lineAt = [&](const std::string& s) {
    const std::size_t begin = s.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t from = begin == std::string::npos || at == 0 ? 0 : begin + 1;
    return s.substr(from, s.find('\n', from) - from);
  };
  return "line " + std::to_string(line) + ": written \"" + lineAt(actual) + "\", original \"" +
         lineAt(expected) + "\"";
}

/// The error message of reading `out`, or a failure when it reads.
std::string readError(const fs::path& out) {
  auto m = readRunOutputs(out);
  EXPECT_FALSE(m.ok()) << "read without error";
  return m.ok() ? std::string() : m.error().message;
}

/// The example run once (analyze, plan, emit) for the whole suite.
class RunOutputs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const auto r = runExample(out(), "analyze, plan, emit");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path out() { return dir_->path() / "out"; }

  /// A directory holding a copy of the run's findings.json after `edit`, and nothing else.
  static fs::path editedFindings(const TempDir& dir, const std::function<void(ordered_json&)>& edit) {
    ordered_json j = readJson(out() / "findings.json");
    edit(j);
    writeJson(dir / "findings.json", j);
    return dir.path();
  }

  static TempDir* dir_;
};
TempDir* RunOutputs::dir_ = nullptr;

TEST_F(RunOutputs, FindingsAndEmitJsonWrittenFromTheReadModelAreTheSameBytes) {
  auto model = readRunOutputs(out());
  ASSERT_TRUE(model.ok()) << model.error().message;
  // The run reached every part the readers handle, so the comparison below covers them.
  EXPECT_GT(model->findings.size(), 100u);
  EXPECT_FALSE(model->rules.empty());
  EXPECT_TRUE(model->plan.computed);
  EXPECT_FALSE(model->plan.graph.empty());
  EXPECT_FALSE(model->plan.structure.entry_points.empty());
  EXPECT_FALSE(model->plan.bottlenecks.empty());
  ASSERT_TRUE(model->plan.assessment.has_value());
  EXPECT_FALSE(model->plan.assessment->matrix.empty());
  EXPECT_TRUE(model->emit.computed);
  EXPECT_FALSE(model->emit.fixed_findings.empty());
  EXPECT_FALSE(model->verify.computed) << "no verify.json in this run";
  EXPECT_EQ(model->source.root, model->emit.original_root);
  EXPECT_TRUE(fs::is_directory(model->source.root)) << model->source.root;
  // Indices, not paths, in the model: every import points at a module of the graph.
  for (const auto& node : model->plan.graph)
    for (std::size_t i : node.imports) EXPECT_LT(i, model->plan.graph.size());

  TempDir again;
  ASSERT_TRUE(writeFindingsJson(*model, again / "findings.json").ok());
  ASSERT_TRUE(outputs::writeEmitManifest(*model, again / "emit.json").ok());
  EXPECT_EQ(firstDifference(readFile(again / "findings.json"), readFile(out() / "findings.json")), "");
  EXPECT_EQ(firstDifference(readFile(again / "emit.json"), readFile(out() / "emit.json")), "");
}

TEST(RunOutputsEnums, EveryEnumNameReadsBackAndOthersDoNot) {
  for (auto s : {sdk::Severity::Info, sdk::Severity::Warning, sdk::Severity::Error})
    EXPECT_EQ(sdk::severityFromString(sdk::toString(s)), s);
  for (auto l : {sdk::Level::Low, sdk::Level::Medium, sdk::Level::High})
    EXPECT_EQ(sdk::levelFromString(sdk::toString(l)), l);
  using K = sdk::EntryPoint::Kind;
  for (auto k : {K::MainBlock, K::ConsoleScript, K::LaunchScript, K::TestModule, K::Library})
    EXPECT_EQ(sdk::entryPointKindFromString(sdk::toString(k)), k);
  EXPECT_FALSE(sdk::severityFromString("Warning").has_value());
  EXPECT_FALSE(sdk::levelFromString("").has_value());
  EXPECT_FALSE(sdk::entryPointKindFromString("main").has_value());
}

TEST(RunOutputsVerify, VerifyJsonWrittenFromTheReadResultIsTheSameBytes) {
  VerifyResult r;
  r.computed = true;
  r.target = "npu-box";
  r.host = "ci@10.0.0.7:2222";
  r.status = "completed";
  r.detail = "3 passed, 1 failed, 1 skipped";
  r.seconds = 12.345678901;
  r.checks = {
      {"environment", "python", "passed", "Python 3.11.2", 0.25, "", {}},
      {"function",
       "tests",
       "failed",
       "1 failed: 精度 ✓ — ñ",
       3.5,
       "line1\nline2\ttab \"quoted\" back\\slash \x01\x1f bell\x07\r\n" + std::string(1, '\0') + "end",
       {"EZ1001 (ACL): first hint", "second hint 日本語"}},
      {"precision", "train_infer", "skipped", "", 0.0, "", {}},
      {"benchmark", "step", "error", "exit 137", 1e-7, "killed", {"hint"}},
  };
  TempDir dir;
  ASSERT_TRUE(outputs::writeVerifyJson(r, "0.3.0", dir / "verify.json").ok());
  auto read = outputs::readVerifyJson(dir / "verify.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_TRUE(read->computed);
  EXPECT_EQ(read->host, r.host);
  EXPECT_EQ(read->seconds, r.seconds);
  ASSERT_EQ(read->checks.size(), r.checks.size());
  EXPECT_EQ(read->checks[1].output, r.checks[1].output);
  EXPECT_EQ(read->checks[1].hints, r.checks[1].hints);
  EXPECT_EQ(read->checks[3].duration, 1e-7);
  ASSERT_TRUE(outputs::writeVerifyJson(*read, "0.3.0", dir / "again.json").ok());
  EXPECT_EQ(readFile(dir / "again.json"), readFile(dir / "verify.json"));
}

TEST_F(RunOutputs, VerifyJsonInTheOutputDirectoryIsRead) {
  TempDir dir;
  fs::copy_file(out() / "findings.json", dir / "findings.json");
  fs::copy_file(out() / "emit.json", dir / "emit.json");
  VerifyResult r;
  r.target = "local";
  r.host = "local";
  r.status = "timeout";
  r.checks = {{"function", "smoke", "failed", "", 1.0, "out", {}}};
  ASSERT_TRUE(outputs::writeVerifyJson(r, "0.3.0", dir / "verify.json").ok());
  auto model = readRunOutputs(dir.path());
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_TRUE(model->verify.computed);
  EXPECT_EQ(model->verify.status, "timeout");
  EXPECT_EQ(model->verify.count("failed"), 1u);

  writeFile(dir / "verify.json", "{\"schema_version\": 1, \"checks\": []}");
  const std::string e = readError(dir.path());
  EXPECT_NE(e.find("verify.json: target: missing (expected a string)"), std::string::npos) << e;
}

TEST(RunOutputsAnalyzeOnly, ARunWithoutPlanReadsBackUnplanned) {
  TempDir dir;
  const auto r = runExample(dir / "out", "analyze");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(readJson(dir / "out" / "findings.json")["plan"].is_null());
  auto model = readRunOutputs(dir / "out");
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_FALSE(model->plan.computed);
  EXPECT_FALSE(model->emit.computed);
  EXPECT_FALSE(model->verify.computed);
  EXPECT_FALSE(model->findings.empty());
  EXPECT_TRUE(model->source.root.empty()) << "no emit.json, no original root";
  ASSERT_TRUE(writeFindingsJson(*model, dir / "again.json").ok());
  EXPECT_EQ(firstDifference(readFile(dir / "again.json"), readFile(dir / "out" / "findings.json")), "");
}

TEST(RunOutputsErrors, NoFindingsJson) {
  TempDir dir;
  const std::string e = readError(dir.path());
  EXPECT_NE(e.find("has no findings.json"), std::string::npos) << e;
  EXPECT_NE(e.find(dir.path().string()), std::string::npos) << e;
}

// Found by fuzz_findings_json: a number too large for the parser is out_of_range, not a
// parse_error; it escaped readDocument and terminated the program.
TEST(RunOutputsErrors, ANumberTooLargeIsAnErrorNotACrash) {
  TempDir dir;
  writeFile(dir / "findings.json", "{\"schema_version\": 1" + std::string(400, '0') + "}");
  const std::string e = readError(dir.path());
  EXPECT_NE(e.find((dir / "findings.json").string() + ": not valid JSON ("), std::string::npos) << e;
  EXPECT_NE(e.find("run the pipeline again"), std::string::npos) << e;
}

TEST_F(RunOutputs, TruncatedFileGivesTheParsersBytePosition) {
  TempDir dir;
  const std::string text = readFile(out() / "findings.json");
  writeFile(dir / "findings.json", text.substr(0, 5000));
  const std::string e = readError(dir.path());
  EXPECT_NE(e.find((dir / "findings.json").string() + ": not valid JSON at byte 5001"), std::string::npos)
      << e;
  EXPECT_NE(e.find("run the pipeline again"), std::string::npos) << e;
}

TEST_F(RunOutputs, AnotherSchemaVersionIsRefused) {
  TempDir dir;
  editedFindings(dir, [](ordered_json& j) { j["schema_version"] = kFindingsSchemaVersion + 1; });
  const std::string e = readError(dir.path());
  EXPECT_NE(e.find("schema_version " + std::to_string(kFindingsSchemaVersion + 1) + ", but this version of " +
                   "migrate-pipeline reads version " + std::to_string(kFindingsSchemaVersion)),
            std::string::npos)
      << e;
}

TEST_F(RunOutputs, WrongTypesAndMissingMembersNameTheirJsonPath) {
  const std::vector<std::pair<std::function<void(ordered_json&)>, std::string>> cases{
      {[](ordered_json& j) { j["findings"][3]["line"] = "12"; },
       "findings[3].line: expected an integer, found a string"},
      {[](ordered_json& j) { j["findings"][2].erase("api"); },
       "findings[2].api: missing (expected a string)"},
      {[](ordered_json& j) { j["findings"][0]["severity"] = "fatal"; },
       "findings[0].severity: expected one of \"info\", \"warning\" or \"error\", found \"fatal\""},
      {[](ordered_json& j) { j["findings"][1]["details"]["k"] = 1; },
       "findings[1].details.k: expected a string"},
      {[](ordered_json& j) { j["findings"][0]["column"] = -4; },
       "findings[0].column: expected a non-negative"},
      {[](ordered_json& j) { j["findings"][0]["line"] = 1ull << 40; },
       "findings[0].line: expected an integer no larger than 4294967295"},
      {[](ordered_json& j) { j["inventory"]["bytes"] = 1.5; },
       "inventory.bytes: expected an integer, found the number 1.5"},
      {[](ordered_json& j) { j["plan"]["bottlenecks"][1]["findings"][0] = 99999; },
       "plan.bottlenecks[1].findings[0]: finding index 99999 is out of range"},
      {[](ordered_json& j) { j["plan"]["structure"]["entry_points"][0]["modules"][0] = "nowhere.py"; },
       "plan.structure.entry_points[0].modules[0]: \"nowhere.py\" is not the path of a module"},
      {[](ordered_json& j) { j["plan"]["import_graph"][0]["imports"] = {"gone.py"}; },
       "plan.import_graph[0].imports[0]: \"gone.py\" is not the path"},
      {[](ordered_json& j) { j["plan"]["assessment"]["goals"][0]["blockers"] = "one"; },
       "plan.assessment.goals[0].blockers: expected an array, found a string"},
      {[](ordered_json& j) { j["plan"]["structure"]["entry_points"][0]["kind"] = "daemon"; },
       "plan.structure.entry_points[0].kind: expected one of"},
      {[](ordered_json& j) { j.erase("run"); }, "run: missing (expected an object)"},
      {[](ordered_json& j) { j["rules"][0]["confidence"] = nullptr; },
       "rules[0].confidence: expected a string, found null"},
  };
  for (const auto& [edit, expected] : cases) {
    TempDir dir;
    editedFindings(dir, edit);
    const std::string e = readError(dir.path());
    EXPECT_NE(e.find((dir / "findings.json").string() + ": " + expected), std::string::npos) << e;
  }
}

TEST_F(RunOutputs, UnknownMembersAreIgnoredAndRulesMayBeAbsent) {
  TempDir dir;
  editedFindings(dir, [](ordered_json& j) {
    j["added_later"] = {{"x", 1}};
    j["findings"][0]["added_later"] = true;
    j["plan"]["structure"]["added_later"] = nullptr;
    j.erase("rules");
  });
  auto model = readRunOutputs(dir.path());
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_TRUE(model->rules.empty());
  EXPECT_TRUE(model->plan.computed);
}

TEST_F(RunOutputs, EmitJsonFromAnotherRunIsRefused) {
  TempDir dir;
  fs::copy_file(out() / "findings.json", dir / "findings.json");
  ordered_json emit = readJson(out() / "emit.json");
  emit["fixed_findings"].push_back(1000000);
  writeJson(dir / "emit.json", emit);
  std::string e = readError(dir.path());
  EXPECT_NE(e.find("emit.json: fixed_findings["), std::string::npos) << e;
  EXPECT_NE(e.find("different runs"), std::string::npos) << e;

  emit = readJson(out() / "emit.json");
  emit["manual_work"][0]["line"] = "7";
  writeJson(dir / "emit.json", emit);
  e = readError(dir.path());
  EXPECT_NE(e.find("emit.json: manual_work[0].line: expected an integer, found a string"), std::string::npos)
      << e;
}

/// findings.json writes its findings as text, not as JSON values: the text must be exactly what
/// the value gives, for every kind of string (escapes, UTF-8, invalid UTF-8) and every shape.
TEST(FindingText, IsWhatTheJsonValueWrites) {
  sdk::Finding plain;
  plain.rule_id = "DEV-023";
  plain.domain = "device";
  plain.file = "pkg/model.py";
  plain.range = {50, 31, 50, 39, 1763, 1771};
  plain.api = "\"cuda:0\"";
  plain.message = "Device string selects a CUDA device.";
  plain.effort_days = 0.02;

  sdk::Finding rich = plain;
  rich.api = "x = \"caf\xc3\xa9\" \\ \t\x01\x7f";           // UTF-8, escapes, control characters
  rich.resolved_api = "latin-1 \xe9t\xe9 and a lone \xc3";  // invalid UTF-8: replaced
  rich.npu_alternative = "\xe2\x9c\x93 \xf0\x9f\x98\x80";   // 3- and 4-byte sequences
  rich.severity = sdk::Severity::Error;
  rich.confidence = sdk::Level::Low;
  rich.difficulty = sdk::Level::High;
  rich.effort_days = 3.0;
  rich.edits = {{1763, 1767, "npu"}, {0, 0, "import torch_npu\n"}};
  rich.details = {{"row", "dependency"}, {"q\"uote", "line\nbreak"}};
  rich.phases = {"train", "infer"};

  sdk::Finding one = plain;
  one.effort_days = 1e-5;
  one.edits = {{1, 2, ""}};
  one.details = {{"k", ""}};
  one.phases = {"only"};

  sdk::Finding ascii = plain;  // printable ASCII with quotes and backslashes: escaped without the library
  ascii.message = R"(Use "npu" and not C:\cuda\ or "cuda")";
  ascii.api = "\\";
  sdk::Finding not_a_number = plain;  // printed each time, not remembered (a NaN never equals itself)
  not_a_number.effort_days = std::nan("");

  // plain twice: an effort printed before comes from the remembered text.
  for (const sdk::Finding* f : {&plain, &rich, &one, &plain, &ascii, &not_a_number, &not_a_number}) {
    std::ostringstream expected;
    outputs::writeIndented(expected, outputs::findingJson(*f), "    ");
    std::string text;
    outputs::appendFindingText(text, *f);
    EXPECT_EQ(text, expected.str());
  }
}

}  // namespace
}  // namespace migrate

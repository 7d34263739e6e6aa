// findings.sarif: hand-built models written as SARIF 2.1.0, checked by Microsoft's validator
// (sarif-multitool, SARIF and GitHub code scanning rules) and the schema it ships, then read back:
// runs, rules, URIs, regions, fingerprints, notifications, provenance, fixes, determinism.

#include "report/sarif.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/sarif_validator.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using nlohmann::json;
using test::TempDir;

sdk::RuleInfo rule(std::string id, std::string title, std::string domain, std::string message,
                   std::string npu, sdk::Severity severity) {
  sdk::RuleInfo r;
  r.id = std::move(id);
  r.title = std::move(title);
  r.domain = std::move(domain);
  r.message = std::move(message);
  r.npu_alternative = std::move(npu);
  r.severity = severity;
  r.confidence = sdk::Level::High;
  r.difficulty = sdk::Level::Low;
  r.effort_days = 0.05;
  return r;
}

sdk::Finding finding(const sdk::RuleInfo& r, std::string file, std::uint32_t line, std::uint32_t column,
                     std::uint32_t end_column, std::string api, std::string resolved = {}) {
  const sdk::SourceRange range = {
      line, column, line, end_column, line * 40 + column - 1, line * 40 + end_column - 1};
  return sdk::findingFrom(r, std::move(file), range, std::move(api), std::move(resolved),
                          {{"note", ""}, {"value", "True"}});
}

const std::string kUnicodeFile =
    "src/my model/\xc3\x9cn\xc3\xaf"
    "code \xc3\x9f.py";  // "Ünïcode ß.py"

/// Three plugins in pipeline order (precision without findings), a rule no plugin declares,
/// edits, identical APIs in one file, a path with spaces and non-ASCII, diagnostics with and
/// without files, a git source with credentials in its URL.
MigrationModel sampleModel() {
  MigrationModel m;
  m.tool_version = "0.3.0";
  m.pipeline_name = "full";
  m.started_at = "2025-01-31T09:00:00Z";
  m.source.kind = "git";
  m.source.location = "https://ci-bot:s3cret@example.com/org/repo.git";
  m.source.ref = "main";
  m.source.commit = "0123456789abcdef0123456789abcdef01234567";
  m.plugins = {{"device", "0.2.0", "device", 2, ""},
               {"attention", "0.1.0", "attention", 1, ""},
               {"precision", "1.0.0", "precision", 1, ""}};
  const auto att = rule("ATT-001", "flash_attn_func call (FlashAttention 2)", "attention",
                        "{api} uses FlashAttention, which has no NPU build.{note}",
                        "torch_npu.npu_fusion_attention", sdk::Severity::Error);
  const auto dev1 = rule("DEV-001", "torch.cuda.synchronize", "device", "{api} waits for the CUDA device.",
                         "torch.npu.synchronize", sdk::Severity::Warning);
  const auto dev2 = rule("DEV-002", "CUDNN_BENCHMARK or cuDNN flag", "device",
                         "{api} sets a cuDNN flag {value} (a dict {} here).", "", sdk::Severity::Info);
  const auto pre = rule("PRE-001", "float64 tensor", "precision", "{api} computes in float64.", "float32",
                        sdk::Severity::Warning);
  m.rules = {{"attention", att}, {"device", dev1}, {"device", dev2}, {"precision", pre}};

  sdk::Finding flash =
      finding(att, "models/attn.py", 12, 5, 40, "flash_attn_func", "flash_attn.flash_attn_func");
  flash.details = {{"causal", "True"}};
  sdk::Finding unknown = flash;
  unknown.rule_id = "XYZ-999";
  unknown.range = {30, 1, 30, 10, 900, 909};
  unknown.message = "A rule of a plugin that is gone.";
  unknown.severity = sdk::Severity::Warning;
  unknown.details = {};
  sdk::Finding sync1 =
      finding(dev1, kUnicodeFile, 3, 9, 31, "torch.cuda.synchronize", "torch.cuda.synchronize");
  sync1.edits = {{128, 150, "torch.npu.synchronize"}};
  sync1.phases = {"train"};
  sdk::Finding sync2 =
      finding(dev1, kUnicodeFile, 7, 9, 31, "torch.cuda.synchronize", "torch.cuda.synchronize");
  sync2.edits = {{300, 322, "torch.npu.synchronize"}};
  sdk::Finding flag = finding(dev2, "src/train.py", 2, 1, 20, "cudnn.\xff\xfe", "");
  m.findings = {flash, unknown, sync1, sync2, flag};

  m.diagnostics = {{sdk::Severity::Warning, "plugin-refused", "", 0, "libfoo.so is not a plugin; remove it"},
                   {sdk::Severity::Error, "plugin-error", "models/attn.py", 0,
                    "plugin attention failed in analyzeModule: boom"},
                   {sdk::Severity::Warning, "parse-error", "src/train.py", 4, "syntax error at line 4"}};
  m.stages = {{"analyze", "completed", "5 findings", 0.1}};
  m.emit.computed = true;
  m.emit.fixed_findings = {2};
  return m;
}

json writeAndRead(const MigrationModel& m, const TempDir& dir, const std::string& name = "findings.sarif") {
  const auto status = writeSarif(m, dir / name);
  EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message);
  return json::parse(test::readFile(dir / name));
}

const json& runOf(const json& doc, const std::string& plugin) {
  for (const json& run : doc["runs"])
    if (run["tool"]["driver"]["name"] == "migrate-pipeline/" + plugin) return run;
  ADD_FAILURE() << "no run for " << plugin;
  static const json none = json::object();
  return none;
}

TEST(Sarif, TheValidatorAcceptsEveryShapeOfModel) {
  TempDir dir;
  std::vector<std::pair<std::string, MigrationModel>> models;
  models.emplace_back("sample", sampleModel());
  MigrationModel path_source = sampleModel();
  path_source.source = {"path", "/somewhere/repo", "", "", {}};
  models.emplace_back("path source", path_source);
  MigrationModel empty = sampleModel();
  empty.findings.clear();
  empty.diagnostics.clear();
  models.emplace_back("no findings", empty);
  MigrationModel no_plugins;
  no_plugins.tool_version = "0.3.0";
  no_plugins.diagnostics = {{sdk::Severity::Warning, "plugin-refused", "", 0, "nothing loadable"}};
  sdk::Finding orphan;  // no plugin, no rule, no column, no end: still a valid result
  orphan.rule_id = "X-1";
  orphan.domain = "device";
  orphan.file = "setup.py";
  orphan.range.line = 5;
  orphan.message = "An orphan.";
  no_plugins.findings = {orphan};
  models.emplace_back("no plugins", no_plugins);
  MigrationModel scp = sampleModel();
  scp.source.location = "git@example.com:org/my repo.git";
  models.emplace_back("scp-like git url", scp);

  for (const auto& [name, model] : models) {
    SCOPED_TRACE(name);
    const test::fs::path file = dir / (name + ".sarif");  // a space in the path on purpose
    ASSERT_TRUE(writeSarif(model, file).ok());
    EXPECT_EQ(test::validateSarif(file), "");
  }
}

TEST(Sarif, OneRunPerPluginInPipelineOrder) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  EXPECT_EQ(doc["version"], "2.1.0");
  EXPECT_EQ(doc["$schema"],
            "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
  ASSERT_EQ(doc["runs"].size(), 3u);
  const std::vector<std::string> names = {"device", "attention", "precision"};
  const std::vector<std::string> versions = {"0.2.0", "0.1.0", "1.0.0"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const json& driver = doc["runs"][i]["tool"]["driver"];
    EXPECT_EQ(driver["name"], "migrate-pipeline/" + names[i]);
    EXPECT_EQ(driver["semanticVersion"], versions[i]);
    EXPECT_EQ(driver["properties"]["tool_version"], "0.3.0");
    EXPECT_EQ(doc["runs"][i]["columnKind"], "unicodeCodePoints");
  }
  const json& precision = runOf(doc, "precision");
  EXPECT_TRUE(precision["results"].empty());
  EXPECT_TRUE(precision["tool"]["driver"]["rules"].empty());  // PRE-001 fired nowhere
  EXPECT_EQ(runOf(doc, "device")["results"].size(), 3u);
  EXPECT_EQ(runOf(doc, "attention")["results"].size(), 2u);
}

TEST(Sarif, RuleIndexPointsAtTheResultsRule) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  std::size_t results = 0;
  for (const json& run : doc["runs"]) {
    const json& rules = run["tool"]["driver"]["rules"];
    for (const json& r : run["results"]) {
      ASSERT_LT(r["ruleIndex"].get<std::size_t>(), rules.size());
      EXPECT_EQ(rules[r["ruleIndex"].get<std::size_t>()]["id"], r["ruleId"]);
      ++results;
    }
  }
  EXPECT_EQ(results, 5u);  // none dropped, the unknown rule's included
  const json& attention = runOf(doc, "attention")["tool"]["driver"]["rules"];
  ASSERT_EQ(attention.size(), 2u);
  EXPECT_EQ(attention[0]["id"], "ATT-001");
  EXPECT_EQ(attention[1]["id"], "XYZ-999");  // a minimal entry, under the plugin of its domain
  EXPECT_NE(attention[1]["shortDescription"]["text"].get<std::string>().find("XYZ-999"), std::string::npos);
  const json& device = runOf(doc, "device")["tool"]["driver"]["rules"];
  ASSERT_EQ(device.size(), 2u);
  EXPECT_EQ(device[0]["id"], "DEV-001");
  EXPECT_EQ(device[1]["id"], "DEV-002");
}

TEST(Sarif, UrisAreRelativeAndPercentEncoded) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  std::set<std::string> uris;
  for (const json& run : doc["runs"]) {
    EXPECT_TRUE(run["originalUriBaseIds"].contains("SRCROOT"));
    EXPECT_FALSE(run["originalUriBaseIds"]["SRCROOT"].contains("uri"));  // no path of this machine
    for (const json& r : run["results"]) {
      const json& location = r["locations"][0]["physicalLocation"]["artifactLocation"];
      EXPECT_EQ(location["uriBaseId"], "SRCROOT");
      uris.insert(location["uri"].get<std::string>());
    }
  }
  EXPECT_EQ(uris, (std::set<std::string>{"models/attn.py", "src/my%20model/%C3%9Cn%C3%AFcode%20%C3%9F.py",
                                         "src/train.py"}));
}

TEST(Sarif, RegionsAreTheFindingsRanges) {
  TempDir dir;
  const MigrationModel m = sampleModel();
  const json doc = writeAndRead(m, dir);
  const json& device = runOf(doc, "device")["results"];
  ASSERT_EQ(device.size(), 3u);
  const std::vector<const sdk::Finding*> expected = {&m.findings[2], &m.findings[3], &m.findings[4]};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const json& region = device[i]["locations"][0]["physicalLocation"]["region"];
    EXPECT_EQ(region["startLine"], expected[i]->range.line);
    EXPECT_EQ(region["startColumn"], expected[i]->range.column);
    EXPECT_EQ(region["endLine"], expected[i]->range.end_line);
    EXPECT_EQ(region["endColumn"], expected[i]->range.end_column);
  }
}

std::vector<std::string> fingerprints(const json& doc) {
  std::vector<std::string> out;
  for (const json& run : doc["runs"])
    for (const json& r : run["results"]) out.push_back(r["partialFingerprints"]["migratePipeline/v1"]);
  return out;
}

TEST(Sarif, FingerprintsSurviveLinesInsertedAbove) {
  TempDir dir;
  const MigrationModel m = sampleModel();
  MigrationModel shifted = m;
  for (sdk::Finding& f : shifted.findings) {
    f.range.line += 10;
    f.range.end_line += 10;
    f.range.start_byte += 100;
    f.range.end_byte += 100;
  }
  const auto before = fingerprints(writeAndRead(m, dir, "a.sarif"));
  const auto after = fingerprints(writeAndRead(shifted, dir, "b.sarif"));
  ASSERT_EQ(before.size(), 5u);
  EXPECT_EQ(before, after);
  EXPECT_EQ(std::set<std::string>(before.begin(), before.end()).size(), before.size())
      << "two identical APIs in one file must differ";

  // Another file or API is another place.
  MigrationModel moved = m;
  moved.findings[4].file = "src/other.py";
  EXPECT_NE(fingerprints(writeAndRead(moved, dir, "c.sarif"))[2], before[2]);
}

TEST(Sarif, FingerprintIsTheDocumentedHash) {
  // docs/sarif.md: the first 32 hex digits of SHA-256 over rule, file, api, resolved api and the
  // occurrence among identical ones, NUL-separated. Recomputed here with Python's hashlib.
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  const json& device = runOf(doc, "device")["results"];
  const auto expected = [&](const std::string& occurrence) {
    test::writeFile(dir / "h.py",
                    "import hashlib, os, sys\n"
                    "key = b'\\0'.join(os.fsencode(a) for a in sys.argv[1:])\n"
                    "print(hashlib.sha256(key).hexdigest()[:32], end='')\n");
    const auto r =
        test::run("/usr/bin/python3 " + test::quote((dir / "h.py").string()) + " DEV-001 " +
                  test::quote(kUnicodeFile) + " torch.cuda.synchronize torch.cuda.synchronize " + occurrence);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  };
  EXPECT_EQ(device[0]["partialFingerprints"]["migratePipeline/v1"], expected("0"));
  EXPECT_EQ(device[1]["partialFingerprints"]["migratePipeline/v1"], expected("1"));
}

TEST(Sarif, SameModelSameBytes) {
  TempDir dir;
  ASSERT_TRUE(writeSarif(sampleModel(), dir / "1.sarif").ok());
  ASSERT_TRUE(writeSarif(sampleModel(), dir / "2.sarif").ok());
  const std::string one = test::readFile(dir / "1.sarif");
  EXPECT_EQ(one, test::readFile(dir / "2.sarif"));
  std::ostringstream stream;
  writeSarif(stream, sampleModel());
  EXPECT_EQ(stream.str(), one);
  EXPECT_FALSE(test::fs::exists(dir / "1.sarif.tmp"));
}

TEST(Sarif, DiagnosticsGoToThePluginTheyNameTheRestToTheFirstRun) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  const json& device = runOf(doc, "device")["invocations"][0];
  const json& attention = runOf(doc, "attention")["invocations"][0];
  EXPECT_TRUE(device["executionSuccessful"]);
  EXPECT_FALSE(attention["executionSuccessful"]);  // the plugin threw
  EXPECT_EQ(device["startTimeUtc"], "2025-01-31T09:00:00Z");
  EXPECT_FALSE(runOf(doc, "precision")["invocations"][0].contains("toolExecutionNotifications"));

  const json& mine = attention["toolExecutionNotifications"];
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0]["level"], "error");
  EXPECT_EQ(mine[0]["descriptor"]["id"], "plugin-error");
  EXPECT_EQ(mine[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "models/attn.py");
  EXPECT_FALSE(mine[0]["locations"][0]["physicalLocation"].contains("region"));  // line 0: the whole file

  const json& rest = device["toolExecutionNotifications"];
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0]["descriptor"]["id"], "plugin-refused");
  EXPECT_FALSE(rest[0].contains("locations"));
  EXPECT_EQ(rest[1]["level"], "warning");
  EXPECT_EQ(rest[1]["locations"][0]["physicalLocation"]["region"]["startLine"], 4);
}

TEST(Sarif, GitSourceHasProvenanceWithoutCredentials) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  for (const json& run : doc["runs"]) {
    ASSERT_EQ(run["versionControlProvenance"].size(), 1u);
    const json& p = run["versionControlProvenance"][0];
    EXPECT_EQ(p["repositoryUri"], "https://example.com/org/repo.git");
    EXPECT_EQ(p["revisionId"], "0123456789abcdef0123456789abcdef01234567");
    EXPECT_EQ(p["mappedTo"]["uriBaseId"], "SRCROOT");
  }
  EXPECT_EQ(test::readFile(dir / "findings.sarif").find("s3cret"), std::string::npos);

  MigrationModel scp = sampleModel();
  scp.source.location = "git@example.com:org/my repo.git";
  EXPECT_EQ(writeAndRead(scp, dir, "scp.sarif")["runs"][0]["versionControlProvenance"][0]["repositoryUri"],
            "ssh://git@example.com/org/my%20repo.git");
  MigrationModel local = sampleModel();
  local.source = {"path", "/srv/checkouts/repo", "", "0123", {}};
  EXPECT_FALSE(writeAndRead(local, dir, "local.sarif")["runs"][0].contains("versionControlProvenance"));
  EXPECT_EQ(test::readFile(dir / "local.sarif").find("/srv/checkouts"), std::string::npos)
      << "a local checkout's path stays out of the log";
}

TEST(Sarif, RulesCarryDescriptionsHelpLevelsAndProperties) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  const json& att = runOf(doc, "attention")["tool"]["driver"]["rules"][0];
  EXPECT_EQ(att["name"], "FlashAttnFuncCall");  // PascalCase title, the remark in parentheses left out
  EXPECT_EQ(att["shortDescription"]["text"], "flash_attn_func call (FlashAttention 2).");
  EXPECT_EQ(att["fullDescription"]["text"], "<api> uses FlashAttention, which has no NPU build.");
  EXPECT_EQ(att["defaultConfiguration"]["level"], "error");
  EXPECT_EQ(att["properties"]["domain"], "attention");
  EXPECT_EQ(att["properties"]["effort_days"], 0.05);
  EXPECT_EQ(att["properties"]["tags"], json::array({"npu-migration", "attention"}));
  const std::string help = att["help"]["text"];
  EXPECT_NE(help.find("NPU alternative: torch_npu.npu_fusion_attention"), std::string::npos) << help;
  EXPECT_NE(help.find("Fixed automatically: no"), std::string::npos) << help;
  EXPECT_NE(att["help"]["markdown"].get<std::string>().find("- **Difficulty**: low"), std::string::npos);

  const json& device = runOf(doc, "device")["tool"]["driver"]["rules"];
  EXPECT_EQ(device[0]["defaultConfiguration"]["level"], "warning");
  EXPECT_EQ(device[1]["defaultConfiguration"]["level"], "note");  // info
  EXPECT_EQ(device[1]["name"], "CudnnBenchmarkOrCuDNNFlag");
  EXPECT_NE(device[0]["help"]["text"].get<std::string>().find("Fixed automatically: yes"), std::string::npos);
  EXPECT_EQ(device[0]["properties"]["tags"], json::array({"npu-migration", "device", "autofix"}));

  const json& results = runOf(doc, "device")["results"];
  EXPECT_EQ(results[0]["level"], "warning");
  EXPECT_EQ(results[2]["level"], "note");
  EXPECT_EQ(results[0]["message"]["text"],
            "torch.cuda.synchronize waits for the CUDA device. NPU alternative: torch.npu.synchronize.");
  const json& props = results[0]["properties"];
  EXPECT_EQ(props["api"], "torch.cuda.synchronize");
  EXPECT_EQ(props["confidence"], "high");
  EXPECT_EQ(props["phases"], json::array({"train"}));
  EXPECT_EQ(props["autofix"], true);
  EXPECT_EQ(props["fix_applied"], true);  // emit.fixed_findings holds index 2
  EXPECT_EQ(results[1]["properties"]["fix_applied"], false);
  EXPECT_EQ(runOf(doc, "attention")["results"][0]["properties"]["details"]["causal"], "True");
}

TEST(Sarif, FixesCarryTheEditsAsByteRegions) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);
  const json& results = runOf(doc, "device")["results"];
  ASSERT_TRUE(results[0].contains("fixes"));
  const json& change = results[0]["fixes"][0]["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "src/my%20model/%C3%9Cn%C3%AFcode%20%C3%9F.py");
  EXPECT_EQ(change["replacements"][0]["deletedRegion"]["byteOffset"], 128);
  EXPECT_EQ(change["replacements"][0]["deletedRegion"]["byteLength"], 22);
  EXPECT_EQ(change["replacements"][0]["insertedContent"]["text"], "torch.npu.synchronize");
  EXPECT_FALSE(results[2].contains("fixes"));
}

TEST(Sarif, MessageTextIsSafeSarif) {
  TempDir dir;
  const json doc = writeAndRead(sampleModel(), dir);  // parses: the invalid UTF-8 was replaced
  const json& flag = runOf(doc, "device")["results"][2];
  EXPECT_EQ(flag["properties"]["api"], "cudnn.\xef\xbf\xbd\xef\xbf\xbd");  // U+FFFD twice
  // SARIF reserves braces for placeholders: the literal ones are doubled.
  EXPECT_NE(flag["message"]["text"].get<std::string>().find("(a dict {{}} here)"), std::string::npos)
      << flag["message"]["text"];
  EXPECT_EQ(runOf(doc, "device")["tool"]["driver"]["rules"][1]["fullDescription"]["text"],
            "<api> sets a cuDNN flag <value> (a dict {{}} here).");
}

TEST(Sarif, AWriteThatCannotHappenIsAnErrorValue) {
  TempDir dir;
  const auto status = writeSarif(sampleModel(), dir / "missing" / "findings.sarif");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("missing"), std::string::npos) << status.error().message;
}

// The helper other tests use must find real errors, not pass everything.
TEST(SarifValidator, ReportsTheErrorsOfABrokenFile) {
  TempDir dir;
  const auto broken = [&](const std::string& result) {
    const json doc = {
        {"$schema",
         "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
        {"version", "2.1.0"},
        {"runs",
         {{{"tool", {{"driver", {{"name", "t"}, {"version", "1.0.0"}, {"rules", json::array()}}}}},
           {"results", json::array({json::parse(result)})}}}}};
    test::writeFile(dir / "broken.sarif", doc.dump(2));
    return test::validateSarif(dir / "broken.sarif");
  };
  const std::string location = R"("locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.py"},
                                  "region": {"startLine": 1}}}])";
  EXPECT_EQ(broken(R"({"ruleId": "R1", "message": {"text": "Fine."}, )" + location + "}"), "");
  const std::string zero_line =
      broken(R"({"ruleId": "R1", "message": {"text": "Line 0."}, "locations": [{"physicalLocation":
      {"artifactLocation": {"uri": "a.py"}, "region": {"startLine": 0}}}]})");
  EXPECT_NE(zero_line.find("startLine"), std::string::npos) << zero_line;
  const std::string space =
      broken(R"({"ruleId": "R1", "message": {"text": "Space."}, "locations": [{"physicalLocation":
      {"artifactLocation": {"uri": "a b.py"}, "region": {"startLine": 1}}}]})");
  EXPECT_NE(space.find("SARIF1002"), std::string::npos) << space;
  // The multitool skips this file without a word; the schema check does not.
  const std::string level =
      broken(R"({"ruleId": "R1", "level": "severe", "message": {"text": "Level."}, )" + location + "}");
  EXPECT_NE(level.find("'severe' is not one of"), std::string::npos) << level;
}

}  // namespace
}  // namespace migrate

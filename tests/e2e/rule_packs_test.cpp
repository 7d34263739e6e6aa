// End to end: rule packs (docs/rule-packs.md) written here, loaded by real `migrate-pipeline run`s on
// a real git repository; bad packs; `plugins`, `rules test`, `rules list` and `rules show`.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sarif_validator.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;

const char* kPackYaml = R"(format: 1
name: acme
version: 1.2.0
prefix: ACME
migrate_pipeline: ">=0.4, <1"
description: ACME's in-house GPU runtime
homepage: https://example.com/acme
domains:
  - name: acme_runtime
    title: ACME Runtime Issues
)";

/// ACME-001 joins the device domain, with a fix.
const char* kDeviceRules = R"(format: 1
domain: device
rules:
  - id: ACME-001
    title: acme.gpu.launch runs on CUDA only
    message: "{api} launches on CUDA only; use {npu}"
    match:
      api:
        - name: acme.gpu.launch
          npu: acme.npu.launch
    npu_alternative: "{npu}"
    confidence: high
    difficulty: low
    effort_days: 0.1
    fix: {replace_api: true}
    tests:
      invalid:
        - code: |
            import acme.gpu
            acme.gpu.launch(1)
          lines: [2]
      valid:
        - |
          import acme.npu
          acme.npu.launch(1)  # acme.gpu.launch in a comment is no use
)";

/// ACME-002 is in the domain the pack declares; its API has no NPU counterpart.
const char* kRuntimeRules = R"(format: 1
domain: acme_runtime
rules:
  - id: ACME-002
    title: the ACME profiler needs CUDA
    message: "{api} is the CUDA-only ACME profiler"
    match:
      import: [acme_profiler]
    npu_alternative: torch_npu.profiler
    confidence: medium
    difficulty: medium
    effort_days: 0.5
    no_npu_counterpart: true
    tests:
      invalid: ["import acme_profiler\n"]
      valid: ["import acme\n"]
)";

const char* kReadme = R"(# acme

### ACME-001 — acme.gpu.launch runs on CUDA only

Replace it with acme.npu.launch, which takes the same arguments.

### ACME-002 — the ACME profiler needs CUDA

Profile with torch_npu.profiler instead.
)";

void writePack(const fs::path& dir) {
  writeFile(dir / "pack.yaml", kPackYaml);
  writeFile(dir / "rules" / "device.yaml", kDeviceRules);
  writeFile(dir / "rules" / "runtime.yaml", kRuntimeRules);
  writeFile(dir / "README.md", kReadme);
}

/// `text` with `from` replaced by `to` (once; `from` must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string cli() {
  return quote(test::cli().string());
}

class RulePacks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    writePack(pack());
    const fs::path repo = dir_->path() / "repo";
    writeFile(repo / "train.py",
              "import acme.gpu\n"
              "import acme_profiler\n"
              "import torch\n"
              "\n"
              "\n"
              "def step(x):\n"
              "    acme.gpu.launch(x)\n"
              "    return torch.cuda.synchronize()\n");
    ASSERT_EQ(run("cd " + quote(repo.string()) +
                  " && git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm init")
                  .exit_code,
              0);
    // The pack named by the pipeline, relative to it.
    writeFile(dir_->path() / "pipeline.yaml",
              "version: 1\n"
              "source: {path: repo}\n"
              "stages: [analyze, plan, emit, report]\n"
              "plugins: {device: {}, phase_matrix: {}}\n"
              "rule_packs: [packs/acme]\n"
              "report: {directory: \"\"}\n");
    run_ = new test::CommandResult(run(cli() + " run " + quote((dir_->path() / "pipeline.yaml").string()) +
                                       " -q --output " + quote(out().string())));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path pack() { return dir_->path() / "packs" / "acme"; }
  static fs::path out() { return dir_->path() / "out"; }
  static json findings() { return json::parse(readFile(out() / "findings.json")); }

  /// A run of the pipeline with `--rule-pack` for each of `packs` (and the pipeline's own).
  static test::CommandResult runWith(const std::vector<fs::path>& packs, const fs::path& output) {
    std::string cmd = cli() + " run " + quote((dir_->path() / "pipeline.yaml").string()) +
                      " --stages analyze" + " --output " + quote(output.string());
    for (const auto& p : packs) cmd += " --rule-pack " + quote(p.string());
    return run(cmd);
  }

  /// A copy of the good pack under `name` with `file` replaced by `text`.
  static fs::path brokenPack(const std::string& name, const std::string& file, const std::string& text) {
    const fs::path dir = dir_->path() / "bad" / name;
    writePack(dir);
    writeFile(dir / file, text);
    return dir;
  }

  static TempDir* dir_;
  static test::CommandResult* run_;
};
TempDir* RulePacks::dir_ = nullptr;
test::CommandResult* RulePacks::run_ = nullptr;

TEST_F(RulePacks, FindingsOfBothDomainsInFindingsJson) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const json doc = findings();
  std::map<std::string, json> by_rule;
  for (const auto& f : doc["findings"]) by_rule[f["rule_id"]] = f;
  ASSERT_TRUE(by_rule.count("ACME-001")) << doc["findings"].dump(1);
  EXPECT_EQ(by_rule["ACME-001"]["domain"], "device") << "a pack rule joins an existing domain";
  EXPECT_EQ(by_rule["ACME-001"]["file"], "train.py");
  EXPECT_EQ(by_rule["ACME-001"]["line"], 7);
  EXPECT_EQ(by_rule["ACME-001"]["npu_alternative"], "acme.npu.launch");
  EXPECT_EQ(by_rule["ACME-001"]["autofix"], true);
  ASSERT_TRUE(by_rule.count("ACME-002"));
  EXPECT_EQ(by_rule["ACME-002"]["domain"], "acme_runtime");
  EXPECT_TRUE(by_rule.count("DEV-001")) << "the plugins' rules as before";
  bool listed = false;
  for (const auto& p : doc["plugins"])
    if (p["name"] == "acme") {
      listed = true;
      EXPECT_EQ(p["version"], "1.2.0");
      EXPECT_EQ(p["rules"], 2);
    }
  EXPECT_TRUE(listed) << doc["plugins"].dump();
  std::set<std::string> declared_by;
  for (const auto& r : doc["rules"])
    declared_by.insert(r["id"].get<std::string>() + "@" + r["plugin"].get<std::string>());
  EXPECT_TRUE(declared_by.count("ACME-001@acme"));
  EXPECT_TRUE(declared_by.count("ACME-002@acme"));
  std::map<std::string, bool> no_counterpart;
  for (const auto& r : doc["rules"]) no_counterpart[r["id"]] = r["no_npu_counterpart"];
  EXPECT_EQ(no_counterpart["ACME-002"], true) << "a pack's rule says it as a plugin's does";
  EXPECT_EQ(no_counterpart["ACME-001"], false);
  EXPECT_EQ(no_counterpart["DEV-001"], false);
  ASSERT_EQ(doc["domains"].size(), 1u);
  EXPECT_EQ(doc["domains"][0],
            (json{{"name", "acme_runtime"}, {"title", "ACME Runtime Issues"}, {"pack", "acme"}}));
  // findings.json with a pack's plugin record, rules and domains follows its published schema.
  TempDir work;
  writeFile(work / "validate.py",
            "import json,sys,jsonschema\n"
            "schema=json.load(open(sys.argv[1])); doc=json.load(open(sys.argv[2]))\n"
            "jsonschema.Draft202012Validator(schema).validate(doc)\n"
            "print('valid')\n");
  auto v = run("/usr/bin/python3 " + quote((work / "validate.py").string()) + " " +
               quote((test::sourceDir() / "docs" / "findings.schema.json").string()) + " " +
               quote((out() / "findings.json").string()));
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

TEST_F(RulePacks, FindingsInSarifAndCsv) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const json sarif = json::parse(readFile(out() / "findings.sarif"));
  std::set<std::string> pack_results;
  bool described = false;
  for (const auto& r : sarif["runs"]) {
    if (r["tool"]["driver"]["name"] != "migrate-pipeline/acme") continue;
    for (const auto& rule : r["tool"]["driver"]["rules"]) described |= rule["id"] == "ACME-001";
    for (const auto& result : r["results"]) pack_results.insert(result["ruleId"]);
  }
  EXPECT_EQ(pack_results, (std::set<std::string>{"ACME-001", "ACME-002"})) << "the pack's run";
  EXPECT_TRUE(described);
  EXPECT_EQ(test::validateSarif(out() / "findings.sarif"), "");
  const std::string csv = readFile(out() / "findings.csv");
  EXPECT_NE(csv.find("ACME-001"), std::string::npos) << csv;
  EXPECT_NE(csv.find("acme_runtime"), std::string::npos) << csv;
  EXPECT_NE(readFile(out() / "change_list.csv").find("ACME-001"), std::string::npos);
  // ACME-002's API has no NPU counterpart: its place is the one row of unsupported_apis.csv.
  EXPECT_EQ(readFile(out() / "unsupported_apis.csv"),
            "api,written,rule_id,domain,severity,file,line,column,message,npu_alternative\r\n"
            "acme_profiler,acme_profiler,ACME-002,acme_runtime,warning,train.py,2,1,"
            "acme_profiler is the CUDA-only ACME profiler,torch_npu.profiler\r\n");
}

TEST_F(RulePacks, TheFixIsAppliedInTheAdaptedSourcesAndThePatch) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const std::string adapted = readFile(out() / "adapted" / "train.py");
  EXPECT_NE(adapted.find("    acme.npu.launch(x)\n"), std::string::npos) << adapted;
  EXPECT_EQ(adapted.find("acme.gpu.launch"), std::string::npos) << adapted;
  const std::string patch = readFile(out() / "npu_migration.patch");
  EXPECT_NE(patch.find("-    acme.gpu.launch(x)\n"), std::string::npos) << patch;
  EXPECT_NE(patch.find("+    acme.npu.launch(x)\n"), std::string::npos) << patch;
  EXPECT_EQ(readFile(dir_->path() / "repo" / "train.py").find("acme.npu"), std::string::npos)
      << "the source is never modified";
}

TEST_F(RulePacks, TheNewDomainHasItsOwnReportGroup) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  std::string report;
  for (const auto& e : fs::directory_iterator(out()))
    if (e.path().filename().string().rfind("CodeReview_Results_", 0) == 0) report = readFile(e.path());
  ASSERT_FALSE(report.empty());
  const auto group = report.find("### 3.8 ACME Runtime Issues");
  ASSERT_NE(group, std::string::npos) << "after the seven groups of seed 000";
  const auto next = report.find("\n## 4.", group);
  const std::string section = report.substr(group, next - group);
  EXPECT_NE(section.find("the ACME profiler needs CUDA"), std::string::npos) << section;
  EXPECT_EQ(section.find("acme.gpu.launch runs on CUDA only"), std::string::npos)
      << "ACME-001 is in the device domain's group";
  const auto configuration = report.find("### 3.7 Configuration and Maintainability Issues");
  ASSERT_NE(configuration, std::string::npos);
  EXPECT_NE(report.substr(configuration, group - configuration).find("acme.gpu.launch runs on CUDA only"),
            std::string::npos);
  // Written again from the outputs, the report keeps the group.
  auto again = run(cli() + " report " + quote(out().string()) + " -q --set 'report.directory=\"\"'");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  for (const auto& e : fs::directory_iterator(out())) {
    if (e.path().filename().string().rfind("CodeReview_Results_", 0) == 0) {
      EXPECT_NE(readFile(e.path()).find("### 3.8 ACME Runtime Issues"), std::string::npos);
    }
  }
}

TEST_F(RulePacks, LoadedFromTheCommandLineAndListedByPlugins) {
  TempDir other;
  writePack(other / "acme2");
  writeFile(other / "acme2" / "pack.yaml", replaced(replaced(replaced(kPackYaml, "name: acme", "name: acme2"),
                                                             "prefix: ACME", "prefix: ACMX"),
                                                    "acme_runtime", "acmx_runtime"));
  writeFile(other / "acme2" / "rules" / "device.yaml", replaced(kDeviceRules, "ACME-001", "ACMX-001"));
  writeFile(other / "acme2" / "rules" / "runtime.yaml",
            replaced(replaced(kRuntimeRules, "ACME-002", "ACMX-002"), "domain: acme_runtime",
                     "domain: acmx_runtime"));
  fs::remove(other / "acme2" / "README.md");
  auto r = runWith({other / "acme2"}, other / "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(readFile(other / "out" / "findings.json"));
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["rule_id"]);
  EXPECT_TRUE(ids.count("ACMX-001") && ids.count("ACME-001")) << "both packs: --rule-pack and rule_packs";
  auto dumped = run(cli() + " config dump " + quote((dir_->path() / "pipeline.yaml").string()) +
                    " --rule-pack " + quote((other / "acme2").string()));
  ASSERT_EQ(dumped.exit_code, 0) << dumped.output;
  EXPECT_NE(dumped.output.find("rule_packs: [" + pack().lexically_normal().string() + ", " +
                               (other / "acme2").string() + "]"),
            std::string::npos)
      << dumped.output;
  auto listed = run(cli() + " plugins --rule-pack " + quote(pack().string()));
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("rule packs:\n  acme 1.2.0  domain=acme_runtime, device  rules=2"),
            std::string::npos)
      << listed.output;
  EXPECT_NE(listed.output.find("declares domain acme_runtime: ACME Runtime Issues"), std::string::npos);
  // The pipeline's rule_packs first, as a run loads them, then --rule-pack.
  auto with_pipeline = run(cli() + " plugins --pipeline " + quote((dir_->path() / "pipeline.yaml").string()) +
                           " --rule-pack " + quote((other / "acme2").string()));
  ASSERT_EQ(with_pipeline.exit_code, 0) << with_pipeline.output;
  EXPECT_NE(with_pipeline.output.find("rule packs:\n  acme 1.2.0  domain=acme_runtime, device  rules=2  " +
                                      pack().lexically_normal().string()),
            std::string::npos)
      << with_pipeline.output;
  EXPECT_NE(with_pipeline.output.find("\n  acme2 1.2.0  domain=acmx_runtime, device  rules=2"),
            std::string::npos)
      << with_pipeline.output;
  auto bad_pipeline = run(cli() + " plugins --pipeline " + quote((other / "missing.yaml").string()));
  EXPECT_EQ(bad_pipeline.exit_code, 2) << bad_pipeline.output;
  EXPECT_NE(bad_pipeline.output.find("missing.yaml"), std::string::npos) << bad_pipeline.output;
}

/// A bad pack stops the run before analysis, exit 4, with where and what to do.
void expectRefused(const test::CommandResult& r, const fs::path& out, const std::string& message) {
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  const json doc = json::parse(readFile(out / "findings.json"));
  EXPECT_EQ(doc["run"]["stages"][0]["name"], "analyze");
  EXPECT_EQ(doc["run"]["stages"][0]["status"], "failed");
  EXPECT_TRUE(doc["findings"].empty());
  EXPECT_EQ(r.output.find("inventory:"), std::string::npos) << "nothing analysed";
}

TEST_F(RulePacks, MalformedPacksStopTheRunBeforeAnalysis) {
  TempDir out;
  struct Case {
    std::string name, file, text, message;
  };
  const std::string packs = (dir_->path() / "bad").string();
  const std::vector<Case> cases{
      {"yaml", "pack.yaml", "format: 1\nname: [acme\n", "pack.yaml:3:1: malformed YAML"},
      {"key", "pack.yaml", std::string(kPackYaml) + "licence: MIT\n",
       "pack.yaml:11:1: unknown key 'licence' in pack.yaml"},
      {"format", "pack.yaml", replaced(kPackYaml, "format: 1", "format: 2"),
       "pack.yaml:1:9: unsupported pack format 2; this migrate-pipeline reads format 1"},
      {"snippets", "rules/runtime.yaml", replaced(kRuntimeRules, "      valid: [\"import acme\\n\"]\n", ""),
       "rules/runtime.yaml:4:5: rule ACME-002: has no valid snippet"},
      {"range", "pack.yaml", replaced(kPackYaml, "\">=0.4, <1\"", "\">=0.5\""),
       "pack.yaml:5:19: pack acme 1.2.0 works with migrate-pipeline >=0.5, and this is migrate-pipeline "
       "0.4.0"},
      {"builtin", "rules/device.yaml", replaced(kDeviceRules, "ACME-001", "DEV-001"),
       "rules/device.yaml:4:5: rule DEV-001: the pack's rule ids start with its prefix"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path bad = brokenPack(c.name, c.file, c.text);
    const fs::path o = out / c.name;
    const auto r = runWith({bad}, o);
    expectRefused(r, o, c.message);
    EXPECT_NE(r.output.find(bad.string() + "/" + c.file + ":"), std::string::npos) << "the file, in full";
  }
}

TEST_F(RulePacks, ClashingIdsNameBothPlacesAndEveryProblemIsReported) {
  TempDir out;
  // A pack whose prefix is a plugin's: the prefix is refused, and DEV-001 clashes with the device
  // plugin's rule.
  const fs::path dev = brokenPack("dev", "pack.yaml", replaced(kPackYaml, "prefix: ACME", "prefix: DEV"));
  writeFile(dev / "rules" / "device.yaml", replaced(kDeviceRules, "ACME-001", "DEV-001"));
  writeFile(dev / "rules" / "runtime.yaml", replaced(kRuntimeRules, "ACME-002", "DEV-900"));
  // A second copy of the good pack under another name: its ids clash with the first's.
  const fs::path twin = brokenPack("twin", "pack.yaml", replaced(kPackYaml, "name: acme", "name: twin"));
  auto r = runWith({dev, twin}, out.path());
  expectRefused(r, out.path(), "rules/device.yaml:4:5: rule id DEV-001 is also defined at device:rules/");
  EXPECT_NE(r.output.find(dev.string() +
                          "/pack.yaml:4:9: prefix DEV is also the prefix of the built-in rules (DEV-"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(twin.string() + "/rules/device.yaml:4:5: rule id ACME-001 is also defined at " +
                          pack().string() + "/rules/device.yaml:4:5"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(twin.string() + "/pack.yaml:4:9: prefix ACME is also the prefix of the pack at " +
                          pack().string() + "/pack.yaml:4:9"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("/pack.yaml:9:11: domain acme_runtime is also declared at " + pack().string() +
                          "/pack.yaml:9:11"),
            std::string::npos);
}

TEST_F(RulePacks, RulesTestPassesOnAGoodPackAndEveryShippedPluginRulesDirectory) {
  auto good = run(cli() + " rules test " + quote(pack().string()));
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_NE(good.output.find("ok   " + pack().string() + ": 2 rules, 4 snippets"), std::string::npos)
      << good.output;
  std::string dirs;
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(test::sourceDir() / "plugins"))
    if (fs::is_directory(e.path() / "rules")) {
      dirs += " " + quote((e.path() / "rules").string());
      ++n;
    }
  ASSERT_GE(n, 6u);
  auto shipped = run(cli() + " rules test" + dirs);
  EXPECT_EQ(shipped.exit_code, 0) << shipped.output;
  EXPECT_NE(shipped.output.find("rules test: " + std::to_string(n) + " directories, "), std::string::npos);
  EXPECT_NE(shipped.output.find("all passed"), std::string::npos) << shipped.output;
}

TEST_F(RulePacks, RulesTestReportsEveryBrokenSnippetOfEveryPack) {
  // ACME-001's valid snippet uses the API: a finding where none is expected.
  const fs::path broken =
      brokenPack("broken-snippet", "rules/device.yaml",
                 replaced(kDeviceRules, "          import acme.npu\n          acme.npu.launch(1)",
                          "          import acme.gpu\n          acme.gpu.launch(1)"));
  // ACME-002 expects its finding on a line where there is none, in a second pack.
  const fs::path lines =
      brokenPack("wrong-lines", "pack.yaml",
                 replaced(replaced(kPackYaml, "name: acme", "name: other"), "prefix: ACME", "prefix: OTH"));
  writeFile(lines / "rules" / "device.yaml", replaced(kDeviceRules, "ACME-001", "OTH-001"));
  writeFile(lines / "rules" / "runtime.yaml",
            replaced(replaced(replaced(kRuntimeRules, "ACME-002", "OTH-002"), "domain: acme_runtime",
                              "domain: oth"),
                     "      invalid: [\"import acme_profiler\\n\"]",
                     "      invalid:\n        - code: \"import acme_profiler\\n\"\n          lines: [3]"));
  writeFile(lines / "pack.yaml", replaced(readFile(lines / "pack.yaml"), "acme_runtime", "oth"));
  fs::remove(lines / "README.md");
  auto r = run(cli() + " rules test " + quote(broken.string()) + " " + quote(lines.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find("FAIL ACME-001 " + broken.string() +
                    "/rules/device.yaml:23 (valid snippet): expected no finding of ACME-001, found 1 on "
                    "lines [2]"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("        2 | acme.gpu.launch(1)"), std::string::npos) << "the snippet, numbered";
  EXPECT_NE(
      r.output.find("FAIL OTH-002 " + lines.string() +
                    "/rules/runtime.yaml:16 (invalid snippet): expected findings of OTH-002 on lines [3], "
                    "found on lines [1]"),
      std::string::npos)
      << r.output;
  EXPECT_NE(
      r.output.find("rules test: 2 directories, 4 rules, 8 snippets: 2 failure(s), 0 problem(s) loading"),
      std::string::npos)
      << r.output;
  // A pack that does not load is reported with the others' results.
  const fs::path bad = brokenPack("bad-format", "pack.yaml", replaced(kPackYaml, "format: 1", "format: 3"));
  // Its rule files are checked all the same: every problem of every pack in one go.
  writeFile(bad / "rules" / "runtime.yaml",
            replaced(kRuntimeRules, "      valid: [\"import acme\\n\"]\n", ""));
  auto both = run(cli() + " rules test " + quote(bad.string()) + " " + quote(pack().string()));
  EXPECT_EQ(both.exit_code, 1) << both.output;
  EXPECT_NE(both.output.find("ERROR " + bad.string() + "/pack.yaml:1:9: unsupported pack format 3"),
            std::string::npos)
      << both.output;
  EXPECT_NE(both.output.find("ERROR " + bad.string() +
                             "/rules/runtime.yaml:4:5: rule ACME-002: has no valid snippet"),
            std::string::npos)
      << both.output;
  EXPECT_NE(both.output.find("ok   " + pack().string()), std::string::npos) << both.output;
}

TEST_F(RulePacks, RulesListAndShow) {
  auto table = run(cli() + " rules list --rule-pack " + quote(pack().string()));
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("DEV-001"), std::string::npos);
  EXPECT_NE(table.output.find("ACME-001"), std::string::npos);
  EXPECT_NE(table.output.find("pack acme"), std::string::npos);
  auto only =
      run(cli() + " rules list --domain acme_runtime --format json --rule-pack " + quote(pack().string()));
  ASSERT_EQ(only.exit_code, 0) << only.output;
  const json rules = json::parse(only.output);
  ASSERT_EQ(rules.size(), 1u) << only.output;
  EXPECT_EQ(rules[0]["id"], "ACME-002");
  EXPECT_EQ(rules[0]["from"], "pack");
  EXPECT_EQ(rules[0]["name"], "acme");
  EXPECT_EQ(rules[0]["match"], "import");
  EXPECT_EQ(rules[0]["npu_alternative"], "torch_npu.profiler");
  EXPECT_EQ(rules[0]["no_npu_counterpart"], true);
  auto show = run(cli() + " rules show ACME-001 --rule-pack " + quote(pack().string()));
  ASSERT_EQ(show.exit_code, 0) << show.output;
  for (const char* part : {"ACME-001  acme.gpu.launch runs on CUDA only", "from:            pack acme",
                           "message:         {api} launches on CUDA only; use {npu}",
                           "NPU alternative: {npu}", "NPU counterpart: -", "fix:             replace_api",
                           "    Replace it with acme.npu.launch, which takes the same arguments.",
                           "  invalid snippets:", "    acme.gpu.launch(1)", "  valid snippets:"})
    EXPECT_NE(show.output.find(part), std::string::npos) << part << "\n" << show.output;
  auto builtin = run(cli() + " rules show DEV-001");
  ASSERT_EQ(builtin.exit_code, 0) << builtin.output;
  EXPECT_NE(builtin.output.find("from:            plugin device"), std::string::npos) << builtin.output;
  EXPECT_NE(builtin.output.find("    ### DEV-001"), std::string::npos) << "the plugin README's entry";
  auto unknown = run(cli() + " rules show NOPE-1");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("no plugin or rule pack has a rule NOPE-1"), std::string::npos);
}

TEST_F(RulePacks, NewPackWritesASkeletonThatPassesRulesTest) {
  TempDir where;
  auto made = run(cli() + " new pack acme-gpu --dir " + quote(where.path().string()));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const fs::path skeleton = where / "acme-gpu";
  for (const char* file : {"pack.yaml", "rules/acme_gpu.yaml", "README.md"})
    EXPECT_TRUE(fs::exists(skeleton / file)) << file;
  auto tested = run(cli() + " rules test " + quote(skeleton.string()));
  EXPECT_EQ(tested.exit_code, 0) << tested.output;
  EXPECT_NE(tested.output.find("1 rules, 2 snippets: all passed"), std::string::npos) << tested.output;
  auto listed = run(cli() + " plugins --rule-pack " + quote(skeleton.string()));
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("acme-gpu 0.1.0  domain=device  rules=1"), std::string::npos) << listed.output;
  auto again = run(cli() + " new pack acme-gpu --dir " + quote(where.path().string()));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.output.find("exists"), std::string::npos) << again.output;
  EXPECT_EQ(run(cli() + " new pack 'no good' --dir " + quote(where.path().string())).exit_code, 2);
}

}  // namespace
}  // namespace migrate

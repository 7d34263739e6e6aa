// End to end: the real migrate-pipeline executable as a child process, on the bundled example,
// on real git repositories, and on bad input.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;

std::string cli() {
  return quote(test::cli().string());
}
std::string fullPipeline() {
  return quote((test::sourceDir() / "pipelines" / "full.yaml").string());
}

/// `migrate-pipeline run` on full.yaml, the report in the output directory only (the tests'
/// working directory stays clean; the report tests cover the default).
std::string fullRun() {
  return cli() + " run " + fullPipeline() + " --set 'report.directory=\"\"'";
}

json readJson(const std::filesystem::path& p) {
  return json::parse(test::readFile(p));
}

std::size_t countRule(const json& doc, const std::string& id) {
  std::size_t n = 0;
  for (const auto& f : doc["findings"]) n += f["rule_id"] == id ? 1 : 0;
  return n;
}

bool hasDiagnostic(const json& doc, const std::string& code, const std::string& file) {
  for (const auto& d : doc["diagnostics"])
    if (d["code"] == code && d["file"] == file) return true;
  return false;
}

TEST(Cli, VersionHelpAndPlugins) {
  auto v = run(cli() + " --version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.output.find("migrate-pipeline 0.4.0\ncommit: "), std::string::npos) << v.output;
  EXPECT_NE(v.output.find("\nplugins: " + test::pluginDir().string() + "\n"), std::string::npos) << v.output;
  EXPECT_NE(v.output.find(" (build tree)"), std::string::npos) << v.output;
  auto h = run(cli() + " --help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.output.find("Exit codes"), std::string::npos);
  auto p = run(cli() + " plugins");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("device 0.1.0  domain=device  rules="), std::string::npos) << p.output;
  auto none = run(cli() + " frobnicate");
  EXPECT_EQ(none.exit_code, 2);
}

TEST(Cli, PipelinesRunByTheirShippedNameOrPath) {
  TempDir out;
  // The build tree links the shipped pipelines as an installation holds them.
  auto dump = run(cli() + " config dump analyze-only --output " + quote((out / "a").string()));
  ASSERT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_NE(dump.output.find("name: analyze-only"), std::string::npos) << dump.output;
  auto r = run(cli() + " run full --stages analyze -q --output " + quote((out / "b").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out / "b/findings.json"));
  auto unknown = run(cli() + " run nope");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("pipeline 'nope': no such file, and no shipped pipeline of that name; the "
                                "shipped pipelines ("),
            std::string::npos)
      << unknown.output;
  EXPECT_NE(unknown.output.find("): analyze-only, full; give a pipeline YAML file or one of their names"),
            std::string::npos)
      << unknown.output;
  auto missing = run(cli() + " run " + quote((out / "none.yaml").string()));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("none.yaml': no such file; the shipped pipelines"), std::string::npos)
      << missing.output;
}

TEST(Cli, RunsTheBundledExampleDeterministically) {
  TempDir out;
  auto r1 = run(fullRun() + " --output " + quote((out / "a").string()));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  EXPECT_NE(r1.output.find("analyze: 15/15 (100%)"), std::string::npos)
      << "plain progress lines when not a terminal";
  EXPECT_NE(r1.output.find("report: "), std::string::npos) << r1.output;
  // The second run stops after emit: what is compared comes before the verification.
  auto r2 = run(fullRun() + " --jobs 1 --stages analyze,plan,emit --output " + quote((out / "b").string()));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  json a = readJson(out / "a" / "findings.json");
  json b = readJson(out / "b" / "findings.json");
  EXPECT_EQ(a["findings"], b["findings"]) << "same findings, same order, whatever the thread count";
  EXPECT_EQ(a["plan"], b["plan"]) << "the same plan, number for number";
  EXPECT_EQ(readFile(out / "a" / "npu_migration.patch"), readFile(out / "b" / "npu_migration.patch"));
  EXPECT_EQ(readFile(out / "a" / "emit.json"), readFile(out / "b" / "emit.json"));
  EXPECT_FALSE(a["plan"]["assessment"].is_null()) << "full.yaml enables phase_matrix";
  EXPECT_GT(a["findings"].size(), 50u);
  EXPECT_TRUE(std::filesystem::exists(out / "a" / "run.log"));
  // Every stage is accounted for.
  std::vector<std::string> statuses;
  for (const auto& s : a["run"]["stages"])
    statuses.push_back(s["name"].get<std::string>() + ":" + s["status"].get<std::string>());
  EXPECT_EQ(statuses, (std::vector<std::string>{"analyze:completed", "plan:completed", "emit:completed",
                                                "verify:completed", "report:completed"}));
  // Accuracy on the example: prose and the project's own look-alikes are not findings.
  for (const auto& f : a["findings"]) {
    EXPECT_GE(f["line"].get<int>(), 1);
    EXPECT_NE(f["api"], "is_cuda_graph_enabled");
    EXPECT_NE(f["api"], "pg.init_process_group");
  }
}

TEST(Cli, PlanWithoutAnalyzeFailsTheRunAndSaysWhy) {
  TempDir out;
  auto r = run(fullRun() + " --stages plan --output " + quote(out.path().string()));
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_NE(r.output.find("the plan stage needs the analyze stage in the same run"), std::string::npos)
      << r.output;
  json doc = readJson(out / "findings.json");
  EXPECT_EQ(doc["run"]["stages"][1]["status"], "failed");
  EXPECT_TRUE(doc["plan"].is_null());
}

TEST(Cli, FindingsJsonMatchesThePublishedSchema) {
  TempDir out;
  auto r = run(fullRun() + " -q --output " + quote(out.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string script =
      "import json,sys,jsonschema\n"
      "schema=json.load(open(sys.argv[1])); doc=json.load(open(sys.argv[2]))\n"
      "jsonschema.Draft202012Validator.check_schema(schema)\n"
      "jsonschema.Draft202012Validator(schema).validate(doc)\n"
      "bad=json.loads(json.dumps(doc)); bad['findings'][0]['line']=0\n"
      "errors=list(jsonschema.Draft202012Validator(schema).iter_errors(bad))\n"
      "assert errors, 'schema accepted line 0'\n"
      "fired={f['rule_id'] for f in doc['findings'] + doc['dependencies']}\n"
      "assert fired == {r['id'] for r in doc['rules']}, 'rules != fired rules'\n"
      "assert doc['dependencies'] and all(d['details']['row'] == 'dependency' for d in doc['dependencies'])\n"
      "assert not any(f['details'].get('row') == 'dependency' for f in doc['findings']), 'a row among "
      "findings'\n"
      "bad=json.loads(json.dumps(doc)); bad['rules'][0]['severity']='severe'\n"
      "assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad)), 'schema accepted a bad rule'\n"
      "print('valid')\n";
  writeFile(out / "validate.py", script);
  auto v = run("/usr/bin/python3 " + quote((out / "validate.py").string()) + " " +
               quote((test::sourceDir() / "docs" / "findings.schema.json").string()) + " " +
               quote((out / "findings.json").string()));
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_NE(v.output.find("valid"), std::string::npos);
}

TEST(Cli, BadInputIsDiagnosedAndTheRestAnalysed) {
  TempDir repo;
  writeFile(repo / "good.py", "import torch\ntorch.cuda.synchronize()\n");
  writeFile(repo / "broken.py", "import torch\ndef f(:\n    pass\ntorch.cuda.empty_cache()\n");
  writeFile(repo / "latin1.py", "# caf\xe9\nimport torch\nx = torch.ones(1).cuda()\n");
  writeFile(repo / "weights.bin", std::string("\x00\xff\x00", 3));
  writeFile(repo / "unclosed.py", "x = foo(\n");
  TempDir outside;
  writeFile(outside / "x.py", "import torch\ntorch.cuda.synchronize()\n");
  std::filesystem::create_symlink(outside / "x.py", repo / "link.py");
  TempDir out;
  auto r =
      run(fullRun() + " --source " + quote(repo.path().string()) + " --output " + quote(out.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json doc = readJson(out / "findings.json");
  EXPECT_TRUE(hasDiagnostic(doc, "parse-error", "broken.py"));
  EXPECT_TRUE(hasDiagnostic(doc, "parse-error", "unclosed.py"));
  EXPECT_TRUE(hasDiagnostic(doc, "not-utf8", "latin1.py"));
  EXPECT_TRUE(hasDiagnostic(doc, "binary-file", "weights.bin"));
  EXPECT_TRUE(hasDiagnostic(doc, "symlink-escapes", "link.py"));
  std::set<std::string> files;
  for (const auto& f : doc["findings"]) files.insert(f["file"].get<std::string>());
  EXPECT_EQ(files, (std::set<std::string>{"broken.py", "good.py", "latin1.py"}));
}

TEST(Cli, PipelineErrorsExitWithUsageCode) {
  TempDir dir;
  writeFile(dir / "bad.yaml", "version: 1\nsource: {path: .}\nplugins: {device: {}}\njobz: 3\n");
  auto r = run(cli() + " run " + quote((dir / "bad.yaml").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("bad.yaml:4:1: unknown key 'jobz' in the pipeline; did you mean 'jobs'?"),
            std::string::npos)
      << r.output;
  writeFile(dir / "malformed.yaml", "version: 1\nsource: [\n");
  auto m = run(cli() + " run " + quote((dir / "malformed.yaml").string()));
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.output.find("malformed YAML"), std::string::npos) << m.output;
  auto s = run(fullRun() + " --set jobs=x");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE(s.output.find("--set jobs=x"), std::string::npos) << s.output;
  writeFile(dir / "opt.yaml", "version: 1\nsource: {path: .}\nplugins: {device: {options: {x: 1}}}\n");
  auto o = run(cli() + " run " + quote((dir / "opt.yaml").string()) + " --output " +
               quote((dir / "o").string()) + " --set 'report.directory=\"\"'");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("opt.yaml:3:30: plugin device has no option 'x'"), std::string::npos) << o.output;
}

TEST(Cli, PluginProblemsExitWithPluginCode) {
  TempDir out;
  auto dir = run(fullRun() + " --plugin-dir /nonexistent/plugins --output " + quote(out.path().string()));
  EXPECT_EQ(dir.exit_code, 4);
  EXPECT_NE(dir.output.find("plugin directory /nonexistent/plugins does not exist"), std::string::npos)
      << dir.output;
  auto missing = run(fullRun() + " --set plugins.nosuch={} --output " + quote(out.path().string()));
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_NE(missing.output.find("plugin 'nosuch' is not in"), std::string::npos) << missing.output;
  EXPECT_TRUE(std::filesystem::exists(out / "findings.json"));
}

TEST(Cli, AThrowingPluginBecomesADiagnosticAndTheRunGoesOn) {
  TempDir repo;
  writeFile(repo / "a.py", "import torch\ntorch.cuda.synchronize()\n");
  TempDir out;
  auto r = run(fullRun() + " --source " + quote(repo.path().string()) + " --plugin-dir " +
               quote(test::testPluginDir().string()) +
               " --set plugins=null --set plugins.throwing={} --output " + quote(out.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("plugin refused"), std::string::npos);
  json doc = readJson(out / "findings.json");
  EXPECT_EQ(countRule(doc, "TST-001"), 1u) << "its rules still ran";
  int plugin_errors = 0;
  for (const auto& d : doc["diagnostics"])
    if (d["code"] == "plugin-error") {
      ++plugin_errors;
      EXPECT_NE(d["message"].get<std::string>().find("plugin throwing failed"), std::string::npos);
    }
  EXPECT_EQ(plugin_errors, 2) << "analyzeModule and analyzeRepository";
}

TEST(Cli, ClonesAGitUrlAtARefAndRecordsTheCommit) {
  TempDir upstream;
  const std::string g =
      "git -C " + quote(upstream.path().string()) + " -c user.name=t -c user.email=t@example.invalid ";
  ASSERT_EQ(run("git init -q -b main " + quote(upstream.path().string())).exit_code, 0);
  writeFile(upstream / "train.py", "import torch\nmodel.cuda()\n");
  ASSERT_EQ(run(g + "add -A && " + g + "commit -qm one && " + g + "tag v1").exit_code, 0);
  writeFile(upstream / "train.py", "import torch\nmodel.cuda()\ntorch.cuda.synchronize()\n");
  ASSERT_EQ(run(g + "commit -qam two").exit_code, 0);
  const std::string v1 = run(g + "rev-parse v1").output.substr(0, 40);
  TempDir out;
  auto r = run(fullRun() + " --source " + quote("file://" + upstream.path().string()) +
               " --ref v1 --output " + quote(out.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json doc = readJson(out / "findings.json");
  EXPECT_EQ(doc["source"]["kind"], "git");
  EXPECT_EQ(doc["source"]["commit"], v1);
  EXPECT_EQ(doc["findings"].size(), 1u) << "the tagged commit has one CUDA use";
  auto bad =
      run(fullRun() + " --source file:///nonexistent/repo.git --output " + quote((out / "bad").string()));
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.output.find("cannot clone file:///nonexistent/repo.git"), std::string::npos) << bad.output;
  json failed = readJson(out / "bad" / "findings.json");
  EXPECT_EQ(failed["run"]["stages"][0]["status"], "failed");
}

TEST(Cli, ConfigDumpShowsTheEffectivePipeline) {
  auto r = run(cli() + " config dump " + fullPipeline() + " --jobs 3 --stages analyze --set name=nightly");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("name: nightly"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("jobs: 3"), std::string::npos);
  EXPECT_NE(r.output.find("stages: [analyze]"), std::string::npos);
  EXPECT_NE(r.output.find("examples/gpt_cuda"), std::string::npos);
}

}  // namespace
}  // namespace migrate

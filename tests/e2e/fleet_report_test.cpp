// `migrate-pipeline fleet report` (issue 34): three real nights over real git repositories with
// the real device, deps and phase_matrix plugins. The report's what-if is checked against what
// the plan stage then writes: night 2 solves a dependency in one repository's code and its
// verdict becomes the predicted one; night 3 adds a rule pack whose rule becomes the blocker, and
// the prediction for it is the verdict of the night before. Read back as JSON (validated against
// docs/schemas/fleet-report.schema.json), as CSV through Python's csv module, as Markdown, and on
// the dashboard in headless Chromium.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/chromium.hpp"
#include "support/launch_pack.hpp"
#include "support/test_support.hpp"

namespace migrate::test {
namespace {

using nlohmann::json;

/// A training script that imports CuPy (unless `cupy` is false) and moves a tensor with `.cuda()`,
/// declared with its requirements; `extra` is appended to the script.
void commit(const fs::path& repo, bool cupy, const std::string& extra, const std::string& message) {
  writeFile(repo / "train.py", std::string(cupy ? "import cupy\n" : "") +
                                   "import torch\n\nx = torch.zeros(1).cuda()\n" + extra +
                                   "\nif __name__ == \"__main__\":\n    print(x)\n");
  writeFile(repo / "requirements.txt",
            std::string("torch==2.7.1\n") + (cupy ? "cupy-cuda12x==13.0.0\n" : ""));
  commitAll(repo, message);
}

class FleetReport : public ::testing::Test {
 protected:
  FleetReport() {
    writeFile(dir_ / "pipeline.yaml",
              "version: 1\nsource: {path: .}\nplugin_dir: " + quote(pluginDir().string()) +
                  "\nplugins: {device: {}, deps: {}, phase_matrix: {}}\n"
                  "stages: [analyze, plan, emit, report]\n");
    writeLaunchPack(dir_ / "packs/acme",
                    "    severity: error\n    npu_alternative: acme.npu.launch\n    effort_days: 0.5\n");
  }
  void manifest(const std::string& extra = "") {
    writeFile(dir_ / "fleet.yaml",
              "format: 1\npipeline: pipeline.yaml\ndefaults: {timeout: 2m" + extra +
                  "}\nrepos:\n  - {name: alpha, source: src/alpha}\n"
                  "  - {name: beta, source: src/beta}\n  - {name: gamma, source: src/gamma}\n");
  }
  void night() {
    const CommandResult r =
        run(quote(cli().string()) + " fleet run " + quote((dir_ / "fleet.yaml").string()) + " --output " +
            quote(out().string()) + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  CommandResult report(const std::string& args) {
    return run(quote(cli().string()) + " fleet report " + quote(out().string()) + " " + args);
  }
  json reportJson(const std::string& args = "") {
    const CommandResult r = report(args + " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const json doc = json::parse(r.output, nullptr, false);
    writeFile(dir_ / "report.json", r.output);
    const CommandResult valid =
        run("/usr/bin/python3 -c " +
            quote("import json, sys, jsonschema\n"
                  "schema = json.load(open(sys.argv[1]))\n"
                  "jsonschema.Draft7Validator.check_schema(schema)\n"
                  "jsonschema.Draft7Validator(schema).validate(json.load(open(sys.argv[2])))\n"
                  "print('valid')\n") +
            " " + quote((sourceDir() / "docs/schemas/fleet-report.schema.json").string()) + " " +
            quote((dir_ / "report.json").string()));
    EXPECT_EQ(valid.exit_code, 0) << valid.output;
    return doc;
  }
  std::map<std::string, std::string> verdicts() {
    const CommandResult r =
        run(quote(cli().string()) + " fleet status " + quote(out().string()) + " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::map<std::string, std::string> out;
    const json status = json::parse(r.output);  // kept: the loop below reads into it
    for (const json& repo : status["repos"])
      out[repo["name"].get<std::string>()] = repo["verdict"].get<std::string>();
    return out;
  }
  static const json* find(const json& list, const std::string& key, const std::string& value) {
    for (const json& item : list)
      if (item[key] == value) return &item;
    return nullptr;
  }
  static const json* whatIf(const json& doc, const std::string& kind, const std::string& name) {
    for (const json& w : doc["what_if"])
      if (w["kind"] == kind && w["name"] == name) return &w;
    return nullptr;
  }
  fs::path out() const { return dir_ / "fleet"; }
  TempDir dir_;
};

TEST_F(FleetReport, BlockersAcrossTheFleetAndWhatSolvingThemDoesToTheVerdicts) {
  commit(dir_ / "src/alpha", true, "torch.cuda.synchronize()\n", "one");
  commit(dir_ / "src/beta", true, "", "one");
  commit(dir_ / "src/gamma", false, "import acme.gpu\nacme.gpu.launch(1)\n", "one");
  manifest();
  night();
  auto before = verdicts();
  EXPECT_EQ(before["alpha"], "needs adaptation");
  EXPECT_EQ(before["beta"], "needs adaptation");
  EXPECT_EQ(before["gamma"], "feasible") << "only automatic fixes";

  json doc = reportJson();
  EXPECT_EQ(doc["repos"], 3);
  EXPECT_EQ(doc["judged"], 3);
  const json* cupy = find(doc["dependencies"], "package", "cupy");
  ASSERT_NE(cupy, nullptr) << doc.dump(1);
  EXPECT_EQ((*cupy)["repos"], 2);
  EXPECT_EQ((*cupy)["verdict"], "unsupported");
  EXPECT_EQ(doc["dependencies"][0]["package"], "cupy") << "ranked by repositories";
  const json* dep005 = find(doc["rules"], "rule", "DEP-005");
  ASSERT_NE(dep005, nullptr);
  EXPECT_EQ((*dep005)["repos_with_work_left"], 2);
  EXPECT_EQ((*dep005)["severity"], "error");
  EXPECT_FALSE((*dep005)["title"].get<std::string>().empty()) << "titles come from the store's rule_info";
  // Solving CuPy takes both its requirement and its import away: only automatic fixes are left.
  const json* solved = whatIf(doc, "dependency", "cupy");
  ASSERT_NE(solved, nullptr) << doc.dump(1);
  EXPECT_EQ((*solved)["repos"], 2);
  EXPECT_EQ((*solved)["improved"], 2);
  ASSERT_EQ((*solved)["changes"].size(), 1u);
  EXPECT_EQ((*solved)["changes"][0]["from"], "needs adaptation");
  EXPECT_EQ((*solved)["changes"][0]["to"], "feasible");
  // Only its requirement rule: the import still needs hand work, no verdict moves.
  const json* rule_only = whatIf(doc, "rule", "DEP-005");
  ASSERT_NE(rule_only, nullptr);
  EXPECT_EQ((*rule_only)["repos"], 2);
  EXPECT_EQ((*rule_only)["improved"], 0);
  const json* device = find(doc["domains"], "domain", "deps");
  ASSERT_NE(device, nullptr);
  EXPECT_GT((*device)["person_days"].get<double>(), 0.0);

  // Night 2: alpha drops CuPy in its code, and its verdict is the predicted one.
  commit(dir_ / "src/alpha", false, "torch.cuda.synchronize()\n", "two");
  night();
  auto after = verdicts();
  EXPECT_EQ(after["alpha"], (*solved)["changes"][0]["to"])
      << "the what-if predicted the plan stage's verdict";
  EXPECT_EQ(after["beta"], "needs adaptation");
  doc = reportJson();
  EXPECT_EQ((*find(doc["dependencies"], "package", "cupy"))["repos"], 1);
  EXPECT_EQ(doc["judged"], 3) << "beta and gamma are cached: they are judged from the run they carry over";

  // Night 3: a rule pack makes gamma's launch a finding by the tool; it is the new blocker, and
  // solving it would give gamma back the verdict of the night before.
  manifest(", rule_packs: [packs/acme]");
  night();
  EXPECT_EQ(verdicts()["gamma"], "needs adaptation");
  doc = reportJson();
  const json* acme = find(doc["rules"], "rule", "ACME-001");
  ASSERT_NE(acme, nullptr) << doc.dump(1);
  EXPECT_EQ((*acme)["title"], "acme.gpu.launch runs on CUDA only");
  EXPECT_EQ((*acme)["repos_with_work_left"], 1);
  const json* acme_if = whatIf(doc, "rule", "ACME-001");
  ASSERT_NE(acme_if, nullptr) << doc.dump(1);
  EXPECT_EQ((*acme_if)["improved"], 1);
  EXPECT_EQ((*acme_if)["changes"][0]["to"], after["gamma"]);

  // An earlier night by label.
  const CommandResult history =
      run(quote(cli().string()) + " fleet history " + quote(out().string()) + " --format json");
  const std::string first = json::parse(history.output)["nights"][0]["label"];
  const json earlier = reportJson("--night " + first);
  EXPECT_EQ((*find(earlier["dependencies"], "package", "cupy"))["repos"], 2);

  // CSV through Python's csv module: one row per item, the section first.
  const CommandResult csv = report("--format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  writeFile(dir_ / "report.csv", csv.output);
  const CommandResult rows =
      run("python3 -c " +
          quote("import csv, sys\n"
                "for r in csv.DictReader(open(sys.argv[1], newline='')):\n"
                "    print(r['section'], r['name'], r['repos'], r['improved'], r['changes'])\n") +
          " " + quote((dir_ / "report.csv").string()));
  ASSERT_EQ(rows.exit_code, 0) << rows.output;
  EXPECT_NE(rows.output.find("dependency cupy 1  \n"), std::string::npos) << rows.output;
  EXPECT_NE(rows.output.find("what-if ACME-001 1 1 needs adaptation → feasible: 1\n"), std::string::npos)
      << rows.output;

  // Markdown: the four tables.
  const CommandResult md = report("");
  ASSERT_EQ(md.exit_code, 0) << md.output;
  for (const char* heading :
       {"## Rules by repositories affected", "## Dependencies unsupported or needing replacement",
        "## Effort left by domain", "## What if it were solved"})
    EXPECT_NE(md.output.find(heading), std::string::npos) << md.output;
  EXPECT_NE(md.output.find("| rule | ACME-001 | 1 | 1 | needs adaptation → feasible: 1 |"), std::string::npos)
      << md.output;

  // The dashboard's section, as Chromium renders it.
  const Rendered page = renderInChromium(dir_, "file://" + (out() / "index.html").string());
  const std::size_t section = page.dom.find("id=\"blockers\"");
  ASSERT_NE(section, std::string::npos) << page.log;
  EXPECT_NE(page.dom.find("<tr data-rule=\"ACME-001\">", section), std::string::npos);
  EXPECT_NE(page.dom.find("<tr data-package=\"cupy\">", section), std::string::npos);
  EXPECT_NE(page.dom.find("needs adaptation → feasible: 1", section), std::string::npos);
  EXPECT_NE(page.dom.find("<tr data-domain=\"deps\">", section), std::string::npos);

  // Mistakes are named.
  const CommandResult unknown = report("--night 1999-01-01");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("no night '1999-01-01'"), std::string::npos) << unknown.output;
  EXPECT_EQ(report("--format yaml").exit_code, 2);
}

}  // namespace
}  // namespace migrate::test

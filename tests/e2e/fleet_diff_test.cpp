// `migrate-pipeline fleet diff` (issue 34): three real nights over real git repositories with the
// real device plugin. Night 2 commits a new CUDA call (new by code; the old findings moved down a
// line and persist), night 3 adds a rule pack (new by tool). Read back as JSON, as CSV through
// Python's csv module, and as Markdown.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/launch_pack.hpp"
#include "support/test_support.hpp"

namespace migrate::test {
namespace {

using nlohmann::json;

void commit(const fs::path& repo, const std::string& code, const std::string& message) {
  writeFile(repo / "model.py", code);
  commitAll(repo, message);
}

class FleetDiff : public ::testing::Test {
 protected:
  FleetDiff() {
    writeFile(dir_ / "pipeline.yaml",
              "version: 1\nsource: {path: .}\nplugin_dir: " + quote(pluginDir().string()) +
                  "\nplugins: {device: {}}\nstages: [analyze, plan, emit, report]\n");
    writeLaunchPack(dir_ / "packs/acme", "    effort_days: 0.1\n");
  }
  void manifest(const std::string& extra = "") {
    writeFile(dir_ / "fleet.yaml", "format: 1\npipeline: pipeline.yaml\ndefaults: {timeout: 2m" + extra +
                                       "}\nrepos:\n  - {name: alpha, source: src/alpha}\n"
                                       "  - {name: gamma, source: src/gamma}\n");
  }
  void night() {
    const CommandResult r =
        run(quote(cli().string()) + " fleet run " + quote((dir_ / "fleet.yaml").string()) + " --output " +
            quote(out().string()) + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  CommandResult diff(const std::string& args) {
    return run(quote(cli().string()) + " fleet diff " + quote(out().string()) + " " + args);
  }
  json diffJson(const std::string& args) {
    const CommandResult r = diff(args + " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return json::parse(r.output, nullptr, false);
  }
  static std::map<std::string, json> byName(const json& d) {
    std::map<std::string, json> out;
    for (const json& r : d["repos"]) out[r["name"].get<std::string>()] = r;
    return out;
  }
  fs::path out() const { return dir_ / "fleet"; }
  TempDir dir_;
};

TEST_F(FleetDiff, NewFixedAndPersistingFindingsAndWhyTheyMoved) {
  const std::string acme = "import acme.gpu\nacme.gpu.launch(1)\n";
  commit(dir_ / "src/alpha", "import torch\ntorch.cuda.synchronize()\ntorch.cuda.empty_cache()\n" + acme,
         "one");
  commit(dir_ / "src/gamma", "import torch\nx = torch.zeros(1).cuda()\n", "one");
  manifest();
  night();
  EXPECT_EQ(diff("").exit_code, 2) << "one night has nothing to compare with";

  // Night 2: alpha gains a line at the top (its findings move down) and a new CUDA call, and
  // loses empty_cache; gamma is unchanged (cached).
  commit(dir_ / "src/alpha",
         "# moved\nimport torch\ntorch.cuda.synchronize()\nprint(torch.cuda.device_count())\n" + acme, "two");
  night();
  json d = diffJson("");
  EXPECT_EQ(d["from"]["night"], 1);
  EXPECT_EQ(d["to"]["night"], 2);
  auto repos = byName(d);
  ASSERT_EQ(repos.size(), 2u) << d.dump(1);
  const json& alpha = repos["alpha"];
  EXPECT_EQ(alpha["why"], "code") << alpha.dump(1);
  ASSERT_EQ(alpha["new"].size(), 1u) << alpha.dump(1);
  EXPECT_EQ(alpha["new"][0]["file"], "model.py");
  EXPECT_EQ(alpha["new"][0]["line"], 4);
  ASSERT_EQ(alpha["fixed"].size(), 1u) << alpha.dump(1);
  EXPECT_EQ(alpha["fixed"][0]["line"], 3) << "empty_cache was on line 3 of night 1";
  EXPECT_GE(alpha["persisting"].get<int>(), 1) << "synchronize moved from line 2 to 3: the same finding";
  EXPECT_EQ(repos["gamma"]["why"], "neither");
  EXPECT_EQ(repos["gamma"]["new"].size(), 0u);
  EXPECT_EQ(repos["gamma"]["fixed"].size(), 0u);

  // Night 3: a rule pack joins: new findings by the tool, none for gamma's unchanged code.
  manifest(", rule_packs: [packs/acme]");
  night();
  d = diffJson("");  // the latest night against the one before it
  repos = byName(d);
  EXPECT_EQ(d["from"]["night"], 2);
  EXPECT_EQ(repos["alpha"]["why"], "tool") << repos["alpha"].dump(1);
  ASSERT_EQ(repos["alpha"]["new"].size(), 1u) << repos["alpha"].dump(1);
  EXPECT_EQ(repos["alpha"]["new"][0]["rule"], "ACME-001");
  EXPECT_EQ(repos["alpha"]["fixed"].size(), 0u);
  EXPECT_EQ(repos["gamma"]["why"], "tool");
  EXPECT_EQ(repos["gamma"]["new"].size(), 0u);

  // From night 1 to 3, only alpha, by label: both changed.
  const CommandResult labels =
      run(quote(cli().string()) + " fleet history " + quote(out().string()) + " --format json");
  const json nights = json::parse(labels.output)["nights"];
  const std::string first = nights[0]["label"], last = nights[2]["label"];
  d = diffJson("--from " + first + " --to " + last + " --repo alpha");
  ASSERT_EQ(d["repos"].size(), 1u);
  EXPECT_EQ(d["repos"][0]["why"], "code and tool");
  EXPECT_EQ(d["repos"][0]["new"].size(), 2u) << d.dump(1);

  // CSV, read by Python's csv module: one row per finding, the change and why.
  const CommandResult csv = diff("--format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  writeFile(dir_ / "diff.csv", csv.output);
  const CommandResult rows = run("python3 -c " +
                                 quote("import csv, sys\n"
                                       "for r in csv.DictReader(open(sys.argv[1], newline='')):\n"
                                       "    print(r['change'], r['repo'], r['rule'], r['why'])\n") +
                                 " " + quote((dir_ / "diff.csv").string()));
  ASSERT_EQ(rows.exit_code, 0) << rows.output;
  EXPECT_NE(rows.output.find("new alpha ACME-001 tool\n"), std::string::npos) << rows.output;
  EXPECT_NE(rows.output.find("persisting gamma"), std::string::npos) << rows.output;

  // Markdown: the summary table and each repository's new findings with their place.
  const CommandResult md = diff("");
  ASSERT_EQ(md.exit_code, 0) << md.output;
  EXPECT_NE(md.output.find("| alpha | tool | 1 | 0 |"), std::string::npos) << md.output;
  EXPECT_NE(md.output.find("- `model.py:6` ACME-001"), std::string::npos) << md.output;

  // Mistakes are named.
  const CommandResult unknown = diff("--to 1999-01-01");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("no night '1999-01-01' (--to)"), std::string::npos) << unknown.output;
  EXPECT_EQ(diff("--repo nobody").exit_code, 2);
}

}  // namespace
}  // namespace migrate::test

// End to end: unsupported_apis.csv (docs/findings.md#csv-tables) from a real `migrate-pipeline run`
// on a real git repository whose files use APIs with and without an NPU counterpart, one of them
// under a name with a comma, quotes and a newline. Read back with Python's csv module, the table
// lists every use of an API without a counterpart, in findings.json's order, and nothing else;
// an unsupported dependency stays in dependencies.csv.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

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

const char* kTrain =
    "import torch\n"
    "import torch.cuda.comm as comm\n"
    "import pynvml\n"
    "\n"
    "t = torch.zeros(2)\n"
    "parts = comm.scatter(t, [0, 1])\n"
    "torch.backends.cuda.sdp_kernel(enable_flash=True)\n"
    "torch.cuda.synchronize()\n"
    "x = t.cuda()\n"
    "model = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n";

const std::string kHostile = "a,b \"q\"\nc.py";

/// The rows of the CSV table `file` as JSON objects (header → value), read with Python's csv module.
json csvRows(const fs::path& file) {
  const auto r = run("/usr/bin/python3 -c " +
                     quote("import csv, json, sys\n"
                           "print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', "
                           "encoding='utf-8')))))") +
                     " " + quote(file.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return json::parse(r.output);
}

class UnsupportedApis : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const fs::path repo = dir_->path() / "repo";
    writeFile(repo / "train.py", kTrain);
    writeFile(repo / kHostile, kTrain);
    writeFile(repo / "requirements.txt", "torch\ncupy-cuda12x==13.0.0\n");
    ASSERT_EQ(run("cd " + quote(repo.string()) +
                  " && git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm init")
                  .exit_code,
              0);
    run_ = new test::CommandResult(run(quote(test::cli().string()) + " run " +
                                       quote((test::sourceDir() / "pipelines" / "full.yaml").string()) +
                                       " -q --source " + quote(repo.string()) + " --output " +
                                       quote(out().string()) + " --set jobs=2 --set 'stages=[analyze]'"));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path out() { return dir_->path() / "out"; }

  static TempDir* dir_;
  static test::CommandResult* run_;
};
TempDir* UnsupportedApis::dir_ = nullptr;
test::CommandResult* UnsupportedApis::run_ = nullptr;

TEST_F(UnsupportedApis, TheTableListsEveryUseOfAnApiWithoutAnNpuCounterpartAndNothingElse) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const json rows = csvRows(out() / "unsupported_apis.csv");
  using Row = std::tuple<std::string, std::string, std::string, std::string>;  // file, line, rule, api
  std::set<Row> found;
  for (const auto& r : rows) {
    EXPECT_EQ(r.size(), 10u) << r.dump();
    found.insert({r["file"].get<std::string>(), r["line"].get<std::string>(), r["rule_id"].get<std::string>(),
                  r["api"].get<std::string>()});
  }
  std::set<Row> expected;
  for (const std::string& file : {std::string("train.py"), kHostile})
    for (const Row& r : {Row{file, "3", "DEP-019", "pynvml"}, Row{file, "3", "DEV-041", "pynvml"},
                         Row{file, "6", "DEV-012", "torch.cuda.comm.scatter"},
                         Row{file, "7", "DEV-030", "torch.backends.cuda.sdp_kernel"},
                         Row{file, "10", "DIST-012", "torch.nn.DataParallel"}})
      expected.insert(r);
  EXPECT_EQ(found, expected) << rows.dump(1);
  for (const auto& r : rows) {
    if (r["rule_id"] == "DEV-012") {
      EXPECT_EQ(r["written"], "comm.scatter") << "the API as written beside the resolved one";
      EXPECT_EQ(r["domain"], "device");
      EXPECT_EQ(r["severity"], "error");
      EXPECT_NE(r["message"].get<std::string>().find("has no torch_npu counterpart"), std::string::npos);
      EXPECT_NE(r["npu_alternative"].get<std::string>().find("HCCL"), std::string::npos);
    }
  }
}

TEST_F(UnsupportedApis, TheRowsAreTheFlaggedRulesFindingsInFindingsJsonsOrder) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const json doc = json::parse(readFile(out() / "findings.json"));
  std::set<std::string> flagged;
  for (const auto& r : doc["rules"])
    if (r["no_npu_counterpart"] == true) flagged.insert(r["id"]);
  EXPECT_FALSE(flagged.count("DEV-001")) << "torch.cuda.synchronize has torch.npu.synchronize";
  std::vector<std::string> in_json, in_csv;
  for (const auto& f : doc["findings"])
    if (flagged.count(f["rule_id"]))
      in_json.push_back(f["file"].get<std::string>() + ":" + std::to_string(f["line"].get<int>()) + ":" +
                        std::to_string(f["column"].get<int>()) + " " + f["rule_id"].get<std::string>());
  for (const auto& r : csvRows(out() / "unsupported_apis.csv"))
    in_csv.push_back(r["file"].get<std::string>() + ":" + r["line"].get<std::string>() + ":" +
                     r["column"].get<std::string>() + " " + r["rule_id"].get<std::string>());
  EXPECT_EQ(in_csv, in_json);
  EXPECT_EQ(in_csv.size(), 10u);
}

TEST_F(UnsupportedApis, AnUnsupportedDependencyStaysInTheDependencyTable) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  bool cupy = false;
  for (const auto& r : csvRows(out() / "dependencies.csv"))
    if (r["package"] == "cupy-cuda12x" || r["name"] == "cupy-cuda12x") {
      cupy = true;
      EXPECT_EQ(r["verdict"], "unsupported") << r.dump();
    }
  EXPECT_TRUE(cupy) << readFile(out() / "dependencies.csv");
  for (const auto& r : csvRows(out() / "unsupported_apis.csv")) EXPECT_NE(r["file"], "requirements.txt");
}

}  // namespace
}  // namespace migrate

// `fleet run --scheduler slurm` on a real one-node Slurm cluster on loopback (Debian's munge,
// slurmctld and slurmd, started by the fixture): the night as a job array plus a merge job, its
// merged results equal to a local run of the same fleet; a cluster that is not there fails
// before anything is submitted.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/slurm_cluster.hpp"
#include "support/test_support.hpp"

namespace migrate::test {
namespace {

using nlohmann::json;

void commitRepo(const fs::path& repo, int calls) {
  std::string code = "import torch\n";
  for (int i = 0; i < calls; ++i) code += "torch.cuda.synchronize()\n";
  writeFile(repo / "model.py", code);
  const std::string git = "git -C " + quote(repo.string()) + " -c user.name=t -c user.email=t@example.org ";
  ASSERT_EQ(run(git + "init -q -b main && " + git + "add -A && " + git + "commit -q -m work").exit_code, 0);
}

std::map<std::string, json> statusOf(const fs::path& dir) {
  const CommandResult r =
      run(quote(cli().string()) + " fleet status " + quote(dir.string()) + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const json s = json::parse(r.output, nullptr, false);
  std::map<std::string, json> out;
  if (s.is_object())
    for (const json& repo : s["repos"]) out[repo["name"].get<std::string>()] = repo;
  return out;
}

class FleetSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    writeFile(dir_ / "pipeline.yaml",
              "version: 1\nsource: {path: .}\nplugin_dir: " + quote(testPluginDir().string()) +
                  "\nplugins: [misbehaving]\nstages: [analyze, plan, emit, report]\n");
    std::string repos;
    for (int i = 0; i < 4; ++i) {
      const std::string name = "repo" + std::to_string(i);
      commitRepo(dir_ / "src" / name, i + 1);
      repos += "  - {name: " + name + ", source: src/" + name + "}\n";
    }
    writeFile(dir_ / "fleet.yaml", "format: 1\npipeline: pipeline.yaml\nrepos:\n" + repos);
  }
  std::string night(const fs::path& out, const std::string& flags) {
    return quote(cli().string()) + " fleet run " + quote((dir_ / "fleet.yaml").string()) + " --output " +
           quote(out.string()) + " " + flags;
  }
  TempDir dir_;
};

TEST_F(FleetSlurm, AJobArrayNightMergesToTheLocalResult) {
  SlurmCluster cluster;
  if (!cluster.start(dir_ / "slurm-cluster")) {
    if (cluster.missing()) GTEST_SKIP() << cluster.problem();
    FAIL() << cluster.problem();
  }
  const fs::path out = dir_ / "fleet";
  const CommandResult r = run(night(out, "--scheduler slurm --shards 3 --array-limit 2 --night 2026-11-26"));
  ASSERT_EQ(r.exit_code, 0) << r.output << readFile(out / "slurm/merge.out");
  const std::string script = readFile(out / "slurm/fleet.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=1-3%2"), std::string::npos) << script;
  EXPECT_NE(script.find("--shard \"$SLURM_ARRAY_TASK_ID\"/3"), std::string::npos) << script;
  EXPECT_NE(readFile(out / "slurm/merge.sbatch").find("fleet merge --output"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "index.html"));

  const fs::path local = dir_ / "local";
  ASSERT_EQ(run(night(local, "")).exit_code, 0);
  auto merged = statusOf(out), here = statusOf(local);
  ASSERT_EQ(merged.size(), 4u);
  for (const auto& [name, repo] : here)
    for (const char* key : {"status", "commit", "findings", "findings_fixed", "effort_days"})
      EXPECT_EQ(merged[name][key], repo[key]) << name << " " << key;
}

TEST_F(FleetSlurm, AMissingControllerFailsBeforeAnythingIsSubmitted) {
  const fs::path out = dir_ / "fleet";
  // A configuration naming a controller that does not run.
  writeFile(dir_ / "nowhere.conf",
            "ClusterName=none\nSlurmctldHost=localhost\nSlurmctldPort=9\nAuthType=auth/none\n"
            "NodeName=localhost CPUs=1\nPartitionName=debug Nodes=ALL Default=YES\n");
  CommandResult r = run("SLURM_CONF=" + quote((dir_ / "nowhere.conf").string()) + " " +
                        night(out, "--scheduler slurm --shards 2"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--scheduler slurm:"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out / "slurm/fleet.sbatch"));
  r = run("PATH=/nonexistent " + night(out, "--scheduler slurm --shards 2"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("sbatch"), std::string::npos) << r.output;
}

TEST_F(FleetSlurm, AShardThatNeverRanIsRecordedAsFailedByTheMerge) {
  // The merge job's command, run with one shard store missing (its task died before writing).
  const fs::path out = dir_ / "fleet";
  ASSERT_EQ(run(night(out / "shards/1", "--shard 1/2 --night 2026-11-26")).exit_code, 0);
  const CommandResult m =
      run(quote(cli().string()) + " fleet merge --output " + quote(out.string()) + " --manifest " +
          quote((dir_ / "fleet.yaml").string()) + " --night 2026-11-26 " +
          quote((out / "shards/1").string()) + " " + quote((out / "shards/2").string()));
  ASSERT_EQ(m.exit_code, 0) << m.output;
  auto merged = statusOf(out);
  ASSERT_EQ(merged.size(), 4u);
  int missing = 0;
  for (const auto& [name, repo] : merged) {
    if (repo["status"] == "failed") {
      ++missing;
      EXPECT_EQ(repo["reason"].get<std::string>().rfind("no result: the shard running it", 0), 0u) << repo;
    } else {
      EXPECT_EQ(repo["status"], "succeeded") << name;
    }
  }
  EXPECT_GT(missing, 0);
  EXPECT_LT(missing, 4);
}

}  // namespace
}  // namespace migrate::test

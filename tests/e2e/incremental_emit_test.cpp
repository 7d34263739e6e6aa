// The emit stage started from a previous emit, through the CLI: after every kind of change a
// repository and an output directory can see between two runs, the incremental kit equals the
// kit a cold run writes into the same directory, byte for byte and mode for mode; and an emit
// started from an earlier output directory (a fleet's previous night) hard-links what it can
// and leaves that directory as it was.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>

#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;
namespace fs = std::filesystem;

test::CommandResult emitRun(const fs::path& source, const fs::path& out, const fs::path& cache,
                            const std::string& extra = "") {
  return run(quote(test::cli().string()) + " run " +
             quote((test::sourceDir() / "pipelines" / "full.yaml").string()) + " --source " +
             quote(source.string()) + " --output " + quote(out.string()) +
             " --set jobs=2 --set 'stages=[analyze, plan, emit]' --set " +
             quote("cache.dir=" + cache.string()) + " " + extra);
}

/// Every file and link under `dir`: its content (a link: its target) and mode.
std::map<std::string, std::string> treeOf(const fs::path& dir) {
  std::map<std::string, std::string> tree;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    if (it->is_symlink())
      tree[rel] = "link " + fs::read_symlink(it->path()).string();
    else if (it->is_directory())
      tree[rel] = "directory";
    else
      tree[rel] = "mode " + std::to_string(st.st_mode & 07777) + " " + readFile(it->path());
  }
  return tree;
}

void expectSameTrees(const fs::path& a, const fs::path& b) {
  const auto ta = treeOf(a);
  const auto tb = treeOf(b);
  for (const auto& [path, what] : ta) {
    const auto other = tb.find(path);
    if (other == tb.end())
      ADD_FAILURE() << path << " only in " << a;
    else
      EXPECT_EQ(what, other->second) << path;
  }
  for (const auto& [path, what] : tb)
    if (!ta.count(path)) ADD_FAILURE() << path << " only in " << b;
}

const char* const kTrain = "import torch\nx = torch.zeros(2, device=\"cuda\")\ntorch.cuda.synchronize()\n";

void writeRepository(const fs::path& repo) {
  writeFile(repo / "train.py", kTrain);
  writeFile(repo / "model.py", "import torch\n\ndef move(m):\n    return m.cuda()\n");
  writeFile(repo / "util.py", "def add(a, b):\n    return a + b\n");
  writeFile(repo / "README.md", "# A project\n");
  writeFile(repo / "pkg" / "deep" / "ops.py", "import torch\ntorch.cuda.empty_cache()\n");
  writeFile(repo / "weights.bin", std::string("\0\x01\x02\xff", 4));
  writeFile(repo / "run.sh", "#!/bin/sh\nCUDA_VISIBLE_DEVICES=0 python train.py\n");
  fs::permissions(repo / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
  fs::create_symlink("train.py", repo / "main.py");
}

TEST(IncrementalEmit, AfterEveryKindOfChangeTheKitIsTheOneAColdRunWrites) {
  TempDir dir;
  const fs::path repo = dir / "repo";
  const fs::path out = dir / "out";
  writeRepository(repo);
  auto first = emitRun(repo, out, dir / "cache");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_TRUE(fs::exists(out / "emit_state.json"));

  // The repository changes: an edited file, a file that gains a finding, a deleted directory, a
  // new file, a mode change, a link pointed elsewhere, a directory where a file was.
  writeFile(repo / "train.py", std::string(kTrain) + "y = torch.ones(1).cuda()\n");
  writeFile(repo / "util.py", "import torch\n\ndef add(a, b):\n    return (a + b).cuda()\n");
  fs::remove_all(repo / "pkg");
  writeFile(repo / "new.py", "import torch\nprint(torch.cuda.device_count())\n");
  fs::permissions(repo / "model.py", fs::perms::owner_exec, fs::perm_options::add);
  fs::remove(repo / "main.py");
  fs::create_symlink("model.py", repo / "main.py");
  fs::remove(repo / "weights.bin");
  writeFile(repo / "weights.bin" / "part0", "w");
  // ...and someone edits the output: a changed adapted file, a file of their own.
  writeFile(out / "adapted" / "run.sh", "#!/bin/sh\necho edited by hand\n");
  writeFile(out / "adapted" / "notes.txt", "mine\n");

  auto second = emitRun(repo, out, dir / "cache");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const std::string log = readFile(out / "run.log");
  EXPECT_NE(log.find("files kept from the previous emit"), std::string::npos) << log;

  fs::rename(out, dir / "incremental");
  auto cold = emitRun(repo, out, dir / "cold-cache", "--no-cache");
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  expectSameTrees(out / "adapted", dir / "incremental" / "adapted");
  for (const char* kit : {"npu_migration.patch", "change_list.csv", "emit.json", "npu_compat.py",
                          "verify_config.json", "findings.csv"})
    EXPECT_EQ(readFile(out / kit), readFile(dir / "incremental" / kit)) << kit;
  EXPECT_FALSE(fs::exists(dir / "incremental" / "adapted" / "pkg"));
  EXPECT_FALSE(fs::exists(dir / "incremental" / "adapted" / "notes.txt"));
  EXPECT_NE(readFile(dir / "incremental" / "adapted" / "train.py").find("torch.ones(1).npu()"),
            std::string::npos);

  // The patch still takes the original tree to the adapted one.
  const fs::path check = dir / "check";
  fs::copy(repo, check, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const auto applied = run("cd " + quote(check.string()) + " && git init -q . && git apply " +
                           quote((dir / "incremental" / "npu_migration.patch").string()));
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_EQ(readFile(check / "util.py"), readFile(dir / "incremental" / "adapted" / "util.py"));
}

TEST(IncrementalEmit, FromAnEarlierOutputDirectoryFilesAreLinkedAndThatDirectoryIsLeftAsItWas) {
  TempDir dir;
  const fs::path repo = dir / "repo";
  writeRepository(repo);
  ASSERT_EQ(emitRun(repo, dir / "night1", dir / "cache").exit_code, 0);
  const auto night1 = treeOf(dir / "night1" / "adapted");

  writeFile(repo / "train.py", std::string(kTrain) + "z = torch.cuda.current_device()\n");
  auto second = emitRun(repo, dir / "night2", dir / "cache",
                        "--set " + quote("emit.base=" + (dir / "night1").string()));
  ASSERT_EQ(second.exit_code, 0) << second.output;

  // An unchanged file is the earlier night's, linked (a copy or an adapted one alike); the changed
  // one is new; night 1 is intact.
  struct stat a = {};
  struct stat b = {};
  for (const char* same : {"util.py", "model.py"}) {
    ASSERT_EQ(::stat((dir / "night1" / "adapted" / same).c_str(), &a), 0);
    ASSERT_EQ(::stat((dir / "night2" / "adapted" / same).c_str(), &b), 0);
    EXPECT_EQ(a.st_ino, b.st_ino) << same;
  }
  ASSERT_EQ(::stat((dir / "night2" / "adapted" / "train.py").c_str(), &b), 0);
  EXPECT_EQ(b.st_nlink, 1u);
  EXPECT_EQ(treeOf(dir / "night1" / "adapted"), night1);

  ASSERT_EQ(emitRun(repo, dir / "cold", dir / "cold-cache", "--no-cache").exit_code, 0);
  expectSameTrees(dir / "cold" / "adapted", dir / "night2" / "adapted");
  EXPECT_EQ(readFile(dir / "cold" / "npu_migration.patch"), readFile(dir / "night2" / "npu_migration.patch"));
}

}  // namespace
}  // namespace migrate

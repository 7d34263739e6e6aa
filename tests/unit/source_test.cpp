// Acquiring sources: local paths and real git repositories cloned with libgit2.

#include <gtest/gtest.h>

#include "migrate/engine/workspace.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::quote;
using test::run;
using test::TempDir;
using test::writeFile;

/// A real repository with two commits, a branch and a tag.
struct Upstream {
  TempDir dir;
  std::string first;
  std::string second;
  Upstream() {
    const std::string g =
        "git -C " + quote(dir.path().string()) + " -c user.name=t -c user.email=t@example.invalid ";
    EXPECT_EQ(run("git init -q -b main " + quote(dir.path().string())).exit_code, 0);
    writeFile(dir / "train.py", "import torch\ntorch.cuda.synchronize()\n");
    EXPECT_EQ(run(g + "add -A && " + g + "commit -qm one && " + g + "tag v1").exit_code, 0);
    first = rev("HEAD");
    writeFile(dir / "second.py", "x = 2\n");
    EXPECT_EQ(run(g + "checkout -qb feature && " + g + "add -A && " + g + "commit -qm two && " + g +
                  "checkout -q main")
                  .exit_code,
              0);
    second = rev("feature");
  }
  std::string rev(const std::string& r) {
    auto out = run("git -C " + quote(dir.path().string()) + " rev-parse " + r).output;
    return out.substr(0, out.find('\n'));
  }
};

TEST(Source, LocalPathRecordsTheCommitOfARepository) {
  Upstream up;
  auto info = acquireSource({up.dir.path().string(), "", ""}, "", {});
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->kind, "path");
  EXPECT_EQ(info->commit, up.first);
}

TEST(Source, MissingLocalPathIsAClearError) {
  auto info = acquireSource({"/nonexistent/repo", "", ""}, "", {});
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.error().message.find("does not exist"), std::string::npos);
}

TEST(Source, ClonesDefaultBranchTagAndCommit) {
  Upstream up;
  TempDir work;
  const std::string url = "file://" + up.dir.path().string();
  auto head = acquireSource({"", url, ""}, work.path(), {});
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->commit, up.first);
  EXPECT_TRUE(std::filesystem::exists(head->root / "train.py"));
  EXPECT_FALSE(std::filesystem::exists(head->root / "second.py"));

  auto branch = acquireSource({"", url, "feature"}, work.path(), {});
  ASSERT_TRUE(branch.ok()) << branch.error().message;
  EXPECT_EQ(branch->commit, up.second);
  EXPECT_TRUE(std::filesystem::exists(branch->root / "second.py"));

  auto tag = acquireSource({"", url, "v1"}, work.path(), {});
  ASSERT_TRUE(tag.ok()) << tag.error().message;
  EXPECT_EQ(tag->commit, up.first);

  auto sha = acquireSource({"", up.dir.path().string(), up.second}, work.path(), {});
  ASSERT_TRUE(sha.ok()) << sha.error().message;
  EXPECT_EQ(sha->commit, up.second);
}

TEST(Source, UnclonableUrlsAndUnknownRefsAreClearErrors) {
  TempDir work;
  auto missing = acquireSource({"", "/nonexistent/repo.git", ""}, work.path(), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot clone"), std::string::npos);
  auto bad_scheme = acquireSource({"", "nosuch://host/repo.git", ""}, work.path(), {});
  ASSERT_FALSE(bad_scheme.ok());
  EXPECT_NE(bad_scheme.error().message.find("cannot clone nosuch://host/repo.git"), std::string::npos);
  Upstream up;
  auto ref = acquireSource({"", "file://" + up.dir.path().string(), "no-such-ref"}, work.path(), {});
  ASSERT_FALSE(ref.ok());
  EXPECT_NE(ref.error().message.find("'no-such-ref' is neither a branch"), std::string::npos)
      << ref.error().message;
}

}  // namespace
}  // namespace migrate

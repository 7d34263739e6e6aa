// The file inventory: .gitignore through libgit2 (in and outside repositories), globs, binary,
// oversized and escaping files.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "acquire/ignore_candidates.hpp"
#include "analyze/analyzer.hpp"
#include "migrate/engine/workspace.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::TempDir;
using test::writeFile;

std::vector<std::string> paths(const Workspace& ws) {
  std::vector<std::string> out;
  for (const auto& f : ws.files()) out.push_back(f.path);
  return out;
}

bool hasDiagnostic(const std::vector<sdk::Diagnostic>& d, const std::string& code, const std::string& file) {
  return std::any_of(d.begin(), d.end(), [&](const auto& x) { return x.code == code && x.file == file; });
}

TEST(Inventory, HonoursGitignoreOutsideARepository) {
  TempDir dir;
  writeFile(dir / ".gitignore", "build/\n*.log\n");
  writeFile(dir / "a.py", "x = 1\n");
  writeFile(dir / "build/gen.py", "x = 1\n");
  writeFile(dir / "run.log", "log\n");
  writeFile(dir / "sub/.gitignore", "local.py\n");
  writeFile(dir / "sub/local.py", "x = 1\n");
  writeFile(dir / "sub/kept.py", "x = 1\n");
  std::vector<sdk::Diagnostic> diags;
  auto ws = buildInventory(dir.path(), {}, diags);
  EXPECT_EQ(paths(ws), (std::vector<std::string>{".gitignore", "a.py", "sub/.gitignore", "sub/kept.py"}));
  EXPECT_FALSE(std::filesystem::exists(dir / ".git")) << "the source must not be modified";
}

TEST(Inventory, HonoursGitignoreInsideARepository) {
  TempDir dir;
  ASSERT_EQ(test::run("git init -q " + test::quote(dir.path().string())).exit_code, 0);
  writeFile(dir / ".gitignore", "ignored.py\n");
  writeFile(dir / "ignored.py", "x\n");
  writeFile(dir / "pkg/kept.py", "x\n");
  std::vector<sdk::Diagnostic> diags;
  auto ws = buildInventory(dir / "pkg", {}, diags);
  EXPECT_EQ(paths(ws), (std::vector<std::string>{"kept.py"}));
  auto whole = buildInventory(dir.path(), {}, diags);
  EXPECT_EQ(paths(whole), (std::vector<std::string>{".gitignore", "pkg/kept.py"}));
}

// git never ignores a tracked file: RWKV-LM commits requirements.txt beside `*.txt` in its
// .gitignore, and a clone has it. Tracked files under an ignored directory are kept too; the
// untracked files beside them stay ignored. The walk has several threads: all share the index.
TEST(Inventory, KeepsTrackedFilesAnIgnorePatternMatches) {
  TempDir dir;
  const std::string git = "git -C " + test::quote(dir.path().string()) + " ";
  ASSERT_EQ(test::run("git init -q " + test::quote(dir.path().string())).exit_code, 0);
  writeFile(dir / ".gitignore", "*.txt\ndata/\n");
  writeFile(dir / "train/requirements.txt", "deepspeed\n");
  writeFile(dir / "train/notes.txt", "scratch\n");
  writeFile(dir / "data/loader.py", "x = 1\n");
  writeFile(dir / "data/cache.py", "x = 1\n");
  ASSERT_EQ(test::run(git + "add -f train/requirements.txt data/loader.py .gitignore").exit_code, 0);
  InventoryOptions opts;
  opts.threads = 3;
  std::vector<sdk::Diagnostic> diags;
  auto ws = buildInventory(dir.path(), opts, diags);
  EXPECT_EQ(paths(ws), (std::vector<std::string>{".gitignore", "data/loader.py", "train/requirements.txt"}));
  auto sub = buildInventory(dir / "train", opts, diags);
  EXPECT_EQ(paths(sub), (std::vector<std::string>{"requirements.txt"}));
  std::vector<sdk::Diagnostic> tree_diags;
  std::vector<std::string> tree;
  for (const auto& e : listRepositoryTree(dir.path(), tree_diags)) tree.push_back(e.path);
  EXPECT_EQ(tree, (std::vector<std::string>{".gitignore", "data/loader.py", "train/requirements.txt"}));
}

TEST(Inventory, SkipsBinaryOversizedAndEscapingFilesWithDiagnostics) {
  TempDir outside;
  writeFile(outside / "secret.py", "import torch\n");
  TempDir dir;
  writeFile(dir / "ok.py", "x = 1\n");
  writeFile(dir / "model.bin", std::string("\x00\x01\x02", 3));
  writeFile(dir / "big.py", std::string(5000, '#'));
  std::filesystem::create_symlink(outside / "secret.py", dir / "escape.py");
  std::filesystem::create_directory_symlink(outside.path(), dir / "escape_dir");
  std::filesystem::create_symlink(dir / "ok.py", dir / "inside_link.py");
  std::vector<sdk::Diagnostic> diags;
  InventoryOptions opts;
  opts.max_file_bytes = 1000;
  auto ws = buildInventory(dir.path(), opts, diags);
  EXPECT_EQ(paths(ws), (std::vector<std::string>{"ok.py"}));
  EXPECT_TRUE(hasDiagnostic(diags, "binary-file", "model.bin"));
  EXPECT_TRUE(hasDiagnostic(diags, "file-too-large", "big.py"));
  EXPECT_TRUE(hasDiagnostic(diags, "symlink-escapes", "escape.py"));
  EXPECT_TRUE(hasDiagnostic(diags, "symlink-escapes", "escape_dir"));
  EXPECT_FALSE(hasDiagnostic(diags, "symlink-escapes", "inside_link.py"));
}

TEST(Inventory, ThreadsFindWhatOneThreadFinds) {
  // The walk is spread over threads (each with its own .gitignore reader): the files, and the
  // diagnostics in path order, are the same for any number of them.
  TempDir dir;
  writeFile(dir / ".gitignore", "*.log\nbuild/\n");
  for (int d = 0; d < 12; ++d) {
    const std::string sub = "pkg" + std::to_string(d) + "/sub" + std::to_string(d % 3);
    writeFile(dir / sub / "m.py", "import torch\n");
    writeFile(dir / sub / "run.log", "log\n");
    writeFile(dir / sub / "build/gen.py", "x = 1\n");
    writeFile(dir / sub / "w.bin", std::string("\x00\x01", 2));
    writeFile(dir / sub / "kit.py", "# generated by migrate-pipeline\n");
    writeFile(dir / sub / ".gitignore", "local.py\n");
    writeFile(dir / sub / "local.py", "x = 1\n");
  }
  std::vector<sdk::Diagnostic> one_diags;
  const Workspace one = buildInventory(dir.path(), {}, one_diags);
  EXPECT_EQ(one.files().size(), 1u + 12 * 2) << "the .gitignore files and m.py";
  EXPECT_EQ(one_diags.size(), 12u * 2) << "binary and generated files";
  for (unsigned threads : {2u, 4u}) {
    InventoryOptions opts;
    opts.threads = threads;
    std::vector<sdk::Diagnostic> diags;
    const Workspace ws = buildInventory(dir.path(), opts, diags);
    EXPECT_EQ(paths(ws), paths(one)) << threads;
    ASSERT_EQ(diags.size(), one_diags.size()) << threads;
    for (std::size_t i = 0; i < diags.size(); ++i) {
      EXPECT_EQ(diags[i].file, one_diags[i].file) << threads;
      EXPECT_EQ(diags[i].code, one_diags[i].code) << threads;
    }
  }
}

/// The files `git ls-files` takes for untracked and not ignored under `sub` ("" for all), relative
/// to `sub`, sorted: git's own reading of the same ignore files.
std::vector<std::string> gitUntracked(const std::filesystem::path& repo, const std::string& sub) {
  const auto r = test::run("git -C " + test::quote(repo.string()) +
                           " ls-files --others --exclude-standard -z" + (sub.empty() ? "" : " -- " + sub));
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < r.output.size()) {
    const std::size_t end = r.output.find('\0', at);
    std::string path = r.output.substr(at, end - at);
    out.push_back(sub.empty() ? path : path.substr(sub.size() + 1));
    at = end == std::string::npos ? r.output.size() : end + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Inventory, AsksLibgit2OnlyWhatAnIgnorePatternCouldMatchAndKeepsItsAnswers) {
  // Names that the ignore files below match, miss, match only as directories or only in some
  // directories; the inventory must list exactly what git lists, however the candidates filter.
  TempDir dir;
  ASSERT_EQ(test::run("git init -q " + test::quote(dir.path().string())).exit_code, 0);
  writeFile(dir / "global-excludes", "*.swp\nsecrets.txt\n");
  ASSERT_EQ(test::run("git -C " + test::quote(dir.path().string()) + " config core.excludesFile " +
                      test::quote((dir / "global-excludes").string()))
                .exit_code,
            0);
  writeFile(dir / ".git/info/exclude", "local-only.py\n");
  writeFile(dir / ".gitignore",
            "# comment\n*.py[co]\n?.tmp\n/anchored.py\ndocs/*.md\n**/cache_*\nout/\n[Bb]uild*\n!keep.pyc\n"
            "*~\n   \nVersion\n");
  writeFile(dir / "pkg/.gitignore", "nested_only.py\n!important.tmp\nsub/deep/\n");
  writeFile(dir / "src/.gitignore", "logs/**\n");  // every name below src/ is a candidate
  const std::vector<std::string> names = {
      "a.py",     "a.pyc",   "keep.pyc",    "x.tmp",         "xy.tmp",         "important.tmp", "anchored.py",
      "notes.md", "cache_a", "Build.py",    "build",         "rebuild.py",     "file.txt~",     "Version",
      "version",  "x.swp",   "secrets.txt", "local-only.py", "nested_only.py", "README.md",     "setup.py"};
  const std::vector<std::string> dirs = {"",          "pkg/", "pkg/sub/", "pkg/sub/deep/", "docs/",
                                         "docs/api/", "out/", "logs/",    "src/logs/x/",   "src/anchored/"};
  for (const std::string& d : dirs)
    for (const std::string& n : names) writeFile(dir / (d + n), "x = 1\n");
  writeFile(dir / "global-excludes", "*.swp\nsecrets.txt\n");  // it is itself a file of the tree
  for (unsigned threads : {1u, 2u}) {
    InventoryOptions opts;
    opts.threads = threads;
    std::vector<sdk::Diagnostic> diags;
    EXPECT_EQ(paths(buildInventory(dir.path(), opts, diags)), gitUntracked(dir.path(), "")) << threads;
    // A root below the work tree: the ignore files above it apply too.
    EXPECT_EQ(paths(buildInventory(dir / "pkg", opts, diags)), gitUntracked(dir.path(), "pkg")) << threads;
    EXPECT_EQ(paths(buildInventory(dir / "docs", opts, diags)), gitUntracked(dir.path(), "docs")) << threads;
  }
  // A root inside an ignored directory: everything in it is ignored, as libgit2 answers.
  std::vector<sdk::Diagnostic> diags;
  EXPECT_TRUE(paths(buildInventory(dir / "src" / "logs" / "x", {}, diags)).empty());
}

TEST(IgnoreCandidates, ANameNoPositivePatternCanMatchIsNoCandidate) {
  const auto c =
      IgnoreCandidates::empty()->with("# c\n*.py[co]\n/top.py\na/b/c.txt\nbuild/\n!kept.py\nName\n*~\n");
  EXPECT_TRUE(c->mayMatch("x.pyc", "dir"));
  EXPECT_TRUE(c->mayMatch("X.PYO", "dir")) << "case is folded: a superset of core.ignorecase";
  EXPECT_TRUE(c->mayMatch("top.py", "dir")) << "anchored patterns name their last component";
  EXPECT_TRUE(c->mayMatch("c.txt", "b")) << "a/b/c.txt: a c.txt in a directory b";
  EXPECT_FALSE(c->mayMatch("c.txt", "dir"));
  EXPECT_TRUE(c->mayMatch("name", "dir"));
  EXPECT_TRUE(c->mayMatch("file~", "dir"));
  EXPECT_FALSE(c->mayMatch("x.py", "dir"));
  EXPECT_FALSE(c->mayMatch("build", "dir")) << "a directory-only pattern matches no file";
  EXPECT_TRUE(c->mayMatch("build", "dir", true)) << "but a directory";
  EXPECT_TRUE(c->mayMatch("Name", "dir", true)) << "a pattern without a slash at its end matches both";
  EXPECT_FALSE(c->mayMatch("src", "dir", true));
  EXPECT_FALSE(c->mayMatch("kept.py", "dir")) << "a negation ignores nothing";
  EXPECT_FALSE(c->mayMatch("# c", "dir"));
  EXPECT_FALSE(IgnoreCandidates::empty()->mayMatch("anything", "dir"));
  const auto scoped = IgnoreCandidates::empty()->with("experimental/*\n**/logs/*.txt\n/rooted\n");
  EXPECT_TRUE(scoped->mayMatch("x.py", "experimental"));
  EXPECT_FALSE(scoped->mayMatch("x.py", "src"))
      << "`experimental/*` matches only in a directory experimental";
  EXPECT_TRUE(scoped->mayMatch("a.txt", "logs"));
  EXPECT_FALSE(scoped->mayMatch("a.txt", "src"));
  EXPECT_TRUE(scoped->mayMatch("rooted", "anywhere")) << "a leading slash names no directory";
  EXPECT_TRUE(IgnoreCandidates::empty()->with("**/x.py\n")->mayMatch("x.py", "any"));
  EXPECT_TRUE(IgnoreCandidates::empty()->with("a/**/x.py\n")->mayMatch("x.py", "any"));
  // What the reading does not follow makes every name a candidate.
  for (const char* odd : {"\\#literal\n", "logs/**\n", "caf\xc3\xa9\n", "[abc\n"})
    EXPECT_TRUE(IgnoreCandidates::empty()->with(odd)->mayMatch("plain.py", "dir")) << odd;
  EXPECT_TRUE(IgnoreCandidates::empty()->withEverything()->mayMatch("plain.py", "dir"));
  EXPECT_TRUE(IgnoreCandidates::empty()->with("  spaced.py\n")->mayMatch("spaced.py", "dir"))
      << "leading blanks: libgit2 drops them";
}

TEST(Inventory, IncludeAndExcludeGlobs) {
  TempDir dir;
  writeFile(dir / "src/a.py", "");
  writeFile(dir / "src/deep/b.py", "");
  writeFile(dir / "third_party/c.py", "");
  writeFile(dir / "README.md", "");
  std::vector<sdk::Diagnostic> diags;
  auto ws = buildInventory(dir.path(), {{"**/*.py"}, {"third_party/**"}, 1 << 20}, diags);
  EXPECT_EQ(paths(ws), (std::vector<std::string>{"src/a.py", "src/deep/b.py"}));
}

TEST(Glob, Semantics) {
  EXPECT_TRUE(globMatch("*.py", "a.py"));
  EXPECT_FALSE(globMatch("*.py", "d/a.py"));
  EXPECT_TRUE(globMatch("**/*.py", "a.py"));
  EXPECT_TRUE(globMatch("**/*.py", "d/e/a.py"));
  EXPECT_TRUE(globMatch("d/**", "d/e/a.py"));
  EXPECT_FALSE(globMatch("d/**", "x/d/a.py"));
  EXPECT_TRUE(globMatch("**/__pycache__/**", "a/__pycache__/m.pyc"));
  EXPECT_TRUE(globMatch("?.py", "a.py"));
  EXPECT_FALSE(globMatch("?.py", "ab.py"));
}

TEST(Inventory, LanguagesByName) {
  EXPECT_EQ(languageOf("a/b.py"), sdk::Language::Python);
  EXPECT_EQ(languageOf("k.cu"), sdk::Language::Cuda);
  EXPECT_EQ(languageOf("k.cuh"), sdk::Language::Cuda);
  EXPECT_EQ(languageOf("b.cpp"), sdk::Language::Cpp);
  EXPECT_EQ(languageOf("CMakeLists.txt"), sdk::Language::CMake);
  EXPECT_EQ(languageOf("requirements.txt"), sdk::Language::Text);
}

TEST(Inventory, ShellScriptsByShebang) {
  EXPECT_EQ(languageOf("bin/scripts/parallel-run", "#!/usr/bin/env bash\nset -e\n"), sdk::Language::Shell);
  EXPECT_EQ(languageOf("bin/install", "#!/bin/sh -e\n"), sdk::Language::Shell);
  EXPECT_EQ(languageOf("tools/run", "#!/usr/bin/env -S bash -x\n"), sdk::Language::Shell);
  EXPECT_EQ(languageOf("bin/tool", "#!/usr/bin/env python3\nimport os\n"), sdk::Language::Other);
  EXPECT_EQ(languageOf("bin/tool", "# no shebang\n"), sdk::Language::Other);
  EXPECT_EQ(languageOf("bin/env", "#!/usr/bin/env\n"), sdk::Language::Other);
  // A known extension keeps its language whatever the first line says.
  EXPECT_EQ(languageOf("train.py", "#!/bin/bash\n"), sdk::Language::Python);
}

}  // namespace
}  // namespace migrate

namespace migrate {
namespace {

// The repository's own top-level packages, which import rules leave alone: packages with an
// __init__.py (also under src/), top-level modules, and a namespace package (no __init__.py) only
// when the project's manifest names it (llm-awq's `awq/`, `name = "awq"` in pyproject.toml).
TEST(ProjectRoots, NamespacePackagesCountWhenTheManifestNamesThem) {
  TempDir dir;
  writeFile(dir / "pyproject.toml", "[project]\nname = \"awq\"\nversion = \"0.1\"\n");
  writeFile(dir / "awq/entry.py", "from awq.quantize import run\n");
  writeFile(dir / "tinychat/demo.py", "import awq\n");
  writeFile(dir / "src/kernels/__init__.py", "\n");
  writeFile(dir / "train.py", "import torch\n");
  writeFile(dir / "setup.py", "\n");
  std::vector<sdk::Diagnostic> diags;
  const Workspace ws = buildInventory(dir.path(), {}, diags);
  const auto roots = projectRoots(ws);
  EXPECT_EQ(std::set<std::string>(roots.begin(), roots.end()),
            (std::set<std::string>{"awq", "kernels", "train"}))
      << "tinychat/ is a folder of scripts the manifest does not name; setup.py is no module";
}

}  // namespace
}  // namespace migrate

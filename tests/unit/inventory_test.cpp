// The file inventory: .gitignore through libgit2 (in and outside repositories), globs, binary,
// oversized and escaping files.

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace migrate

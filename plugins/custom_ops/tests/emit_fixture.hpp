#pragma once
// The custom_ops emit tests' fixture: the real plugin library analyses a repository (the bundled
// example, a fixture, or files the test writes) or takes hand-built findings, and its emit hook
// writes into a test emit context whose kit directory the tests then inspect and run.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/emit_test_context.hpp"
#include "support/test_support.hpp"

namespace migrate::custom_ops_test {

namespace fs = std::filesystem;

/// What one run of the emit hook produced.
struct Emitted {
  fs::path kit;
  std::vector<sdk::Finding> findings;
  std::unique_ptr<test::TestEmitContext> context;

  bool wrote(const std::string& path) const { return context->written.count(path) > 0; }
  std::string read(const std::string& path) const { return test::readFile(kit / path); }
  /// The findings of one rule.
  std::vector<const sdk::Finding*> rule(const std::string& id) const;
};

/// A finding's detail, or "".
std::string detail(const sdk::Finding& f, const std::string& key);

/// Runs `command` under bash with a clean environment: PATH=/usr/bin:/bin, HOME and the given
/// variables only (so no CANN setting of the machine leaks in).
test::CommandResult runClean(const std::string& command, const std::map<std::string, std::string>& env = {});

class CustomOpsEmitTest : public testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();

  /// Analyses `repo` with the custom_ops plugin and runs its emit hook.
  Emitted emit(const fs::path& repo);
  /// Runs the emit hook on `findings` as they are (no analysis).
  Emitted emitFindings(std::vector<sdk::Finding> findings);
  /// A repository made of `files` (path → content).
  fs::path repo(const std::map<std::string, std::string>& files);

  static test::ConfiguredPlugin* plugin_;
  test::TempDir kits_;
  test::RepositoryMaker repos_;
  int runs_ = 0;
};

}  // namespace migrate::custom_ops_test

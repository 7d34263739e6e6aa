// The attention plugin's fixes end to end: the real plugin analyses a tree, the findings' edits
// are applied (identical edits once), npu_ops.py is rendered with the sections the plugin's emit
// asks for, and the adapted Python is checked with pyflakes and run on the CPU with
// /usr/bin/python3 and torch (scripts in tests/python/).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyze/analyzer.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/workspace.hpp"
#include "support/emit_test_context.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace migrate;

const fs::path kTests = test::sourceDir() / "plugins" / "attention" / "tests";

/// What adapting a tree produced.
struct Adapted {
  std::vector<sdk::Finding> findings;
  std::set<std::string> sections;       ///< npu_ops.py sections the emit hook asked for
  std::vector<std::string> changed;     ///< files the edits changed
  std::vector<sdk::ManualWork> manual;  ///< manual work the emit hook listed
};

class AdaptedSources : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto loaded = test::ConfiguredPlugin::load("attention");
    ASSERT_TRUE(loaded) << loaded.error().message;
    plugin_ = loaded->release();
  }
  static void TearDownTestSuite() {
    delete plugin_;
    plugin_ = nullptr;
  }

  static std::vector<sdk::Finding> analyze(const fs::path& root) {
    return std::move(plugin_->analyze(root, 2).model.findings);
  }

  /// Copies `source` to `target` with the findings' edits applied, runs the plugin's emit hook
  /// and writes npu_ops.py, rendered with the sections it asked for, at the root of `target`.
  Adapted adapt(const fs::path& source, const fs::path& target) {
    Adapted out;
    out.findings = analyze(source);
    fs::copy(source, target, fs::copy_options::recursive);
    std::map<std::string, std::vector<sdk::Edit>> edits;
    for (const sdk::Finding& f : out.findings)
      for (const sdk::Edit& e : f.edits) {
        auto& list = edits[f.file];
        const bool seen = std::any_of(list.begin(), list.end(), [&](const sdk::Edit& o) {
          return o.start_byte == e.start_byte && o.end_byte == e.end_byte && o.replacement == e.replacement;
        });
        if (!seen) list.push_back(e);
      }
    for (auto& [file, list] : edits) {
      std::sort(list.begin(), list.end(),
                [](const auto& a, const auto& b) { return a.start_byte > b.start_byte; });
      std::string text = test::readFile(source / file);
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (i > 0) {
          EXPECT_LE(list[i].end_byte, list[i - 1].start_byte) << "overlapping edits in " << file;
        }
        text.replace(list[i].start_byte, list[i].end_byte - list[i].start_byte, list[i].replacement);
      }
      test::writeFile(target / file, text);
      out.changed.push_back(file);
    }
    test::TempDir kit;
    test::TestEmitContext context(kit.path(), "fixture");
    context.mutableFindings() = out.findings;
    plugin_->plugin().emit(context);
    sdk::TemplateData data;
    std::string listed;
    for (const std::string& s : context.sections) {
      const std::string section = s.substr(s.find(':') + 1);
      EXPECT_EQ(s.substr(0, s.find(':')), "npu_ops.py");
      out.sections.insert(section);
      data.setFlag(section);
      listed += (listed.empty() ? "" : " ") + section;
    }
    data.set("sections", listed);
    test::writeFile(target / "npu_ops.py", context.render("npu_ops.py", data));
    out.manual = context.manual_work;
    return out;
  }

  /// Runs /usr/bin/python3 with `arguments` (already quoted), without writing bytecode.
  static test::CommandResult python(const std::string& arguments) {
    return test::run("env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 " + arguments);
  }

  static test::ConfiguredPlugin* plugin_;
};

test::ConfiguredPlugin* AdaptedSources::plugin_ = nullptr;

TEST_F(AdaptedSources, FixtureCallSitesRunThroughNpuOpsOnTheCpu) {
  test::TempDir dir;
  const fs::path tree = dir / "adapted";
  const Adapted a = adapt(kTests / "fixtures" / "npu_ops_rewrites" / "input", tree);
  EXPECT_EQ(a.sections, (std::set<std::string>{"op_flash_attn", "op_rotary", "op_xformers"}));
  EXPECT_EQ(a.changed, (std::vector<std::string>{"attn/flash.py", "attn/rotary.py", "attn/xformers_alias.py",
                                                 "attn/xformers_module.py"}));
  std::string files = test::quote((tree / "npu_ops.py").string());
  for (const std::string& f : a.changed) files.append(" ").append(test::quote((tree / f).string()));
  const auto flakes = python("-m pyflakes " + files);
  EXPECT_EQ(flakes.exit_code, 0) << flakes.output;
  EXPECT_EQ(flakes.output, "");
  const auto run = python(test::quote((kTests / "python" / "check_adapted_fixture.py").string()) + " " +
                          test::quote(tree.string()));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  // The blocked calls keep their library and are listed as manual work naming the wrapper.
  std::set<std::string> manual_lines;
  for (const auto& w : a.manual)
    if (w.file.rfind("attn/blocked", 0) == 0) manual_lines.insert(w.file + ":" + std::to_string(w.line));
  EXPECT_EQ(manual_lines, (std::set<std::string>{"attn/blocked.py:12", "attn/blocked.py:16",
                                                 "attn/blocked.py:22", "attn/blocked.py:26",
                                                 "attn/blocked_module.py:12", "attn/blocked_star.py:7"}));
}

TEST_F(AdaptedSources, FixedTreeHasNothingLeftToFix) {
  test::TempDir dir;
  const Adapted a = adapt(kTests / "fixtures" / "npu_ops_rewrites" / "input", dir / "adapted");
  std::size_t fixed = 0;
  for (const auto& f : a.findings) fixed += f.autofix() ? 1 : 0;
  EXPECT_EQ(fixed, 9u);
  std::size_t again = 0;
  for (const auto& f : analyze(dir / "adapted")) {
    EXPECT_FALSE(f.autofix()) << f.file << ":" << f.range.line << " " << f.rule_id;
    ++again;
  }
  EXPECT_EQ(again, a.findings.size() - fixed);
}

TEST_F(AdaptedSources, ExampleAttentionBehavesLikeTheOriginalOnTheCpu) {
  test::TempDir dir;
  const fs::path original = test::sourceDir() / "examples" / "gpt_cuda";
  const fs::path tree = dir / "adapted";
  const Adapted a = adapt(original, tree);
  EXPECT_EQ(a.sections, (std::set<std::string>{"op_flash_attn", "op_xformers"}));
  EXPECT_EQ(a.changed, std::vector<std::string>{"gpt/attention.py"});
  const std::string adapted_text = test::readFile(tree / "gpt" / "attention.py");
  EXPECT_NE(adapted_text.find("from npu_ops import flash_attn_func, flash_attn_varlen_func"),
            std::string::npos);
  EXPECT_EQ(adapted_text.find("xformers.ops"), std::string::npos);
  const auto flakes = python("-m pyflakes " + test::quote((tree / "gpt" / "attention.py").string()));
  EXPECT_EQ(flakes.exit_code, 0) << flakes.output;

  const std::string script = test::quote((kTests / "python" / "check_adapted_example.py").string());
  const auto before = python(script + " " + test::quote(original.string()) + " digest");
  const auto after = python(script + " " + test::quote(tree.string()) + " digest");
  ASSERT_EQ(before.exit_code, 0) << before.output;
  ASSERT_EQ(after.exit_code, 0) << after.output;
  EXPECT_NE(before.output.find("flash math"), std::string::npos) << before.output;
  EXPECT_EQ(after.output, before.output);
  const auto branches = python(script + " " + test::quote(tree.string()) + " npu-branches");
  EXPECT_EQ(branches.exit_code, 0) << branches.output;
}

}  // namespace

// Tests discovered from the plugins themselves:
//   RuleSnippets.<plugin>_<rule id>   every rule's valid/invalid snippets, and its fixes (the engine's
//                                      rules::testSnippets, what `migrate-pipeline rules test` runs)
//   RuleFiles.<plugin>                 the plugin lists exactly the rules/*.yaml on disk
//   Fixtures.<plugin>_<case>           plugins/<domain>/tests/fixtures/<case>/ against expected.txt;
//                                      with after/: the fixed files, and their re-analysis
//                                      against expected_after.txt (no fix left to make)
// A rule without at least one valid and one invalid snippet fails.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analyze/analyzer.hpp"
#include "emit/source_edits.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "rule_tooling/rule_tester.hpp"
#include "rules/rule_set.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;

std::vector<LoadedPlugin>& plugins() {
  static std::vector<LoadedPlugin> loaded;
  return loaded;
}

/// "device=/src/plugins/device;…" from the build.
std::map<std::string, fs::path> pluginSourceDirs() {
  std::map<std::string, fs::path> out;
  std::stringstream ss(MIGRATE_PLUGIN_SOURCE_DIRS);
  for (std::string item; std::getline(ss, item, ';');) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

std::vector<std::unique_ptr<sdk::PluginContext>>& contexts() {
  static std::vector<std::unique_ptr<sdk::PluginContext>> all;
  return all;
}

/// `code` with the findings' fixes applied as the emit stage applies them (emit::applyFixes);
/// `fixed` receives the number of findings applied.
std::string applyFixes(const std::string& code, const std::vector<sdk::Finding>& findings,
                       std::size_t& fixed) {
  std::vector<const sdk::Finding*> pointers;
  for (const auto& f : findings) pointers.push_back(&f);
  std::vector<std::size_t> applied;
  std::string out = emit::applyFixes(code, pointers, &applied);
  fixed = applied.size();
  return out;
}

/// The rule's snippets as `migrate-pipeline rules test` runs them (rules::testSnippets).
class SnippetTest : public testing::Test {
 public:
  SnippetTest(const LoadedPlugin* plugin, const rules::Rule* rule) : plugin_(plugin), rule_(rule) {}
  void TestBody() override {
    for (const rules::SnippetFailure& f : rules::testSnippets(*plugin_, *rule_))
      ADD_FAILURE() << f.where << " (" << f.kind << "): " << f.message << (f.code.empty() ? "" : ":\n")
                    << f.code;
  }

 private:
  const LoadedPlugin* plugin_;
  const rules::Rule* rule_;
};

std::string testName(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

void registerRuleFileTest(const LoadedPlugin& p, const fs::path& source_dir) {
  testing::RegisterTest("RuleFiles", testName(p.info.name).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                        [&p, source_dir]() -> testing::Test* {
                          struct T : testing::Test {
                            const LoadedPlugin* p;
                            fs::path dir;
                            void TestBody() override {
                              std::set<std::string> listed, on_disk;
                              for (const auto& s : p->plugin->ruleSources()) {
                                listed.insert(s.name);
                                EXPECT_FALSE(s.yaml.empty()) << s.name << " is listed but not embedded";
                              }
                              if (fs::is_directory(dir / "rules"))
                                for (const auto& e : fs::directory_iterator(dir / "rules"))
                                  if (e.path().extension() == ".yaml")
                                    on_disk.insert("rules/" + e.path().filename().string());
                              EXPECT_EQ(listed, on_disk);
                            }
                          };
                          auto* t = new T;
                          t->p = &p;
                          t->dir = source_dir;
                          return t;
                        });
}

/// expected.txt: one "path:line RULE-ID" per line; '#' starts a comment.
std::multiset<std::string> readExpected(const fs::path& file) {
  std::multiset<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty()) out.insert(line);
  }
  return out;
}

/// Analyses the tree at `root` with plugin `p` alone, as a run would.
std::vector<sdk::Finding> analyzeTree(const LoadedPlugin& p, const fs::path& root) {
  std::vector<sdk::Diagnostic> diags;
  Workspace ws = buildInventory(root, {}, diags);
  MigrationModel model;
  auto progress = makeProgress(false, [](const std::string&) {});
  analyzeWorkspace(ws, {{&p}}, {.jobs = 2}, *progress, model);
  return std::move(model.findings);
}

/// "path:line RULE-ID" per finding, the format of expected.txt.
std::multiset<std::string> findingLines(const std::vector<sdk::Finding>& findings) {
  std::multiset<std::string> out;
  for (const auto& f : findings) out.insert(f.file + ":" + std::to_string(f.range.line) + " " + f.rule_id);
  return out;
}

void expectSameFindings(const std::multiset<std::string>& actual, const std::multiset<std::string>& expected,
                        const std::string& what) {
  for (const auto& e : expected)
    if (!actual.count(e)) ADD_FAILURE() << what << " missed: " << e;
  for (const auto& a : actual)
    if (!expected.count(a)) ADD_FAILURE() << what << " unexpected: " << a;
}

/// A fixture's after/: each input file with its findings' fixes applied (files the fixes leave
/// alone are omitted). The fixed tree (input/ overlaid with after/) re-analysed has no fix left to
/// make, and its findings are expected_after.txt when that file exists.
void checkFixedTree(const LoadedPlugin& p, const fs::path& dir, const std::vector<sdk::Finding>& findings) {
  const fs::path input = dir / "input";
  const fs::path after = dir / "after";
  std::map<std::string, std::vector<sdk::Finding>> by_file;
  for (const auto& f : findings) by_file[f.file].push_back(f);
  test::TempDir fixed_tree;
  fs::copy(input, fixed_tree.path(), fs::copy_options::recursive);
  for (const auto& [file, of_file] : by_file) {
    std::size_t fixed = 0;
    const std::string original = test::readFile(input / file);
    const std::string adapted = applyFixes(original, of_file, fixed);
    if (fs::exists(after / file))
      EXPECT_EQ(adapted, test::readFile(after / file)) << "after/" << file;
    else
      EXPECT_EQ(adapted, original) << file << " is changed by the fixes but has no after/" << file;
  }
  for (const auto& e : fs::recursive_directory_iterator(after)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), after).generic_string();
    EXPECT_TRUE(fs::exists(input / rel)) << "after/" << rel << " has no input/" << rel;
    test::writeFile(fixed_tree / rel, test::readFile(e.path()));
  }
  const auto again = analyzeTree(p, fixed_tree.path());
  for (const auto& f : again)
    if (f.autofix())
      ADD_FAILURE() << "the fixed tree still has a fix to make: " << f.file << ":" << f.range.line << " "
                    << f.rule_id;
  if (fs::exists(dir / "expected_after.txt"))
    expectSameFindings(findingLines(again), readExpected(dir / "expected_after.txt"), "fixed tree:");
}

void registerFixtureTests(const LoadedPlugin& p, const fs::path& source_dir) {
  const fs::path fixtures = source_dir / "tests" / "fixtures";
  if (!fs::is_directory(fixtures)) return;
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(fixtures))
    if (e.is_directory()) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  for (const auto& dir : cases) {
    const std::string name = testName(p.info.name + "_" + dir.filename().string());
    testing::RegisterTest(
        "Fixtures", name.c_str(), nullptr, nullptr, __FILE__, __LINE__, [&p, dir]() -> testing::Test* {
          struct T : testing::Test {
            const LoadedPlugin* p;
            fs::path dir;
            void TestBody() override {
              const auto findings = analyzeTree(*p, dir / "input");
              expectSameFindings(findingLines(findings), readExpected(dir / "expected.txt"), "input:");
              if (fs::is_directory(dir / "after")) checkFixedTree(*p, dir, findings);
            }
          };
          auto* t = new T;
          t->p = &p;
          t->dir = dir;
          return t;
        });
  }
}

}  // namespace
}  // namespace migrate

int main(int argc, char** argv) {
  using namespace migrate;
  testing::InitGoogleTest(&argc, argv);
  auto catalog = discoverPlugins(test::pluginDir());
  if (!catalog) {
    std::fprintf(stderr, "%s\n", catalog.error().message.c_str());
    return 1;
  }
  for (const auto& r : catalog->refused) std::fprintf(stderr, "refused: %s\n", r.c_str());
  if (!catalog->refused.empty()) return 1;
  plugins() = std::move(catalog->plugins);
  const auto dirs = pluginSourceDirs();
  for (const LoadedPlugin& p : plugins()) {
    // Configured as a run would with the default options.
    auto options = resolveOptions(PluginSelection{p.info.name, true, {}, ""}, p.info);
    if (!options) {
      std::fprintf(stderr, "%s\n", options.error().message.c_str());
      return 1;
    }
    contexts().push_back(makePluginContext(p, options.value(), [](bool, std::string_view) {}));
    p.plugin->configure(*contexts().back());
    for (const rules::Rule& rule : p.rules->rules()) {
      const std::string name = testName(p.info.name + "_" + rule.id);
      testing::RegisterTest("RuleSnippets", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [&p, &rule]() -> testing::Test* { return new SnippetTest(&p, &rule); });
    }
    auto it = dirs.find(p.info.name);
    if (it != dirs.end()) {
      registerRuleFileTest(p, it->second);
      registerFixtureTests(p, it->second);
    }
  }
  return RUN_ALL_TESTS();
}

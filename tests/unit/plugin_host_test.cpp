// The plugin host: real shared libraries loaded with Boost.DLL, refusals with clear messages.

#include <gtest/gtest.h>

#include "migrate/engine/plugin_host.hpp"
#include "rules/rule_set.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;
using test::testPluginDir;

TEST(PluginHost, LoadsTheDevicePlugin) {
  auto p = loadPlugin(test::pluginDir() / "migrate_device.so");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->info.name, "device");
  EXPECT_EQ(p->info.domain, "device");
  EXPECT_GT(p->rules->rules().size(), 10u);
}

TEST(PluginHost, RefusesALibraryThatIsNotAPlugin) {
  auto p = loadPlugin(testPluginDir() / "migrate_not_a_plugin.so");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("migrate_not_a_plugin.so: not a migrate-pipeline plugin"),
            std::string::npos)
      << p.error().message;
}

TEST(PluginHost, RefusesAnotherAbiNamingBothVersionsAndTheFix) {
  auto p = loadPlugin(testPluginDir() / "migrate_abi_mismatch.so");
  ASSERT_FALSE(p.ok());
  const std::string& m = p.error().message;
  EXPECT_NE(m.find("ABI 999"), std::string::npos) << m;
  EXPECT_NE(m.find("uses ABI " + std::to_string(sdk::kAbiVersion)), std::string::npos) << m;
  EXPECT_NE(m.find("rebuild the plugin"), std::string::npos) << m;
}

TEST(PluginHost, RefusesInvalidRulesWithTheirPosition) {
  auto p = loadPlugin(testPluginDir() / "migrate_bad_rules.so");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("bad_rules:plugins/rules/bad.yaml:8:17: confidence is 'certain'"),
            std::string::npos)
      << p.error().message;
}

TEST(PluginHost, RefusesAFileThatIsNoLibrary) {
  test::TempDir dir;
  test::writeFile(dir / "junk.so", "not an ELF file");
  auto catalog = discoverPlugins(dir.path());
  ASSERT_TRUE(catalog.ok());
  EXPECT_TRUE(catalog->plugins.empty());
  ASSERT_EQ(catalog->refused.size(), 1u);
  EXPECT_NE(catalog->refused[0].find("junk.so: cannot be loaded"), std::string::npos);
}

TEST(PluginHost, DiscoveryKeepsGoodPluginsAndListsRefusals) {
  auto catalog = discoverPlugins(testPluginDir());
  ASSERT_TRUE(catalog.ok());
  ASSERT_NE(catalog->find("throwing"), nullptr);
  EXPECT_EQ(catalog->refused.size(), 3u);
  auto missing = discoverPlugins("/nonexistent/plugins");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
}

TEST(PluginOptions, ValidatedAgainstTheDeclaredOptions) {
  auto p = loadPlugin(testPluginDir() / "migrate_throwing.so");
  ASSERT_TRUE(p.ok()) << p.error().message;
  PluginSelection sel;
  sel.name = "throwing";
  auto defaults = resolveOptions(sel, p->info);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->at("limit").scalar, "3");
  sel.options["limt"] = {false, "4", {}, "p.yaml:7:9"};
  auto unknown = resolveOptions(sel, p->info);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(
      unknown.error().message.find("p.yaml:7:9: plugin throwing has no option 'limt'; did you mean 'limit'?"),
      std::string::npos)
      << unknown.error().message;
  sel.options.clear();
  sel.options["limit"] = {false, "four", {}, "p.yaml:7:9"};
  auto wrong = resolveOptions(sel, p->info);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("must be an integer"), std::string::npos);
}

}  // namespace
}  // namespace migrate

// Rule packs' pieces: version ranges, README entries, the pipeline's and the fleet manifest's
// `rule_packs` (the packs themselves are loaded by real runs in e2e/rule_packs_test.cpp).

#include <gtest/gtest.h>

#include "fleet/fleet_spec.hpp"
#include "migrate/engine/pipeline.hpp"
#include "rules/rule_pack.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::TempDir;
using test::writeFile;

bool inRange(const std::string& range, const std::string& version) {
  auto r = rules::versionInRange(range, version);
  EXPECT_TRUE(r.ok()) << range << ": " << r.error().message;
  return r.ok() && r.value();
}

TEST(RulePack, VersionRanges) {
  EXPECT_TRUE(inRange(">=0.4, <1", "0.4.0"));
  EXPECT_TRUE(inRange(">=0.4,<1", "0.9.12"));
  EXPECT_FALSE(inRange(">=0.4, <1", "1.0.0"));
  EXPECT_FALSE(inRange(">=0.5", "0.4.9"));
  EXPECT_TRUE(inRange("0.4", "0.4.0")) << "a bare version is ==, missing numbers are 0";
  EXPECT_FALSE(inRange("==0.4", "0.4.1"));
  EXPECT_TRUE(inRange("!=0.4.1", "0.4.0"));
  EXPECT_TRUE(inRange(">0.3.9, <=0.4.0", "0.4.0"));
  for (const char* bad : {"", ">=", "0.4.x", ">=0.4;<1", "~0.4", "0.4.0.1", "=>0.4"})
    EXPECT_FALSE(rules::versionInRange(bad, "0.4.0").ok()) << bad;
}

TEST(RulePack, ReadmeEntriesAreHeadingsThatStartWithAnId) {
  const auto entries = rules::readmeEntries(
      "# pack\n\nintro\n\n## Rules\n\n### ACME-001 — first\n\ntext one\n\n```\n# ACME-009 in code\n```\n"
      "#### detail\n\nmore\n\n### ACME-002: second\ntext two\n## Other\nnot an entry\n");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries.at("ACME-001"),
            "### ACME-001 — first\n\ntext one\n\n```\n# ACME-009 in code\n```\n#### detail\n\nmore");
  EXPECT_EQ(entries.at("ACME-002"), "### ACME-002: second\ntext two");
}

TEST(RulePack, PipelineRulePacksAreRelativeToTheFileAndDumped) {
  TempDir dir;
  writeFile(dir / "p.yaml",
            "version: 1\nsource: {path: repo}\nplugins: [device]\nrule_packs: [packs/acme, /opt/packs/b]\n");
  auto spec = loadPipeline(dir / "p.yaml", {});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->rule_packs,
            (std::vector<std::string>{(dir.path() / "packs/acme").string(), "/opt/packs/b"}));
  EXPECT_NE(
      dumpPipeline(*spec).find("rule_packs: [" + (dir.path() / "packs/acme").string() + ", /opt/packs/b]"),
      std::string::npos)
      << dumpPipeline(*spec);
  writeFile(dir / "bad.yaml",
            "version: 1\nsource: {path: repo}\nplugins: [device]\nrule_packs: packs/acme\n");
  auto bad = loadPipeline(dir / "bad.yaml", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("bad.yaml:4:13: rule_packs must be a list"), std::string::npos)
      << bad.error().message;
}

TEST(RulePack, FleetDefaultsLoadPacksInEveryRepository) {
  TempDir dir;
  writeFile(dir / "p.yaml", "version: 1\nsource: {path: .}\nplugins: [device]\n");
  writeFile(dir / "fleet.yaml",
            "format: 1\npipeline: p.yaml\ndefaults: {rule_packs: [packs/acme], set: {jobs: 2}}\n"
            "repos: [{name: a, source: a}]\n");
  auto spec = fleet::loadFleet(dir / "fleet.yaml");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_EQ(spec->repos.size(), 1u);
  ASSERT_EQ(spec->repos[0].sets.size(), 2u);
  EXPECT_EQ(spec->repos[0].sets[0].key, "rule_packs");
  // Appended piecewise: GCC 12's -O3 -Wrestrict misfires on "[" + string + "]".
  std::string expected = "[";
  expected += (dir.path() / "packs/acme").string();
  expected += "]";
  EXPECT_EQ(spec->repos[0].sets[0].value, expected);
  EXPECT_EQ(spec->repos[0].sets[1].key, "jobs");
}

}  // namespace
}  // namespace migrate

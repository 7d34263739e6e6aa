// Pipeline files: typed loading, positioned errors, overrides and the dump.

#include <gtest/gtest.h>

#include "migrate/engine/pipeline.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::TempDir;
using test::writeFile;

const char* kMinimal =
    "version: 1\n"
    "source:\n"
    "  path: repo\n"
    "plugins:\n"
    "  device: {}\n";

TEST(Pipeline, MinimalFileGetsDefaults) {
  TempDir dir;
  writeFile(dir / "p.yaml", kMinimal);
  auto spec = loadPipeline(dir / "p.yaml", {});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->name, "p");
  EXPECT_EQ(spec->source.path, (dir.path() / "repo").string());
  EXPECT_EQ(spec->stages, kAllStages);
  EXPECT_EQ(spec->jobs, 0);
  ASSERT_EQ(spec->plugins.size(), 1u);
  EXPECT_EQ(spec->plugins[0].name, "device");
}

TEST(Pipeline, UnknownKeyNamesPositionAndSuggestion) {
  TempDir dir;
  writeFile(dir / "p.yaml", "version: 1\nsorce:\n  path: x\nplugins: [device]\n");
  auto spec = loadPipeline(dir / "p.yaml", {});
  ASSERT_FALSE(spec.ok());
  const std::string& msg = spec.error().message;
  EXPECT_NE(msg.find("p.yaml:2:1: unknown key 'sorce'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'source'"), std::string::npos) << msg;
}

TEST(Pipeline, WrongTypesAndMissingKeys) {
  TempDir dir;
  writeFile(dir / "a.yaml", std::string(kMinimal) + "jobs: many\n");
  auto a = loadPipeline(dir / "a.yaml", {});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("a.yaml:6:7: jobs must be an integer"), std::string::npos)
      << a.error().message;
  writeFile(dir / "b.yaml", "version: 1\nplugins: [device]\n");
  auto b = loadPipeline(dir / "b.yaml", {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("missing the required key 'source'"), std::string::npos);
  writeFile(dir / "c.yaml", std::string(kMinimal) + "stages: [analyse]\n");
  auto c = loadPipeline(dir / "c.yaml", {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("did you mean 'analyze'"), std::string::npos) << c.error().message;
}

TEST(Pipeline, MalformedYamlIsAPositionedError) {
  TempDir dir;
  writeFile(dir / "bad.yaml", "version: 1\nsource: {path: [\n");
  auto spec = loadPipeline(dir / "bad.yaml", {});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("bad.yaml:"), std::string::npos);
  EXPECT_NE(spec.error().message.find("malformed YAML"), std::string::npos) << spec.error().message;
  auto missing = loadPipeline(dir / "nope.yaml", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no such pipeline file"), std::string::npos);
}

TEST(Pipeline, OverridesApplyAndAreBlamedInErrors) {
  TempDir dir;
  writeFile(dir / "p.yaml", kMinimal);
  auto spec = loadPipeline(dir / "p.yaml", {{"jobs", "3"},
                                            {"stages", "[plan, analyze]"},
                                            {"source.path", "null"},
                                            {"source.url", "file:///x.git"},
                                            {"plugins.device.options.strict", "true"}});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->jobs, 3);
  EXPECT_EQ(spec->stages, (std::vector<std::string>{"analyze", "plan"}));
  EXPECT_TRUE(spec->source.path.empty());
  EXPECT_EQ(spec->source.url, "file:///x.git");
  EXPECT_EQ(spec->plugins[0].options.at("strict").scalar, "true");
  auto bad = loadPipeline(dir / "p.yaml", {{"jobs", "lots"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--set jobs=lots: jobs must be an integer"), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(parseOverride("novalue").ok());
  EXPECT_FALSE(parseOverride("a..b=1").ok());
}

TEST(Pipeline, SourceNeedsExactlyOneOfPathAndUrl) {
  TempDir dir;
  writeFile(dir / "p.yaml", "version: 1\nsource: {path: a, url: b}\nplugins: [device]\n");
  auto spec = loadPipeline(dir / "p.yaml", {});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("exactly one of path"), std::string::npos);
}

TEST(Pipeline, EmitSettingsAreCheckedAndTemplatesResolvedAgainstTheFile) {
  TempDir dir;
  writeFile(dir / "a.yaml", std::string(kMinimal) + "emit:\n  layout: sideways\n");
  auto a = loadPipeline(dir / "a.yaml", {});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("a.yaml:7:11"), std::string::npos) << a.error().message;
  EXPECT_NE(a.error().message.find("copy, siblings"), std::string::npos) << a.error().message;
  writeFile(dir / "b.yaml", std::string(kMinimal) + "emit: {templates: mine, layuot: copy}\n");
  auto b = loadPipeline(dir / "b.yaml", {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("did you mean 'layout'"), std::string::npos) << b.error().message;
  writeFile(dir / "c.yaml", std::string(kMinimal) + "emit: {templates: mine}\n");
  auto c = loadPipeline(dir / "c.yaml", {{"emit.layout", "siblings"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->emit.templates, (dir.path() / "mine").string());
  EXPECT_EQ(c->emit.layout, "siblings");
}

TEST(Pipeline, CacheSettingsAreCheckedAndDumped) {
  TempDir dir;
  writeFile(dir / "a.yaml", std::string(kMinimal) + "cache:\n  max_size_mb: 0\n");
  auto a = loadPipeline(dir / "a.yaml", {});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("a.yaml:7:16: cache.max_size_mb must be between 1"), std::string::npos)
      << a.error().message;
  writeFile(dir / "b.yaml", std::string(kMinimal) + "cache: {dri: /tmp/x}\n");
  auto b = loadPipeline(dir / "b.yaml", {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("did you mean 'dir'"), std::string::npos) << b.error().message;
  writeFile(dir / "c.yaml", std::string(kMinimal) + "cache: {dir: here, max_size_mb: 64}\n");
  auto c = loadPipeline(dir / "c.yaml", {{"cache.enabled", "false"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->cache.enabled);
  EXPECT_EQ(c->cache.dir, "here") << "relative to the working directory, like output";
  EXPECT_EQ(c->cache.max_size_mb, 64u);
  writeFile(dir / "d.yaml", dumpPipeline(c.value()));
  auto d = loadPipeline(dir / "d.yaml", {});
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->cache.enabled);
  EXPECT_EQ(d->cache.max_size_mb, 64u);
}

TEST(Pipeline, LimitsAreCheckedAndDumped) {
  TempDir dir;
  writeFile(dir / "a.yaml", std::string(kMinimal) + "limits:\n  parse_timeout_ms: 0\n");
  auto a = loadPipeline(dir / "a.yaml", {});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("a.yaml:7:21: limits.parse_timeout_ms must be positive"),
            std::string::npos)
      << a.error().message;
  writeFile(dir / "b.yaml", std::string(kMinimal) + "limits: {parse_timeout: 5}\n");
  auto b = loadPipeline(dir / "b.yaml", {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("did you mean 'parse_timeout_ms'"), std::string::npos)
      << b.error().message;
  writeFile(dir / "c.yaml", std::string(kMinimal) + "limits: {max_file_bytes: 1000}\n");
  auto c = loadPipeline(dir / "c.yaml", {{"limits.parse_timeout_ms", "2500"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->max_file_bytes, 1000u);
  EXPECT_EQ(c->parse_timeout_ms, 2500u);
  writeFile(dir / "d.yaml", dumpPipeline(c.value()));
  auto d = loadPipeline(dir / "d.yaml", {});
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->parse_timeout_ms, 2500u);
  auto defaults = loadPipeline(dir / "b.yaml", {{"limits", "{}"}});
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->parse_timeout_ms, 30'000u);
}

TEST(Pipeline, DumpRoundTrips) {
  TempDir dir;
  writeFile(dir / "p.yaml", kMinimal);
  auto spec = loadPipeline(dir / "p.yaml", {{"jobs", "2"}});
  ASSERT_TRUE(spec.ok());
  writeFile(dir / "dumped.yaml", dumpPipeline(spec.value()));
  auto again = loadPipeline(dir / "dumped.yaml", {});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->jobs, 2);
  EXPECT_EQ(again->source.path, spec->source.path);
  EXPECT_EQ(dumpPipeline(again.value()).find("jobs: 2") != std::string::npos, true);
}

}  // namespace
}  // namespace migrate

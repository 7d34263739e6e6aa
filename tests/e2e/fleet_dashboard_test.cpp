// DIR/index.html in a real browser: Debian's headless Chromium loads the page the fleet wrote,
// runs its script, and the test reads what it rendered (rows, charts, links, sort order) and
// what it logged (nothing).
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "support/chromium.hpp"
#include "support/test_support.hpp"

namespace migrate::test {
namespace {

void commitRepo(const fs::path& repo, const std::string& code, const std::string& message) {
  writeFile(repo / "model.py", code);
  const std::string git = "git -C " + quote(repo.string()) + " -c user.name=t -c user.email=t@example.org ";
  if (!fs::exists(repo / ".git")) {
    ASSERT_EQ(run(git + "init -q -b main").exit_code, 0);
  }
  ASSERT_EQ(run(git + "add -A && " + git + "commit -q -m " + quote(message)).exit_code, 0);
}

std::vector<std::string> all(const std::string& text, const std::regex& re) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

TEST(FleetDashboard, RendersSummaryTrendsFailuresAndSortableTableInChromium) {
  ASSERT_TRUE(fs::exists(kChromium))
      << "Debian's chromium is missing: scripts/setup.sh --with-tests installs it";
  TempDir dir;
  writeFile(dir / "pipeline.yaml",
            "version: 1\nsource: {path: .}\nplugin_dir: " + quote(testPluginDir().string()) +
                "\nplugins: [misbehaving]\nstages: [analyze, plan, emit, report]\n");
  // Calls through an alias have no automatic fix: they remain.
  const std::string alias = "import torch.cuda as tc\n";
  writeFile(dir / "src/small/util.py", "def one():\n    return 1\n");  // never changes
  commitRepo(dir / "src/small", alias + "tc.synchronize()\n", "one");
  commitRepo(dir / "src/large", alias + "tc.synchronize()\ntc.synchronize()\ntc.synchronize()\n", "three");
  commitRepo(dir / "src/broken", "# MIGRATE_TEST_CRASH\n", "crash");
  writeFile(dir / "fleet.yaml",
            "format: 1\npipeline: pipeline.yaml\nrepos:\n  - {name: small, source: src/small}\n"
            "  - {name: large, source: src/large}\n  - {name: broken, source: src/broken}\n");
  const fs::path out = dir / "fleet";
  const std::string night = quote(cli().string()) + " fleet run " + quote((dir / "fleet.yaml").string()) +
                            " --output " + quote(out.string()) + " -q";
  ASSERT_EQ(run(night).exit_code, 6);
  commitRepo(dir / "src/small", alias + "tc.synchronize()\ntc.synchronize()\n", "two");
  ASSERT_EQ(run(night).exit_code, 6);
  ASSERT_TRUE(fs::exists(out / "index.html"));  // written after every night

  const Rendered page =
      renderInChromium(dir, "file://" + (out / "index.html").string() + "#sort=remaining-desc");
  EXPECT_EQ(page.log.find("CONSOLE"), std::string::npos) << page.log;  // the page logs nothing, no error
  ASSERT_NE(page.dom.find("<h1>Fleet night 2"), std::string::npos) << page.dom.substr(0, 2000);

  // Summary: repositories by status, findings and effort remaining.
  EXPECT_NE(page.dom.find("<div class=\"value\">3</div><div class=\"muted\">repositories</div>"),
            std::string::npos);
  EXPECT_NE(page.dom.find("<div class=\"muted\">failed</div>"), std::string::npos);
  EXPECT_NE(page.dom.find("findings remaining"), std::string::npos);
  // Four trend charts over both nights, dated.
  const auto charts = all(page.dom, std::regex("<svg class=\"chart\"[^>]*>\\s*<title>([^<]*)</title>"));
  EXPECT_EQ(charts, (std::vector<std::string>{"Findings remaining and fixed",
                                              "Findings new and fixed since the night before",
                                              "Repositories by status", "Effort remaining"}));
  EXPECT_EQ(all(page.dom, std::regex("class=\"tick date\"[^>]*>([0-9-.]+)<")).size(), 8u);
  // Failures first, with the reason.
  const auto failures = all(page.dom, std::regex("<li data-repo=\"([^\"]+)\">"));
  EXPECT_EQ(failures, std::vector<std::string>{"broken"});
  EXPECT_NE(page.dom.find("plugin misbehaving on model.py in analyzeModule crashed (SIGSEGV)"),
            std::string::npos);
  // The table, sorted by the page's script as the URL asks: most findings left first.
  EXPECT_EQ(all(page.dom, std::regex("<tr data-repo=\"([^\"]+)\">")),
            (std::vector<std::string>{"large", "small", "broken"}));
  EXPECT_NE(page.dom.find("data-key=\"remaining\" data-numeric=\"1\" aria-sort=\"descending\""),
            std::string::npos);
  // What night 2 took over from night 1: all of the unchanged repository, part of the changed one.
  const auto reused = all(page.dom, std::regex("<td data-value=\"-?[0-9]+\">([^<]*)</td>\\s*<td><a"));
  // Since night 1: small's new finding, by its code, with a link to its diff (fleet diff's page).
  EXPECT_NE(page.dom.find("<div class=\"value\">1</div><div class=\"muted\">new since "), std::string::npos);
  std::smatch change;
  const std::string dom = page.dom;
  ASSERT_TRUE(std::regex_search(dom, change,
                                std::regex("<a href=\"(diff/[^\"]+/small\\.md)\">\\+1 −0 \\(code\\)</a>")))
      << page.dom;
  EXPECT_NE(readFile(out / change[1].str()).find("| small | code | 1 | 0 |"), std::string::npos);
  ASSERT_EQ(reused.size(), 3u) << page.dom;
  EXPECT_EQ(reused[0], "everything (unchanged)");             // large
  EXPECT_EQ(reused[1].rfind("emit 1/", 0), 0u) << reused[1];  // small: util.py's copy in adapted/
  EXPECT_EQ(reused[2], "");                                   // broken: nothing to start from
  // Every link resolves to a file the fleet wrote.
  const auto links = all(page.dom, std::regex("href=\"([^\"]+)\""));
  EXPECT_GE(links.size(), 7u);  // report, patch, SARIF, log of two runs; the failure's log
  for (const std::string& link : links) EXPECT_TRUE(fs::is_regular_file(out / link)) << link;
  std::set<std::string> kinds;
  for (const std::string& link : links) kinds.insert(fs::path(link).extension().string());
  EXPECT_TRUE(kinds.count(".md") && kinds.count(".patch") && kinds.count(".sarif")) << page.dom;

  // Sorting by name from the URL as well.
  const Rendered by_name = renderInChromium(dir, "file://" + (out / "index.html").string() + "#sort=name");
  EXPECT_EQ(all(by_name.dom, std::regex("<tr data-repo=\"([^\"]+)\">")),
            (std::vector<std::string>{"broken", "large", "small"}));
}

TEST(FleetDashboard, AnEmptyOrDamagedStoreGivesAPageThatSaysSo) {
  ASSERT_TRUE(fs::exists(kChromium))
      << "Debian's chromium is missing: scripts/setup.sh --with-tests installs it";
  TempDir dir;
  const fs::path out = dir / "fleet";
  fs::create_directories(out);
  CommandResult r = run(quote(cli().string()) + " fleet dashboard " + quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      renderInChromium(dir, "file://" + (out / "index.html").string()).dom.find("no night has run here yet"),
      std::string::npos);
  writeFile(out / "fleet.db", "this is not a database, only some text that is long enough..........");
  r = run(quote(cli().string()) + " fleet dashboard " + quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("is not a fleet store"), std::string::npos) << r.output;
  const Rendered page = renderInChromium(dir, "file://" + (out / "index.html").string());
  EXPECT_NE(page.dom.find("The fleet store cannot be read"), std::string::npos) << page.dom;
  EXPECT_EQ(page.log.find("CONSOLE"), std::string::npos) << page.log;
}

}  // namespace
}  // namespace migrate::test

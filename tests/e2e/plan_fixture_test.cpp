// Plan fixtures: small repositories under tests/plan_fixtures/<case>/input whose import graph,
// entry points, phases, bottlenecks, matrix and goals are worked out by hand in expected.txt.
// The CLI runs analyze + plan with every plugin (phase_matrix included) and the case's own
// `plan:` settings (plan.yaml), and the result is rendered in expected.txt's line format.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;

fs::path fixturesDir() {
  return test::sourceDir() / "tests" / "plan_fixtures";
}

std::string joined(const json& items, const char* sep = " ") {
  std::string out;
  for (const auto& i : items) out.append(out.empty() ? "" : sep).append(i.get<std::string>());
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// The lines expected.txt states about a run's findings.json.
std::vector<std::string> render(const json& doc) {
  std::vector<std::string> out;
  const json& plan = doc["plan"];
  for (const auto& n : plan["import_graph"]) {
    std::string line = "graph " + n["path"].get<std::string>() + " ->";
    for (const auto& i : n["imports"]) line.append(" ").append(i.get<std::string>());
    out.push_back(line);
  }
  for (const auto& e : plan["structure"]["entry_points"]) {
    std::string launcher = e["launcher"].get<std::string>();
    out.push_back("entry " + e["kind"].get<std::string>() + " " + e["name"].get<std::string>() +
                  (launcher.empty() ? "" : " " + launcher) + " -> " + joined(e["modules"]));
  }
  const json& a = plan["assessment"];
  if (a.is_null()) return out;
  out.push_back("active " + joined(a["active_phases"]));
  for (const auto& f : doc["findings"]) {
    const std::string phases = joined(f["phases"]);
    out.push_back("phases " + f["file"].get<std::string>() + ":" + std::to_string(f["line"].get<int>()) +
                  " " + f["rule_id"].get<std::string>() + " =" + (phases.empty() ? "" : " " + phases));
  }
  for (const auto& u : a["unreached_files"]) out.push_back("unreached " + u.get<std::string>());
  for (const auto& b : plan["bottlenecks"])
    out.push_back("bottleneck " + b["id"].get<std::string>() + " " + b["rule_id"].get<std::string>() + " " +
                  b["scope"].get<std::string>() + " places=" + std::to_string(b["findings"].size()) +
                  " days=" + number(b["effort_days"]));
  for (const auto& r : a["matrix"])
    out.push_back("row " + r["priority"].get<std::string>() + " " + r["dependency"].get<std::string>() +
                  " = " + joined(r["phases"]) + " | " + joined(r["bottlenecks"]) + " | " +
                  number(r["effort_days"]));
  std::vector<json> goals(a["goals"].begin(), a["goals"].end());
  goals.push_back(a["full"]);
  for (const auto& g : goals)
    out.push_back("goal " + g["name"].get<std::string>() + " = " + joined(g["bottlenecks"]) + " | " +
                  number(g["effort_days"]) + " days | " + number(g["effort_weeks"]) + " weeks | " +
                  g["verdict"].get<std::string>());
  for (const auto& g : goals) {
    std::string ids;
    for (const auto& b : g["blockers"])
      ids.append(" ").append(b.get<std::string>().substr(0, b.get<std::string>().find(' ')));
    out.push_back("blockers " + g["name"].get<std::string>() + " =" + ids);
  }
  return out;
}

std::vector<std::string> expectedLines(const fs::path& file) {
  std::vector<std::string> out;
  std::istringstream in(readFile(file));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

class PlanFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PlanFixture, MatchesTheHandWorkedPlan) {
  const fs::path dir = fixturesDir() / GetParam();
  TempDir out;
  std::string plan_section;
  if (fs::exists(dir / "plan.yaml")) {
    std::istringstream in(readFile(dir / "plan.yaml"));
    for (std::string line; std::getline(in, line);) plan_section += "  " + line + "\n";
  }
  writeFile(out / "p.yaml", "version: 1\nsource: {path: " + (dir / "input").string() +
                                "}\nstages: [analyze, plan]\nplugins: {deps: {}, device: {}, attention: {}, "
                                "custom_ops: {}, distributed: {}, precision: {}, phase_matrix: {}}\n" +
                                (plan_section.empty() ? "" : "plan:\n" + plan_section));
  const auto r = run(quote(test::cli().string()) + " run " + quote((out / "p.yaml").string()) +
                     " -q --output " + quote((out / "o").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(readFile(out / "o" / "findings.json"));
  const auto got = render(doc);
  const auto want = expectedLines(dir / "expected.txt");
  // Line by line, so that a difference names what changed.
  for (std::size_t i = 0; i < std::max(got.size(), want.size()); ++i)
    EXPECT_EQ(i < got.size() ? got[i] : "<missing>", i < want.size() ? want[i] : "<extra>")
        << "line " << i + 1;
}

std::vector<std::string> cases() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fixturesDir()))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Cases, PlanFixture, ::testing::ValuesIn(cases()),
                         [](const auto& instance) { return instance.param; });

}  // namespace
}  // namespace migrate

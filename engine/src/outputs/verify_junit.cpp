#include "outputs/verify_junit.hpp"

#include <fmt/format.h>

#include <map>
#include <sstream>
#include <vector>

#include "outputs/json_output.hpp"
#include "outputs/markup_text.hpp"

namespace migrate::outputs {
namespace {

/// What a check is in JUnit terms: "failure", "error", "skipped" or "" (passed), and why.
std::pair<std::string, std::string> verdictOf(const CheckResult& c) {
  const std::string& o = c.outcome;
  if (o == "introduced") return {"failure", "introduced: " + c.detail};
  if (o == "error") return {"error", c.detail};
  if (o == "pre-existing") return {"skipped", "pre-existing (fails on the original tree too): " + c.detail};
  if (o == "environment") return {"skipped", "environment: " + (c.cause.empty() ? c.detail : c.cause)};
  if (o == "skipped" || (o.empty() && c.status == "skipped")) return {"skipped", c.detail};
  if (o.empty() && c.status == "failed") return {"failure", c.detail};
  if (o.empty() && c.status == "error") return {"error", c.detail};
  return {"", ""};  // passed, fixed
}

struct Suite {
  std::vector<const CheckResult*> checks;
  std::map<std::string, int> counts;  // failure, error, skipped
  double time = 0;
};

}  // namespace

Status writeVerifyJunit(const VerifyResult& r, const std::filesystem::path& file) {
  std::vector<std::string> order;  // stages in the order their first check came
  std::map<std::string, Suite> suites;
  Suite all;
  for (const CheckResult& c : r.checks) {
    if (!suites.count(c.stage)) order.push_back(c.stage);
    Suite& s = suites[c.stage];
    s.checks.push_back(&c);
    s.time += c.duration;
    all.time += c.duration;
    if (const std::string kind = verdictOf(c).first; !kind.empty()) {
      ++s.counts[kind];
      ++all.counts[kind];
    }
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << fmt::format(
      "<testsuites name=\"migrate-pipeline verification\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "skipped=\"{}\" time=\"{:.3f}\">\n",
      r.checks.size(), all.counts["failure"], all.counts["error"], all.counts["skipped"], all.time);
  for (const std::string& stage : order) {
    Suite& s = suites[stage];
    x << fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
        "time=\"{:.3f}\">\n",
        xmlText(stage), s.checks.size(), s.counts["failure"], s.counts["error"], s.counts["skipped"], s.time);
    for (const CheckResult* c : s.checks) {
      const auto [kind, message] = verdictOf(*c);
      x << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xmlText(stage),
                       xmlText(c->check), c->duration);
      if (kind.empty()) {
        x << "/>\n";
        continue;
      }
      x << ">\n      <" << kind << " message=\"" << xmlText(message) << "\"";
      std::string body = c->output;
      for (const std::string& edit : c->broken_by) body += "\nbroken by " + edit;
      if (!c->attribution.empty()) body += "\n" + c->attribution;
      if (kind == "skipped" || body.empty())
        x << "/>\n";
      else
        x << ">" << xmlText(body) << "</" << kind << ">\n";
      x << "    </testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return writeFileAtomically(file, [&](std::ostream& out) { out << x.str(); });
}

}  // namespace migrate::outputs

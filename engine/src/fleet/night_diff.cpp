#include "fleet/night_diff.hpp"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "csv/csv_writer.hpp"
#include "report/report_text.hpp"

namespace migrate::fleet {
namespace {

using Json = nlohmann::ordered_json;

bool comparable(const RepoRun& r) {
  return r.status == "succeeded" || r.status == "cached";
}

/// Why `to`'s results may differ from `from`'s.
std::string whyChanged(const RepoRun& from, const RepoRun& to) {
  if (from.tool_key.empty() || to.tool_key.empty()) return from.commit != to.commit ? "code" : "unknown";
  const bool code = from.commit != to.commit;
  const bool tool = from.tool_key != to.tool_key;
  return code && tool ? "code and tool" : code ? "code" : tool ? "tool" : "neither";
}

std::string place(const FoundFinding& f) {
  return f.file + (f.line > 0 ? ":" + std::to_string(f.line) : "");
}

Json findingsJson(const std::vector<FoundFinding>& list) {
  Json out = Json::array();
  for (const FoundFinding& f : list)
    out.push_back({{"rule", f.rule},
                   {"file", f.file},
                   {"line", f.line},
                   {"fingerprint", f.fingerprint},
                   {"fixed_by_emit", f.fixed}});
  return out;
}

std::string diffJson(const NightDiff& d) {
  Json repos = Json::array();
  for (const RepoDiff& r : d.repos)
    repos.push_back({{"name", r.name},
                     {"why", r.why},
                     {"note", r.note},
                     {"from_commit", r.from_commit},
                     {"to_commit", r.to_commit},
                     {"new", findingsJson(r.added)},
                     {"fixed", findingsJson(r.fixed)},
                     {"persisting", r.persisting.size()}});
  const Json doc{{"from", {{"night", d.from.id}, {"label", d.from.label}}},
                 {"to", {{"night", d.to.id}, {"label", d.to.label}}},
                 {"repos", std::move(repos)}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string diffCsv(const NightDiff& d) {
  CsvWriter csv;
  csv.row("change", "repo", "file", "line", "rule", "fingerprint", "why");
  for (const RepoDiff& r : d.repos)
    for (const auto& [change, list] :
         {std::pair{"new", &r.added}, std::pair{"fixed", &r.fixed}, std::pair{"persisting", &r.persisting}})
      for (const FoundFinding& f : *list)
        csv.row(change, r.name, f.file, f.line, f.rule, f.fingerprint, r.why);
  return csv.take();
}

std::string diffMarkdown(const NightDiff& d) {
  using report::cell;
  using report::code;
  std::string out = "# Fleet diff: night " + cell(d.from.label) + " → " + cell(d.to.label) + "\n\n";
  std::int64_t added = 0, fixed = 0;
  for (const RepoDiff& r : d.repos) {
    added += static_cast<std::int64_t>(r.added.size());
    fixed += static_cast<std::int64_t>(r.fixed.size());
  }
  out += std::to_string(added) + " new, " + std::to_string(fixed) + " fixed in " +
         std::to_string(d.repos.size()) +
         " repositories. *Why* says what changed between the two runs: the repository's code, the tool "
         "(engine, plugins, rules, rule packs, templates, pipeline), both or neither.\n\n";
  out += "| Repository | Why | New | Fixed | Persisting |\n|---|---|---|---|---|\n";
  for (const RepoDiff& r : d.repos)
    out += "| " + cell(r.name) + " | " + cell(r.why + (r.note.empty() ? "" : " (" + r.note + ")")) + " | " +
           std::to_string(r.added.size()) + " | " + std::to_string(r.fixed.size()) + " | " +
           std::to_string(r.persisting.size()) + " |\n";
  for (const RepoDiff& r : d.repos) {
    if (r.added.empty() && r.fixed.empty()) continue;
    out += "\n## " + cell(r.name) + " (" + cell(r.why) + ")\n";
    for (const auto& [title, list] : {std::pair{"New", &r.added}, std::pair{"Fixed", &r.fixed}}) {
      if (list->empty()) continue;
      out += "\n" + std::string(title) + ":\n\n";
      for (const FoundFinding& f : *list) out += "- " + code(place(f)) + " " + cell(f.rule) + "\n";
    }
  }
  return out;
}

}  // namespace

Result<NightDiff> diffNights(const Store& store, const Night& from, const Night& to,
                             const std::optional<std::string>& repo) {
  NightDiff diff{from, to, {}};
  if (auto st =
          forEachRepoDiff(store, from, to, repo, [&](RepoDiff&& d) { diff.repos.push_back(std::move(d)); });
      !st)
    return st.error();
  return diff;
}

Status forEachRepoDiff(const Store& store, const Night& from, const Night& to,
                       const std::optional<std::string>& repo, const std::function<void(RepoDiff&&)>& each) {
  auto before = store.runs(from.id);
  if (!before) return before.error();
  auto after = store.runs(to.id);
  if (!after) return after.error();
  std::map<std::string, std::pair<const RepoRun*, const RepoRun*>> rows;
  for (const RepoRun& r : before.value()) rows[r.name].first = &r;
  for (const RepoRun& r : after.value()) rows[r.name].second = &r;
  for (const auto& [name, pair] : rows) {
    if (repo && name != *repo) continue;
    const auto [a, b] = pair;
    RepoDiff d;
    d.name = name;
    d.from_commit = a ? a->commit : "";
    d.to_commit = b ? b->commit : "";
    std::vector<FoundFinding> old_list, new_list;
    for (const auto& [row, night, list] : {std::tuple{a, &from, &old_list}, std::tuple{b, &to, &new_list}}) {
      if (!row || !comparable(*row)) continue;
      auto found = store.foundFindings(night->id, name);
      if (!found) return found.error();
      *list = std::move(found.value());
    }
    if (!a) {
      d.why = "new";
    } else if (!b) {
      d.why = "removed";  // not in the later night: nothing of it is fixed
      each(std::move(d));
      continue;
    } else if (!comparable(*a) || !comparable(*b)) {
      d.why = "not comparable";
      d.note = "its run " + (comparable(*a) ? "in night " + to.label + " " + b->status
                                            : "in night " + from.label + " " + a->status);
      each(std::move(d));
      continue;
    } else {
      d.why = whyChanged(*a, *b);
    }
    std::set<std::string> old_prints, new_prints;
    for (const FoundFinding& f : old_list) old_prints.insert(f.fingerprint);
    for (const FoundFinding& f : new_list) new_prints.insert(f.fingerprint);
    for (const FoundFinding& f : new_list)
      (old_prints.count(f.fingerprint) ? d.persisting : d.added).push_back(f);
    for (const FoundFinding& f : old_list)
      if (!new_prints.count(f.fingerprint)) d.fixed.push_back(f);
    each(std::move(d));
  }
  return Ok{};
}

std::string formatDiff(const NightDiff& diff, const std::string& format) {
  if (format == "json") return diffJson(diff);
  if (format == "csv") return diffCsv(diff);
  return diffMarkdown(diff);
}

}  // namespace migrate::fleet

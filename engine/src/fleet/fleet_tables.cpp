#include "fleet/fleet_tables.hpp"

#include "csv/csv_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>

namespace migrate::fleet {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kReasonWidth = 80;  // code points of a reason in the table, "…" included
constexpr std::size_t kCommitWidth = 12;  // code points of the commit in the table

// ---- numbers: fixed decimals, independent of the locale ----

/// `value` rounded to `decimals` places (half away from zero), so JSON shows 1.5 rather than
/// 1.4999999999999998 and the table, CSV and JSON agree.
double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  const auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, rounded(value, decimals), std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "0";
  std::string out(buf, end);
  // "-0.00" (a tiny negative value) reads as zero
  if (out.front() == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

// ---- text ----

bool isContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// Code points (approximately: display columns) of UTF-8 text; stray bytes count one each.
std::size_t width(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return !isContinuation(c); }));
}

/// The first `points` code points of `s`, never cutting a UTF-8 sequence.
std::string_view prefix(std::string_view s, std::size_t points) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!isContinuation(s[i]) && seen++ == points) return s.substr(0, i);
  }
  return s;
}

/// At most `max` code points of `s` (max >= 1); cut text ends in "…".
std::string truncated(std::string_view s, std::size_t max) {
  if (width(s) <= max) return std::string(s);
  return std::string(prefix(s, max - 1)) + "…";
}

/// One line: control characters (a newline in a reason) become spaces.
std::string oneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  }
  return out;
}

std::string dump(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Json nullIfEmpty(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

std::string plural(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// ---- aligned tables ----

enum class Align { kLeft, kRight };

struct Column {
  std::string title;
  Align align = Align::kLeft;
};

/// Columns separated by two spaces, padded to the widest cell; the last column is not padded
/// and no line ends in spaces.
std::string alignedTable(const std::vector<Column>& columns,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& c : columns) widths.push_back(width(c.title));
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i)
      widths[i] = std::max(widths[i], width(row[i]));
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& cell = i < cells.size() ? cells[i] : std::string();
      const std::string pad(widths[i] - width(cell), ' ');
      if (i > 0) text += "  ";
      if (columns[i].align == Align::kRight) {
        text += pad + cell;
      } else {
        text += cell;
        if (i + 1 < columns.size()) text += pad;
      }
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out += text + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& c : columns) titles.push_back(c.title);
  line(titles);
  for (const auto& row : rows) line(row);
  return out;
}

// ---- status ----

/// Findings per domain, by domain name.
std::map<std::string, std::int64_t> byDomain(const RepoRun& run) {
  std::map<std::string, std::int64_t> out;
  for (const auto& c : run.counts) out[c.domain] += c.total;
  return out;
}

std::vector<const RepoRun*> sortedByName(const std::vector<RepoRun>& runs) {
  std::vector<const RepoRun*> out;
  for (const auto& r : runs) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(),
                   [](const RepoRun* a, const RepoRun* b) { return a->name < b->name; });
  return out;
}

std::string absoluteOutputDir(const std::filesystem::path& fleet_dir, const std::string& output_dir) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(fleet_dir, ec);
  if (ec) dir = fleet_dir;
  return (dir / output_dir).lexically_normal().string();
}

std::string statusJson(const Night& night, const std::vector<const RepoRun*>& runs,
                       const std::filesystem::path& fleet_dir) {
  Json repos = Json::array();
  for (const RepoRun* r : runs) {
    Json domains = Json::object();
    for (const auto& [domain, total] : byDomain(*r)) domains[domain] = total;
    Json row;
    row["name"] = r->name;
    row["commit"] = r->commit;
    row["status"] = r->status;
    row["reason"] = r->reason;
    row["findings"] = r->findings;
    row["findings_by_domain"] = std::move(domains);
    row["effort_days"] = rounded(r->effort_days, 2);
    row["verdict"] = r->verdict;
    row["duration_s"] = rounded(r->duration_s, 1);
    row["output_dir"] =
        r->output_dir.empty() ? Json(nullptr) : Json(absoluteOutputDir(fleet_dir, r->output_dir));
    row["findings_fixed"] = r->findings_fixed;
    row["verify_status"] = r->verify_status;
    row["peak_rss_mb"] = rounded(r->peak_rss_mb, 1);
    row["cached_from"] = r->cached_from ? Json(*r->cached_from) : Json(nullptr);
    Json reused = Json::object();  // what the run took over from the repository's previous output
    for (const StageRow& st : r->stages)
      if (st.kept > 0) reused[st.stage] = {{"kept", st.kept}, {"of", st.total}};
    row["reused"] = std::move(reused);
    row["started_at"] = r->started_at;
    row["finished_at"] = r->finished_at;
    row["delivery"] =
        r->delivery.empty()
            ? Json(nullptr)
            : Json{{"state", r->delivery}, {"branch", r->delivery_branch}, {"commit", r->delivery_commit}};
    repos.push_back(std::move(row));
  }
  Json doc;
  doc["night"] = night.id;
  doc["label"] = night.label;
  doc["state"] = night.state;
  doc["started_at"] = night.started_at;
  doc["finished_at"] = nullIfEmpty(night.finished_at);
  doc["repos"] = std::move(repos);
  return dump(doc);
}

std::string statusCsv(const std::vector<const RepoRun*>& runs, const std::filesystem::path& fleet_dir) {
  CsvWriter csv;
  for (const char* title :
       {"name", "commit", "status", "reason", "findings", "findings_fixed", "findings_by_domain",
        "effort_days", "verdict", "verify_status", "duration_s", "peak_rss_mb", "output_dir"}) {
    csv.field(title);
  }
  csv.endRow();
  for (const RepoRun* r : runs) {
    std::string domains;
    for (const auto& [domain, total] : byDomain(*r)) {
      if (!domains.empty()) domains += ';';
      domains += domain + "=" + std::to_string(total);
    }
    csv.field(r->name);
    csv.field(r->commit);
    csv.field(r->status);
    csv.field(r->reason);
    csv.field(r->findings);
    csv.field(r->findings_fixed);
    csv.field(domains);
    csv.field(fixed(r->effort_days, 2));
    csv.field(r->verdict);
    csv.field(r->verify_status);
    csv.field(fixed(r->duration_s, 1));
    csv.field(fixed(r->peak_rss_mb, 1));
    csv.field(r->output_dir.empty() ? std::string() : absoluteOutputDir(fleet_dir, r->output_dir));
    csv.endRow();
  }
  return csv.take();
}

std::string statusTable(const Night& night, const std::vector<const RepoRun*>& runs) {
  // The header line: "night 3 (2026-11-26), completed, 12 repositories: 9 succeeded, 2 cached, 1 failed"
  std::map<std::string, std::int64_t> by_status;
  for (const RepoRun* r : runs) ++by_status[r->status];
  std::string counts;
  for (const char* status : {"succeeded", "cached", "failed", "timed_out", "out_of_memory"}) {
    const auto it = by_status.find(status);
    if (it == by_status.end()) continue;
    std::string words = status;
    std::replace(words.begin(), words.end(), '_', ' ');
    counts += (counts.empty() ? ": " : ", ") + std::to_string(it->second) + " " + words;
    by_status.erase(it);
  }
  for (const auto& [status, n] : by_status) {  // a status this build does not know
    counts += (counts.empty() ? ": " : ", ") + std::to_string(n) + " " + status;
  }
  std::string out = "night " + std::to_string(night.id) + " (" + night.label + "), " + night.state + ", " +
                    plural(static_cast<std::int64_t>(runs.size()), "repository", "repositories") + counts +
                    "\n";
  if (runs.empty()) return out;

  std::vector<std::vector<std::string>> rows;
  for (const RepoRun* r : runs) {
    std::string reason = oneLine(r->reason);
    if (reason.empty() && r->cached_from) reason = "unchanged since night " + std::to_string(*r->cached_from);
    const std::string commit = oneLine(r->commit);
    rows.push_back({oneLine(r->name), r->status, std::string(prefix(commit, kCommitWidth)),
                    std::to_string(r->findings), fixed(r->effort_days, 2), oneLine(r->verdict),
                    fixed(r->duration_s, 1) + "s", truncated(reason, kReasonWidth)});
  }
  return out + alignedTable({{"NAME"},
                             {"STATUS"},
                             {"COMMIT"},
                             {"FINDINGS", Align::kRight},
                             {"EFFORT", Align::kRight},
                             {"VERDICT"},
                             {"DURATION", Align::kRight},
                             {"REASON"}},
                            rows);
}

// ---- history ----

std::string historyJson(const std::vector<NightSummary>& nights) {
  Json list = Json::array();
  for (const auto& s : nights) {
    Json row;
    row["id"] = s.night.id;
    row["label"] = s.night.label;
    row["state"] = s.night.state;
    row["started_at"] = s.night.started_at;
    row["finished_at"] = nullIfEmpty(s.night.finished_at);
    row["repos"] = s.repos;
    row["succeeded"] = s.succeeded;
    row["failed"] = s.failed;
    row["timed_out"] = s.timed_out;
    row["out_of_memory"] = s.out_of_memory;
    row["cached"] = s.cached;
    row["findings"] = s.findings;
    row["findings_fixed"] = s.findings_fixed;
    row["effort_days"] = rounded(s.effort_days, 2);
    list.push_back(std::move(row));
  }
  Json doc;
  doc["nights"] = std::move(list);
  return dump(doc);
}

std::string historyCsv(const std::vector<NightSummary>& nights) {
  CsvWriter csv;
  for (const char* title :
       {"id", "label", "state", "started_at", "finished_at", "repos", "succeeded", "failed", "timed_out",
        "out_of_memory", "cached", "findings", "findings_fixed", "effort_days"}) {
    csv.field(title);
  }
  csv.endRow();
  for (const auto& s : nights) {
    csv.field(s.night.id);
    csv.field(s.night.label);
    csv.field(s.night.state);
    csv.field(s.night.started_at);
    csv.field(s.night.finished_at);
    csv.field(s.repos);
    csv.field(s.succeeded);
    csv.field(s.failed);
    csv.field(s.timed_out);
    csv.field(s.out_of_memory);
    csv.field(s.cached);
    csv.field(s.findings);
    csv.field(s.findings_fixed);
    csv.field(fixed(s.effort_days, 2));
    csv.endRow();
  }
  return csv.take();
}

std::string historyTable(const std::vector<NightSummary>& nights) {
  if (nights.empty()) return "no nights in the store yet\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : nights) {
    rows.push_back({std::to_string(s.night.id), oneLine(s.night.label), s.night.state,
                    oneLine(s.night.started_at), std::to_string(s.repos), std::to_string(s.succeeded),
                    std::to_string(s.cached), std::to_string(s.failed), std::to_string(s.timed_out),
                    std::to_string(s.out_of_memory), std::to_string(s.findings),
                    std::to_string(s.findings_fixed), fixed(s.effort_days, 2)});
  }
  return alignedTable({{"ID", Align::kRight},
                       {"LABEL"},
                       {"STATE"},
                       {"STARTED"},
                       {"REPOS", Align::kRight},
                       {"SUCCEEDED", Align::kRight},
                       {"CACHED", Align::kRight},
                       {"FAILED", Align::kRight},
                       {"TIMED_OUT", Align::kRight},
                       {"OOM", Align::kRight},
                       {"FINDINGS", Align::kRight},
                       {"FIXED", Align::kRight},
                       {"EFFORT", Align::kRight}},
                      rows);
}

}  // namespace

std::string formatStatus(const Night& night, const std::vector<RepoRun>& runs, const std::string& format,
                         const std::filesystem::path& fleet_dir) {
  const auto sorted = sortedByName(runs);
  if (format == "json") return statusJson(night, sorted, fleet_dir);
  if (format == "csv") return statusCsv(sorted, fleet_dir);
  return statusTable(night, sorted);
}

std::string formatHistory(const std::vector<NightSummary>& nights, const std::string& format) {
  if (format == "json") return historyJson(nights);
  if (format == "csv") return historyCsv(nights);
  return historyTable(nights);
}

}  // namespace migrate::fleet

#include "fleet/fleet_spec.hpp"

#include <csv.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <fstream>
#include <map>
#include <memory>

#include "migrate/engine/install_layout.hpp"
#include "yaml/yaml_reader.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

using yaml::Reader;

const std::vector<std::string> kTopKeys{"format",  "pipeline", "keep_nights", "fetch",
                                        "deliver", "defaults", "repos",       "repos_file"};
const std::vector<std::string> kRepoKeys{"name", "source", "ref", "timeout", "memory", "stages", "set"};
const std::vector<std::string> kDefaultKeys{"ref", "timeout", "memory", "stages", "set", "rule_packs"};

bool validName(const std::string& name) {
  if (name.empty() || name.size() > 100 || name == "." || name == "..") return false;
  for (const unsigned char c : name)
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

bool isUrl(const std::string& source) {
  if (source.find("://") != std::string::npos) return true;
  // scp-like "user@host:path/repo.git"
  const auto at = source.find('@');
  const auto colon = source.find(':');
  return at != std::string::npos && colon != std::string::npos && at < colon && source.front() != '/';
}

/// What a repository entry may set, as read from `defaults` or from the entry.
struct Settings {
  std::string ref;
  std::chrono::seconds timeout{1800};
  std::uint64_t memory_bytes = 4ULL << 30;
  std::vector<std::string> stages;
  std::vector<Override> sets;
};

std::vector<Override> readSets(const Reader& r, const YAML::Node& n, const std::string& what) {
  r.requireMap(n, what);
  std::vector<Override> out;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = r.string(it->first, "a key of " + what);
    auto parsed = parseOverride(key + "=");
    if (!parsed) r.fail(it->first, what + ": '" + key + "' is not a dotted pipeline key like verify.target");
    YAML::Emitter e;
    e << YAML::Flow << it->second;
    out.push_back({key, it->second.IsNull() ? "null" : std::string(e.c_str())});
  }
  return out;
}

/// Reads the keys of `n` shared by `defaults` and repository entries into `s`.
void readSettings(const Reader& r, const YAML::Node& n, const std::string& what, Settings& s) {
  if (n["ref"]) s.ref = r.string(n["ref"], what + ".ref");
  if (n["timeout"]) {
    auto d = parseDuration(r.string(n["timeout"], what + ".timeout"));
    if (!d) r.fail(n["timeout"], what + ".timeout: " + d.error().message);
    if (d.value() < std::chrono::seconds(1)) r.fail(n["timeout"], what + ".timeout must be at least 1s");
    s.timeout = std::chrono::duration_cast<std::chrono::seconds>(d.value());
  }
  if (n["memory"]) {
    auto m = parseMemory(r.string(n["memory"], what + ".memory"));
    if (!m) r.fail(n["memory"], what + ".memory: " + m.error().message);
    s.memory_bytes = m.value();
  }
  if (n["stages"]) {
    if (!n["stages"].IsSequence() || n["stages"].size() == 0)
      r.fail(n["stages"], what + ".stages must be a non-empty list, e.g. [analyze, plan, emit, report]");
    s.stages.clear();
    for (const auto& st : n["stages"]) s.stages.push_back(r.choice(st, kAllStages, "a stage"));
  }
  if (n["set"]) {
    // The entry's overrides come after the defaults', so they win.
    for (auto& o : readSets(r, n["set"], what + ".set")) s.sets.push_back(std::move(o));
  }
}

RepoSpec makeRepo(const std::string& name, const std::string& source, const Settings& s, const fs::path& base,
                  std::string where) {
  RepoSpec repo;
  repo.name = name;
  repo.source = source;
  repo.local = !isUrl(source);
  repo.location = repo.local ? (base / source).lexically_normal().string() : source;
  if (repo.local && repo.location.size() > 1 && repo.location.back() == '/') repo.location.pop_back();
  repo.ref = s.ref;
  repo.timeout = s.timeout;
  repo.memory_bytes = s.memory_bytes;
  repo.stages = s.stages;
  repo.sets = s.sets;
  repo.where = std::move(where);
  return repo;
}

/// The rows of a CSV file, each with the line it starts on; `#` lines and blank lines skipped.
struct CsvRow {
  std::vector<std::string> fields;
  int line = 0;
};

Result<std::vector<CsvRow>> readCsv(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return makeError(file.string() + ": cannot read the repos_file (does it exist?)");
  struct State {
    std::vector<CsvRow> rows;
    CsvRow current;
    int line = 0;
    bool in_row = false;  ///< the last line left a quoted field open
  } state;
  csv_parser parser{};
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    return makeError("cannot start the CSV parser");
  std::unique_ptr<csv_parser, void (*)(csv_parser*)> guard(&parser, csv_free);
  auto onField = [](void* data, std::size_t len, void* p) {
    auto* st = static_cast<State*>(p);
    if (st->current.fields.empty()) st->current.line = st->line;
    st->current.fields.emplace_back(data ? static_cast<const char*>(data) : "", data ? len : 0);
  };
  auto onRow = [](int, void* p) {
    auto* st = static_cast<State*>(p);
    st->rows.push_back(std::move(st->current));
    st->current = {};
  };
  std::string line;
  while (std::getline(in, line)) {
    ++state.line;
    const auto first = line.find_first_not_of(" \t\r");
    if (!state.in_row && (first == std::string::npos || line[first] == '#')) continue;
    line += '\n';
    const std::size_t rows_before = state.rows.size();
    const std::size_t parsed = csv_parse(&parser, line.data(), line.size(), onField, onRow, &state);
    state.in_row = state.rows.size() == rows_before;
    if (parsed != line.size())
      return makeError(file.string() + ":" + std::to_string(state.line) +
                       ": malformed CSV: " + csv_strerror(csv_error(&parser)) +
                       " (quote a field with \"...\" and double a quote inside it)");
  }
  if (csv_fini(&parser, onField, onRow, &state) != 0)
    return makeError(file.string() + ":" + std::to_string(state.line) +
                     ": malformed CSV: " + csv_strerror(csv_error(&parser)) + " (an unterminated quote?)");
  return std::move(state.rows);
}

FleetSpec readFleet(const Reader& r, const YAML::Node& doc, const fs::path& file) {
  r.checkKeys(doc, kTopKeys, "the fleet manifest");
  r.requireKeys(doc, {"format", "pipeline"}, "the fleet manifest");
  if (r.integer(doc["format"], "format") != 1)
    r.fail(doc["format"], "unsupported fleet manifest format; this migrate-pipeline reads format 1");
  if (!doc["repos"] && !doc["repos_file"])
    r.fail(doc, "the fleet manifest lists no repositories: add `repos:` or `repos_file:`");
  FleetSpec spec;
  spec.file = file;
  const fs::path base = file.parent_path();
  // A path relative to the manifest, or a shipped pipeline's name (`pipeline: full`), the same
  // on every node where the package is installed.
  const std::string pipeline = r.string(doc["pipeline"], "pipeline");
  const auto resolved = resolvePipeline(pipeline, installLayout(), base);
  std::error_code ec;
  spec.pipeline = resolved ? resolved.value().lexically_normal() : (base / pipeline).lexically_normal();
  if (!fs::is_regular_file(spec.pipeline, ec)) {
    std::string shipped;
    for (const std::string& name : shippedPipelines(installLayout()))
      shipped += (shipped.empty() ? "" : ", ") + name;
    r.fail(doc["pipeline"],
           "no pipeline file " + spec.pipeline.string() +
               " (a path is relative to the manifest) and no shipped pipeline of that name (" +
               (shipped.empty() ? "none are shipped" : "shipped: " + shipped) + ")");
  }
  if (doc["keep_nights"]) {
    const long long k = r.integer(doc["keep_nights"], "keep_nights");
    if (k < 1 || k > 10000) r.fail(doc["keep_nights"], "keep_nights must be between 1 and 10000");
    spec.keep_nights = static_cast<int>(k);
  }
  if (const YAML::Node f = doc["fetch"]) {
    r.checkKeys(f, {"concurrency", "attempts", "backoff"}, "fetch");
    if (f["concurrency"]) {
      const long long c = r.integer(f["concurrency"], "fetch.concurrency");
      if (c < 1 || c > 64) r.fail(f["concurrency"], "fetch.concurrency must be between 1 and 64");
      spec.fetch.concurrency = static_cast<int>(c);
    }
    if (f["attempts"]) {
      const long long a = r.integer(f["attempts"], "fetch.attempts");
      if (a < 1 || a > 10) r.fail(f["attempts"], "fetch.attempts must be between 1 and 10");
      spec.fetch.attempts = static_cast<int>(a);
    }
    if (f["backoff"]) {
      auto d = parseDuration(r.string(f["backoff"], "fetch.backoff"));
      if (!d) r.fail(f["backoff"], "fetch.backoff: " + d.error().message);
      spec.fetch.backoff = d.value();
    }
  }
  if (const YAML::Node d = doc["deliver"]) {
    r.checkKeys(d, {"remote", "branch", "author_name", "author_email"}, "deliver");
    r.requireKeys(d, {"remote"}, "deliver");
    spec.deliver.enabled = true;
    spec.deliver.remote = r.string(d["remote"], "deliver.remote");
    if (spec.deliver.remote.empty())
      r.fail(d["remote"], "deliver.remote is a git URL ({name} is the repository) or `source`");
    if (d["branch"]) spec.deliver.branch = r.string(d["branch"], "deliver.branch");
    const std::string& b = spec.deliver.branch;
    if (b.empty() || b.front() == '/' || b.back() == '/' || b.find("..") != std::string::npos ||
        b.find_first_of(" ~^:?*[\\") != std::string::npos || b.rfind("refs/", 0) == 0)
      r.fail(d["branch"],
             "deliver.branch '" + b + "' is not a usable branch name, e.g. npu-migration/{date}");
    if (d["author_name"]) spec.deliver.author_name = r.string(d["author_name"], "deliver.author_name");
    if (d["author_email"]) spec.deliver.author_email = r.string(d["author_email"], "deliver.author_email");
  }
  Settings defaults;
  if (const YAML::Node d = doc["defaults"]) {
    r.checkKeys(d, kDefaultKeys, "defaults");
    if (const YAML::Node packs = d["rule_packs"]) {
      // Every repository's run loads them: the pipeline's `rule_packs`, set before any `set`.
      if (!packs.IsSequence()) r.fail(packs, "defaults.rule_packs must be a list of rule pack directories");
      std::vector<std::string> dirs;
      for (const auto& p : packs) {
        fs::path dir = r.string(p, "a rule pack directory");
        if (dir.empty()) r.fail(p, "a rule pack directory must not be empty");
        dirs.push_back((dir.is_relative() ? spec.file.parent_path() / dir : dir).lexically_normal().string());
      }
      YAML::Emitter e;
      e << YAML::Flow << dirs;
      defaults.sets.push_back({"rule_packs", e.c_str()});
    }
    readSettings(r, d, "defaults", defaults);
  }
  std::map<std::string, std::string> seen;  // name → where
  auto add = [&](RepoSpec repo, const std::function<void(const std::string&)>& fail) {
    if (!validName(repo.name))
      fail("repository name '" + repo.name +
           "' must be letters, digits, '.', '_' or '-' (it names the repository's directories)");
    if (auto [it, inserted] = seen.emplace(repo.name, repo.where); !inserted)
      fail("repository name '" + repo.name + "' is used twice (first at " + it->second +
           "); names are unique");
    spec.repos.push_back(std::move(repo));
  };
  if (const YAML::Node repos = doc["repos"]) {
    if (!repos.IsSequence()) r.fail(repos, "repos must be a list of {name, source} entries");
    for (const auto& n : repos) {
      r.checkKeys(n, kRepoKeys, "a repos entry");
      r.requireKeys(n, {"name", "source"}, "a repos entry");
      Settings s = defaults;
      const std::string name = r.string(n["name"], "repos.name");
      readSettings(r, n, "repository '" + name + "'", s);
      const std::string source = r.string(n["source"], "repository '" + name + "'.source");
      if (source.empty()) r.fail(n["source"], "repository '" + name + "' has an empty source");
      add(makeRepo(name, source, s, base, r.where(n["name"])),
          [&](const std::string& m) { r.fail(n["name"], m); });
    }
  }
  if (doc["repos_file"]) {
    const fs::path csv = (base / r.string(doc["repos_file"], "repos_file")).lexically_normal();
    auto rows = readCsv(csv);
    if (!rows) r.fail(doc["repos_file"], rows.error().message);
    bool first = true;
    for (const CsvRow& row : rows.value()) {
      const std::string where = csv.string() + ":" + std::to_string(row.line);
      auto fail = [&](const std::string& m) { throw yaml::YamlError(where + ": " + m); };
      if (first && row.fields.size() >= 2 && row.fields[0] == "name" && row.fields[1] == "source") {
        first = false;  // a header row
        continue;
      }
      first = false;
      if (row.fields.size() < 2 || row.fields.size() > 3)
        fail("expected name,source[,ref] but found " + std::to_string(row.fields.size()) + " field(s)");
      if (row.fields[1].empty()) fail("repository '" + row.fields[0] + "' has an empty source");
      Settings s = defaults;
      if (row.fields.size() == 3 && !row.fields[2].empty()) s.ref = row.fields[2];
      add(makeRepo(row.fields[0], row.fields[1], s, csv.parent_path(), where), fail);
    }
  }
  if (spec.repos.empty()) r.fail(doc, "the fleet manifest lists no repositories");
  return spec;
}

}  // namespace

Result<FleetSpec> loadFleet(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return makeError(file.string() + ": no such fleet manifest (see pipelines/fleet-example.yaml)");
  const fs::path absolute = fs::absolute(file).lexically_normal();
  Reader r(file.string());
  try {
    const YAML::Node doc = YAML::LoadFile(file.string());
    if (!doc.IsMap()) r.fail(doc, "a fleet manifest is a mapping with format, pipeline and repos");
    return readFleet(r, doc, absolute);
  } catch (const yaml::YamlError& e) {
    return makeError(e.what());
  } catch (const YAML::Exception& e) {
    return makeError(file.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
  }
}

Result<std::chrono::milliseconds> parseDuration(const std::string& text) {
  const std::string hint = "'" + text + "' is not a duration; write e.g. 500ms, 90s, 30m, 2h or 1h30m";
  if (text.empty()) return makeError(hint);
  long long total = 0;  // milliseconds
  std::size_t i = 0;
  bool unitless = true;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i || j - i > 9) return makeError(hint);
    const long long n = std::stoll(text.substr(i, j - i));
    if (j == text.size()) {
      if (!unitless) return makeError(hint);  // "1h30" is ambiguous
      total += n * 1000;
      break;
    }
    unitless = false;
    if (text.compare(j, 2, "ms") == 0) {
      total += n;
      ++j;
    } else if (text[j] == 'h') {
      total += n * 3600000;
    } else if (text[j] == 'm') {
      total += n * 60000;
    } else if (text[j] == 's') {
      total += n * 1000;
    } else {
      return makeError(hint);
    }
    i = j + 1;
  }
  if (total <= 0) return makeError("'" + text + "' is not a positive duration");
  return std::chrono::milliseconds(total);
}

Result<std::uint64_t> parseMemory(const std::string& text) {
  const std::string hint = "'" + text + "' is not a memory size; write e.g. 512MiB or 4GiB";
  std::size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    return makeError(hint);
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::map<std::string, int> shifts{{"", 0},   {"B", 0},    {"K", 10}, {"KiB", 10},
                                                 {"M", 20}, {"MiB", 20}, {"G", 30}, {"GiB", 30},
                                                 {"T", 40}, {"TiB", 40}};
  const auto it = shifts.find(unit);
  if (it == shifts.end()) return makeError(hint);
  if (n == 0 || n > (~0ULL >> it->second)) return makeError("'" + text + "' is not a usable memory size");
  const std::uint64_t bytes = static_cast<std::uint64_t>(n) << it->second;
  if (bytes < (16ULL << 20)) return makeError("'" + text + "' is below 16MiB, too little to run a pipeline");
  return bytes;
}

std::string formatDuration(std::chrono::seconds d) {
  long long s = d.count();
  std::string out;
  if (s >= 3600) out += std::to_string(s / 3600) + "h", s %= 3600;
  if (s >= 60) out += std::to_string(s / 60) + "m", s %= 60;
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

std::string formatMemory(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++u;
  return std::to_string(bytes) + " " + units[u];
}

}  // namespace migrate::fleet

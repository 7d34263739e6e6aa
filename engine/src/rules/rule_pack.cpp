#include "rules/rule_pack.hpp"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "rules/rule_loader.hpp"
#include "yaml/yaml_reader.hpp"

namespace migrate::rules {
namespace fs = std::filesystem;
namespace {

using yaml::Reader;

const std::vector<std::string> kPackKeys{"format",           "name",        "version",  "prefix",
                                         "migrate_pipeline", "description", "homepage", "domains"};

bool validName(const std::string& s) {
  if (s.empty() || s.size() > 64 || !std::isalnum(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; });
}

bool validPrefix(const std::string& s) {
  if (s.empty() || s.size() > 16 || !std::isupper(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isupper(c) || std::isdigit(c) || c == '_'; });
}

bool validDomain(const std::string& s) {
  if (s.empty() || s.size() > 64 || !std::islower(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '_'; });
}

/// "0.4.2" → {0, 4, 2}; false when it is not up to three dot-separated numbers.
bool parseVersion(std::string_view text, std::array<long, 3>& out) {
  out = {0, 0, 0};
  std::size_t part = 0;
  std::size_t i = 0;
  while (true) {
    if (part == 3 || i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    long n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      n = n * 10 + (text[i++] - '0');
      if (n > 1'000'000) return false;
    }
    out[part++] = n;
    if (i == text.size()) return true;
    if (text[i++] != '.') return false;
  }
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string hexDigest(const std::string& text) {
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

/// pack.yaml into `pack` (not its rules). Throws yaml::YamlError / YAML::Exception.
void readPackFile(const Reader& r, const YAML::Node& doc, const KnownRules& known,
                  const std::string& tool_version, RulePack& pack) {
  r.requireMap(doc, "pack.yaml");
  r.checkKeys(doc, kPackKeys, "pack.yaml");
  r.requireKeys(doc, {"format", "name", "version", "prefix", "migrate_pipeline"}, "pack.yaml");
  if (r.integer(doc["format"], "format") != 1)
    r.fail(doc["format"], "unsupported pack format " + doc["format"].Scalar() +
                              "; this migrate-pipeline reads format 1 (write `format: 1`, or use a "
                              "migrate-pipeline that reads this format)");
  pack.name = r.string(doc["name"], "name");
  pack.name_where = r.where(doc["name"]);
  if (!validName(pack.name))
    r.fail(doc["name"], "a pack name is letters, digits, '-' and '_' (at most 64), e.g. acme-gpu");
  pack.version = r.string(doc["version"], "version");
  if (pack.version.empty()) r.fail(doc["version"], "version must not be empty, e.g. 1.0.0");
  pack.prefix = r.string(doc["prefix"], "prefix");
  pack.prefix_where = r.where(doc["prefix"]);
  if (!validPrefix(pack.prefix))
    r.fail(doc["prefix"],
           "a prefix is upper-case letters, digits and '_', starting with a letter (at most 16), e.g. ACME; "
           "the pack's rule ids are <prefix>-<number>");
  pack.migrate_pipeline = r.string(doc["migrate_pipeline"], "migrate_pipeline");
  auto in_range = versionInRange(pack.migrate_pipeline, tool_version);
  if (!in_range) r.fail(doc["migrate_pipeline"], "migrate_pipeline: " + in_range.error().message);
  if (!in_range.value())
    r.fail(doc["migrate_pipeline"], "pack " + pack.name + " " + pack.version +
                                        " works with migrate-pipeline " + pack.migrate_pipeline +
                                        ", and this is migrate-pipeline " + tool_version +
                                        "; use a release of the pack made for " + tool_version +
                                        ", or a migrate-pipeline in its range");
  if (doc["description"]) pack.description = r.string(doc["description"], "description");
  if (doc["homepage"]) pack.homepage = r.string(doc["homepage"], "homepage");
  if (const YAML::Node domains = doc["domains"]) {
    if (!domains.IsSequence()) r.fail(domains, "domains must be a list of {name, title}");
    for (const auto& d : domains) {
      r.checkKeys(d, {"name", "title"}, "a domain of pack.yaml");
      r.requireKeys(d, {"name", "title"}, "a domain of pack.yaml");
      PackDomain domain{r.string(d["name"], "name"), r.string(d["title"], "title"), r.where(d["name"])};
      if (!validDomain(domain.name))
        r.fail(d["name"], "a domain name is lower-case letters, digits and '_', e.g. acme_runtime");
      if (known.domains.count(domain.name))
        r.fail(d["name"], "domain " + domain.name +
                              " is a plugin's domain already; remove it from domains: (a rule file of "
                              "domain " +
                              domain.name + " adds its rules to it)");
      for (const PackDomain& earlier : pack.domains)
        if (earlier.name == domain.name) r.fail(d["name"], "domain " + domain.name + " is declared twice");
      if (domain.title.empty()) r.fail(d["title"], "a domain's title names its group in the report");
      pack.domains.push_back(std::move(domain));
    }
  }
}

/// The rules of one pack's rule file, with the checks a pack adds to the rule format. Appends
/// problems to `errors`. Without `header` (pack.yaml did not load) the file is still checked,
/// for every problem at once, but its domain and ids cannot be judged.
void readPackRules(const fs::path& file, const std::string& text, const KnownRules& known, RulePack& pack,
                   bool header, std::vector<std::string>& errors) {
  std::vector<std::string> domain_names;
  for (const auto& d : pack.domains) domain_names.push_back(d.name);
  const std::string pack_yaml = (pack.dir / "pack.yaml").string();
  auto rules = loadRules(text, file.string(), [&](const std::string& declared) -> std::string {
    if (!header || known.domains.count(declared) ||
        std::find(domain_names.begin(), domain_names.end(), declared) != domain_names.end())
      return {};
    std::string plugins;
    for (const auto& d : known.domains) plugins += (plugins.empty() ? "" : ", ") + d;
    return "domain '" + declared + "' is neither a plugin's domain (" + (plugins.empty() ? "none" : plugins) +
           ") nor declared by the pack; fix the name, or declare it under domains: in " + pack_yaml;
  });
  if (!rules) {
    errors.push_back(rules.error().message);
    return;
  }
  for (Rule& rule : rules.value()) {
    const std::string at = rule.source + ": rule " + rule.id + ": ";
    bool ok = true;
    if (header && (rule.id.rfind(pack.prefix + "-", 0) != 0 || rule.id.size() == pack.prefix.size() + 1)) {
      errors.push_back(at + "the pack's rule ids start with its prefix, " + pack.prefix + "- (e.g. " +
                       pack.prefix + "-001); rename it");
      ok = false;
    }
    if (rule.kind == Rule::Kind::Custom) {
      errors.push_back(at +
                       "match: custom needs a plugin's code, and a pack has none; match it with api, import, "
                       "method, attribute, keyword or string");
      ok = false;
    }
    if (rule.invalid.empty() || rule.valid.empty()) {
      errors.push_back(at + "has no " + (rule.invalid.empty() ? "invalid" : "valid") +
                       " snippet; a pack's rule needs at least one of each under tests: (invalid: code it "
                       "must report, valid: code it must not)");
      ok = false;
    }
    if (ok) pack.rules.push_back(std::move(rule));
  }
}

/// One pack, or nothing when it has problems; every problem goes to `errors` (a pack.yaml that
/// does not load does not keep its rule files from being checked).
std::optional<RulePack> loadRulePack(const fs::path& dir, const KnownRules& known,
                                     const std::string& tool_version, std::vector<std::string>& errors) {
  RulePack pack;
  pack.dir = dir;
  const fs::path pack_file = dir / "pack.yaml";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    errors.push_back(dir.string() + ": no such rule pack directory; give the directory that holds pack.yaml");
    return std::nullopt;
  }
  std::string text;
  if (!readText(pack_file, text)) {
    errors.push_back(dir.string() +
                     ": not a rule pack: it has no pack.yaml (`migrate-pipeline new pack NAME` "
                     "writes one; docs/rule-packs.md)");
    return std::nullopt;
  }
  std::string digest_input = "pack.yaml\n" + text;
  const Reader r(pack_file.string());
  bool header = false;
  try {
    readPackFile(r, YAML::Load(text), known, tool_version, pack);
    header = true;
  } catch (const yaml::YamlError& e) {
    errors.push_back(e.what());
  } catch (const YAML::Exception& e) {
    errors.push_back(pack_file.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
  }
  std::vector<fs::path> files;
  if (fs::is_directory(dir / "rules", ec))
    for (const auto& e : fs::directory_iterator(dir / "rules", ec))
      if (e.path().extension() == ".yaml" && e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    errors.push_back(dir.string() + ": the pack has no rules/*.yaml; add its rule files there");
  for (const fs::path& f : files) {
    std::string rules_text;
    if (!readText(f, rules_text)) {
      errors.push_back(f.string() + ": cannot be read");
      continue;
    }
    digest_input += "\n" + f.filename().string() + "\n" + rules_text;
    readPackRules(f, rules_text, known, pack, header, errors);
  }
  if (!header) return std::nullopt;
  std::string readme;
  if (readText(dir / "README.md", readme)) {
    pack.has_readme = true;
    pack.docs = readmeEntries(readme);
    digest_input += "\nREADME.md\n" + readme;
  }
  pack.digest = hexDigest(digest_input);
  return pack;
}

}  // namespace

std::string RulePack::domainList() const {
  std::set<std::string> names;
  for (const Rule& r : rules) names.insert(r.domain);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Result<bool> versionInRange(std::string_view range, std::string_view version) {
  std::array<long, 3> have{};
  if (!parseVersion(version, have)) return makeError("'" + std::string(version) + "' is not a version");
  if (trimmed(range).empty())
    return makeError(
        "an empty range; write e.g. \">=0.4, <1\" (comma-separated terms, each an operator "
        "and a version)");
  bool ok = true;
  std::size_t start = 0;
  while (start <= range.size()) {
    const std::size_t comma = std::min(range.find(',', start), range.size());
    std::string_view term = trimmed(range.substr(start, comma - start));
    start = comma + 1;
    std::string op = "==";
    for (const char* candidate : {">=", "<=", "==", "!=", ">", "<"}) {
      if (term.rfind(candidate, 0) == 0) {
        op = candidate;
        term = trimmed(term.substr(op.size()));
        break;
      }
    }
    std::array<long, 3> want{};
    if (!parseVersion(term, want))
      return makeError(
          "'" + std::string(range) +
          "' is not a version range; write comma-separated terms, each an operator (>=, >, <=, <, "
          "==, !=) and a version of up to three numbers, e.g. \">=0.4, <1\"");
    const bool holds = op == ">="   ? have >= want
                       : op == "<=" ? have <= want
                       : op == ">"  ? have > want
                       : op == "<"  ? have < want
                       : op == "!=" ? have != want
                                    : have == want;
    ok = ok && holds;
  }
  return ok;
}

std::map<std::string, std::string> readmeEntries(std::string_view markdown) {
  std::map<std::string, std::string> out;
  std::string current;
  std::size_t level = 0;
  bool in_code = false;
  std::size_t pos = 0;
  while (pos < markdown.size()) {
    const std::size_t eol = std::min(markdown.find('\n', pos), markdown.size());
    const std::string_view line = markdown.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    std::size_t hashes = 0;
    while (!in_code && hashes < line.size() && line[hashes] == '#') ++hashes;
    if (hashes > 0 && hashes < line.size() && line[hashes] == ' ') {
      if (!current.empty() && hashes <= level) current.clear();
      const std::string_view text = trimmed(line.substr(hashes));
      std::size_t end = 0;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-' || text[end] == '_'))
        ++end;
      const std::string id(text.substr(0, end));
      const bool is_id = id.find('-') != std::string::npos &&
                         std::isupper(static_cast<unsigned char>(id[0])) &&
                         std::isdigit(static_cast<unsigned char>(id.back()));
      if (is_id && current.empty()) {
        current = id;
        level = hashes;
      }
    }
    if (!current.empty()) out[current] += std::string(line) + "\n";
  }
  for (auto& [id, text] : out)
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return out;
}

bool isRulePack(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "pack.yaml", ec);
}

PackLoad loadRulePacks(const std::vector<fs::path>& dirs, const KnownRules& known,
                       const std::string& tool_version) {
  PackLoad out;
  std::set<fs::path> seen;
  std::map<std::string, std::string> ids = known.ids;  // id → where
  std::map<std::string, std::string> domains;          // declared domain → where
  std::map<std::string, std::string> names;            // pack name → where
  // prefix → whose it is; the built-in rules' prefixes (DEV, DIST, ...) are taken too.
  std::map<std::string, std::string> prefixes;
  for (const auto& [id, where] : known.ids)
    if (const std::size_t dash = id.rfind('-'); dash != std::string::npos && dash > 0)
      prefixes.emplace(id.substr(0, dash), "the built-in rules (" + id + " at " + where + ")");
  for (const fs::path& given : dirs) {
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(fs::absolute(given), ec);
    if (ec) dir = fs::absolute(given);
    if (!seen.insert(dir).second) continue;
    auto pack = loadRulePack(dir, known, tool_version, out.errors);
    if (!pack) continue;
    bool clash = false;
    if (auto [it, fresh] = names.emplace(pack->name, pack->name_where); !fresh) {
      out.errors.push_back(pack->name_where + ": pack name " + pack->name +
                           " is also the name of the pack at " + it->second +
                           "; load one of them, or rename one");
      clash = true;
    }
    if (auto [it, fresh] = prefixes.emplace(pack->prefix, "the pack at " + pack->prefix_where); !fresh) {
      out.errors.push_back(pack->prefix_where + ": prefix " + pack->prefix + " is also the prefix of " +
                           it->second + "; give each pack its own prefix");
      clash = true;
    }
    for (const PackDomain& d : pack->domains)
      if (auto [it, fresh] = domains.emplace(d.name, d.where); !fresh) {
        out.errors.push_back(d.where + ": domain " + d.name + " is also declared at " + it->second +
                             "; two packs cannot declare one domain: rename one of them");
        clash = true;
      }
    for (const Rule& r : pack->rules)
      if (auto [it, fresh] = ids.emplace(r.id, r.source); !fresh) {
        out.errors.push_back(r.source + ": rule id " + r.id + " is also defined at " + it->second +
                             "; rule ids are unique: rename this one");
        clash = true;
      }
    if (!clash) out.packs.push_back(std::move(*pack));
  }
  return out;
}

bool readText(const fs::path& file, std::string& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace migrate::rules

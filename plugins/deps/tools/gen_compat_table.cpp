// Build-time generator of the deps plugin's compatibility table.
//
//   gen_compat_table data/compatibility.yaml OUTPUT.cpp RULE_FILE...
//
// Reads the verdict table, checks it (known keys, verdicts, PEP 503-normalised and unique names,
// imports paired with a rule), checks that the rule files' `import` rules agree with it (every
// module a rule matches belongs to a package whose import_rule is that rule, and the other way
// round; the rule's severity and message carry the package's verdict, and it says
// `no_npu_counterpart: true` exactly when the verdict is 'unsupported'), and writes the C++ table.
// Any error fails the build with file:line:column.

#include <yaml-cpp/yaml.h>

#include "../package_name.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Failure {
  std::string message;
};

std::string where(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& what) {
  throw Failure{where(file, n) + what};
}

void checkKeys(const std::string& file, const YAML::Node& n, const std::set<std::string>& allowed,
               const std::string& what) {
  if (!n.IsMap()) fail(file, n, what + " must be a mapping");
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    if (!allowed.count(key)) fail(file, kv.first, "unknown key '" + key + "' in " + what);
  }
}

std::string scalar(const std::string& file, const YAML::Node& n, const std::string& what) {
  if (!n || !n.IsScalar()) fail(file, n, what + " must be a string");
  return n.Scalar();
}

std::vector<std::string> list(const std::string& file, const YAML::Node& n, const std::string& what) {
  std::vector<std::string> out;
  if (!n) return out;
  if (!n.IsSequence()) fail(file, n, what + " must be a list of strings");
  for (const auto& item : n) out.push_back(scalar(file, item, what));
  return out;
}

const std::map<std::string, std::string> kVerdicts{{"compatible", "Verdict::Compatible"},
                                                   {"needs replacement", "Verdict::NeedsReplacement"},
                                                   {"unsupported", "Verdict::Unsupported"},
                                                   {"not involved", "Verdict::NotInvolved"}};

/// The severity an import rule of a package with this verdict must have.
std::string severityOf(const std::string& verdict) {
  if (verdict == "unsupported") return "error";
  if (verdict == "needs replacement") return "warning";
  return "info";
}

std::string cpp(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// 1 when version a < b, 0 when equal, -1 when greater ("2.10.0" > "2.9.0").
int versionLess(const std::string& a, const std::string& b) {
  std::vector<int> x, y;
  for (auto [s, v] : {std::pair{&a, &x}, std::pair{&b, &y}}) {
    std::stringstream ss(*s);
    for (std::string part; std::getline(ss, part, '.');) v->push_back(std::atoi(part.c_str()));
  }
  return x < y ? 1 : x == y ? 0 : -1;
}

struct Row {
  std::string name, canonical, verdict, replacement, note, import_rule, npu_requirement, kit_note;
  bool host_installable = false;
};

struct ImportRow {
  std::string module, package, rule, verdict;
  YAML::Node where;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s data/compatibility.yaml OUTPUT.cpp [RULE_FILE...]\n", argv[0]);
    return 2;
  }
  const std::string data_file = argv[1];
  try {
    YAML::Node root;
    try {
      root = YAML::LoadFile(data_file);
    } catch (const YAML::Exception& e) {
      throw Failure{data_file + ":" + std::to_string(e.mark.line + 1) + ":" +
                    std::to_string(e.mark.column + 1) + ": " + e.msg};
    }
    checkKeys(data_file, root, {"format", "packages", "patterns", "torch_npu"}, "the table");
    if (scalar(data_file, root["format"], "format") != "1")
      fail(data_file, root["format"], "format must be 1");

    std::vector<Row> rows;
    std::map<std::string, YAML::Node> seen;
    std::vector<ImportRow> imports;
    std::map<std::string, YAML::Node> seen_modules;
    for (const auto& item : root["packages"]) {
      const YAML::Node p(item);
      checkKeys(data_file, p,
                {"name", "verdict", "replacement", "note", "aliases", "imports", "import_rule",
                 "npu_requirement", "kit_note", "host_installable", "evidence"},
                "a package");
      Row r;
      r.name = scalar(data_file, p["name"], "name");
      if (deps::normalizeName(r.name) != r.name)
        fail(data_file, p["name"],
             "'" + r.name + "' is not normalised (write '" + deps::normalizeName(r.name) + "')");
      r.canonical = r.name;
      r.verdict = scalar(data_file, p["verdict"], "verdict");
      if (!kVerdicts.count(r.verdict))
        fail(data_file, p["verdict"],
             "verdict must be one of: compatible, needs replacement, unsupported, not involved");
      r.replacement = scalar(data_file, p["replacement"], "replacement");
      r.note = scalar(data_file, p["note"], "note");
      if (p["import_rule"]) r.import_rule = scalar(data_file, p["import_rule"], "import_rule");
      if (p["kit_note"]) r.kit_note = scalar(data_file, p["kit_note"], "kit_note");
      if (p["npu_requirement"]) {
        r.npu_requirement = scalar(data_file, p["npu_requirement"], "npu_requirement");
        if (r.verdict != "needs replacement" && r.verdict != "unsupported")
          fail(data_file, p["npu_requirement"],
               "npu_requirement is for packages that need replacement or are unsupported; '" + r.verdict +
                   "' packages are always kept");
        if (r.npu_requirement != "keep" && deps::normalizeName(r.npu_requirement) != r.npu_requirement)
          fail(data_file, p["npu_requirement"],
               "npu_requirement must be 'keep' or a normalised distribution name (write '" +
                   deps::normalizeName(r.npu_requirement) + "')");
      }
      if (p["host_installable"]) {
        const std::string v = scalar(data_file, p["host_installable"], "host_installable");
        if (v != "true" && v != "false")
          fail(data_file, p["host_installable"], "host_installable is true or false");
        r.host_installable = v == "true";
        if (r.host_installable && (r.npu_requirement != "keep" || !p["imports"]))
          fail(data_file, p["host_installable"],
               "a host-installable package keeps its line (npu_requirement: keep) and lists the imports that "
               "carry its findings");
      }
      const auto mods = list(data_file, p["imports"], "imports");
      if (mods.empty() != r.import_rule.empty())
        fail(data_file, p, "a package lists imports exactly when it names an import_rule");
      for (const auto& m : mods) {
        if (seen_modules.count(m)) fail(data_file, p["imports"], "module '" + m + "' is listed twice");
        seen_modules[m] = p["imports"];
        imports.push_back({m, r.name, r.import_rule, r.verdict, p["imports"]});
      }
      std::vector<std::string> names{r.name};
      for (const auto& a : list(data_file, p["aliases"], "aliases")) {
        if (deps::normalizeName(a) != a)
          fail(data_file, p["aliases"],
               "alias '" + a + "' is not normalised (write '" + deps::normalizeName(a) + "')");
        names.push_back(a);
      }
      for (const auto& n : names) {
        if (seen.count(n))
          fail(data_file, p, "'" + n + "' is listed twice (also " + where(data_file, seen[n]) + ")");
        seen[n] = p;
        Row copy = r;
        copy.name = n;
        rows.push_back(copy);
      }
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });

    std::vector<Row> patterns;
    for (const auto& item : root["patterns"]) {
      const YAML::Node p(item);
      checkKeys(data_file, p, {"glob", "verdict", "replacement", "note", "evidence"}, "a pattern");
      Row r;
      r.name = scalar(data_file, p["glob"], "glob");
      r.verdict = scalar(data_file, p["verdict"], "verdict");
      if (!kVerdicts.count(r.verdict)) fail(data_file, p["verdict"], "unknown verdict");
      r.replacement = scalar(data_file, p["replacement"], "replacement");
      r.note = scalar(data_file, p["note"], "note");
      patterns.push_back(r);
    }

    struct Release {
      std::string torch, latest, cann;
      bool maintained = true;
    };
    std::vector<Release> releases;
    for (const auto& item : root["torch_npu"]) {
      const YAML::Node t(item);
      checkKeys(data_file, t, {"torch", "latest", "cann", "maintained"}, "a torch_npu release");
      Release r{scalar(data_file, t["torch"], "torch"), scalar(data_file, t["latest"], "latest"),
                scalar(data_file, t["cann"], "cann")};
      if (t["maintained"]) r.maintained = t["maintained"].as<bool>();
      if (r.latest.rfind(r.torch, 0) != 0)
        fail(data_file, t, "torch_npu " + r.latest + " does not belong to torch " + r.torch);
      if (!releases.empty() && versionLess(releases.back().torch, r.torch) != 1)
        fail(data_file, t, "torch_npu releases must be listed in ascending torch version order");
      releases.push_back(r);
    }

    // The import rules must agree with the table.
    std::set<std::string> covered;
    for (int i = 3; i < argc; ++i) {
      const std::string rule_file = argv[i];
      YAML::Node rules;
      try {
        rules = YAML::LoadFile(rule_file);
      } catch (const YAML::Exception& e) {
        throw Failure{rule_file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
      }
      for (const auto& item : rules["rules"]) {
        const YAML::Node rule(item);
        const YAML::Node match = rule["match"];
        if (!match || !match["import"]) continue;
        const std::string id = scalar(rule_file, rule["id"], "id");
        const std::string severity = rule["severity"] ? rule["severity"].Scalar() : "warning";
        const std::string message = rule["message"] ? rule["message"].Scalar() : "";
        const bool no_counterpart = rule["no_npu_counterpart"] && rule["no_npu_counterpart"].as<bool>(false);
        std::set<std::string> listed;
        for (const auto& m : list(rule_file, match["import"], "import")) {
          listed.insert(m);
          auto it =
              std::find_if(imports.begin(), imports.end(), [&](const ImportRow& r) { return r.module == m; });
          if (it == imports.end())
            fail(rule_file, match["import"],
                 id + " matches module '" + m + "', which no package of " + data_file +
                     " lists under imports");
          if (it->rule != id)
            fail(rule_file, match["import"],
                 id + " matches module '" + m + "', but " + data_file + " gives it to " + it->rule);
          if (severityOf(it->verdict) != severity)
            fail(rule_file, rule,
                 id + " has severity " + severity + " but " + it->package + " is '" + it->verdict +
                     "' (severity " + severityOf(it->verdict) + ")");
          if ((it->verdict == "unsupported") != no_counterpart)
            fail(rule_file, rule,
                 id + (no_counterpart ? " says no_npu_counterpart: true, but " + it->package + " is '" +
                                            it->verdict + "' (it has a replacement)"
                                      : " must say no_npu_counterpart: true: " + it->package +
                                            " is 'unsupported' (no NPU counterpart)"));
          if (message.find(it->verdict) == std::string::npos)
            fail(rule_file, rule["message"],
                 id + "'s message must state the verdict of " + it->package + ": '" + it->verdict + "'");
          covered.insert(m);
        }
        for (const auto& r : imports)
          if (r.rule == id && !listed.count(r.module))
            fail(rule_file, match["import"],
                 id + " does not match module '" + r.module + "' of " + r.package);
      }
    }
    if (argc > 3)
      for (const auto& r : imports)
        if (!covered.count(r.module))
          fail(data_file, r.where,
               "module '" + r.module + "' names rule " + r.rule + ", which has no import match");
    std::sort(imports.begin(), imports.end(),
              [](const ImportRow& a, const ImportRow& b) { return a.module < b.module; });

    std::ostringstream out;
    out << "// Generated from " << data_file << " by gen_compat_table; do not edit.\n"
        << "#include \"compat_table.hpp\"\n\nnamespace deps {\nnamespace {\n\n"
        << "constexpr PackageEntry kPackages[] = {\n";
    for (const auto& r : rows)
      out << "    {" << cpp(r.name) << ", " << cpp(r.canonical) << ", " << kVerdicts.at(r.verdict) << ", "
          << cpp(r.replacement) << ", " << cpp(r.note) << ", " << cpp(r.import_rule) << ", "
          << cpp(r.npu_requirement) << ", " << cpp(r.kit_note) << ", "
          << (r.host_installable ? "true" : "false") << "},\n";
    out << "};\n\nconstexpr PatternEntry kPatterns[] = {\n";
    for (const auto& r : patterns)
      out << "    {" << cpp(r.name) << ", " << kVerdicts.at(r.verdict) << ", " << cpp(r.replacement) << ", "
          << cpp(r.note) << "},\n";
    out << "};\n\nconstexpr TorchNpuRelease kReleases[] = {\n";
    for (const auto& r : releases)
      out << "    {" << cpp(r.torch) << ", " << cpp(r.latest) << ", " << cpp(r.cann) << ", "
          << (r.maintained ? "true" : "false") << "},\n";
    out << "};\n\nconstexpr ImportEntry kImports[] = {\n";
    for (const auto& r : imports)
      out << "    {" << cpp(r.module) << ", " << cpp(r.package) << ", " << cpp(r.rule) << "},\n";
    out << "};\n\n}  // namespace\n\n"
        << "std::span<const PackageEntry> packageTable() { return kPackages; }\n"
        << "std::span<const PatternEntry> patternTable() { return kPatterns; }\n"
        << "std::span<const TorchNpuRelease> torchNpuReleases() { return kReleases; }\n"
        << "std::span<const ImportEntry> importTable() { return kImports; }\n\n"
        << "}  // namespace deps\n";

    const std::string output = argv[2];
    std::string previous;
    {
      std::ifstream in(output);
      std::stringstream ss;
      ss << in.rdbuf();
      previous = ss.str();
    }
    if (previous != out.str()) {
      std::ofstream o(output);
      o << out.str();
      if (!o) throw Failure{output + ": cannot be written"};
    }
  } catch (const Failure& f) {
    std::fprintf(stderr, "%s\n", f.message.c_str());
    return 1;
  } catch (const YAML::Exception& e) {
    std::fprintf(stderr, "%s: %s\n", data_file.c_str(), e.what());
    return 1;
  }
  return 0;
}

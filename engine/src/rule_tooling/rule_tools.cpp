#include "migrate/engine/rule_tools.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/sdk/version.hpp"
#include "rule_tooling/rule_tester.hpp"
#include "rules/rule_loader.hpp"
#include "rules/rule_pack.hpp"
#include "rules/rule_set.hpp"
#include "scaffold/scaffold_names.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

/// The plugins of the sources' directory; the error printed and nullopt when it cannot be read.
std::optional<PluginCatalog> catalogOf(const RuleSources& sources) {
  const fs::path dir = sources.plugin_dir.empty() ? defaultPluginDir() : sources.plugin_dir;
  auto catalog = discoverPlugins(dir);
  if (!catalog) {
    std::cerr << "error: " << catalog.error().message << "\n";
    return std::nullopt;
  }
  for (const auto& r : catalog->refused) std::cerr << "warning: refused " << r << "\n";
  return std::move(catalog.value());
}

/// Every rule the tools show: the plugins' and the packs'.
struct RuleView {
  const rules::Rule* rule;
  const LoadedPlugin* from;
};

struct Everything {
  PluginCatalog catalog;
  std::vector<LoadedPlugin> packs;
  std::vector<RuleView> rules;  ///< sorted by id
};

/// The plugins and the sources' packs; the problems printed and nullopt when a pack does not load.
std::optional<Everything> loadEverything(const RuleSources& sources) {
  auto catalog = catalogOf(sources);
  if (!catalog) return std::nullopt;
  Everything all;
  all.catalog = std::move(*catalog);
  rules::PackLoad load = rules::loadRulePacks(sources.rule_packs, knownRules(all.catalog), sdk::kSdkVersion);
  for (const std::string& e : load.errors) std::cerr << "error: " << e << "\n";
  if (!load.errors.empty()) return std::nullopt;
  for (const rules::RulePack& p : load.packs) all.packs.push_back(packPlugin(p));
  for (const auto* list : {&all.catalog.plugins, &all.packs})
    for (const LoadedPlugin& p : *list)
      for (const rules::Rule& r : p.rules->rules()) all.rules.push_back({&r, &p});
  std::stable_sort(all.rules.begin(), all.rules.end(),
                   [](const RuleView& a, const RuleView& b) { return a.rule->id < b.rule->id; });
  return all;
}

std::string kindName(rules::Rule::Kind k) {
  switch (k) {
    case rules::Rule::Kind::Api:
      return "api";
    case rules::Rule::Kind::Import:
      return "import";
    case rules::Rule::Kind::Method:
      return "method";
    case rules::Rule::Kind::Attribute:
      return "attribute";
    case rules::Rule::Kind::Keyword:
      return "keyword";
    case rules::Rule::Kind::String:
      return "string";
    case rules::Rule::Kind::Custom:
      return "custom";
  }
  return "?";
}

std::string fixName(const rules::Rule& r) {
  if (r.fix == rules::Rule::Fix::ReplaceApi) return "replace_api";
  if (r.fix == rules::Rule::Fix::Rename) return "rename " + r.fix_from + " -> " + r.fix_to;
  return "none";
}

std::string fromName(const LoadedPlugin& p) {
  return (p.pack ? "pack " : "plugin ") + p.info.name;
}

/// The doc entry of a rule: the pack's README.md, or the README a plugin library has beside it
/// (migrate_<name>.md, copied there by migrate_add_plugin).
std::string docEntry(const LoadedPlugin& p, const std::string& id) {
  if (p.pack) {
    auto it = p.pack->docs.find(id);
    return it == p.pack->docs.end() ? "" : it->second;
  }
  fs::path readme = p.file;
  readme.replace_extension(".md");
  std::string text;
  if (!rules::readText(readme, text)) return "";
  const auto entries = rules::readmeEntries(text);
  auto it = entries.find(id);
  return it == entries.end() ? "" : it->second;
}

std::string indented(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += prefix + line + "\n";
  return out;
}

/// The snippet's code with line numbers, as a failure shows it.
std::string numbered(const std::string& code) {
  std::string out;
  std::istringstream in(code);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    std::ostringstream l;
    l << "      " << std::setw(3) << ++n << " | " << line << "\n";
    out += l.str();
  }
  return out;
}

/// What `rules test` found in one directory.
struct DirResult {
  std::string dir;
  std::size_t rules = 0;
  std::size_t snippets = 0;
  std::vector<std::string> problems;  ///< loading problems, one message each
  std::vector<rules::SnippetFailure> failures;
};

void testRules(const LoadedPlugin& plugin, DirResult& result) {
  for (const rules::Rule& r : plugin.rules->rules()) {
    ++result.rules;
    result.snippets += rules::snippetCount(r);
    auto failures = rules::testSnippets(plugin, r);
    std::move(failures.begin(), failures.end(), std::back_inserter(result.failures));
  }
}

/// Configures `plugin` with its default options, as a run would; false (a problem recorded) when
/// it refuses.
bool configure(const LoadedPlugin& plugin, std::vector<std::unique_ptr<sdk::PluginContext>>& contexts,
               DirResult& result) {
  auto options = resolveOptions(PluginSelection{plugin.info.name, true, {}, ""}, plugin.info);
  if (!options) {
    result.problems.push_back(options.error().message);
    return false;
  }
  contexts.push_back(makePluginContext(plugin, std::move(options.value()), [](bool, std::string_view) {}));
  try {
    plugin.plugin->configure(*contexts.back());
  } catch (const std::exception& e) {
    result.problems.push_back("plugin " + plugin.info.name +
                              " failed in configure with these rules: " + e.what());
    return false;
  }
  return true;
}

/// A plugin's rule files read from disk, tested with the hooks of the plugin of their domain.
void testPluginRules(const fs::path& dir, const PluginCatalog& catalog, DirResult& result) {
  std::error_code ec;
  const fs::path rules_dir = fs::is_directory(dir / "rules", ec) ? dir / "rules" : dir;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(rules_dir, ec))
    if (e.path().extension() == ".yaml" && e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (ec || files.empty()) {
    result.problems.push_back(dir.string() +
                              ": neither a rule pack (no pack.yaml) nor a directory of rule files (no *.yaml "
                              "in it or in its rules/); give a pack or a plugin's rules directory");
    return;
  }
  std::map<std::string, std::vector<rules::Rule>> by_domain;
  std::map<std::string, std::string> ids;  // id → where
  for (const fs::path& f : files) {
    std::string text;
    if (!rules::readText(f, text)) {
      result.problems.push_back(f.string() + ": cannot be read");
      continue;
    }
    auto loaded = rules::loadRules(text, f.string(), [&](const std::string& declared) -> std::string {
      for (const LoadedPlugin& p : catalog.plugins)
        if (p.info.domain == declared) return {};
      return "no plugin of domain '" + declared +
             "' is loaded, so its hooks cannot run the snippets; build it, or give --plugin-dir";
    });
    if (!loaded) {
      result.problems.push_back(loaded.error().message);
      continue;
    }
    for (rules::Rule& r : loaded.value()) {
      if (auto [it, fresh] = ids.emplace(r.id, r.source); !fresh) {
        result.problems.push_back(r.source + ": rule id " + r.id + " is also defined at " + it->second);
        continue;
      }
      by_domain[r.domain].push_back(std::move(r));
    }
  }
  for (auto& [domain, list] : by_domain) {
    const LoadedPlugin* base = nullptr;
    for (const LoadedPlugin& p : catalog.plugins)
      if (p.info.domain == domain && !base) base = &p;
    auto plugin = withRules(*base, std::move(list));
    if (!plugin) {
      result.problems.push_back(plugin.error().message);
      continue;
    }
    std::vector<std::unique_ptr<sdk::PluginContext>> contexts;
    if (configure(plugin.value(), contexts, result)) testRules(plugin.value(), result);
  }
}

void printFailure(const rules::SnippetFailure& f) {
  std::cout << "FAIL " << f.rule << " " << f.where << " ("
            << (f.kind == "rule" ? std::string("rule") : f.kind + " snippet") << "): " << f.message << "\n";
  if (!f.code.empty()) std::cout << numbered(f.code);
}

}  // namespace

int listPlugins(const RuleSources& sources) {
  const fs::path dir = sources.plugin_dir.empty() ? defaultPluginDir() : sources.plugin_dir;
  auto catalog = discoverPlugins(dir);
  if (!catalog) {
    std::cerr << "error: " << catalog.error().message << "\n";
    return kExitPlugins;
  }
  std::cout << "plugins in " << dir.string() << ":\n";
  for (const auto& p : catalog->plugins) {
    std::cout << "  " << p.info.name << " " << p.info.version << "  domain=" << p.info.domain
              << "  rules=" << p.rules->rules().size() << "  " << p.info.description << "\n";
    for (const auto& o : p.info.options)
      std::cout << "      option " << o.name << " (default " << o.default_value << "): " << o.description
                << "\n";
  }
  if (catalog->plugins.empty()) std::cout << "  (none)\n";
  for (const auto& r : catalog->refused) std::cerr << "warning: refused " << r << "\n";
  bool packs_ok = true;
  if (!sources.rule_packs.empty()) {
    rules::PackLoad load = rules::loadRulePacks(sources.rule_packs, knownRules(*catalog), sdk::kSdkVersion);
    std::cout << "rule packs:\n";
    for (const rules::RulePack& p : load.packs) {
      std::cout << "  " << p.name << " " << p.version << "  domain=" << p.domainList()
                << "  rules=" << p.rules.size() << "  " << p.dir.string()
                << (p.description.empty() ? "" : "  " + p.description) << "\n";
      for (const rules::PackDomain& d : p.domains)
        std::cout << "      declares domain " << d.name << ": " << d.title << "\n";
    }
    if (load.packs.empty()) std::cout << "  (none loaded)\n";
    for (const std::string& e : load.errors) std::cerr << "error: " << e << "\n";
    packs_ok = load.errors.empty();
  }
  return catalog->refused.empty() && packs_ok ? kExitOk : kExitPlugins;
}

int rulesTest(const std::vector<fs::path>& dirs, const RuleSources& sources) {
  auto catalog = catalogOf(sources);
  if (!catalog) return kExitPlugins;
  std::vector<DirResult> results;
  std::vector<fs::path> pack_dirs;
  for (const fs::path& d : dirs) {
    results.push_back({d.string(), 0, 0, {}, {}});
    if (rules::isRulePack(d)) {
      pack_dirs.push_back(d);
      continue;
    }
    testPluginRules(d, *catalog, results.back());
  }
  // The packs are loaded together, as a run loads them: clashes between them are problems too.
  rules::PackLoad load = rules::loadRulePacks(pack_dirs, knownRules(*catalog), sdk::kSdkVersion);
  auto resultOf = [&](const fs::path& pack_dir) -> DirResult& {
    for (std::size_t i = 0; i < dirs.size(); ++i) {
      std::error_code ec;
      if (fs::equivalent(dirs[i], pack_dir, ec)) return results[i];
    }
    return results.front();
  };
  for (const std::string& e : load.errors) {
    DirResult* owner = &results.front();
    for (std::size_t i = 0; i < dirs.size(); ++i) {
      const std::string abs = fs::absolute(dirs[i]).lexically_normal().string();
      std::error_code ec;
      const std::string canon = fs::weakly_canonical(dirs[i], ec).string();
      if (e.rfind(abs, 0) == 0 || e.rfind(canon, 0) == 0 || e.rfind(dirs[i].string(), 0) == 0)
        owner = &results[i];
    }
    owner->problems.push_back(e);
  }
  for (const rules::RulePack& pack : load.packs) {
    DirResult& result = resultOf(pack.dir);
    const LoadedPlugin plugin = packPlugin(pack);
    testRules(plugin, result);
    if (pack.has_readme) {
      for (const rules::Rule& r : pack.rules)
        if (!pack.docs.count(r.id))
          result.problems.push_back((pack.dir / "README.md").string() + ": no entry for rule " + r.id +
                                    "; add a heading `### " + r.id + " — " + r.title + "` with its text");
      for (const auto& entry : pack.docs) {
        const std::string& id = entry.first;  // clang 14 cannot capture a structured binding
        if (std::none_of(pack.rules.begin(), pack.rules.end(),
                         [&](const rules::Rule& r) { return r.id == id; }))
          result.problems.push_back((pack.dir / "README.md").string() + ": an entry for " + id +
                                    ", which no rule of the pack has; remove it or fix the id");
      }
    }
  }
  std::size_t rules_total = 0, snippets = 0, failures = 0, problems = 0;
  for (const DirResult& r : results) {
    for (const std::string& p : r.problems) std::cout << "ERROR " << p << "\n";
    for (const rules::SnippetFailure& f : r.failures) printFailure(f);
    const bool ok = r.problems.empty() && r.failures.empty();
    std::cout << (ok ? "ok   " : "FAIL ") << r.dir << ": " << r.rules << " rules, " << r.snippets
              << " snippets";
    if (!ok)
      std::cout << "; " << r.failures.size() << " failure(s), " << r.problems.size() << " problem(s) loading";
    std::cout << "\n";
    rules_total += r.rules;
    snippets += r.snippets;
    failures += r.failures.size();
    problems += r.problems.size();
  }
  std::cout << "rules test: " << results.size() << (results.size() == 1 ? " directory, " : " directories, ")
            << rules_total << " rules, " << snippets << " snippets: ";
  if (failures + problems == 0) {
    std::cout << "all passed\n";
    return kExitOk;
  }
  std::cout << failures << " failure(s), " << problems << " problem(s) loading\n";
  return 1;
}

int rulesList(const RuleSources& sources, const std::string& domain, const std::string& format) {
  auto all = loadEverything(sources);
  if (!all) return kExitPlugins;
  std::vector<RuleView> shown;
  for (const RuleView& v : all->rules)
    if (domain.empty() || v.rule->domain == domain) shown.push_back(v);
  if (format == "json") {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const RuleView& v : shown) {
      const rules::Rule& r = *v.rule;
      out.push_back({{"id", r.id},
                     {"domain", r.domain},
                     {"from", v.from->pack ? "pack" : "plugin"},
                     {"name", v.from->info.name},
                     {"title", r.title},
                     {"match", kindName(r.kind)},
                     {"severity", sdk::toString(r.severity)},
                     {"confidence", sdk::toString(r.confidence)},
                     {"difficulty", sdk::toString(r.difficulty)},
                     {"effort_days", r.effort_days},
                     {"message", r.message},
                     {"npu_alternative", r.npu_alternative},
                     {"fix", fixName(r)},
                     {"no_npu_counterpart", r.no_npu_counterpart},
                     {"source", r.source}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::size_t id_w = 2, domain_w = 6, from_w = 4;
  for (const RuleView& v : shown) {
    id_w = std::max(id_w, v.rule->id.size());
    domain_w = std::max(domain_w, v.rule->domain.size());
    from_w = std::max(from_w, fromName(*v.from).size());
  }
  auto row = [&](const std::string& id, const std::string& dom, const std::string& from,
                 const std::string& title) {
    std::cout << std::left << std::setw(static_cast<int>(id_w) + 2) << id
              << std::setw(static_cast<int>(domain_w) + 2) << dom << std::setw(static_cast<int>(from_w) + 2)
              << from << title << "\n";
  };
  row("ID", "DOMAIN", "FROM", "TITLE");
  for (const RuleView& v : shown) row(v.rule->id, v.rule->domain, fromName(*v.from), v.rule->title);
  std::cout << shown.size() << " rules\n";
  return kExitOk;
}

int rulesShow(const std::string& id, const RuleSources& sources) {
  auto all = loadEverything(sources);
  if (!all) return kExitPlugins;
  const RuleView* found = nullptr;
  for (const RuleView& v : all->rules)
    if (v.rule->id == id) found = &v;
  if (!found) {
    std::cerr << "error: no plugin or rule pack has a rule " << id
              << "; `migrate-pipeline rules list` lists them (add --rule-pack DIR for a pack's)\n";
    return kExitUsage;
  }
  const rules::Rule& r = *found->rule;
  std::cout << r.id << "  " << r.title << "\n"
            << "  from:            " << fromName(*found->from) << " (" << r.source << ")\n"
            << "  domain:          " << r.domain << "\n"
            << "  match:           " << kindName(r.kind) << (r.custom.empty() ? "" : " (" + r.custom + ")")
            << "\n"
            << "  severity:        " << sdk::toString(r.severity) << "; confidence "
            << sdk::toString(r.confidence) << ", difficulty " << sdk::toString(r.difficulty) << ", "
            << r.effort_days << " person-days per place\n"
            << "  message:         " << r.message << "\n"
            << "  NPU alternative: " << (r.npu_alternative.empty() ? "(none)" : r.npu_alternative) << "\n"
            << "  NPU counterpart: "
            << (r.no_npu_counterpart ? "none: rewrite or remove the code (listed in unsupported_apis.csv)"
                                     : "-")
            << "\n"
            << "  fix:             " << fixName(r) << "\n";
  const std::string doc = docEntry(*found->from, r.id);
  std::cout << "  doc:\n" << (doc.empty() ? "    (no doc entry)\n" : indented(doc, "    "));
  for (const auto& [what, list] : {std::pair{"invalid", &r.invalid}, std::pair{"valid", &r.valid}}) {
    std::cout << "  " << what << " snippets:" << (list->empty() ? " (none)" : "") << "\n";
    for (const rules::Snippet& s : *list) {
      std::cout << "    --- " << s.file << " (rule file line " << s.yaml_line << ")";
      if (s.count) std::cout << ", count " << *s.count;
      if (!s.lines.empty()) {
        std::cout << ", lines";
        for (int l : s.lines) std::cout << " " << l;
      }
      std::cout << "\n" << indented(s.code, "    ");
    }
  }
  return kExitOk;
}

int newPack(const std::string& name, const fs::path& dir) {
  const auto names = scaffold::scaffoldNames(name);
  if (!names) {
    std::cerr
        << "error: '" << name
        << "' is not a pack name: letters, digits, '-' and '_', starting with a letter (e.g. acme-gpu)\n";
    return kExitUsage;
  }
  const std::string& prefix = names->prefix;  // ACMEGPU for acme-gpu
  const std::string& module = names->snake;   // acme_gpu: the sample rule's made-up library
  const fs::path root = (dir.empty() ? fs::current_path() : dir) / name;
  std::error_code ec;
  if (fs::exists(root, ec)) {
    std::cerr << "error: " << root.string() << " exists; choose another name or --dir\n";
    return kExitUsage;
  }
  const std::string id = prefix + "-001";
  const std::string pack_yaml =
      "# A rule pack (docs/rule-packs.md). Editors check this file with docs/schemas/pack.schema.json:\n"
      "# add `# yaml-language-server: $schema=<that path or URL>` as the first line.\n"
      "format: 1\n"
      "name: " +
      name +
      "\n"
      "version: 0.1.0\n"
      "prefix: " +
      prefix + "                     # every rule id is " + prefix +
      "-<number>\n"
      "migrate_pipeline: \">=" +
      std::string(sdk::kSdkVersion).substr(0, std::string(sdk::kSdkVersion).rfind('.')) +
      ", <1\"\n"
      "description: what the pack covers, in one line\n"
      "# homepage: https://example.com/" +
      name +
      "\n"
      "# domains:                          # a new domain gets its own group in the report\n"
      "#   - name: " +
      module +
      "_runtime\n"
      "#     title: Issues of " +
      name + "\n";
  const std::string rules_yaml =
      "# Rules in the format of docs/writing-rules.md; `domain` is a plugin's domain (device, deps,\n"
      "# attention, custom_ops, distributed, precision) or one pack.yaml declares.\n"
      "format: 1\n"
      "domain: device\n"
      "rules:\n"
      "  - id: " +
      id +
      "\n"
      "    title: " +
      module +
      ".cuda.synchronize waits for the CUDA device\n"
      "    message: \"{api} waits for the CUDA device; use {npu}\"\n"
      "    match:\n"
      "      api:\n"
      "        - {name: " +
      module + ".cuda.synchronize, npu: " + module +
      ".npu.synchronize}\n"
      "    npu_alternative: \"{npu}\"\n"
      "    confidence: high\n"
      "    difficulty: low\n"
      "    effort_days: 0.05\n"
      "    fix: {replace_api: true}\n"
      "    tests:\n"
      "      invalid:                       # code the rule must report (on these lines)\n"
      "        - code: |\n"
      "            import " +
      module +
      ".cuda\n"
      "            " +
      module +
      ".cuda.synchronize()\n"
      "          lines: [2]\n"
      "      valid:                         # code it must not report\n"
      "        - |\n"
      "          import " +
      module +
      ".npu\n"
      "          " +
      module + ".npu.synchronize()  # " + module + ".cuda.synchronize() in a comment is no use\n";
  const std::string readme =
      "# " + name +
      "\n\nA rule pack for migrate-pipeline (docs/rule-packs.md).\n\n"
      "```sh\nmigrate-pipeline rules test " +
      name +
      "\n"
      "migrate-pipeline run PIPELINE --rule-pack " +
      name +
      "\n```\n\n"
      "## Rules\n\n### " +
      id + " — " + module +
      ".cuda.synchronize waits for the CUDA device\n\n"
      "What the rule finds, why it matters on an Ascend NPU, and what to do instead.\n";
  fs::create_directories(root / "rules", ec);
  if (ec) {
    std::cerr << "error: cannot create " << (root / "rules").string() << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  for (const auto& [file, text] : {std::pair{root / "pack.yaml", &pack_yaml},
                                   std::pair{root / "rules" / (module + ".yaml"), &rules_yaml},
                                   std::pair{root / "README.md", &readme}}) {
    std::ofstream out(file, std::ios::binary);
    out << *text;
    if (!out) {
      std::cerr << "error: cannot write " << file.string() << "\n";
      return kExitUsage;
    }
  }
  std::cout << "wrote " << root.string() << ": pack.yaml, rules/" << module << ".yaml (" << id
            << "), README.md\ncheck it with: migrate-pipeline rules test " << root.string() << "\n";
  return kExitOk;
}

}  // namespace migrate

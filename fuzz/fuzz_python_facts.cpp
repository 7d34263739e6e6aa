// Python fact extraction on arbitrary bytes: the tree-sitter parse, the fact walk, the built-in
// rule sets of every plugin matched against the facts, and the deps plugin's setup.py reader
// (which works from the facts).

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"
#include "manifest.hpp"
#include "parse/python_parser.hpp"
#include "rules/rule_loader.hpp"
#include "rules/rule_set.hpp"

namespace {

/// The rule files of the in-tree plugins, loaded once (a bad file is a bug of the tree: abort).
const std::vector<migrate::rules::RuleSet>& builtInRuleSets() {
  static const std::vector<migrate::rules::RuleSet> sets = [] {
    std::vector<migrate::rules::RuleSet> out;
    const std::filesystem::path plugins = std::filesystem::path(MIGRATE_SOURCE_DIR) / "plugins";
    for (const auto& plugin : std::filesystem::directory_iterator(plugins)) {
      const std::filesystem::path rules = plugin.path() / "rules";
      if (!std::filesystem::is_directory(rules)) continue;
      for (const auto& file : std::filesystem::directory_iterator(rules)) {
        std::ifstream in(file.path());
        std::stringstream yaml;
        yaml << in.rdbuf();
        auto loaded =
            migrate::rules::loadRules(yaml.str(), file.path().string(), plugin.path().filename().string());
        if (!loaded) std::abort();
        out.emplace_back(std::move(loaded.value()));
      }
    }
    return out;
  }();
  return sets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& rule_sets = builtInRuleSets();
  auto module = migrate::parse::parsePython("pkg/setup.py", std::string(migrate::fuzz::text(data, size)));
  if (!module) return 0;
  migrate::fuzz::CountingSink sink;
  for (const auto& set : rule_sets) set.match(*module.value(), sink);
  deps::Manifests manifests;
  deps::readSetupPy(*module.value(), manifests);
  return 0;
}

#include "plan/import_graph.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

std::string_view migrateEmbeddedData(std::string_view name);

namespace migrate {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// Dotted names of the modules, with the ways an import may name them.
class ModuleIndex {
 public:
  explicit ModuleIndex(const std::vector<ModuleSummary>& modules) {
    for (std::size_t i = 0; i < modules.size(); ++i) {
      const std::string& d = modules[i].dotted_name;
      if (d.empty()) continue;
      exact_.emplace(d, i);
      if (d.rfind("src.", 0) == 0) exact_.emplace(d.substr(4), i);
      roots_.insert(d.substr(0, d.find('.')));
      for (std::size_t dot = d.find('.'); dot != std::string::npos; dot = d.find('.', dot + 1)) {
        auto [it, fresh] = suffix_.emplace(d.substr(dot + 1), i);
        if (!fresh && it->second != i) it->second = kNone;  // ambiguous
      }
    }
  }

  /// The module `name` denotes from a file whose package is `package` ("" at the top).
  std::size_t find(const std::string& name, const std::string& package) const {
    if (auto it = exact_.find(name); it != exact_.end()) return it->second;
    if (!package.empty())
      if (auto it = exact_.find(package + "." + name); it != exact_.end()) return it->second;
    if (name.find('.') != std::string::npos)  // never a lone name: `import torch` is no project's torch.py
      if (auto it = suffix_.find(name); it != suffix_.end()) return it->second;
    return kNone;
  }
  bool isProjectRoot(const std::string& root) const { return roots_.count(root) != 0; }

 private:
  std::unordered_map<std::string, std::size_t> exact_;
  std::unordered_map<std::string, std::size_t> suffix_;
  std::unordered_set<std::string> roots_;
};

std::string packageOf(const ModuleSummary& m) {
  const bool is_init = m.path.ends_with("__init__.py");
  if (is_init) return m.dotted_name;
  const auto dot = m.dotted_name.rfind('.');
  return dot == std::string::npos ? std::string() : m.dotted_name.substr(0, dot);
}

}  // namespace

bool isStandardLibrary(const std::string& name) {
  static const std::unordered_set<std::string> names = [] {
    std::unordered_set<std::string> set;
    std::istringstream in{std::string(migrateEmbeddedData("data/python_stdlib.txt"))};
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') set.insert(line);
    return set;
  }();
  return names.count(name) != 0 || name == "__future__";
}

std::vector<sdk::ModuleNode> buildImportGraph(const std::vector<ModuleSummary>& modules) {
  const ModuleIndex index(modules);
  std::vector<sdk::ModuleNode> graph;
  graph.reserve(modules.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const ModuleSummary& m = modules[i];
    sdk::ModuleNode node{m.path, m.dotted_name, {}, {}};
    std::set<std::size_t> imports;
    std::set<std::string> libraries;
    const std::string package = packageOf(m);
    for (const std::string& target : m.import_targets) {
      if (target.empty() || target.front() == '.') continue;
      bool resolved = false;
      for (std::string prefix = target;;) {  // a.b.c, a.b, a: the module and the packages on the way
        const std::size_t j = index.find(prefix, package);
        if (j != kNone && j != i) imports.insert(j);
        resolved = resolved || j != kNone;
        const auto dot = prefix.rfind('.');
        if (dot == std::string::npos) break;
        prefix.resize(dot);
      }
      const std::string root = target.substr(0, target.find('.'));
      if (!resolved && !index.isProjectRoot(root) && !isStandardLibrary(root)) libraries.insert(root);
    }
    node.imports.assign(imports.begin(), imports.end());
    node.libraries.assign(libraries.begin(), libraries.end());
    graph.push_back(std::move(node));
  }
  return graph;
}

}  // namespace migrate

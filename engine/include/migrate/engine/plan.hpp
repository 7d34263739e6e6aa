#pragma once
/// What the plan stage knows: per-module summaries taken during analysis, and the plan itself
/// (code structure, import graph, entry points, bottlenecks, the plugins' assessment).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "migrate/sdk/plan.hpp"

namespace migrate {

/// A class as the architecture overview needs it.
struct ClassSummary {
  std::string name;
  std::string qualified_name;      ///< "Outer.Inner" for nested classes
  std::vector<std::string> bases;  ///< resolved where possible, else as written
  std::string docstring;           ///< first line
  std::uint32_t line = 0;
  std::uint32_t end_line = 0;
  /// Callees called in the class body (resolved, else as written) → number of calls.
  std::map<std::string, int> calls;
};

/// A top-level function or class.
struct TopLevelDefinition {
  std::string name;
  std::string docstring;  ///< first line
  std::uint32_t line = 0;
  std::uint32_t end_line = 0;
};

/// The part of a parsed Python file the plan stage needs; the syntax tree is gone by then.
struct ModuleSummary {
  std::string path;
  std::string dotted_name;
  std::uint64_t lines = 0;
  std::string docstring;                      ///< first line of the module docstring
  std::vector<std::string> import_targets;    ///< qualified names the imports bind, in order
  bool main_block = false;                    ///< has `if __name__ == "__main__":`
  std::vector<TopLevelDefinition> top_level;  ///< in source order
  std::vector<ClassSummary> classes;
  /// String literals shaped like console-script declarations ("name = pkg.mod:func"), for setup.py.
  std::vector<std::string> console_scripts;
};

struct LanguageStats {
  std::string language;  ///< "Python", "CUDA", "C/C++", "other"
  std::size_t files = 0;
  std::uint64_t lines = 0;
};

/// A library the code imports or the project declares.
struct LibraryUse {
  std::string name;         ///< import name (or the declared package when nothing imports it)
  std::size_t modules = 0;  ///< modules importing it
  std::string declared;     ///< "flash-attn==2.5.8 (requirements.txt)" when a dependency file lists it
  std::string verdict;      ///< the deps plugin's verdict, when it has one
  bool declared_by_install = false;  ///< `declared` comes from a Dockerfile or script install
};

struct CoreModule {
  std::string path;
  std::string description;    ///< one line, from docstrings and top-level definitions
  std::size_t importers = 0;  ///< project modules importing it directly
  std::uint64_t lines = 0;
};

/// An nn.Module subclass and what it is made of.
struct ModelClass {
  std::string name;
  std::string path;
  std::uint32_t line = 0;
  std::string description;
  /// Layer category ("linear", "conv", "attention", "norm", "activation", "embedding", ...) →
  /// layer types with counts, e.g. "Linear×2".
  std::map<std::string, std::vector<std::string>> layers;
  std::vector<std::string> submodules;  ///< project nn.Module classes it uses
  std::vector<std::string> custom_ops;  ///< CUDA-specific or custom operations it calls
};

struct CodeStructure {
  std::size_t files = 0;
  std::uint64_t lines = 0;
  std::vector<LanguageStats> languages;
  std::vector<LibraryUse> libraries;  ///< most used first
  std::vector<CoreModule> core_modules;
  std::vector<sdk::EntryPoint> entry_points;
  std::vector<ModelClass> models;
};

struct PlanResult {
  bool computed = false;
  CodeStructure structure;
  std::vector<sdk::ModuleNode> graph;  ///< one node per Python module, in path order
  std::vector<sdk::Bottleneck> bottlenecks;
  std::optional<sdk::Assessment> assessment;
};

}  // namespace migrate

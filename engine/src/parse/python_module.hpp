#pragma once
/// The engine's implementation of sdk::Module: a file's source and its extracted facts.

#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "migrate/engine/python_layout.hpp"
#include "migrate/sdk/module.hpp"

namespace migrate::parse {

class PythonModule final : public sdk::Module {
 public:
  PythonModule(std::string path, std::string dotted_name, std::string source)
      : path_(std::move(path)), dotted_name_(std::move(dotted_name)), source_(std::move(source)) {}

  std::string_view path() const override { return path_; }
  std::string_view dottedName() const override { return dotted_name_; }
  std::string_view source() const override { return source_; }
  const std::vector<sdk::ImportFact>& imports() const override { return imports_; }
  const std::vector<sdk::ReferenceFact>& references() const override { return references_; }
  const std::vector<sdk::CallFact>& calls() const override { return calls_; }
  const std::vector<sdk::AttributeFact>& attributes() const override { return attributes_; }
  const std::vector<sdk::StringFact>& strings() const override { return strings_; }
  const std::vector<sdk::NameUseFact>& nameUses() const override { return name_uses_; }
  const std::vector<sdk::DefinitionFact>& definitions() const override { return definitions_; }
  bool hasSyntaxErrors() const override { return first_error_line_ != 0; }
  bool isProjectModule(std::string_view qualified_name) const override {
    if (!project_roots_ || qualified_name.empty() || qualified_name.front() == '.') return false;
    return project_roots_->count(std::string(qualified_name.substr(0, qualified_name.find('.')))) != 0;
  }
  /// The repository's own top-level packages and modules (kept by the caller).
  void setProjectRoots(const std::unordered_set<std::string>* roots) { project_roots_ = roots; }

  /// 1-based line of the first syntax error, 0 when the file parsed cleanly.
  std::uint32_t firstErrorLine() const { return first_error_line_; }
  /// True when part of the tree was nested too deeply to walk; the rest was analysed.
  bool truncated() const { return truncated_; }
  /// Byte ranges of the branches the NPU never takes (values/platform_branches.hpp).
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& offNpuRanges() const { return off_npu_; }
  /// Where emit may insert lines (taken by the fact walk, so emit need not parse again).
  const PythonLayout& layout() const { return layout_; }
  PythonLayout takeLayout() { return std::move(layout_); }

 private:
  friend class FactExtractor;
  std::string path_;
  std::string dotted_name_;
  std::string source_;
  std::vector<sdk::ImportFact> imports_;
  std::vector<sdk::ReferenceFact> references_;
  std::vector<sdk::CallFact> calls_;
  std::vector<sdk::AttributeFact> attributes_;
  std::vector<sdk::StringFact> strings_;
  std::vector<sdk::NameUseFact> name_uses_;
  std::vector<sdk::DefinitionFact> definitions_;
  std::uint32_t first_error_line_ = 0;
  bool truncated_ = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> off_npu_;
  PythonLayout layout_;
  const std::unordered_set<std::string>* project_roots_ = nullptr;
};

/// Dotted module name of a repository-relative path: "pkg/sub/mod.py" → "pkg.sub.mod",
/// "pkg/__init__.py" → "pkg".
std::string dottedModuleName(const std::string& relative_path);

}  // namespace migrate::parse

#pragma once
/// The emit stage's side of the plugin contract: what a plugin may add to the adaptation kit.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/workspace.hpp"

namespace migrate::sdk {

/// The values a mustache template is rendered with: text ({{name}}), flags ({{#name}} shown when
/// true, {{^name}} when false) and lists of nested values ({{#name}} repeated per item; inside
/// an item, names it lacks are looked up in the enclosing values). Text is inserted verbatim
/// (the templates are code, not HTML). Header-only: it crosses the plugin boundary by value.
class TemplateData {
 public:
  struct Value {
    enum class Kind { Text, Flag, List };
    Kind kind = Kind::Text;
    std::string text;
    bool flag = false;
    std::vector<TemplateData> items;
  };

  TemplateData& set(const std::string& name, std::string text) {
    Value& v = values_[name];
    v = Value{};
    v.text = std::move(text);
    return *this;
  }
  TemplateData& setFlag(const std::string& name, bool on = true) {
    Value& v = values_[name];
    v = Value{};
    v.kind = Value::Kind::Flag;
    v.flag = on;
    return *this;
  }
  /// Appends an item to list `name` (created empty on first use) and returns it to fill in.
  TemplateData& addItem(const std::string& name) {
    Value& v = values_[name];
    if (v.kind != Value::Kind::List) {
      v = Value{};
      v.kind = Value::Kind::List;
    }
    v.items.emplace_back();
    return v.items.back();
  }
  /// An empty list `name`: its section renders nothing, its inverted section renders once.
  TemplateData& setEmptyList(const std::string& name) {
    Value& v = values_[name];
    v = Value{};
    v.kind = Value::Kind::List;
    return *this;
  }
  const Value* find(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, Value>& values() const { return values_; }

 private:
  std::map<std::string, Value> values_;
};

/// Work the kit leaves to a person: listed in emit.json and the report.
struct ManualWork {
  std::string rule_id;  ///< or a plugin-chosen id for work that no single finding names
  std::string file;     ///< repository-relative; empty for repository-wide work
  std::uint32_t line = 0;
  std::string what;  ///< one sentence: what to do
};

/// Handed to Plugin::emit once per run, after the plan stage, before the engine writes the
/// adapted sources. Files a plugin writes go to the kit directory (the run's output
/// directory, next to npu_compat.py), never into the adapted copy of the repository.
class EmitContext {
 public:
  virtual ~EmitContext() = default;
  /// Every finding of the run, every plugin, sorted as in findings.json.
  virtual const std::vector<Finding>& findings() const = 0;
  virtual const WorkspaceView& workspace() const = 0;
  /// The repository's name (its directory or URL basename).
  virtual const std::string& projectName() const = 0;
  /// Renders templates/<name>.mustache (e.g. "build_ascend_ops.sh") with `data`; tool_version,
  /// project and generated_by are filled in unless `data` sets them. Throws std::runtime_error
  /// naming the template when it is missing or malformed.
  virtual std::string render(std::string_view name, const TemplateData& data) const = 0;
  /// Asks for section `section` of a support module the engine writes ("npu_ops.py": e.g.
  /// "op_flash_attn"). Unknown names are recorded as diagnostics.
  virtual void requireSection(std::string_view support_module, std::string_view section) = 0;
  /// Writes `content` to `relative_path` under the kit directory ('/' separated, no "..", not
  /// absolute; parent directories created). A second write of the same path replaces the first.
  virtual void writeFile(std::string_view relative_path, std::string_view content,
                         bool executable = false) = 0;
  virtual void addManualWork(ManualWork work) = 0;
  virtual void diagnose(Diagnostic diagnostic) = 0;
  /// The dependencies that need no change (isDependencyRow): rows of the dependency matrix, which
  /// are not in findings(); sorted as in findings.json.
  virtual const std::vector<Finding>& dependencies() const = 0;
};

}  // namespace migrate::sdk

#pragma once
/// What the names of one module are bound to, as qualified names: the first room of the values
/// layer (docs/architecture.md, "Analysis layers"). Imports bind at any depth (functions,
/// methods, `try`/`if` blocks), and `torch = importlib.import_module("torch")` binds as `import
/// torch` does; a plain alias `name = a.b.c` binds `name` to whatever `a.b.c` resolves to, so a rule
/// written for `torch.library.custom_op` also matches `custom_op = torch.library.custom_op` …
/// `@custom_op(…)`.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace migrate::values {

class NameBindings {
 public:
  /// An import statement binds `bound` to the qualified name `target` (the last one wins).
  void bindImport(const std::string& bound, const std::string& target);
  /// `name = <right side>` anywhere in the module: `chain` is the right side when it is a dotted
  /// chain rooted at a name (`torch.library.custom_op`, `other`), empty for any other value.
  /// `fallback`: the assignment stands in an `except` handler (`try: ops = torch.ops.fa3` /
  /// `except ImportError: ops = fa3_cuda`); such a chain yields to one bound outside handlers,
  /// the value the code has where its libraries are installed. (`x = None` is no value to note:
  /// a call `x.f()` reaches one of the others.)
  void noteAssignment(std::string_view name, std::string_view chain, bool fallback = false);
  /// A module-level def or class named `name` that comes after the last import binding it
  /// shadows that import.
  void shadow(const std::string& name);

  /// Call once after every binding was noted: settles the aliases.
  void finish();

  /// Qualified name of a dotted chain (`tc.synchronize` → `torch.cuda.synchronize`); empty when
  /// its root is bound to no import, directly or through aliases.
  std::string resolve(std::string_view written) const;
  /// The same through imports only: a plain read of an alias (`return fn` after `fn =
  /// torch.cuda.empty_cache`) is the alias's value, already reported where the alias is bound.
  std::string resolveImport(std::string_view written) const;
  /// Whether `name` is bound by an import (not shadowed).
  bool isImport(std::string_view name) const;
  /// Whether the module assigns `name` anywhere (`name = …`).
  bool isAssigned(std::string_view name) const { return assignments_.count(std::string(name)) != 0; }

 private:
  std::string resolveRoot(std::string_view root, int depth, bool aliases) const;

  std::unordered_map<std::string, std::string> imports_;
  std::unordered_set<std::string> shadowed_;
  struct Chain {
    std::string text;
    bool fallback = false;
  };
  /// name → the distinct chains its assignments bind; one empty chain when any assignment binds
  /// something else (a call result, a literal).
  std::unordered_map<std::string, std::vector<Chain>> assignments_;
  std::unordered_map<std::string, std::string> aliases_;  ///< settled by finish()
};

}  // namespace migrate::values

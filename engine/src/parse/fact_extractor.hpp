#pragma once
// The walk that extracts a Python file's facts (python_facts.hpp), shared by the files that hold
// its parts, one per kind of fact: the walk and chains (python_facts.cpp), imports and bindings
// (facts_bindings.cpp), references and attributes (facts_references.cpp), calls
// (facts_calls.cpp), strings (facts_strings.cpp), definitions (facts_definitions.cpp) and the
// resolution of every name once the walk is done (facts_resolution.cpp). Engine-internal.

#include <tree_sitter/api.h>

#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "migrate/sdk/text_position.hpp"
#include "parse/python_module.hpp"
#include "parse/python_symbols.hpp"
#include "values/name_bindings.hpp"

namespace migrate::parse {

using sdk::StringContext;

inline constexpr std::size_t kMaxDepth = 1500;

inline bool is(TSNode n, TSSymbol symbol) {
  return !ts_node_is_null(n) && ts_node_symbol(n) == symbol;
}

/// Calls `f` on each child of `n` (each named child with `named`), in order. A tree cursor
/// steps from one child to the next in constant time; ts_node_child(n, i) starts again from the
/// first child each time, quadratic over a call with thousands of arguments.
template <typename F>
inline void forEachChild(TSNode n, bool named, F&& f) {
  if (ts_node_is_null(n)) return;
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const TSNode c = ts_tree_cursor_current_node(&cursor);
      if (!named || ts_node_is_named(c)) f(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

template <typename F>
inline void forEachNamedChild(TSNode n, F&& f) {
  forEachChild(n, true, std::forward<F>(f));
}

/// Keywords whose string values are prose, never device or backend names.
inline bool isMessageKeyword(std::string_view k) {
  static const std::unordered_set<std::string_view> kWords{"help",    "description", "epilog", "usage", "msg",
                                                           "message", "doc",         "title",  "prog"};
  return kWords.count(k) != 0;
}

inline bool isLogMethod(std::string_view m) {
  static const std::unordered_set<std::string_view> kMethods{
      "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"};
  return kMethods.count(m) != 0;
}

class FactExtractor {
 public:
  FactExtractor(PythonModule& module, const TSLanguage* language)
      : m_(module), src_(module.source_), lines_(module.source_), sym_(symbols(language)) {
    f_object_ = field(language, "object");
    f_attribute_ = field(language, "attribute");
    f_function_ = field(language, "function");
    f_arguments_ = field(language, "arguments");
    f_name_ = field(language, "name");
    f_value_ = field(language, "value");
    f_alias_ = field(language, "alias");
    f_module_name_ = field(language, "module_name");
    f_left_ = field(language, "left");
    f_right_ = field(language, "right");
    f_superclasses_ = field(language, "superclasses");
    f_body_ = field(language, "body");
    f_key_ = field(language, "key");
    f_condition_ = field(language, "condition");
    f_consequence_ = field(language, "consequence");
  }

  /// Returns false when the tree was too deep to walk completely.
  bool run(TSNode root);

 private:
  static const Symbols& symbols(const TSLanguage* l);

  static TSFieldId field(const TSLanguage* l, const char* name);

  std::string_view text(TSNode n) const {
    return std::string_view(src_).substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }
  sdk::SourceRange range(TSNode n) const { return lines_.range(ts_node_start_byte(n), ts_node_end_byte(n)); }
  TSNode child(TSNode n, TSFieldId f) const { return ts_node_child_by_field_id(n, f); }
  TSNode parentAt(std::size_t up) const {  // 0 = parent of the node being visited
    return stack_.size() >= up + 2 ? stack_[stack_.size() - 2 - up] : TSNode{};
  }

  // ---- chains -------------------------------------------------------------------------------

  /// Appends the segments of `a.b.c` rooted at an identifier; false (and `out` unchanged) for
  /// any other shape. A loop, not a recursion: a chain can be as long as the file (`a.a.a…`),
  /// far deeper than the walk's depth limit and the stack.
  bool chainSegments(TSNode n, std::vector<std::string_view>& out) const;

  std::string chainText(TSNode n) const;

  // ---- the walk -----------------------------------------------------------------------------

  void noteError(TSNode n);

  /// Visits `n`, where `cursor_` stands (and stands again on return). `positional` counts the
  /// positional arguments before `n` when its parent is an argument list.
  void visit(TSNode n, int positional);

  // ---- imports and bindings (facts_bindings.cpp) -------------------------------------------

  void onImport(TSNode n);

  static std::string compact(std::string_view s);

  /// Resolves `from ..x import` against this file's package.
  std::string absoluteModule(const std::string& base, int level) const;

  /// `name = a.b.c` may make `name` an alias (values::NameBindings); any other value of a plain
  /// name is noted too, so that a name bound to two things is never taken for an alias.
  void onAssignment(TSNode n);
  /// Whether the node being visited stands in an `except` handler of its function or class (or
  /// of the module).
  bool inExceptHandler() const;

  /// Branches the NPU never takes (values::classifyCondition): an if/elif testing ROCm or
  /// excluding the NPU, from its header to the end of its body; after a branch that tests the NPU,
  /// every later branch of the chain.
  void onIf(TSNode n);

  // ---- references and attributes -------------------------------------------------------------

  /// Whether an identifier in this position is an expression (not a def name, keyword, …).
  bool identifierIsExpression(TSNode n) const;

  void onChainCandidate(TSNode n);

  /// Whether the value `n` (whose parent is `p`, `up` levels above the visited node's parent) is
  /// iterated: `for x in n`, `(… for x in n)`, `map(f, n)`, `list(n)`, `"".join(n)`, ….
  bool iterates(TSNode n, TSNode p, std::size_t up) const;

  /// `x is None`, `x != None`: a guard, not a use of the value.
  bool comparesWithNone(TSNode cmp) const;

  void recordNameUse(TSNode n, TSNode p);

  bool isAssignmentTarget(TSNode n) const {
    TSNode p = parentAt(0);
    return (is(p, sym_.assignment) || is(p, sym_.augmented_assignment)) && ts_node_eq(child(p, f_left_), n);
  }

  bool isCallee(TSNode n) const {
    TSNode p = parentAt(0);
    return is(p, sym_.call) && ts_node_eq(child(p, f_function_), n);
  }

  void addAttribute(TSNode n, std::string receiver);

  // ---- calls --------------------------------------------------------------------------------

  void onCall(TSNode n);

  void classifyValue(TSNode v, sdk::ArgumentFact& af) const;

  void classifyResultUse(TSNode call, sdk::CallFact& c) const;

  // ---- strings ------------------------------------------------------------------------------

  /// Content of a string or concatenated string; f-string holes become {}.
  std::string stringValue(TSNode n, bool& fstring) const;

  /// Records a string literal; true when it stands in a message position.
  bool onString(TSNode n);
  /// Whether the comparison at parentAt(up) is (part of) the condition of an if/elif clause.
  bool branchCondition(std::size_t up) const;
  /// Whether a branch of the if/elif/else chain raises (as one of its body's statements).
  bool chainRaises(TSNode if_statement) const;
  /// Whether a lone `if` sits in a run of lone `if` statements one of which tests for the NPU.
  bool besideNpuTest(TSNode if_statement) const;
  /// Whether the if statement has an elif or else branch.
  bool chainBranches(TSNode if_statement) const;

  /// Whether `p` (the string's parent, `up` levels above) is `<string>.format` called right away.
  bool isFormatCall(TSNode p, std::size_t up) const;

  /// Fills callee/method of a string argument and marks message calls.
  void describeCall(TSNode call, std::size_t call_up, sdk::StringFact& s);

  bool isMessageCall(TSNode fn, const std::string& method) const;

  // ---- definitions and module-level names ------------------------------------------------------

  void onDefinition(TSNode n);

  static std::string firstLine(const std::string& s);

  std::string scopePrefix() const;

  // ---- resolution ---------------------------------------------------------------------------

  /// Qualified name of a dotted chain through the import bindings; empty when the root is not
  /// an import, or a top-level def/class after the import shadows it. A `torch.…` chain that
  /// nothing in the file binds, in a file with a star import, is torch's: the star import brings
  /// it (`from pkg.util_module import *`, where util_module imports torch).
  std::string resolveChain(const std::string& written) const;
  /// The same through imports only (values::NameBindings::resolveImport): a plain read of an
  /// alias is the alias's value, reported where the alias is bound.
  std::string resolveImportChain(const std::string& written) const;

  /// The target of the file's only `from <absolute module> import *`, or empty.
  std::string soleStarImport() const;

  /// Whether `torch` reaches the file only through a star import (asked once, in resolve()).
  bool torchFromStar() const;
  bool torch_from_star_ = false;

  /// A called bare name that nothing in the file binds and that is no builtin: with a single star
  /// import, the name most likely comes from it (`from pynvml import *` … `nvmlInit()`).
  bool fromStar(const std::string& name) const;

  /// `self.X` where the file itself assigns `self.X = …`: the project's own attribute.
  bool ownSelfAttribute(const std::string& written) const;

  void resolve();

  struct PendingRef {
    sdk::ReferenceFact fact;
    bool attribute_node = false;
  };
  struct Scope {
    const void* node_id;
    std::string name;
  };

  PythonModule& m_;
  const std::string& src_;
  sdk::LineIndex lines_;
  const Symbols& sym_;
  std::vector<TSNode> stack_;
  std::vector<int> positional_;  ///< parallel to stack_: the `positional` of visit()
  TSTreeCursor cursor_{};        ///< the walk's position (run() to run())
  std::vector<Scope> scopes_;
  std::vector<PendingRef> pending_refs_;
  std::vector<std::size_t> pending_string_callees_;
  std::vector<std::pair<std::string, uint32_t>> local_defs_;
  values::NameBindings bindings_;
  std::unordered_set<std::string> self_stores_;
  int in_message_ = 0;
  int in_annotation_ = 0;
  bool too_deep_ = false;

  TSFieldId f_object_, f_attribute_, f_function_, f_arguments_, f_name_, f_value_, f_alias_, f_module_name_,
      f_right_, f_left_, f_superclasses_, f_body_, f_key_, f_condition_, f_consequence_;
};

}  // namespace migrate::parse

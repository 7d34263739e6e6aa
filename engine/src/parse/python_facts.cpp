// Extraction of module facts from a tree-sitter Python tree: one recursive walk that records
// imports, references, calls, attributes, strings and definitions, then resolution of every
// reference through the file's import bindings.

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "migrate/sdk/text_position.hpp"
#include "parse/python_facts.hpp"
#include "values/name_bindings.hpp"
#include "values/platform_branches.hpp"

namespace migrate::parse {
namespace {

using sdk::StringContext;

constexpr std::size_t kMaxDepth = 1500;

/// Symbol ids of the node types the extractor looks at (comparing ids, not names).
struct Symbols {
  explicit Symbols(const TSLanguage* l) {
    aliased_import = named(l, "aliased_import");
    argument_list = named(l, "argument_list");
    assert_statement = named(l, "assert_statement");
    assignment = named(l, "assignment");
    attribute = named(l, "attribute");
    binary_operator = named(l, "binary_operator");
    boolean_operator = named(l, "boolean_operator");
    call = named(l, "call");
    class_definition = named(l, "class_definition");
    comment = named(l, "comment");
    comparison_operator = named(l, "comparison_operator");
    concatenated_string = named(l, "concatenated_string");
    conditional_expression = named(l, "conditional_expression");
    decorated_definition = named(l, "decorated_definition");
    decorator = named(l, "decorator");
    default_parameter = named(l, "default_parameter");
    dictionary_splat = named(l, "dictionary_splat");
    dictionary_splat_pattern = named(l, "dictionary_splat_pattern");
    dotted_name = named(l, "dotted_name");
    expression_list = named(l, "expression_list");
    expression_statement = named(l, "expression_statement");
    false_ = named(l, "false");
    float_ = named(l, "float");
    function_definition = named(l, "function_definition");
    future_import_statement = named(l, "future_import_statement");
    global_statement = named(l, "global_statement");
    identifier = named(l, "identifier");
    import_from_statement = named(l, "import_from_statement");
    import_prefix = named(l, "import_prefix");
    import_statement = named(l, "import_statement");
    integer = named(l, "integer");
    interpolation = named(l, "interpolation");
    keyword_argument = named(l, "keyword_argument");
    lambda_parameters = named(l, "lambda_parameters");
    list = named(l, "list");
    list_pattern = named(l, "list_pattern");
    list_splat = named(l, "list_splat");
    list_splat_pattern = named(l, "list_splat_pattern");
    module = named(l, "module");
    none_ = named(l, "none");
    nonlocal_statement = named(l, "nonlocal_statement");
    pair = named(l, "pair");
    parameters = named(l, "parameters");
    parenthesized_expression = named(l, "parenthesized_expression");
    pattern_list = named(l, "pattern_list");
    raise_statement = named(l, "raise_statement");
    relative_import = named(l, "relative_import");
    set = named(l, "set");
    string = named(l, "string");
    string_content = named(l, "string_content");
    string_start = named(l, "string_start");
    subscript = named(l, "subscript");
    true_ = named(l, "true");
    tuple = named(l, "tuple");
    tuple_pattern = named(l, "tuple_pattern");
    typed_default_parameter = named(l, "typed_default_parameter");
    typed_parameter = named(l, "typed_parameter");
    wildcard_import = named(l, "wildcard_import");
    for_statement = named(l, "for_statement");
    for_in_clause = named(l, "for_in_clause");
    augmented_assignment = named(l, "augmented_assignment");
    return_statement = named(l, "return_statement");
    if_statement = named(l, "if_statement");
    else_clause = named(l, "else_clause");
    elif_clause = named(l, "elif_clause");
    while_statement = named(l, "while_statement");
    not_operator = named(l, "not_operator");
    type = named(l, "type");
    error = static_cast<TSSymbol>(-1);  // ts_builtin_sym_error
  }
  static TSSymbol named(const TSLanguage* l, const char* name) {
    return ts_language_symbol_for_name(l, name, static_cast<uint32_t>(std::strlen(name)), true);
  }
  TSSymbol aliased_import = 0;
  TSSymbol argument_list = 0;
  TSSymbol assert_statement = 0;
  TSSymbol assignment = 0;
  TSSymbol attribute = 0;
  TSSymbol binary_operator = 0;
  TSSymbol boolean_operator = 0;
  TSSymbol call = 0;
  TSSymbol class_definition = 0;
  TSSymbol comment = 0;
  TSSymbol comparison_operator = 0;
  TSSymbol concatenated_string = 0;
  TSSymbol conditional_expression = 0;
  TSSymbol decorated_definition = 0;
  TSSymbol decorator = 0;
  TSSymbol default_parameter = 0;
  TSSymbol dictionary_splat = 0;
  TSSymbol dictionary_splat_pattern = 0;
  TSSymbol dotted_name = 0;
  TSSymbol expression_list = 0;
  TSSymbol expression_statement = 0;
  TSSymbol false_ = 0;
  TSSymbol float_ = 0;
  TSSymbol function_definition = 0;
  TSSymbol future_import_statement = 0;
  TSSymbol global_statement = 0;
  TSSymbol identifier = 0;
  TSSymbol import_from_statement = 0;
  TSSymbol import_prefix = 0;
  TSSymbol import_statement = 0;
  TSSymbol integer = 0;
  TSSymbol interpolation = 0;
  TSSymbol keyword_argument = 0;
  TSSymbol lambda_parameters = 0;
  TSSymbol list = 0;
  TSSymbol list_pattern = 0;
  TSSymbol list_splat = 0;
  TSSymbol list_splat_pattern = 0;
  TSSymbol module = 0;
  TSSymbol none_ = 0;
  TSSymbol nonlocal_statement = 0;
  TSSymbol pair = 0;
  TSSymbol parameters = 0;
  TSSymbol parenthesized_expression = 0;
  TSSymbol pattern_list = 0;
  TSSymbol raise_statement = 0;
  TSSymbol relative_import = 0;
  TSSymbol set = 0;
  TSSymbol string = 0;
  TSSymbol string_content = 0;
  TSSymbol string_start = 0;
  TSSymbol subscript = 0;
  TSSymbol true_ = 0;
  TSSymbol tuple = 0;
  TSSymbol tuple_pattern = 0;
  TSSymbol typed_default_parameter = 0;
  TSSymbol typed_parameter = 0;
  TSSymbol wildcard_import = 0;
  TSSymbol for_statement = 0;
  TSSymbol for_in_clause = 0;
  TSSymbol augmented_assignment = 0;
  TSSymbol return_statement = 0;
  TSSymbol if_statement = 0;
  TSSymbol else_clause = 0;
  TSSymbol elif_clause = 0;
  TSSymbol while_statement = 0;
  TSSymbol not_operator = 0;
  TSSymbol type = 0;
  TSSymbol error = 0;
};

bool is(TSNode n, TSSymbol symbol) {
  return !ts_node_is_null(n) && ts_node_symbol(n) == symbol;
}

/// Calls `f` on each child of `n` (each named child with `named`), in order. A tree cursor
/// steps from one child to the next in constant time; ts_node_child(n, i) starts again from the
/// first child each time, quadratic over a call with thousands of arguments.
template <typename F>
void forEachChild(TSNode n, bool named, F&& f) {
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
void forEachNamedChild(TSNode n, F&& f) {
  forEachChild(n, true, std::forward<F>(f));
}

/// Keywords whose string values are prose, never device or backend names.
bool isMessageKeyword(std::string_view k) {
  static const std::unordered_set<std::string_view> kWords{"help",    "description", "epilog", "usage", "msg",
                                                           "message", "doc",         "title",  "prog"};
  return kWords.count(k) != 0;
}

bool isLogMethod(std::string_view m) {
  static const std::unordered_set<std::string_view> kMethods{
      "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"};
  return kMethods.count(m) != 0;
}

}  // namespace

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
  bool run(TSNode root) {
    cursor_ = ts_tree_cursor_new(root);
    visit(root, 0);
    ts_tree_cursor_delete(&cursor_);
    resolve();
    m_.truncated_ = too_deep_;
    return !too_deep_;
  }

 private:
  static const Symbols& symbols(const TSLanguage* l) {
    static const Symbols s(l);
    return s;
  }

  static TSFieldId field(const TSLanguage* l, const char* name) {
    return ts_language_field_id_for_name(l, name, static_cast<uint32_t>(std::strlen(name)));
  }

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
  bool chainSegments(TSNode n, std::vector<std::string_view>& out) const {
    const std::size_t first = out.size();
    for (; is(n, sym_.attribute); n = child(n, f_object_)) {
      TSNode attr = child(n, f_attribute_);
      if (ts_node_is_null(attr)) break;
      out.push_back(text(attr));
    }
    if (!is(n, sym_.identifier)) {
      out.resize(first);
      return false;
    }
    out.push_back(text(n));
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    return true;
  }

  std::string chainText(TSNode n) const {
    std::vector<std::string_view> segs;
    if (!chainSegments(n, segs)) return {};
    std::string s;
    for (std::size_t i = 0; i < segs.size(); ++i) {
      if (i) s += '.';
      s += segs[i];
    }
    return s;
  }

  // ---- the walk -----------------------------------------------------------------------------

  void noteError(TSNode n) {
    if (m_.first_error_line_ == 0) m_.first_error_line_ = ts_node_start_point(n).row + 1;
  }

  /// Visits `n`, where `cursor_` stands (and stands again on return). `positional` counts the
  /// positional arguments before `n` when its parent is an argument list.
  void visit(TSNode n, int positional) {
    if (stack_.size() >= kMaxDepth) {
      too_deep_ = true;
      return;
    }
    stack_.push_back(n);
    positional_.push_back(positional);
    const TSSymbol type = ts_node_symbol(n);
    bool descend = true;
    bool message = false;
    if (type == sym_.error || ts_node_is_missing(n)) noteError(n);
    if (type == sym_.import_statement || type == sym_.import_from_statement) {
      onImport(n);
      descend = false;
    } else if (type == sym_.future_import_statement || type == sym_.comment) {
      descend = false;
    } else if (type == sym_.call) {
      onCall(n);
    } else if (type == sym_.attribute || type == sym_.identifier) {
      onChainCandidate(n);
    } else if (type == sym_.string) {
      if (!is(parentAt(0), sym_.concatenated_string)) message = onString(n);
    } else if (type == sym_.concatenated_string) {
      message = onString(n);
    } else if (type == sym_.function_definition || type == sym_.class_definition) {
      onDefinition(n);
    } else if (type == sym_.assignment) {
      onAssignment(n);
    } else if (type == sym_.if_statement) {
      onIf(n);
    }
    if (descend) {
      // Inside a message f-string, plain reads (`{torch.backends.cuda.matmul.allow_tf32=}`) are
      // not uses; calls still are (they run and can fail on NPU).
      if (message) ++in_message_;
      // A type annotation (`ctx: torch.cuda.StreamContext = …`) names a type, it runs nothing.
      const bool annotation = type == sym_.type;
      if (annotation) ++in_annotation_;
      // The children through the cursor: in linear time, however many there are.
      if (ts_tree_cursor_goto_first_child(&cursor_)) {
        int before = 0;
        do {
          const TSNode c = ts_tree_cursor_current_node(&cursor_);
          const bool named = ts_node_is_named(c);
          // An anonymous token (punctuation, a keyword) holds no fact; about half the nodes are.
          if (named || ts_node_child_count(c) != 0)
            visit(c, before);
          else if (ts_node_is_missing(c))
            noteError(c);
          if (named && !is(c, sym_.keyword_argument) && !is(c, sym_.comment)) ++before;
        } while (ts_tree_cursor_goto_next_sibling(&cursor_));
        ts_tree_cursor_goto_parent(&cursor_);
      }
      if (message) --in_message_;
      if (annotation) --in_annotation_;
    }
    if (!scopes_.empty() && scopes_.back().node_id == n.id) scopes_.pop_back();
    positional_.pop_back();
    stack_.pop_back();
  }

  // ---- imports ------------------------------------------------------------------------------

  void onImport(TSNode n) {
    const bool from = is(n, sym_.import_from_statement);
    std::string base;
    int level = 0;
    if (from) {
      TSNode mod = child(n, f_module_name_);
      if (is(mod, sym_.relative_import)) {
        forEachNamedChild(mod, [&](TSNode c) {
          if (is(c, sym_.import_prefix)) level = static_cast<int>(text(c).size());
          if (is(c, sym_.dotted_name)) base = compact(text(c));
        });
      } else {
        base = compact(text(mod));
      }
    }
    const std::string absolute_base = from ? absoluteModule(base, level) : std::string();
    const TSNode module_name = child(n, f_module_name_);
    forEachNamedChild(n, [&](TSNode c) {
      if (from && ts_node_eq(c, module_name)) return;
      sdk::ImportFact f;
      f.level = level;
      f.range = range(n);
      if (is(c, sym_.wildcard_import)) {
        f.module = base;
        f.star = true;
        f.target = absolute_base;
        m_.imports_.push_back(std::move(f));
        return;
      }
      TSNode name_node = c;
      if (is(c, sym_.aliased_import)) {
        name_node = child(c, f_name_);
        f.alias = std::string(text(child(c, f_alias_)));
      }
      if (!is(name_node, sym_.dotted_name)) return;
      const std::string name = compact(text(name_node));
      if (from) {
        f.module = base;
        f.name = name;
        f.bound = f.alias.empty() ? name : f.alias;
        f.target = absolute_base.empty() ? name : absolute_base + "." + name;
      } else {
        f.module = name;
        if (!f.alias.empty()) {
          f.bound = f.alias;
          f.target = name;
        } else {
          f.bound = name.substr(0, name.find('.'));
          f.target = f.bound;
        }
      }
      bindings_.bindImport(f.bound, f.target);
      m_.imports_.push_back(std::move(f));
    });
  }

  static std::string compact(std::string_view s) {
    std::string out;
    for (char c : s)
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') out += c;
    return out;
  }

  /// Resolves `from ..x import` against this file's package.
  std::string absoluteModule(const std::string& base, int level) const {
    if (level == 0) return base;
    std::string pkg(m_.dotted_name_);
    const bool is_init =
        m_.path_.size() >= 11 && m_.path_.compare(m_.path_.size() - 11, 11, "__init__.py") == 0;
    int up = is_init ? level - 1 : level;
    for (int i = 0; i < up; ++i) {
      auto dot = pkg.rfind('.');
      pkg = dot == std::string::npos ? std::string() : pkg.substr(0, dot);
    }
    if (base.empty()) return pkg;
    return pkg.empty() ? base : pkg + "." + base;
  }

  /// `name = a.b.c` may make `name` an alias (values::NameBindings); any other value of a plain
  /// name is noted too, so that a name bound to two things is never taken for an alias.
  void onAssignment(TSNode n) {
    TSNode left = child(n, f_left_);
    if (!is(left, sym_.identifier)) return;
    TSNode right = child(n, f_right_);
    std::string chain;
    if (is(right, sym_.identifier) || is(right, sym_.attribute)) chain = chainText(right);
    bindings_.noteAssignment(text(left), chain);
  }

  /// Branches the NPU never takes (values::classifyCondition): an if/elif testing ROCm or
  /// excluding the NPU, from its header to the end of its body; after a branch that tests the NPU,
  /// every later branch of the chain.
  void onIf(TSNode n) {
    auto off = [&](std::uint32_t begin, std::uint32_t end) { m_.off_npu_.emplace_back(begin, end); };
    auto test = [&](TSNode clause) { return values::classifyCondition(text(child(clause, f_condition_))); };
    auto bodyEnd = [&](TSNode clause) {
      TSNode body = child(clause, f_consequence_);
      return ts_node_is_null(body) ? ts_node_end_byte(clause) : ts_node_end_byte(body);
    };
    bool npu_taken = false;  // an earlier branch of the chain is the NPU's
    auto clause = [&](TSNode c) {
      if (npu_taken) {
        off(ts_node_start_byte(c), ts_node_end_byte(c));
        return;
      }
      if (is(c, sym_.else_clause)) return;
      const values::PlatformTest t = test(c);
      if (t == values::PlatformTest::OffNpu) off(ts_node_start_byte(c), bodyEnd(c));
      npu_taken = t == values::PlatformTest::NpuOnly;
    };
    clause(n);
    forEachNamedChild(n, [&](TSNode c) {
      if (is(c, sym_.elif_clause) || is(c, sym_.else_clause)) clause(c);
    });
  }

  // ---- references and attributes -------------------------------------------------------------

  /// Whether an identifier in this position is an expression (not a def name, keyword, …).
  bool identifierIsExpression(TSNode n) const {
    TSNode p = parentAt(0);
    if (ts_node_is_null(p)) return false;
    const TSSymbol pt = ts_node_symbol(p);
    if (pt == sym_.attribute) return ts_node_eq(child(p, f_object_), n);
    if (pt == sym_.keyword_argument) return !ts_node_eq(child(p, f_name_), n);
    if (pt == sym_.function_definition || pt == sym_.class_definition) return false;
    if (pt == sym_.parameters || pt == sym_.lambda_parameters || pt == sym_.typed_parameter ||
        pt == sym_.list_splat_pattern || pt == sym_.dictionary_splat_pattern || pt == sym_.global_statement ||
        pt == sym_.nonlocal_statement)
      return false;
    if (pt == sym_.default_parameter || pt == sym_.typed_default_parameter)
      return !ts_node_eq(child(p, f_name_), n);
    return true;
  }

  void onChainCandidate(TSNode n) {
    if (is(n, sym_.identifier) && !identifierIsExpression(n)) return;
    TSNode p = parentAt(0);
    if (in_message_ > 0 && !isCallee(n)) return;
    if (in_annotation_ > 0) return;
    // `name = …` / `a, name = …` binds a name: not a use of whatever an import bound it to.
    if (is(n, sym_.identifier) &&
        (isAssignmentTarget(n) || (is(p, sym_.pattern_list) && is(parentAt(1), sym_.assignment) &&
                                   ts_node_eq(child(parentAt(1), f_left_), p))))
      return;
    // `x.flag = …` stores an attribute: never a read of a library one (`x.is_cuda`), and
    // `self.flag = …` marks `flag` as the project's own.
    const bool store = is(n, sym_.attribute) && isAssignmentTarget(n);
    if (store) {
      std::vector<std::string_view> segs;
      if (chainSegments(n, segs) && segs.size() == 2 && segs[0] == "self")
        self_stores_.insert(std::string(segs[1]));
    }
    if (is(n, sym_.identifier)) recordNameUse(n, p);
    // Only maximal chains: not the object of an enclosing attribute.
    if (is(p, sym_.attribute) && ts_node_eq(child(p, f_object_), n)) return;
    if (is(n, sym_.attribute)) {
      // attribute of a non-chain receiver (call result, subscript, …): an attribute fact only.
      std::vector<std::string_view> segs;
      if (!chainSegments(n, segs)) {
        if (!isCallee(n)) addAttribute(n, {});
        return;
      }
    }
    std::string written = chainText(n);
    if (written.empty()) return;
    PendingRef ref;
    ref.fact.written = std::move(written);
    ref.fact.range = range(n);
    if (is(p, sym_.decorator)) ref.fact.role = sdk::ReferenceFact::Role::Decorator;
    if (is(p, sym_.argument_list) && is(parentAt(1), sym_.class_definition))
      ref.fact.role = sdk::ReferenceFact::Role::BaseClass;
    if (isCallee(n)) {
      ref.fact.call = static_cast<int>(m_.calls_.size()) - 1;
      if (is(parentAt(1), sym_.decorator)) ref.fact.role = sdk::ReferenceFact::Role::Decorator;
    } else if (is(n, sym_.attribute) && !store) {
      ref.attribute_node = true;
    }
    pending_refs_.push_back(std::move(ref));
  }

  /// Whether the value `n` (whose parent is `p`, `up` levels above the visited node's parent) is
  /// iterated: `for x in n`, `(… for x in n)`, `map(f, n)`, `list(n)`, `"".join(n)`, ….
  bool iterates(TSNode n, TSNode p, std::size_t up) const {
    if (is(p, sym_.for_statement) || is(p, sym_.for_in_clause)) return ts_node_eq(child(p, f_right_), n);
    if (!is(p, sym_.argument_list)) return false;
    TSNode call = parentAt(up + 1);
    if (!is(call, sym_.call)) return false;
    TSNode fn = child(call, f_function_);
    static const std::unordered_set<std::string_view> kIterating{
        "map",  "list", "tuple", "set", "sorted", "enumerate", "zip",
        "iter", "sum",  "max",   "min", "any",    "all"};
    if (is(fn, sym_.identifier)) return kIterating.count(text(fn)) != 0;
    return is(fn, sym_.attribute) && text(child(fn, f_attribute_)) == "join";
  }

  /// `x is None`, `x != None`: a guard, not a use of the value.
  bool comparesWithNone(TSNode cmp) const {
    bool none = false;
    forEachNamedChild(cmp, [&](TSNode c) { none = none || is(c, sym_.none_); });
    return none;
  }

  void recordNameUse(TSNode n, TSNode p) {
    sdk::ResultUse use = sdk::ResultUse::None;
    if (is(p, sym_.subscript) && ts_node_eq(child(p, f_value_), n))
      use = sdk::ResultUse::Subscript;
    else if (is(p, sym_.comparison_operator) && !comparesWithNone(p))
      use = sdk::ResultUse::Compare;
    else if (is(p, sym_.assignment) && !ts_node_eq(child(p, f_left_), n)) {
      TSNode left = child(p, f_left_);
      if (is(left, sym_.pattern_list) || is(left, sym_.tuple_pattern) || is(left, sym_.list_pattern))
        use = sdk::ResultUse::TupleUnpack;
    }
    if (use == sdk::ResultUse::None && iterates(n, p, 0)) use = sdk::ResultUse::Iterate;
    if (use != sdk::ResultUse::None) m_.name_uses_.push_back({std::string(text(n)), use, range(n)});
  }

  bool isAssignmentTarget(TSNode n) const {
    TSNode p = parentAt(0);
    return (is(p, sym_.assignment) || is(p, sym_.augmented_assignment)) && ts_node_eq(child(p, f_left_), n);
  }

  bool isCallee(TSNode n) const {
    TSNode p = parentAt(0);
    return is(p, sym_.call) && ts_node_eq(child(p, f_function_), n);
  }

  void addAttribute(TSNode n, std::string receiver) {
    sdk::AttributeFact a;
    TSNode attr = child(n, f_attribute_);
    a.name = std::string(text(attr));
    a.receiver_written = std::move(receiver);
    a.range = range(attr);
    m_.attributes_.push_back(std::move(a));
  }

  // ---- calls --------------------------------------------------------------------------------

  void onCall(TSNode n) {
    sdk::CallFact c;
    c.range = range(n);
    TSNode fn = child(n, f_function_);
    c.callee_written = chainText(fn);
    c.name_range = range(fn);
    if (is(fn, sym_.attribute)) {
      TSNode attr = child(fn, f_attribute_);
      c.method = std::string(text(attr));
      c.name_range = range(attr);
    }
    TSNode args = child(n, f_arguments_);
    if (is(args, sym_.argument_list)) {
      int index = 0;
      forEachNamedChild(args, [&](TSNode a) {
        if (is(a, sym_.comment)) return;
        sdk::ArgumentFact af;
        TSNode value = a;
        if (is(a, sym_.keyword_argument)) {
          af.keyword = std::string(text(child(a, f_name_)));
          value = child(a, f_value_);
        } else if (is(a, sym_.list_splat) || is(a, sym_.dictionary_splat)) {
          return;
        } else {
          af.index = index++;
        }
        if (ts_node_is_null(value)) return;
        classifyValue(value, af);
        af.range = range(value);
        c.args.push_back(std::move(af));
      });
    }
    classifyResultUse(n, c);
    m_.calls_.push_back(std::move(c));
  }

  void classifyValue(TSNode v, sdk::ArgumentFact& af) const {
    const TSSymbol t = ts_node_symbol(v);
    if (t == sym_.string || t == sym_.concatenated_string) {
      af.kind = sdk::ValueKind::String;
      af.text = stringValue(v, af.fstring);
    } else if (t == sym_.integer) {
      af.kind = sdk::ValueKind::Int;
    } else if (t == sym_.float_) {
      af.kind = sdk::ValueKind::Float;
    } else if (t == sym_.true_ || t == sym_.false_) {
      af.kind = sdk::ValueKind::Bool;
    } else if (t == sym_.none_) {
      af.kind = sdk::ValueKind::None;
    } else if (t == sym_.identifier || t == sym_.attribute) {
      af.kind = sdk::ValueKind::Name;
    }
    if (af.kind != sdk::ValueKind::String) af.text = std::string(text(v));
  }

  void classifyResultUse(TSNode call, sdk::CallFact& c) const {
    TSNode p = parentAt(0);
    std::size_t up = 0;
    while (is(p, sym_.parenthesized_expression)) p = parentAt(++up);
    if (ts_node_is_null(p)) return;
    if (is(p, sym_.attribute)) {
      c.result_use = sdk::ResultUse::Attribute;
      c.result_attribute = std::string(text(child(p, f_attribute_)));
    } else if (is(p, sym_.subscript) && ts_node_eq(child(p, f_value_), call)) {
      c.result_use = sdk::ResultUse::Subscript;
    } else if (is(p, sym_.comparison_operator) && !comparesWithNone(p)) {
      c.result_use = sdk::ResultUse::Compare;
    } else if (iterates(call, p, up)) {
      c.result_use = sdk::ResultUse::Iterate;
    } else if (is(p, sym_.assignment)) {
      TSNode left = child(p, f_left_);
      if (is(left, sym_.pattern_list) || is(left, sym_.tuple_pattern) || is(left, sym_.list_pattern))
        c.result_use = sdk::ResultUse::TupleUnpack;
      else if (is(left, sym_.identifier))
        c.assigned_to = std::string(text(left));
    }
  }

  // ---- strings ------------------------------------------------------------------------------

  /// Content of a string or concatenated string; f-string holes become {}.
  std::string stringValue(TSNode n, bool& fstring) const {
    std::string out;
    fstring = false;
    auto one = [&](TSNode s) {
      forEachChild(s, false, [&](TSNode c) {
        if (is(c, sym_.string_start)) {
          for (char ch : text(c))
            if (ch == 'f' || ch == 'F') fstring = true;
        } else if (is(c, sym_.string_content)) {
          out += text(c);
        } else if (is(c, sym_.interpolation)) {
          out += "{}";
        }
      });
    };
    if (is(n, sym_.concatenated_string)) {
      forEachNamedChild(n, one);
    } else {
      one(n);
    }
    return out;
  }

  /// Whether the comparison at `parentAt(up)` decides a branch (the condition of an if/elif/while
  /// or of a conditional expression), through `and`/`or`/`not`/parentheses, rather than giving a
  /// value that is asserted, assigned, returned, passed on or filters a comprehension.
  bool isBranchCondition(std::size_t up) const {
    TSNode cur = parentAt(up);
    TSNode p = parentAt(++up);
    while (is(p, sym_.boolean_operator) || is(p, sym_.not_operator) || is(p, sym_.parenthesized_expression)) {
      cur = p;
      p = parentAt(++up);
    }
    if (is(p, sym_.if_statement) || is(p, sym_.elif_clause) || is(p, sym_.while_statement)) return true;
    // `a if cond else b`: the condition is the middle operand.
    return is(p, sym_.conditional_expression) && ts_node_named_child_count(p) == 3 &&
           ts_node_eq(ts_node_named_child(p, 1), cur);
  }

  /// Records a string literal; true when it stands in a message position.
  bool onString(TSNode n) {
    sdk::StringFact s;
    s.value = stringValue(n, s.fstring);
    s.range = range(n);
    // Climb through wrappers that keep the string's role.
    std::size_t up = 0;
    TSNode cur = n;
    TSNode p = parentAt(0);
    bool wrapped = false;
    while (!ts_node_is_null(p)) {
      if (is(p, sym_.parenthesized_expression) || is(p, sym_.conditional_expression) ||
          is(p, sym_.boolean_operator) || is(p, sym_.tuple) || is(p, sym_.list) || is(p, sym_.set) ||
          is(p, sym_.binary_operator) || is(p, sym_.expression_list)) {
        cur = p;
        p = parentAt(++up);
      } else if (isFormatCall(p, up)) {  // "...{}".format(x): the call stands for the string
        cur = parentAt(up + 1);
        up += 2;
        p = parentAt(up);
      } else {
        break;
      }
      wrapped = true;
    }
    if (ts_node_is_null(p)) {
      m_.strings_.push_back(std::move(s));
      return false;
    }
    const TSSymbol pt = ts_node_symbol(p);
    if (pt == sym_.expression_statement && !wrapped) {
      s.context = StringContext::Docstring;
    } else if (pt == sym_.keyword_argument) {
      s.name = std::string(text(child(p, f_name_)));
      TSNode call = parentAt(up + 2);
      s.context = StringContext::KeywordArg;
      if (is(call, sym_.call)) describeCall(call, up + 2, s);
      if (isMessageKeyword(s.name)) s.context = StringContext::Message;
    } else if (pt == sym_.argument_list) {
      TSNode call = parentAt(up + 1);
      if (is(call, sym_.call)) {
        s.context = StringContext::PositionalArg;
        // Counted by the walk (`cur` is stack_[size - 1 - up]): counting here again for each
        // string argument would be quadratic over a call with thousands of them.
        s.arg_index = positional_[positional_.size() - 1 - up];
        describeCall(call, up + 1, s);
      }
    } else if (pt == sym_.comparison_operator) {
      s.context = StringContext::Compare;
      if (isBranchCondition(up)) s.name = "branch";
    } else if (pt == sym_.assignment) {
      if (!ts_node_eq(child(p, f_left_), cur)) {
        s.context = StringContext::Assignment;
        s.name = compact(text(child(p, f_left_)));
      }
    } else if (pt == sym_.default_parameter || pt == sym_.typed_default_parameter) {
      s.context = StringContext::Assignment;
      s.name = std::string(text(child(p, f_name_)));
    } else if (pt == sym_.pair) {
      TSNode key = child(p, f_key_);
      if (!ts_node_eq(key, cur) && (is(key, sym_.string))) {
        bool f = false;
        s.context = StringContext::Assignment;
        s.name = stringValue(key, f);
      }
    } else if (pt == sym_.subscript) {
      if (!ts_node_eq(child(p, f_value_), cur)) {
        s.context = StringContext::Subscript;
        s.callee = chainText(child(p, f_value_));
        pending_string_callees_.push_back(m_.strings_.size());
      }
    } else if (pt == sym_.return_statement) {
      s.context = StringContext::Return;
    } else if (pt == sym_.assert_statement || pt == sym_.raise_statement) {
      s.context = StringContext::Message;
    }
    const bool message = s.context == StringContext::Message;
    m_.strings_.push_back(std::move(s));
    return message;
  }

  /// Whether `p` (the string's parent, `up` levels above) is `<string>.format` called right away.
  bool isFormatCall(TSNode p, std::size_t up) const {
    return is(p, sym_.attribute) && text(child(p, f_attribute_)) == "format" &&
           is(parentAt(up + 1), sym_.call) && ts_node_eq(child(parentAt(up + 1), f_function_), p);
  }

  /// Fills callee/method of a string argument and marks message calls.
  void describeCall(TSNode call, std::size_t call_up, sdk::StringFact& s) {
    TSNode fn = child(call, f_function_);
    s.callee = chainText(fn);
    if (is(fn, sym_.attribute)) {
      s.method = std::string(text(child(fn, f_attribute_)));
      s.method_on_value = true;  // refined in resolve() once the bindings are known
    }
    if (s.context != StringContext::KeywordArg || !isMessageKeyword(s.name)) {
      if (isMessageCall(fn, s.method)) s.context = StringContext::Message;
      // A call inside `raise` builds an exception: its strings are messages.
      TSNode above = parentAt(call_up + 1);
      if (is(above, sym_.raise_statement)) s.context = StringContext::Message;
    }
    pending_string_callees_.push_back(m_.strings_.size());
  }

  bool isMessageCall(TSNode fn, const std::string& method) const {
    const std::string written = chainText(fn);
    if (written == "print" || written == "warnings.warn" || written == "sys.exit" ||
        written == "logging.getLogger")
      return true;
    if (!method.empty() && isLogMethod(method)) {
      std::string receiver = written.substr(0, written.rfind('.'));
      std::transform(receiver.begin(), receiver.end(), receiver.begin(), ::tolower);
      return receiver.find("log") != std::string::npos || receiver == "warnings";
    }
    return false;
  }

  // ---- definitions and module-level names ------------------------------------------------------

  void onDefinition(TSNode n) {
    sdk::DefinitionFact d;
    d.kind =
        is(n, sym_.class_definition) ? sdk::DefinitionFact::Kind::Class : sdk::DefinitionFact::Kind::Function;
    d.name = std::string(text(child(n, f_name_)));
    d.qualified_name = scopePrefix() + d.name;
    d.range = range(n);
    TSNode p = parentAt(0);
    TSNode holder = is(p, sym_.decorated_definition) ? p : n;
    // The parent from the walk's stack: ts_node_parent searches down from the root, quadratic
    // over a module with thousands of definitions.
    d.top_level = is(holder.id == p.id ? parentAt(1) : p, sym_.module);
    if (is(p, sym_.decorated_definition)) {
      forEachNamedChild(p, [&](TSNode c) {
        if (!is(c, sym_.decorator) || ts_node_named_child_count(c) == 0) return;
        TSNode e = ts_node_named_child(c, 0);
        if (is(e, sym_.call)) e = child(e, f_function_);
        std::string w = chainText(e);
        d.decorators.push_back(w.empty() ? compact(text(e)) : w);
      });
    }
    TSNode supers = child(n, f_superclasses_);
    if (!ts_node_is_null(supers)) {
      forEachNamedChild(supers, [&](TSNode b) {
        if (is(b, sym_.keyword_argument) || is(b, sym_.comment)) return;
        std::string w = chainText(b);
        d.bases.push_back(w.empty() ? compact(text(b)) : w);
      });
    }
    TSNode body = child(n, f_body_);
    if (!ts_node_is_null(body) && ts_node_named_child_count(body) > 0) {
      TSNode first = ts_node_named_child(body, 0);
      if (is(first, sym_.expression_statement) && ts_node_named_child_count(first) == 1 &&
          is(ts_node_named_child(first, 0), sym_.string)) {
        bool f = false;
        d.docstring_summary = firstLine(stringValue(ts_node_named_child(first, 0), f));
      }
    }
    if (d.top_level) local_defs_.push_back({d.name, ts_node_start_byte(n)});
    scopes_.push_back({n.id, d.name});
    m_.definitions_.push_back(std::move(d));
  }

  static std::string firstLine(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    std::size_t e = s.find('\n', b);
    std::string line = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    return line;
  }

  std::string scopePrefix() const {
    std::string s;
    for (const auto& sc : scopes_) s += sc.name + ".";
    return s;
  }

  // ---- resolution ---------------------------------------------------------------------------

  /// Qualified name of a dotted chain through the import bindings; empty when the root is not
  /// an import, or a top-level def/class after the import shadows it.
  std::string resolveChain(const std::string& written) const { return bindings_.resolve(written); }

  /// The target of the file's only `from <absolute module> import *`, or empty.
  std::string soleStarImport() const {
    std::string target;
    int count = 0;
    for (const auto& imp : m_.imports_)
      if (imp.star) {
        ++count;
        if (imp.level == 0) target = imp.target;
      }
    return count == 1 ? target : std::string();
  }

  /// A called bare name that nothing in the file binds and that is no builtin: with a single star
  /// import, the name most likely comes from it (`from pynvml import *` … `nvmlInit()`).
  bool fromStar(const std::string& name) const {
    static const std::unordered_set<std::string_view> kBuiltins{"print",
                                                                "len",
                                                                "range",
                                                                "int",
                                                                "float",
                                                                "str",
                                                                "bool",
                                                                "list",
                                                                "dict",
                                                                "set",
                                                                "tuple",
                                                                "isinstance",
                                                                "issubclass",
                                                                "super",
                                                                "getattr",
                                                                "setattr",
                                                                "hasattr",
                                                                "open",
                                                                "min",
                                                                "max",
                                                                "sum",
                                                                "any",
                                                                "all",
                                                                "sorted",
                                                                "enumerate",
                                                                "zip",
                                                                "map",
                                                                "filter",
                                                                "type",
                                                                "repr",
                                                                "iter",
                                                                "next",
                                                                "abs",
                                                                "round",
                                                                "bytes",
                                                                "id",
                                                                "vars",
                                                                "dir",
                                                                "format",
                                                                "callable",
                                                                "object",
                                                                "Exception",
                                                                "ValueError",
                                                                "RuntimeError",
                                                                "TypeError",
                                                                "KeyError",
                                                                "NotImplementedError",
                                                                "AssertionError",
                                                                "ImportError",
                                                                "property",
                                                                "staticmethod",
                                                                "classmethod",
                                                                "reversed",
                                                                "divmod",
                                                                "pow",
                                                                "hash",
                                                                "input",
                                                                "exit"};
    if (name.find('.') != std::string::npos || kBuiltins.count(name)) return false;
    for (const auto& d : m_.definitions_)
      if (d.name == name) return false;
    return !bindings_.isImport(name) && bindings_.resolve(name).empty();
  }

  /// `self.X` where the file itself assigns `self.X = …`: the project's own attribute.
  bool ownSelfAttribute(const std::string& written) const {
    return written.rfind("self.", 0) == 0 && written.find('.', 5) == std::string::npos &&
           self_stores_.count(written.substr(5)) != 0;
  }

  void resolve() {
    // A module-level def/class whose name an import also binds shadows the import when the
    // definition comes after the last import of that name.
    std::unordered_map<std::string, uint32_t> last_import;
    for (const auto& imp : m_.imports_)
      if (!imp.bound.empty()) last_import[imp.bound] = std::max(last_import[imp.bound], imp.range.start_byte);
    for (const auto& [name, at] : local_defs_) {
      auto it = last_import.find(name);
      if (it != last_import.end() && at > it->second) bindings_.shadow(name);
    }
    bindings_.finish();
    for (auto& d : m_.definitions_) {
      for (auto& b : d.bases)
        if (auto r = resolveChain(b); !r.empty()) b = r;
      for (auto& dec : d.decorators)
        if (auto r = resolveChain(dec); !r.empty()) dec = r;
    }
    const std::string star = soleStarImport();
    for (auto& c : m_.calls_) {
      if (!c.callee_written.empty()) c.callee_resolved = resolveChain(c.callee_written);
      if (c.callee_resolved.empty() && !star.empty() && fromStar(c.callee_written))
        c.callee_resolved = star + "." + c.callee_written;
      if (!c.method.empty()) {
        const auto dot = c.callee_written.rfind('.');
        c.receiver_is_module =
            dot != std::string::npos && !resolveChain(c.callee_written.substr(0, dot)).empty();
      }
    }
    for (std::size_t i : pending_string_callees_) {
      auto& s = m_.strings_[i];
      if (!s.method.empty()) {
        const auto dot = s.callee.rfind('.');
        s.method_on_value = dot == std::string::npos || resolveChain(s.callee.substr(0, dot)).empty();
      }
      if (auto r = resolveChain(s.callee); !r.empty()) s.callee = r;
    }
    for (auto& pr : pending_refs_) {
      pr.fact.resolved = resolveChain(pr.fact.written);
      if (pr.fact.resolved.empty() && pr.fact.call >= 0 && !star.empty() && fromStar(pr.fact.written))
        pr.fact.resolved = star + "." + pr.fact.written;
      const bool keep =
          !pr.fact.resolved.empty() || pr.fact.call >= 0 || pr.fact.role != sdk::ReferenceFact::Role::Plain;
      if (pr.attribute_node && pr.fact.resolved.empty() && !ownSelfAttribute(pr.fact.written)) {
        // `x.is_cuda`: an attribute read on a value.
        const auto dot = pr.fact.written.rfind('.');
        sdk::AttributeFact a;
        a.name = pr.fact.written.substr(dot + 1);
        a.receiver_written = pr.fact.written.substr(0, dot);
        a.range = pr.fact.range;
        const auto name_len = static_cast<std::uint32_t>(a.name.size());
        a.range.start_byte = a.range.end_byte - name_len;
        a.range.column = a.range.end_column - name_len;
        a.range.line = a.range.end_line;
        m_.attributes_.push_back(std::move(a));
      }
      if (keep) m_.references_.push_back(std::move(pr.fact));
    }
    auto by_position = [](const auto& a, const auto& b) { return a.range.start_byte < b.range.start_byte; };
    std::stable_sort(m_.attributes_.begin(), m_.attributes_.end(), by_position);
  }

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

bool extractFacts(PythonModule& module, TSNode root, const TSLanguage* language) {
  FactExtractor extractor(module, language);
  return extractor.run(root);
}

}  // namespace migrate::parse

// Imports and the other bindings of names: aliases for the values layer, and the branches
// of if/elif chains that the NPU never takes.

#include "parse/fact_extractor.hpp"

#include "values/platform_branches.hpp"

namespace migrate::parse {

void FactExtractor::onImport(TSNode n) {
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

std::string FactExtractor::compact(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') out += c;
  return out;
}

std::string FactExtractor::absoluteModule(const std::string& base, int level) const {
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

void FactExtractor::onAssignment(TSNode n) {
  TSNode left = child(n, f_left_);
  if (!is(left, sym_.identifier)) return;
  TSNode right = child(n, f_right_);
  // `scope = autocast if amp else nullcontext`: the one branch that does something is the alias
  // (a no-op context manager takes any arguments, so what the other is called with is its use).
  if (is(right, sym_.conditional_expression) && ts_node_named_child_count(right) == 3) {
    const TSNode a = ts_node_named_child(right, 0);
    const TSNode b = ts_node_named_child(right, 2);
    auto noop = [&](TSNode x) {
      const std::string_view t = text(x);
      return t == "nullcontext" || t == "contextlib.nullcontext";
    };
    if (noop(b) && !noop(a))
      right = a;
    else if (noop(a) && !noop(b))
      right = b;
  }
  // `x = None` gives x no attribute to call: what `x.f()` reaches is one of its other values.
  if (is(right, sym_.none_)) return;
  // `torch = importlib.import_module("torch")`: the name is bound as `import torch` binds it.
  if (is(right, sym_.call) && chainText(child(right, f_function_)) == "importlib.import_module") {
    const TSNode args = child(right, f_arguments_);
    const TSNode first = ts_node_is_null(args) ? args : ts_node_named_child(args, 0);
    bool fstring = false;
    const std::string module =
        !ts_node_is_null(first) && is(first, sym_.string) ? stringValue(first, fstring) : std::string();
    if (!module.empty() && !fstring && module.front() != '.' &&
        module.find_first_of(" {}") == std::string::npos) {
      bindings_.bindImport(std::string(text(left)), module);
      return;
    }
  }
  std::string chain;
  if (is(right, sym_.identifier) || is(right, sym_.attribute)) chain = chainText(right);
  bindings_.noteAssignment(text(left), chain, !chain.empty() && inExceptHandler());
}

bool FactExtractor::inExceptHandler() const {
  // The walk's stack holds the ancestors (ts_node_parent would descend from the root each step).
  for (std::size_t up = 0;; ++up) {
    const TSNode p = parentAt(up);
    if (ts_node_is_null(p) || is(p, sym_.function_definition) || is(p, sym_.class_definition)) return false;
    if (is(p, sym_.except_clause)) return true;
  }
}

/// Whether `n` and the `if` statements next to it in its block are lone tests (no `elif`, no
/// `else`: one dispatch written as consecutive `if`s, comments between them) and one of them
/// tests for the NPU. A neighbour with branches of its own is a decision of its own.
bool FactExtractor::besideNpuTest(TSNode n) const {
  auto lone = [&](TSNode s) {
    bool branches = false;
    forEachNamedChild(
        s, [&](TSNode c) { branches = branches || is(c, sym_.elif_clause) || is(c, sym_.else_clause); });
    return !branches;
  };
  if (!lone(n)) return false;
  for (auto step : {&ts_node_next_named_sibling, &ts_node_prev_named_sibling})
    for (TSNode s = step(n); !ts_node_is_null(s); s = step(s)) {
      if (is(s, sym_.comment)) continue;
      if (!is(s, sym_.if_statement) || !lone(s)) break;
      if (values::classifyCondition(text(child(s, f_condition_))) == values::PlatformTest::NpuOnly)
        return true;
    }
  return false;
}

void FactExtractor::onIf(TSNode n) {
  auto off = [&](std::uint32_t begin, std::uint32_t end) { m_.off_npu_.emplace_back(begin, end); };
  auto test = [&](TSNode clause) { return values::classifyCondition(text(child(clause, f_condition_))); };
  auto bodyEnd = [&](TSNode clause) {
    TSNode body = child(clause, f_consequence_);
    return ts_node_is_null(body) ? ts_node_end_byte(clause) : ts_node_end_byte(body);
  };
  bool npu_taken = false;          // an earlier branch of the chain is the NPU's
  std::vector<TSNode> cuda_tests;  // branches before it that test for CUDA
  // `t`: the clause's test, classified once by the caller (an else clause has none).
  auto clause = [&](TSNode c, values::PlatformTest t) {
    if (npu_taken) {
      off(ts_node_start_byte(c), ts_node_end_byte(c));
      return;
    }
    if (is(c, sym_.else_clause)) return;
    if (t == values::PlatformTest::OffNpu) off(ts_node_start_byte(c), bodyEnd(c));
    if (t == values::PlatformTest::Cuda) cuda_tests.push_back(c);
    npu_taken = t == values::PlatformTest::NpuOnly;
    // `if dev.startswith("cuda"): … elif dev.startswith("npu"): …`: the NPU takes its own branch.
    if (npu_taken)
      for (TSNode cuda : cuda_tests) off(ts_node_start_byte(cuda), bodyEnd(cuda));
  };
  const values::PlatformTest head = test(n);
  clause(n, head);
  // Consecutive `if` statements at one level are one chain too (`if HAS_CUDA: … return` beside
  // `if HAS_NPU: …`): a lone CUDA test there is another platform's branch.
  if (head == values::PlatformTest::Cuda && besideNpuTest(n)) off(ts_node_start_byte(n), bodyEnd(n));
  bool chained = false;
  forEachNamedChild(n, [&](TSNode c) {
    if (is(c, sym_.elif_clause) || is(c, sym_.else_clause)) {
      chained = true;
      clause(c, is(c, sym_.elif_clause) ? test(c) : values::PlatformTest::Neither);
    }
  });
  // `if is_npu_available(): … return` with nothing else: the rest of the enclosing block is the
  // other platforms' (an early return on the NPU).
  if (!chained && head == values::PlatformTest::NpuOnly) {
    const TSNode body = child(n, f_consequence_);
    const TSNode parent = ts_node_parent(n);
    const std::uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
    if (count > 0 && !ts_node_is_null(parent) && is(parent, sym_.block)) {
      const TSNode last = ts_node_named_child(body, count - 1);
      if (is(last, sym_.return_statement) || is(last, sym_.raise_statement))
        off(ts_node_end_byte(n), ts_node_end_byte(parent));
    }
  }
}

}  // namespace migrate::parse

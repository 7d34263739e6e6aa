// Function and class definitions, their bases, decorators and scopes.

#include "parse/fact_extractor.hpp"
#include "values/platform_branches.hpp"

namespace migrate::parse {

void FactExtractor::onDefinition(TSNode n) {
  sdk::DefinitionFact d;
  d.kind =
      is(n, sym_.class_definition) ? sdk::DefinitionFact::Kind::Class : sdk::DefinitionFact::Kind::Function;
  d.name = std::string(text(child(n, f_name_)));
  d.qualified_name = scopePrefix() + d.name;
  d.range = range(n);
  // `def _infer_amd_arch(...)`: a function for another vendor's device runs off the NPU path.
  if (d.kind == sdk::DefinitionFact::Kind::Function && values::namesOtherPlatform(d.name))
    m_.off_npu_.emplace_back(ts_node_start_byte(n), ts_node_end_byte(n));
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

std::string FactExtractor::firstLine(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  std::size_t e = s.find('\n', b);
  std::string line = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string FactExtractor::scopePrefix() const {
  std::string s;
  for (const auto& sc : scopes_) s += sc.name + ".";
  return s;
}

}  // namespace migrate::parse

// Calls: the callee, the arguments and how the result is used.

#include "parse/fact_extractor.hpp"

namespace migrate::parse {

void FactExtractor::onCall(TSNode n) {
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
        c.splat = true;
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

void FactExtractor::classifyValue(TSNode v, sdk::ArgumentFact& af) const {
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
  } else if (t == sym_.conditional_expression && ts_node_named_child_count(v) == 3 &&
             (is(ts_node_named_child(v, 0), sym_.integer) || is(ts_node_named_child(v, 2), sym_.integer))) {
    af.kind = sdk::ValueKind::Int;  // `0 if first else gpus[i]`: an integer on one of its paths
  }
  if (af.kind != sdk::ValueKind::String) af.text = std::string(text(v));
}

void FactExtractor::classifyResultUse(TSNode call, sdk::CallFact& c) const {
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
    if (is(left, sym_.pattern_list) || is(left, sym_.tuple_pattern) || is(left, sym_.list_pattern)) {
      c.result_use = sdk::ResultUse::TupleUnpack;
      if (ts_node_named_child_count(left) > 0 && is(ts_node_named_child(left, 0), sym_.identifier))
        c.unpacked_first = std::string(text(ts_node_named_child(left, 0)));
    } else if (is(left, sym_.identifier))
      c.assigned_to = std::string(text(left));
  }
}

}  // namespace migrate::parse

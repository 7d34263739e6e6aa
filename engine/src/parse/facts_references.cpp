// References (dotted chains rooted at a name), attribute reads and name uses.

#include "parse/fact_extractor.hpp"

namespace migrate::parse {

bool FactExtractor::identifierIsExpression(TSNode n) const {
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

void FactExtractor::onChainCandidate(TSNode n) {
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

bool FactExtractor::iterates(TSNode n, TSNode p, std::size_t up) const {
  if (is(p, sym_.for_statement) || is(p, sym_.for_in_clause)) return ts_node_eq(child(p, f_right_), n);
  if (!is(p, sym_.argument_list)) return false;
  TSNode call = parentAt(up + 1);
  if (!is(call, sym_.call)) return false;
  TSNode fn = child(call, f_function_);
  static const std::unordered_set<std::string_view> kIterating{
      "map", "list", "tuple", "set", "sorted", "enumerate", "zip", "iter", "sum", "max", "min", "any", "all"};
  if (is(fn, sym_.identifier)) return kIterating.count(text(fn)) != 0;
  return is(fn, sym_.attribute) && text(child(fn, f_attribute_)) == "join";
}

bool FactExtractor::comparesWithNone(TSNode cmp) const {
  bool none = false;
  forEachNamedChild(cmp, [&](TSNode c) { none = none || is(c, sym_.none_); });
  return none;
}

void FactExtractor::recordNameUse(TSNode n, TSNode p) {
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

void FactExtractor::addAttribute(TSNode n, std::string receiver) {
  sdk::AttributeFact a;
  TSNode attr = child(n, f_attribute_);
  a.name = std::string(text(attr));
  a.receiver_written = std::move(receiver);
  a.range = range(attr);
  m_.attributes_.push_back(std::move(a));
}

}  // namespace migrate::parse

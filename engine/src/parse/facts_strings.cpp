// String literals and the position each stands in (keyword, argument, comparison, …).

#include "parse/fact_extractor.hpp"

#include <algorithm>

namespace migrate::parse {

std::string FactExtractor::stringValue(TSNode n, bool& fstring) const {
  std::string out;
  // An f-string without a replacement field is a constant: it is read as the plain string it is.
  bool prefix_f = false, interpolated = false;
  auto one = [&](TSNode s) {
    forEachChild(s, false, [&](TSNode c) {
      if (is(c, sym_.string_start)) {
        for (char ch : text(c))
          if (ch == 'f' || ch == 'F') prefix_f = true;
      } else if (is(c, sym_.string_content)) {
        out += text(c);
      } else if (is(c, sym_.interpolation)) {
        out += "{}";
        interpolated = true;
      }
    });
  };
  if (is(n, sym_.concatenated_string)) {
    forEachNamedChild(n, one);
  } else {
    one(n);
  }
  fstring = prefix_f && interpolated;
  return out;
}

bool FactExtractor::chainRaises(TSNode if_statement) const {
  bool raises = false;
  auto check = [&](TSNode block) {
    if (ts_node_is_null(block)) return;
    forEachNamedChild(block, [&](TSNode st) { raises = raises || is(st, sym_.raise_statement); });
  };
  check(child(if_statement, f_consequence_));
  forEachNamedChild(if_statement, [&](TSNode c) {
    if (is(c, sym_.elif_clause)) check(child(c, f_consequence_));
    if (is(c, sym_.else_clause)) check(child(c, f_body_));
  });
  return raises;
}

bool FactExtractor::chainBranches(TSNode if_statement) const {
  bool branches = false;
  forEachNamedChild(if_statement, [&](TSNode c) {
    branches = branches || is(c, sym_.elif_clause) || is(c, sym_.else_clause);
  });
  return branches;
}

bool FactExtractor::branchCondition(std::size_t up) const {
  // From the comparison (parentAt(up)) through `and`/`or`/`not` and parentheses to the clause.
  TSNode cur = parentAt(up);
  TSNode p = parentAt(++up);
  while (!ts_node_is_null(p) &&
         (is(p, sym_.boolean_operator) || is(p, sym_.not_operator) || is(p, sym_.parenthesized_expression))) {
    cur = p;
    p = parentAt(++up);
  }
  if (ts_node_is_null(p) || !(is(p, sym_.if_statement) || is(p, sym_.elif_clause)) ||
      !ts_node_eq(child(p, f_condition_), cur))
    return false;
  // A branch test picks between branches: a chain without elif/else only guards code (the kit
  // renames it, so the NPU runs that code), and a chain with a branch that raises checks the
  // value (`if dev != "cuda": raise …`), an assertion.
  const TSNode chain = is(p, sym_.elif_clause) ? ts_node_parent(p) : p;
  return chainBranches(chain) && !chainRaises(chain);
}

bool FactExtractor::onString(TSNode n) {
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
    s.branch_test = branchCondition(up);
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
      // `device_map={"": "cuda:0"}`: the empty key stands for the whole dict, so the value takes
      // the role of the dict's keyword argument.
      const TSNode kw = parentAt(up + 2);
      if (s.name.empty() && is(parentAt(up + 1), sym_.dictionary) && is(kw, sym_.keyword_argument)) {
        s.name = std::string(text(child(kw, f_name_)));
        s.context = StringContext::KeywordArg;
        if (const TSNode call = parentAt(up + 4); is(call, sym_.call)) describeCall(call, up + 4, s);
      }
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

bool FactExtractor::isFormatCall(TSNode p, std::size_t up) const {
  return is(p, sym_.attribute) && text(child(p, f_attribute_)) == "format" &&
         is(parentAt(up + 1), sym_.call) && ts_node_eq(child(parentAt(up + 1), f_function_), p);
}

void FactExtractor::describeCall(TSNode call, std::size_t call_up, sdk::StringFact& s) {
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

bool FactExtractor::isMessageCall(TSNode fn, const std::string& method) const {
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

}  // namespace migrate::parse

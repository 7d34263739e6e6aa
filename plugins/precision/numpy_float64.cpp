// PREC-004: a float64 numpy array turned into a tensor without a dtype.

#include <set>
#include <string>

#include "checks.hpp"
#include "plugin_support/byte_regex.hpp"

namespace precision {

using namespace migrate::sdk;

namespace {

/// Why a numpy call yields a float64 array, or "" when it does not (or nobody can tell).
std::string numpyFloat64Reason(const FileView& v, const CallFact& c) {
  auto isF64 = [&](const ArgumentFact& a) {
    if (a.kind == ValueKind::String)
      return a.text == "float64" || a.text == "double" || a.text == "f8" || a.text == "<f8" || a.text == "d";
    if (a.kind != ValueKind::Name) return false;
    if (a.text == "float") return true;
    const ReferenceFact* r = v.referenceAt(a.range);
    return r &&
           (r->resolved == "numpy.float64" || r->resolved == "numpy.double" || r->resolved == "numpy.float_");
  };
  if (c.method == "astype" && !c.receiver_is_module) {
    for (const ArgumentFact& a : c.args)
      if ((a.index == 0 || a.keyword == "dtype") && isF64(a)) return "astype(" + a.text + ")";
    return "";
  }
  // Methods that keep the dtype: follow them to the array they are called on.
  static const std::set<std::string> kKeepDtype{"copy",   "round",       "clip",      "reshape", "flatten",
                                                "ravel",  "squeeze",     "transpose", "cumsum",  "cumprod",
                                                "repeat", "expand_dims", "__neg__"};
  if (!c.receiver_is_module && kKeepDtype.count(c.method)) {
    const CallFact* inner = v.receiverCall(c);
    return inner ? numpyFloat64Reason(v, *inner) : "";
  }
  if (c.callee_resolved.rfind("numpy.", 0) != 0) return "";
  const std::string fn = c.callee_resolved.substr(6);
  for (const ArgumentFact& a : c.args)
    if (a.keyword == "dtype") return isF64(a) ? fn + "(dtype=" + a.text + ")" : "";
  static const std::set<std::string> kDefaultFloat64{"zeros",
                                                     "ones",
                                                     "empty",
                                                     "full",
                                                     "linspace",
                                                     "logspace",
                                                     "geomspace",
                                                     "eye",
                                                     "identity",
                                                     "random.rand",
                                                     "random.randn",
                                                     "random.random",
                                                     "random.random_sample",
                                                     "random.uniform",
                                                     "random.normal",
                                                     "random.standard_normal",
                                                     "loadtxt",
                                                     "genfromtxt"};
  if (fn == "zeros" || fn == "ones" || fn == "empty") {
    for (const ArgumentFact& a : c.args)
      if (a.index == 1) return isF64(a) ? fn + "(…, " + a.text + ")" : "";
  }
  if (fn == "full") {  // the fill value decides
    for (const ArgumentFact& a : c.args)
      if (a.index == 2) return isF64(a) ? fn + "(…, " + a.text + ")" : "";
    for (const ArgumentFact& a : c.args)
      if (a.index == 1) return a.kind == ValueKind::Float ? fn + "(…, " + a.text + ")" : "";
    return "";
  }
  if (fn == "arange") {
    for (const ArgumentFact& a : c.args)
      if (a.index >= 0 && a.kind == ValueKind::Float) return "arange with a float argument";
    return "";
  }
  return kDefaultFloat64.count(fn) ? fn + " (float64 by default)" : "";
}

/// `name = …` (a plain assignment of `name`) between two offsets.
bool reassignedBetween(const FileView& v, const std::string& name, std::uint32_t from, std::uint32_t to) {
  const Tokens& t = v.tokens();
  for (int i = t.firstAtOrAfter(from); i >= 0 && static_cast<std::size_t>(i) + 1 < t.size(); ++i) {
    if (t[static_cast<std::size_t>(i)].start >= to) break;
    if (t[static_cast<std::size_t>(i)].kind == Token::Kind::Name &&
        t.text(static_cast<std::size_t>(i)) == name && t.is(i + 1, "=") && !t.is(i - 1, "."))
      return true;
  }
  return false;
}

}  // namespace

void numpyFloat64(const FileView& v, const Rules& rules, FindingSink& sink) {
  static const std::set<std::string> kConverters{"torch.from_numpy", "torch.tensor", "torch.as_tensor",
                                                 "torch.asarray"};
  static const RE2 kCastAfter(
      R"(^[[:space:]]*\.[[:space:]]*(?:float|half|bfloat16|int|long|short|bool|byte|char)[[:space:]]*\(|^[[:space:]]*\.[[:space:]]*(?:to|type)[[:space:]]*\([^)]*(?:float32|float16|bfloat16|torch\.float\b|torch\.half|dtype[[:space:]]*=))",
      plugin_support::bytePattern());
  const auto& calls = v.module().calls();
  for (const CallFact& c : calls) {
    if (!kConverters.count(c.callee_resolved)) continue;
    const ArgumentFact* data = nullptr;
    bool has_dtype = false;
    for (const ArgumentFact& a : c.args) {
      if (a.index == 0) data = &a;
      if (a.keyword == "dtype" || (a.index == 1 && c.callee_resolved != "torch.from_numpy")) has_dtype = true;
    }
    if (!data || has_dtype) continue;
    if (RE2::PartialMatch(v.textAfter(c.range), kCastAfter)) continue;
    std::string reason;
    std::string variable;
    if (const CallFact* inner = v.callAt(data->range)) {
      reason = numpyFloat64Reason(v, *inner);
    } else if (data->kind == ValueKind::Name && data->text.find('.') == std::string::npos) {
      variable = data->text;
      const DefinitionFact* scope = v.innermostFunction(c.range.start_byte);
      const CallFact* source = nullptr;
      for (const CallFact& s : calls)
        if (s.assigned_to == variable && s.range.end_byte <= c.range.start_byte &&
            v.innermostFunction(s.range.start_byte) == scope &&
            (!source || s.range.start_byte > source->range.start_byte))
          source = &s;
      if (source && !reassignedBetween(v, variable, source->range.end_byte, c.range.start_byte))
        reason = numpyFloat64Reason(v, *source);
    }
    if (reason.empty()) continue;
    Finding f = findingFrom(rule(rules, "PREC-004"), std::string(v.module().path()), c.range,
                            c.callee_written, c.callee_resolved, {{"value", reason}});
    f.details["dtype"] = "float64";
    f.details["numpy_source"] = reason;
    if (!variable.empty()) f.details["variable"] = variable;
    f.details["target_dtype"] = "torch.float32";
    sink.report(std::move(f));
  }
}

}  // namespace precision

// PREC-005: complex RoPE tables (torch.polar / torch.view_as_complex), complex128 when fed float64.

#include <string>

#include "checks.hpp"
#include "plugin_support/byte_regex.hpp"

namespace precision {

using namespace migrate::sdk;

namespace {

/// Whether a float64/complex128 value is made inside [begin, end): a dtype reference outside a
/// comparison, `.double()`, or `dtype=float`.
bool float64Within(const FileView& v, std::uint32_t begin, std::uint32_t end) {
  for (const ReferenceFact& r : v.module().references())
    if (r.range.start_byte >= begin && r.range.end_byte <= end && isWide(torchDtype(r.resolved)) &&
        !useContext(v, r, torchDtype(r.resolved)).empty())
      return true;
  for (const CallFact& c : v.module().calls()) {
    if (c.range.start_byte < begin || c.range.end_byte > end) continue;
    if (!c.receiver_is_module && (c.method == "double" || c.method == "cdouble") && !onCpu(v, c) &&
        !v.inCpuBlock(c.range.start_byte))
      return true;
    for (const ArgumentFact& a : c.args)
      if (a.keyword == "dtype" && a.kind == ValueKind::Name && (a.text == "float" || a.text == "complex"))
        return true;
  }
  return false;
}

}  // namespace

void complexRope(const FileView& v, const Rules& rules, FindingSink& sink) {
  for (const ReferenceFact& ref : v.module().references()) {
    if (ref.call < 0) continue;
    if (ref.resolved != "torch.polar" && ref.resolved != "torch.view_as_complex") continue;
    const CallFact& c = v.module().calls()[static_cast<std::size_t>(ref.call)];
    const DefinitionFact* fn = v.innermostFunction(c.range.start_byte);
    static const RE2 kToComplex64(
        R"(^[[:space:]]*\.[[:space:]]*(?:to[[:space:]]*\([^)]*(?:complex64|cfloat)|cfloat[[:space:]]*\())",
        plugin_support::bytePattern());
    const bool narrowed = RE2::PartialMatch(v.textAfter(c.range), kToComplex64);
    bool wide = false;
    if (fn) {
      wide = !narrowed && float64Within(v, fn->range.start_byte, fn->range.end_byte);
    } else if (!narrowed) {
      // Module level: the statement around the call.
      const Tokens& t = v.tokens();
      int b = t.firstAtOrAfter(c.range.start_byte);
      while (b > 0 && t[static_cast<std::size_t>(b - 1)].kind != Token::Kind::Newline) --b;
      int e = t.firstAtOrAfter(c.range.end_byte);
      while (static_cast<std::size_t>(e) < t.size() &&
             t[static_cast<std::size_t>(e)].kind != Token::Kind::Newline)
        ++e;
      const std::uint32_t begin =
          static_cast<std::size_t>(b) < t.size() ? t[static_cast<std::size_t>(b)].start : 0;
      const std::uint32_t end =
          static_cast<std::size_t>(e) < t.size() ? t[static_cast<std::size_t>(e)].end : c.range.end_byte;
      wide = float64Within(v, begin, end);
    }
    const std::string note =
        wide ? " Its inputs are float64 here, so the table is complex128, which the AI cores do not run "
               "efficiently: build it in float32 (complex64) at least."
             : "";
    Finding f = findingFrom(rule(rules, "PREC-005"), std::string(v.module().path()), ref.range, ref.written,
                            ref.resolved, {{"note", note}});
    if (wide) f.severity = Severity::Warning;
    f.details["float64_inputs"] = wide ? "true" : "false";
    if (fn) f.details["function"] = fn->qualified_name;
    f.details["complex_dtype"] = wide ? "complex128" : "complex64";
    sink.report(std::move(f));
  }
}

}  // namespace precision

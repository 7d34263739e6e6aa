// PREC-015: assert statements and unittest asserts on a floating-point dtype.

#include <map>
#include <set>
#include <string>

#include "checks.hpp"

namespace precision {

using namespace migrate::sdk;

namespace {

/// Reports the assert spanning [begin, stop) when it names a floating-point torch dtype.
void reportAssert(const FileView& v, const Rules& rules, std::uint32_t begin, std::uint32_t stop,
                  std::string api, std::set<std::string> dtypes, FindingSink& sink) {
  bool wide = dtypes.count("float64") || dtypes.count("complex128");
  for (const ReferenceFact& r : v.module().references()) {
    if (r.range.start_byte < begin || r.range.end_byte > stop) continue;
    const Dtype d = torchDtype(r.resolved);
    if (d == Dtype::None) continue;
    dtypes.insert(dtypeName(d));
    wide = wide || isWide(d);
  }
  if (dtypes.empty()) return;
  std::string list;
  std::string spoken;
  for (const auto& d : dtypes) {
    spoken += (list.empty() ? "" : " or ") + d;
    list += (list.empty() ? "" : ",") + d;
  }
  std::string note;
  if (wide)
    note =
        " It asserts float64/complex128, which the migration moves to float32/complex64: the assert "
        "fails once that is done.";
  else if (dtypes.count("bfloat16") && !dtypes.count("float16"))
    note = " It requires bfloat16, which needs Atlas A2 or later (310P runs float16).";
  else if (dtypes.count("float32") && dtypes.size() == 1)
    note =
        " It requires float32: it fails where NPU autocast (float16 by default) or a bf16/fp16 port "
        "hands this code a lower-precision tensor.";
  std::string compact;  // the statement on one line, runs of blanks collapsed
  for (char ch : api) {
    const bool blank = ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
    if (blank && (compact.empty() || compact.back() == ' ' || compact.back() == '(')) continue;
    compact += blank ? ' ' : ch;
  }
  api = compact;
  Finding f = findingFrom(rule(rules, "PREC-015"), std::string(v.module().path()), v.range(begin, stop), api,
                          "", {{"note", note}, {"value", spoken}});
  if (wide) f.severity = Severity::Warning;
  f.details["asserted_dtypes"] = list;
  sink.report(std::move(f));
}

/// `assert` statements whose condition reads a name holding "dtype".
void assertStatements(const FileView& v, const Rules& rules, FindingSink& sink) {
  const Tokens& t = v.tokens();
  // `HALF = (torch.float16, torch.bfloat16)` … `assert x.dtype in HALF`: the dtypes behind a name.
  std::map<std::string, std::set<std::string>> named;
  for (const ReferenceFact& r : v.module().references())
    if (const Dtype d = torchDtype(r.resolved); d != Dtype::None)
      if (const std::string name = v.displayAssignedTo(r.range); !name.empty())
        named[name].insert(dtypeName(d));
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != Token::Kind::Name || t.text(i) != "assert") continue;
    // The condition ends at the message comma or at the end of the statement.
    std::size_t end = i + 1;
    while (end < t.size() && t[end].kind != Token::Kind::Newline &&
           !(t[end].enclosing == t[i].enclosing &&
             (t.is(static_cast<int>(end), ",") || t.is(static_cast<int>(end), ";"))))
      ++end;
    if (end <= i + 1) continue;
    bool reads_dtype = false;
    for (std::size_t k = i + 1; k < end; ++k)
      if (t[k].kind == Token::Kind::Name && t.text(k).find("dtype") != std::string_view::npos)
        reads_dtype = true;
    if (!reads_dtype) continue;
    std::set<std::string> via_names;
    for (std::size_t k = i + 1; k < end; ++k)
      if (t[k].kind == Token::Kind::Name && !t.is(static_cast<int>(k) - 1, "."))
        if (auto it = named.find(std::string(t.text(k))); it != named.end())
          via_names.insert(it->second.begin(), it->second.end());
    std::string condition(v.text(t[i + 1].start, t[end - 1].end));
    reportAssert(v, rules, t[i].start, t[end - 1].end, "assert " + condition, via_names, sink);
  }
}

}  // namespace

bool isUnittestAssert(const CallFact& c) {
  static const std::set<std::string> kAsserts{"assertEqual", "assertEquals", "assertNotEqual", "assertIs",
                                              "assertIsNot", "assertIn",     "assertNotIn"};
  return !c.receiver_is_module && kAsserts.count(c.method) != 0;
}

void dtypeAsserts(const FileView& v, const Rules& rules, FindingSink& sink) {
  // The file's tokens only where such an assert can be: both words in the text (most files lack
  // one, and tokenising was 3.6 % of a cold run).
  const std::string_view src = v.module().source();
  if (src.find("assert") != std::string_view::npos && src.find("dtype") != std::string_view::npos)
    assertStatements(v, rules, sink);
  for (const CallFact& c : v.module().calls()) {
    if (!isUnittestAssert(c)) continue;
    bool reads_dtype = false;
    for (const ArgumentFact& a : c.args)
      if (a.index >= 0 && v.text(a.range).find("dtype") != std::string_view::npos) reads_dtype = true;
    if (reads_dtype)
      reportAssert(v, rules, c.range.start_byte, c.range.end_byte, std::string(v.text(c.range)), {}, sink);
  }
}

}  // namespace precision

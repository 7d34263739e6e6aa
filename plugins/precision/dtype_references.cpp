// PREC-001/002/006/010: dtype references, cast methods and dtype=float that make those dtypes.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "checks.hpp"
#include "plugin_support/byte_regex.hpp"

namespace precision {

using namespace migrate::sdk;

namespace {

/// The rule reporting a dtype's use.
const RuleInfo* ruleFor(const Rules& rules, Dtype d) {
  switch (d) {
    case Dtype::Float64:
      return &rule(rules, "PREC-001");
    case Dtype::Complex128:
      return &rule(rules, "PREC-002");
    case Dtype::BFloat16:
      return &rule(rules, "PREC-006");
    case Dtype::Float16:
      return &rule(rules, "PREC-010");
    default:
      return nullptr;
  }
}

std::string replacementFor(Dtype d) {
  switch (d) {
    case Dtype::Float64:
      return "torch.float32";
    case Dtype::Complex128:
      return "torch.complex64";
    case Dtype::BFloat16:
      return "torch.bfloat16 on Atlas A2 or later; torch.float16 on earlier products (310P)";
    case Dtype::Float16:
      return "torch.float16 (unchanged)";
    default:
      return "";
  }
}

/// `torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32`: the dtype is
/// only chosen when it is already in use, so this selects nothing new.
bool mirrorsCondition(const FileView& v, const ReferenceFact& ref) {
  const Tokens& t = v.tokens();
  const int last = t.lastEndingAtOrBefore(ref.range.end_byte);
  if (!t.is(last + 1, "if")) return false;
  const int level = t[static_cast<std::size_t>(last + 1)].enclosing;
  int k = last + 2;
  while (static_cast<std::size_t>(k) < t.size() &&
         t[static_cast<std::size_t>(k)].kind != Token::Kind::Newline &&
         !(t[static_cast<std::size_t>(k)].enclosing == level && t.is(k, "else")))
    ++k;
  if (static_cast<std::size_t>(k) >= t.size()) return false;
  const std::uint32_t begin = t[static_cast<std::size_t>(last + 1)].end;
  const std::uint32_t end = t[static_cast<std::size_t>(k)].start;
  for (const ReferenceFact& r : v.module().references())
    if (r.range.start_byte >= begin && r.range.end_byte <= end && r.resolved == ref.resolved &&
        v.position(r.range) == "compare")
      return true;
  return false;
}

/// A dtype conversion table (`{np.dtype("float16"): torch.float16, …, np.dtype("int64"): torch.int64}`,
/// `{"HalfTensor": torch.half, …}`): a dict naming five or more torch dtypes maps types, it
/// selects none of them.
bool inConversionTable(const FileView& v, const SourceRange& r) {
  const auto [open, close] = v.enclosingDisplay(r);
  if (open < 0 || close < 0 || !v.isDict(open)) return false;
  const std::uint32_t begin = v.tokens()[static_cast<std::size_t>(open)].start;
  const std::uint32_t end = v.tokens()[static_cast<std::size_t>(close)].end;
  static const std::set<std::string> kOtherDtypes{
      "torch.int8",   "torch.int16",  "torch.int32",         "torch.int64",       "torch.uint8",
      "torch.bool",   "torch.long",   "torch.int",           "torch.short",       "torch.uint16",
      "torch.uint32", "torch.uint64", "torch.float8_e4m3fn", "torch.float8_e5m2", "torch.complex32",
      "torch.chalf",  "torch.qint8",  "torch.quint8"};
  std::set<std::string> named;
  for (const ReferenceFact& x : v.module().references())
    if (x.range.start_byte >= begin && x.range.end_byte <= end &&
        (torchDtype(x.resolved) != Dtype::None || kOtherDtypes.count(x.resolved)))
      named.insert(x.resolved);
  return named.size() >= 5;
}

/// A project helper that picks a dtype the device supports, e.g. diffusers'
/// `maybe_adjust_dtype_for_device(torch.float64, device)` (float32 on mps/npu): the float64 passed
/// to it is already handled.
bool isDeviceDtypeHelper(const CallFact& c) {
  static const RE2 kHelper(
      R"((?i)(?:^|_)(?:adjust|downcast|fallback|safe|supported|compatible)\w*dtype|dtype\w*(?:for_device|_adjust|_supported|_safe|_compatible))",
      plugin_support::bytePattern());
  std::string name = c.method.empty() ? c.callee_written : c.method;
  const auto dot = name.rfind('.');
  if (dot != std::string::npos) name = name.substr(dot + 1);
  return RE2::PartialMatch(name, kHelper);
}

/// A plain name that the file compares (`x in NAME`, `NAME == y`).
bool comparedName(const FileView& v, const std::string& name) {
  for (const NameUseFact& u : v.module().nameUses())
    if (u.name == name && u.use == ResultUse::Compare) return true;
  return false;
}

std::string describeCall(const CallFact& c) {
  if (!c.callee_resolved.empty()) return c.callee_resolved;
  if (!c.method.empty()) return "." + c.method;
  return c.callee_written;
}

}  // namespace

std::string callText(const FileView& v, const CallFact& c) {
  std::string text(v.text(c.range));
  text.erase(std::remove_if(text.begin(), text.end(), [](char ch) { return ch == '\n' || ch == '\r'; }),
             text.end());
  if (text.size() <= 80) return text;
  return (c.callee_written.empty() ? "." + c.method : c.callee_written) + "(…)";
}

std::string useContext(const FileView& v, const ReferenceFact& ref, Dtype d) {
  if (v.inString(ref.range.start_byte)) return "";  // f"{torch.float64}" formats a name
  if (!v.position(ref.range).empty()) return "";    // compare, dict_key, subscript
  if (const CallFact* outer = v.enclosingCall(ref.range);
      outer && (isUnittestAssert(*outer) || (isWide(d) && isDeviceDtypeHelper(*outer))))
    return "";
  if (mirrorsCondition(v, ref) || inConversionTable(v, ref.range)) return "";
  if (const std::string name = v.displayAssignedTo(ref.range); !name.empty() && comparedName(v, name))
    return "";  // `_HALF = (torch.float16, torch.bfloat16)` used as `x.dtype in _HALF`
  if (isWide(d) && v.inCpuBlock(ref.range.start_byte)) return "";
  std::string context = ref.call >= 0 ? "call" : "expression";
  const auto [call, arg] = v.argumentAt(ref.range);
  if (call) {
    if (call->callee_resolved == "torch.finfo" || call->callee_resolved == "torch.iinfo" ||
        call->callee_written == "isinstance" || call->callee_written == "issubclass")
      return "";
    if (isAutocast(call->callee_resolved) && (arg->keyword == "dtype" || arg->index == 1))
      return "";                                  // PREC-011 reports the autocast region with its dtype
    if (isWide(d) && onCpu(v, *call)) return "";  // float64 kept on the CPU is fine
    context = arg->keyword.empty() ? "argument:" + describeCall(*call) : "keyword:" + arg->keyword;
    if (call->callee_resolved == "torch.set_default_dtype" ||
        call->callee_resolved == "torch.set_default_tensor_type")
      context = "default_dtype";
  }
  return context;
}

void dtypeReferences(const FileView& v, const Rules& rules, FindingSink& sink) {
  for (const ReferenceFact& ref : v.module().references()) {
    const Dtype d = torchDtype(ref.resolved);
    const RuleInfo* r = ruleFor(rules, d);
    if (!r) continue;
    const std::string context = useContext(v, ref, d);
    if (context.empty()) continue;
    const std::string note =
        context == "default_dtype"
            ? " It changes the default of every floating-point tensor created afterwards."
            : "";
    Finding f = findingFrom(*r, std::string(v.module().path()), ref.range, ref.written, ref.resolved,
                            {{"npu", replacementFor(d)}, {"note", note}});
    f.details["dtype"] = dtypeName(d);
    f.details["context"] = context;
    if (isWide(d)) f.details["target_dtype"] = replacementFor(d);
    sink.report(std::move(f));
  }
}

void castMethods(const FileView& v, const Rules& rules, FindingSink& sink) {
  static const std::map<std::string, std::pair<Dtype, std::string>> kCasts{
      {"double", {Dtype::Float64, ".float()"}},
      {"cdouble", {Dtype::Complex128, ".cfloat()"}},
      {"bfloat16", {Dtype::BFloat16, ".bfloat16() on Atlas A2 or later; .half() on earlier products (310P)"}},
      {"half", {Dtype::Float16, ".half() (unchanged)"}}};
  std::set<std::string> own_methods;  // a class of this file defines a method of that name
  for (const DefinitionFact& d : v.module().definitions())
    if (d.kind == DefinitionFact::Kind::Function && d.qualified_name != d.name) own_methods.insert(d.name);
  for (const CallFact& c : v.module().calls()) {
    if (c.method.empty() || c.receiver_is_module) continue;
    auto it = kCasts.find(c.method);
    if (it == kCasts.end()) continue;
    bool plain = true;
    for (const ArgumentFact& a : c.args)
      if (a.keyword != "memory_format") plain = false;
    if (!plain) continue;
    const std::string_view recv = v.receiverText(c);
    if (own_methods.count(c.method) && (recv == "self." || recv == "cls.")) continue;
    const Dtype d = it->second.first;
    if (isWide(d)) {
      if (onCpu(v, c) || v.inCpuBlock(c.range.start_byte)) continue;
      const std::string_view after = v.textAfter(c.range);
      if (after.rfind(".numpy()", 0) == 0 || after.rfind(".tolist()", 0) == 0) continue;  // a CPU tensor
    }
    SourceRange range = c.name_range;
    range.end_line = c.range.end_line;
    range.end_column = c.range.end_column;
    range.end_byte = c.range.end_byte;
    const std::string written = callText(v, c);
    Finding f =
        findingFrom(*ruleFor(rules, d), std::string(v.module().path()), range, written,
                    "torch.Tensor." + c.method, {{"api", written}, {"npu", it->second.second}, {"note", ""}});
    f.details["dtype"] = dtypeName(d);
    f.details["context"] = "method:" + c.method;
    if (isWide(d)) f.details["target_dtype"] = replacementFor(d);
    sink.report(std::move(f));
  }
}

void pythonFloatDtype(const FileView& v, const Rules& rules, FindingSink& sink) {
  static const std::set<std::string> kTensorMethods{"to",       "new_zeros",  "new_ones", "new_empty",
                                                    "new_full", "new_tensor", "type"};
  for (const CallFact& c : v.module().calls()) {
    const bool torch_call = c.callee_resolved.rfind("torch.", 0) == 0;
    const bool tensor_method = !c.method.empty() && !c.receiver_is_module && kTensorMethods.count(c.method);
    if (!torch_call && !tensor_method) continue;
    for (const ArgumentFact& a : c.args) {
      if (a.keyword != "dtype" || a.kind != ValueKind::Name) continue;
      if (a.text != "float" && a.text != "complex") continue;
      const Dtype d = a.text == "float" ? Dtype::Float64 : Dtype::Complex128;
      if (onCpu(v, c) || v.inCpuBlock(c.range.start_byte)) continue;
      Finding f = findingFrom(
          *ruleFor(rules, d), std::string(v.module().path()), a.range, "dtype=" + a.text, "",
          {{"npu", d == Dtype::Float64 ? "dtype=torch.float32" : "dtype=torch.complex64"},
           {"note", " (Python's " + a.text + " means torch." +
                        (d == Dtype::Float64 ? "float64" : "complex128") + " as a torch dtype)"}});
      f.details["dtype"] = dtypeName(d);
      f.details["context"] = "keyword:dtype";
      f.details["target_dtype"] = replacementFor(d);
      sink.report(std::move(f));
    }
  }
}

}  // namespace precision

// DEV-052: `self.assertEqual(cfg.device, "cuda")` and its relatives. DEV-023 already owns every
// comparison operator (`x.device == "cuda"`) and the call positions of its `where` list; none of
// those lists names an assertion method, so the two rules select disjoint strings.

#include "device_string_asserts.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "plugin_support/byte_regex.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

/// The unittest assertions that compare their first two operands (equality or membership).
bool isComparingAssertion(const std::string& method) {
  static const char* const kMethods[] = {"assertEqual",     "assertEquals", "assertNotEqual",
                                         "assertNotEquals", "assertIn",     "assertNotIn"};
  return std::find(std::begin(kMethods), std::end(kMethods), method) != std::end(kMethods);
}

/// Operand slot of an argument of such an assertion: 0 or 1, or -1 (msg, anything else).
int operandSlot(const ArgumentFact& a) {
  if (a.keyword.empty()) return a.index == 0 || a.index == 1 ? a.index : -1;
  if (a.keyword == "first" || a.keyword == "member") return 0;
  if (a.keyword == "second" || a.keyword == "container") return 1;
  return -1;
}

bool within(const SourceRange& inner, const SourceRange& outer) {
  return outer.start_byte <= inner.start_byte && inner.end_byte <= outer.end_byte;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Index of the bracket opening the one that closes `s` (its last character); npos when unbalanced.
std::size_t openingBracket(std::string_view s) {
  const char close = s.back();
  const char open = close == ')' ? '(' : '[';
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == close) ++depth;
    if (s[i] == open && --depth == 0) return i;
  }
  return std::string_view::npos;
}

/// The identifier that ends `s` when it stands alone or after a dot (`GPTConfig().device`).
std::string_view trailingName(std::string_view s) {
  std::size_t b = s.size();
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_')) --b;
  if (b == s.size() || (b > 0 && s[b - 1] != '.')) return {};
  return s.substr(b);
}

bool isDeviceName(std::string_view name) {
  static const RE2 kName(R"((?i)(?:\w+_)?device(?:s|_type)?\d*)", plugin_support::bytePattern());
  return RE2::FullMatch(name, kName);
}

/// The edit renaming "cuda" to "npu" inside the literal (after its prefix and opening quotes).
void renameEdit(const Module& module, const SourceRange& literal, Finding& f) {
  const std::string_view text = module.text(literal);
  const std::size_t quote = text.find_first_of("\"'");
  const std::size_t pos = quote == std::string_view::npos ? quote : text.find("cuda", quote);
  if (pos == std::string_view::npos) return;
  const auto at = static_cast<std::uint32_t>(literal.start_byte + pos);
  f.edits.push_back({at, at + 4, "npu"});
}

/// The innermost call of `method` whose arguments hold `literal`.
const CallFact* enclosingAssertion(const Module& module, const std::string& method,
                                   const SourceRange& literal) {
  const CallFact* best = nullptr;
  for (const CallFact& c : module.calls()) {
    if (c.method != method || c.receiver_is_module || !within(literal, c.range)) continue;
    if (!best || within(c.range, best->range)) best = &c;
  }
  return best;
}

/// Whether the source text of an expression reads as a device value (see the header).
bool isDeviceValue(std::string_view expression) {
  std::string_view t = trim(expression);
  while (t.size() > 2 && t.front() == '(' && t.back() == ')' && openingBracket(t) == 0)
    t = trim(t.substr(1, t.size() - 2));
  if (t.size() > 5 && t.substr(0, 4) == "str(" && t.back() == ')' && openingBracket(t) == 3)
    t = trim(t.substr(4, t.size() - 5));
  if (t.size() > 5 && t.substr(t.size() - 5) == ".type") t = trim(t.substr(0, t.size() - 5));
  if (t.empty()) return false;
  if (t.back() == ']') {  // `report["device"]`, or `devices[0]`
    const std::size_t open = openingBracket(t);
    if (open == std::string_view::npos || open == 0) return false;
    const std::string_view key = trim(t.substr(open + 1, t.size() - open - 2));
    if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
      return isDeviceName(key.substr(1, key.size() - 2));
    t = trim(t.substr(0, open));
  }
  // A call's result (`resolve_device("auto")`) has no trailing name and is left out on purpose:
  // the tests comparing one with "cuda" check device-selection logic under a mocked torch.cuda.
  const std::string_view name = trailingName(t);
  return !name.empty() && isDeviceName(name);
}

}  // namespace

void checkDeviceStringAsserts(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  static const RE2 kCudaDevice(R"(cuda(?::\d*)?)", plugin_support::bytePattern());  // the whole value
  for (const StringFact& s : module.strings()) {
    if (s.fstring || !s.method_on_value || !isComparingAssertion(s.method)) continue;
    if (s.context != StringContext::PositionalArg && s.context != StringContext::KeywordArg) continue;
    if (!RE2::FullMatch(s.value, kCudaDevice)) continue;
    const CallFact* call = enclosingAssertion(module, s.method, s.range);
    if (!call) continue;
    const auto own = std::find_if(call->args.begin(), call->args.end(),
                                  [&](const ArgumentFact& a) { return within(s.range, a.range); });
    if (own == call->args.end() || operandSlot(*own) < 0) continue;
    const auto other = std::find_if(call->args.begin(), call->args.end(), [&](const ArgumentFact& a) {
      return operandSlot(a) == 1 - operandSlot(*own);
    });
    if (other == call->args.end() || other->kind == ValueKind::String) continue;
    const std::string compared(module.text(other->range));
    if (!isDeviceValue(compared)) continue;
    Finding f = findingFrom(rule, std::string(module.path()), s.range, std::string(module.text(s.range)), {},
                            {{"value", s.value}});
    f.details["compared_with"] = compared;
    renameEdit(module, s.range, f);
    sink.report(std::move(f));
  }
}

}  // namespace device

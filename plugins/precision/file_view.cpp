// FileView (the per-module indexes and token-level positions the precision checks share) and onCpu.

#include "file_view.hpp"

#include <algorithm>
#include <set>

#include "plugin_support/byte_regex.hpp"

namespace precision {

using namespace migrate::sdk;

namespace {

std::uint64_t key(const SourceRange& r) {
  return (std::uint64_t{r.start_byte} << 32) | r.end_byte;
}

bool isKeyword(std::string_view w) {
  static const std::set<std::string_view> kKeywords{"in",     "not",    "is",    "and",    "or",   "if",
                                                    "else",   "return", "yield", "assert", "for",  "while",
                                                    "lambda", "await",  "elif",  "del",    "from", "with"};
  return kKeywords.count(w) != 0;
}

bool isCpuString(const ArgumentFact& a) {
  static const RE2 kCpu(R"(torch\.device\([[:space:]]*["']cpu["'][[:space:]]*\))",
                        plugin_support::bytePattern());
  return (a.kind == ValueKind::String && a.text == "cpu") ||
         (a.text.rfind("torch.device(", 0) == 0 && RE2::FullMatch(a.text, kCpu));
}

}  // namespace

FileView::FileView(const Module& m) : m_(m) {
  const auto& calls = m.calls();
  for (std::size_t c = 0; c < calls.size(); ++c) {
    call_at_[key(calls[c].range)] = static_cast<int>(c);
    call_by_end_.emplace(calls[c].range.end_byte, static_cast<int>(c));
    call_by_start_.emplace(calls[c].range.start_byte, static_cast<int>(c));
    for (std::size_t a = 0; a < calls[c].args.size(); ++a)
      arg_at_.emplace(key(calls[c].args[a].range), std::make_pair(static_cast<int>(c), static_cast<int>(a)));
  }
  for (const ReferenceFact& r : m.references()) ref_at_.emplace(key(r.range), &r);
  findCpuBlocks();
}

bool FileView::inCpuBlock(std::uint32_t byte) const {
  for (const auto& [b, e] : cpu_blocks_)
    if (b <= byte && byte < e) return true;
  return false;
}

std::pair<const CallFact*, const ArgumentFact*> FileView::argumentAt(const SourceRange& r) const {
  auto it = arg_at_.find(key(r));
  if (it == arg_at_.end()) return {nullptr, nullptr};
  const CallFact& c = m_.calls()[static_cast<std::size_t>(it->second.first)];
  return {&c, &c.args[static_cast<std::size_t>(it->second.second)]};
}

const CallFact* FileView::callAt(const SourceRange& r) const {
  auto it = call_at_.find(key(r));
  return it == call_at_.end() ? nullptr : &m_.calls()[static_cast<std::size_t>(it->second)];
}

const CallFact* FileView::receiverCall(const CallFact& c) const {
  const CallFact* best = nullptr;
  auto [lo, hi] = call_by_start_.equal_range(c.range.start_byte);
  for (auto it = lo; it != hi; ++it) {
    const CallFact& x = m_.calls()[static_cast<std::size_t>(it->second)];
    if (x.range.end_byte < c.name_range.start_byte && (!best || x.range.end_byte > best->range.end_byte))
      best = &x;
  }
  return best;
}

const ReferenceFact* FileView::referenceAt(const SourceRange& r) const {
  auto it = ref_at_.find(key(r));
  return it == ref_at_.end() ? nullptr : it->second;
}

Dtype FileView::dtypeOfArgument(const ArgumentFact& a) const {
  const ReferenceFact* r = referenceAt(a.range);
  return r ? torchDtype(r->resolved) : Dtype::None;
}

std::vector<const DefinitionFact*> FileView::enclosing(std::uint32_t byte) const {
  std::vector<const DefinitionFact*> out;
  for (const DefinitionFact& d : m_.definitions())
    if (d.range.start_byte <= byte && byte < d.range.end_byte) out.push_back(&d);
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->range.start_byte < b->range.start_byte; });
  return out;
}

const DefinitionFact* FileView::innermostFunction(std::uint32_t byte) const {
  const auto chain = enclosing(byte);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    if ((*it)->kind == DefinitionFact::Kind::Function) return *it;
  return nullptr;
}

std::string_view FileView::receiverText(const CallFact& c) const {
  if (c.method.empty() || c.name_range.start_byte <= c.range.start_byte) return {};
  return text(c.range.start_byte, c.name_range.start_byte);
}

std::string_view FileView::textAfter(const SourceRange& r, std::size_t max) const {
  const std::string_view src = m_.source();
  std::size_t e = r.end_byte;
  while (e < src.size() && e - r.end_byte < max && src[e] != '\n') ++e;
  return src.substr(r.end_byte, e - r.end_byte);
}

bool FileView::inString(std::uint32_t byte) const {
  const int i = tokens().firstAtOrAfter(byte + 1) - 1;
  return i >= 0 && tokens()[static_cast<std::size_t>(i)].kind == Token::Kind::String &&
         tokens()[static_cast<std::size_t>(i)].start < byte &&
         byte < tokens()[static_cast<std::size_t>(i)].end;
}

bool FileView::isComparisonToken(int i) const {
  if (i < 0 || static_cast<std::size_t>(i) >= tokens().size()) return false;
  if (tokens().is(i, "==") || tokens().is(i, "!=") || tokens().is(i, "is") || tokens().is(i, "not"))
    return true;
  if (tokens().is(i, "in")) return !isForIn(i);
  return false;
}

bool FileView::isForIn(int in) const {
  const int level = tokens()[static_cast<std::size_t>(in)].enclosing;
  for (int k = in - 1; k >= 0; --k) {
    const Token& t = tokens()[static_cast<std::size_t>(k)];
    if (t.kind == Token::Kind::Newline) return false;
    if (t.enclosing != level) {
      if (k == level) return false;  // reached the opening bracket
      continue;
    }
    if (tokens().is(k, "for")) return true;
    if (t.kind == Token::Kind::Name || tokens().is(k, ",") || t.kind == Token::Kind::Close) continue;
    return false;
  }
  return false;
}

std::string FileView::position(const SourceRange& r) const {
  const int first = tokens().firstAtOrAfter(r.start_byte);
  const int last = tokens().lastEndingAtOrBefore(r.end_byte);
  if (first < 0 || last < first || static_cast<std::size_t>(last) >= tokens().size()) return "";
  const int prev = first - 1;
  const int next = last + 1;
  if (isComparisonToken(prev) || isComparisonToken(next)) return "compare";
  const int open = tokens()[static_cast<std::size_t>(first)].enclosing;
  if (open < 0) return "";
  const std::string_view bracket = tokens().text(static_cast<std::size_t>(open));
  if (bracket == "{" && tokens().is(next, ":")) return "dict_key";
  const bool display = isDisplay(open);
  if (bracket == "[" && !display) return "subscript";
  if (display) {
    // An element of a display: `x.dtype in (torch.float16, torch.bfloat16)`.
    if (isComparisonToken(open - 1)) return "compare";
    const int close = tokens()[static_cast<std::size_t>(open)].match;
    if (close >= 0 && isComparisonToken(close + 1)) return "compare";
  }
  return "";
}

bool FileView::isDisplay(int open) const {
  const int before = open - 1;
  if (before < 0) return true;
  const Token& b = tokens()[static_cast<std::size_t>(before)];
  if (b.kind == Token::Kind::Close || b.kind == Token::Kind::String) return false;
  return !(b.kind == Token::Kind::Name && !isKeyword(tokens().text(static_cast<std::size_t>(before))));
}

const CallFact* FileView::enclosingCall(const SourceRange& r) const {
  const int first = tokens().firstAtOrAfter(r.start_byte);
  if (first < 0 || static_cast<std::size_t>(first) >= tokens().size()) return nullptr;
  int open = tokens()[static_cast<std::size_t>(first)].enclosing;
  while (open >= 0 && isDisplay(open)) open = tokens()[static_cast<std::size_t>(open)].enclosing;
  if (open < 0 || !tokens().is(open, "(")) return nullptr;
  const int close = tokens()[static_cast<std::size_t>(open)].match;
  if (close < 0) return nullptr;
  auto [lo, hi] = call_by_end_.equal_range(tokens()[static_cast<std::size_t>(close)].end);
  for (auto it = lo; it != hi; ++it) {
    const CallFact& c = m_.calls()[static_cast<std::size_t>(it->second)];
    if (c.range.start_byte < tokens()[static_cast<std::size_t>(open)].start) return &c;
  }
  return nullptr;
}

std::string FileView::displayAssignedTo(const SourceRange& r) const {
  const int first = tokens().firstAtOrAfter(r.start_byte);
  if (first < 0 || static_cast<std::size_t>(first) >= tokens().size()) return "";
  const int open = tokens()[static_cast<std::size_t>(first)].enclosing;
  if (open < 2 || !isDisplay(open) || tokens()[static_cast<std::size_t>(open)].enclosing != -1) return "";
  if (isDict(open)) return "";  // `x in DICT` tests the keys, not the dtypes stored as values
  if (!tokens().is(open - 1, "=") || tokens()[static_cast<std::size_t>(open - 2)].kind != Token::Kind::Name)
    return "";
  if (open >= 3 && tokens()[static_cast<std::size_t>(open - 3)].kind != Token::Kind::Newline) return "";
  return std::string(tokens().text(static_cast<std::size_t>(open - 2)));
}

bool FileView::isDict(int open) const {
  if (!tokens().is(open, "{")) return false;
  const int close = tokens()[static_cast<std::size_t>(open)].match;
  for (int k = open + 1; k < close; ++k)
    if (tokens()[static_cast<std::size_t>(k)].enclosing == open && tokens().is(k, ":")) return true;
  return false;
}

std::pair<int, int> FileView::enclosingDisplay(const SourceRange& r) const {
  const int first = tokens().firstAtOrAfter(r.start_byte);
  if (first < 0 || static_cast<std::size_t>(first) >= tokens().size()) return {-1, -1};
  const int open = tokens()[static_cast<std::size_t>(first)].enclosing;
  if (open < 0 || !isDisplay(open)) return {-1, -1};
  return {open, tokens()[static_cast<std::size_t>(open)].match};
}

void FileView::findCpuBlocks() {
  const std::string_view src = m_.source();
  for (const CallFact& c : m_.calls()) {
    if (c.callee_resolved != "torch.device" || c.args.empty() || c.args[0].index != 0 ||
        c.args[0].kind != ValueKind::String || c.args[0].text != "cpu")
      continue;
    std::size_t line = src.rfind('\n', c.range.start_byte == 0 ? 0 : c.range.start_byte - 1);
    line = line == std::string_view::npos ? 0 : line + 1;
    std::size_t indent = line;
    while (indent < src.size() && (src[indent] == ' ' || src[indent] == '\t')) ++indent;
    if (src.substr(indent, 5) != "with ") continue;
    const std::size_t depth = indent - line;
    std::size_t pos = src.find('\n', c.range.end_byte);
    std::size_t end = src.size();
    while (pos != std::string_view::npos && pos + 1 < src.size()) {
      const std::size_t next = pos + 1;
      std::size_t i = next;
      while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
      const bool blank = i >= src.size() || src[i] == '\n' || src[i] == '\r' || src[i] == '#';
      if (!blank && i - next <= depth) {
        end = next;
        break;
      }
      pos = src.find('\n', next);
    }
    cpu_blocks_.emplace_back(c.range.end_byte, static_cast<std::uint32_t>(end));
  }
}

bool onCpu(const FileView& v, const CallFact& c) {
  for (const ArgumentFact& a : c.args) {
    if (a.keyword == "device" && isCpuString(a)) return true;
    if (c.method == "to" && a.index == 0 && isCpuString(a)) return true;
  }
  const std::string_view recv = v.receiverText(c);
  return recv.find(".cpu()") != std::string_view::npos || recv.find(".numpy()") != std::string_view::npos;
}

}  // namespace precision

// DEV-088: rank-like values passed positionally as a repository function's `device` (see the header).

#include "device_parameter_calls.hpp"

#include <cctype>
#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/python_text.hpp"

namespace device {
namespace {

using namespace migrate::sdk;
using plugin_support::closingBracket;
using plugin_support::stringEnd;

/// The memo's kind (WorkspaceView::remember); bump it when the encoding changes.
constexpr std::string_view kMemoKind = "device-parameter-calls/1";

/// `def name(…, device, …)` at module level: the positional index of `device`.
struct Signature {
  std::string name;
  int index = 0;
};

/// `name(…, local_rank, …)`: a bare-name call with a rank-like positional argument at `index`,
/// which spans bytes [begin, end) of the file.
struct RankArgument {
  std::string name;
  int index = 0;
  std::uint32_t begin = 0, end = 0;
};

struct Summary {
  std::vector<Signature> signatures;
  std::vector<RankArgument> arguments;
};

bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\';
}

/// The top-level comma-separated items between the brackets at `open` and `close`, trimmed, as
/// [begin, end) byte ranges (an empty list for `()`; a trailing comma adds no item).
std::vector<std::pair<std::size_t, std::size_t>> items(std::string_view t, std::size_t open,
                                                       std::size_t close) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  auto add = [&](std::size_t b, std::size_t e) {
    while (b < e && space(t[b])) ++b;
    while (e > b && space(t[e - 1])) --e;
    if (b < e) out.emplace_back(b, e);
  };
  std::size_t from = open + 1;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = t[i];
    if (c == '(' || c == '[' || c == '{' || c == '"' || c == '\'') {
      const std::size_t end = c == '"' || c == '\'' ? stringEnd(t, i, false) : closingBracket(t, i);
      if (end >= close) return out;
      i = end;
    } else if (c == ',') {
      add(from, i);
      from = i + 1;
    }
  }
  add(from, close);
  return out;
}

/// True for a keyword argument (`name=value`, not `a == b`) or a splat (`*args`, `**kw`).
bool notPositional(std::string_view item) {
  if (!item.empty() && item.front() == '*') return true;
  const std::size_t eq = item.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 >= item.size() || item[eq + 1] == '=') return false;
  for (std::size_t i = 0; i < eq; ++i)
    if (!identifierChar(item[i]) && !space(item[i])) return false;
  return true;
}

void readSignatures(std::string_view t, Summary& s) {
  if (t.find("device") == std::string_view::npos) return;
  static const RE2 kDef(R"((?m)^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\()",
                        plugin_support::bytePattern());
  plugin_support::forEachMatch(kDef, t, [&](const auto& m) {
    const std::size_t open = static_cast<std::size_t>(m[0].data() - t.data()) + m[0].size() - 1;
    const std::size_t close = closingBracket(t, open);
    if (close >= t.size()) return;
    int index = 0;
    for (const auto& [b, e] : items(t, open, close)) {
      const std::string_view param = t.substr(b, e - b);
      if (param == "/") continue;  // positional-only marker
      if (param.front() == '*') break;
      std::size_t n = 0;
      while (n < param.size() && identifierChar(param[n])) ++n;
      if (param.substr(0, n) == "device") {
        s.signatures.push_back({plugin_support::str(m[1]), index});
        return;
      }
      ++index;
    }
  });
}

void readRankArguments(std::string_view t, Summary& s) {
  static const RE2 kRank(
      R"((?i)\b((?:[a-z_]\w*\.)*(?:local_?rank|rank|gpu_?id|device_?id|device_?index|local_?gpu|gpu))\b)",
      plugin_support::bytePattern());
  plugin_support::forEachMatch(kRank, t, [&](const auto& m) {
    const std::size_t b = static_cast<std::size_t>(m[1].data() - t.data());
    const std::size_t e = b + m[1].size();
    if (b > 0 && (t[b - 1] == '.' || identifierChar(t[b - 1]))) return;
    std::size_t before = b;
    while (before > 0 && space(t[before - 1])) --before;
    std::size_t after = e;
    while (after < t.size() && space(t[after])) ++after;
    if (before == 0 || (t[before - 1] != '(' && t[before - 1] != ',')) return;
    if (after >= t.size() || (t[after] != ',' && t[after] != ')')) return;
    const std::size_t line = t.rfind('\n', b);
    const std::size_t line_start = line == std::string_view::npos ? 0 : line;
    if (t.substr(line_start, b - line_start).find('#') != std::string_view::npos)
      return;  // a comment (or a string holding '#': rare enough to miss)
    // The enclosing open bracket: a call's parenthesis, not a list, tuple display or subscript.
    std::size_t open = std::string_view::npos;
    int depth = 0;
    for (std::size_t j = before - 1, steps = 0; steps < 4000; --j, ++steps) {
      const char c = t[j];
      if (c == ')' || c == ']' || c == '}') {
        ++depth;
      } else if (c == '(' || c == '[' || c == '{') {
        if (depth == 0) {
          if (c == '(') open = j;
          break;
        }
        --depth;
      }
      if (j == 0) break;
    }
    if (open == std::string_view::npos || open == 0) return;
    std::size_t name_end = open;
    std::size_t name_begin = name_end;
    while (name_begin > 0 && identifierChar(t[name_begin - 1])) --name_begin;
    if (name_begin == name_end || std::isdigit(static_cast<unsigned char>(t[name_begin]))) return;
    if (name_begin > 0 && t[name_begin - 1] == '.') return;  // a method, not the repository's function
    std::size_t word_end = name_begin;
    while (word_end > 0 && (t[word_end - 1] == ' ' || t[word_end - 1] == '\t')) --word_end;
    std::size_t word_begin = word_end;
    while (word_begin > 0 && identifierChar(t[word_begin - 1])) --word_begin;
    const std::string_view word = t.substr(word_begin, word_end - word_begin);
    if (word == "def" || word == "class") return;  // a signature's parameter
    const std::size_t close = closingBracket(t, open);
    if (close >= t.size()) return;
    int index = 0;
    for (const auto& [ib, ie] : items(t, open, close)) {
      if (ib == b) {
        s.arguments.push_back({std::string(t.substr(name_begin, name_end - name_begin)), index,
                               static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e)});
        return;
      }
      if (notPositional(t.substr(ib, ie - ib))) return;
      ++index;
    }
  });
}

std::string encode(const Summary& s) {
  std::string out;
  for (const auto& d : s.signatures) out += "d " + d.name + " " + std::to_string(d.index) + "\n";
  for (const auto& a : s.arguments)
    out += "c " + a.name + " " + std::to_string(a.index) + " " + std::to_string(a.begin) + " " +
           std::to_string(a.end) + "\n";
  return out;
}

bool decode(std::string_view memo, Summary& s) {
  auto number = [](std::string_view text, auto& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
  };
  for (std::size_t at = 0; at < memo.size();) {
    std::size_t eol = memo.find('\n', at);
    if (eol == std::string_view::npos) return false;
    std::vector<std::string_view> f;
    for (std::size_t b = at; b < eol;) {
      const std::size_t sp = std::min(memo.find(' ', b), eol);
      f.push_back(memo.substr(b, sp - b));
      b = sp + 1;
    }
    at = eol + 1;
    if (f.size() == 3 && f[0] == "d") {
      Signature d{std::string(f[1]), 0};
      if (!number(f[2], d.index)) return false;
      s.signatures.push_back(std::move(d));
    } else if (f.size() == 5 && f[0] == "c") {
      RankArgument a{std::string(f[1]), 0, 0, 0};
      if (!number(f[2], a.index) || !number(f[3], a.begin) || !number(f[4], a.end) || a.end < a.begin)
        return false;
      s.arguments.push_back(std::move(a));
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

void checkDeviceParameterCalls(const WorkspaceView& workspace, const RuleInfo& rule, FindingSink& sink) {
  std::map<std::string, int> signatures;  // name → index of `device`; -1 when files disagree
  std::vector<std::pair<std::string, std::vector<RankArgument>>> arguments;
  for (const FileEntry& file : workspace.files()) {
    if (file.language != Language::Python) continue;
    Summary s;
    const auto memo = workspace.recall(file.path, kMemoKind);
    if (!memo || !decode(*memo, s)) {
      s = {};
      const auto text = workspace.read(file.path);
      if (!text) continue;
      readSignatures(*text, s);
      readRankArguments(*text, s);
      workspace.remember(file.path, kMemoKind, encode(s));
    }
    for (const Signature& d : s.signatures) {
      const auto [it, added] = signatures.emplace(d.name, d.index);
      if (!added && it->second != d.index) it->second = -1;
    }
    if (!s.arguments.empty()) arguments.emplace_back(file.path, std::move(s.arguments));
  }
  if (signatures.empty()) return;
  for (const auto& [path, found] : arguments) {
    std::vector<const RankArgument*> matched;
    for (const RankArgument& a : found)
      if (const auto it = signatures.find(a.name); it != signatures.end() && it->second == a.index)
        matched.push_back(&a);
    if (matched.empty()) continue;
    const auto text = workspace.read(path);
    if (!text) continue;
    const LineIndex index(*text);
    for (const RankArgument* a : matched) {
      if (a->end > text->size()) continue;
      const std::string value = text->substr(a->begin, a->end - a->begin);
      sink.report(findingFrom(rule, path, index.range(a->begin, a->end), value, {},
                              {{"value", value}, {"function", a->name}}));
    }
  }
}

}  // namespace device

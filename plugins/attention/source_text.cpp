// Text helpers over Python source: see source_text.hpp.

#include "source_text.hpp"

#include <algorithm>
#include <cctype>

namespace migrate_attention {
namespace {

bool isIdent(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// Skips a string literal starting at `i` (a quote); returns the index after it.
std::size_t skipString(std::string_view t, std::size_t i) {
  const char q = t[i];
  const bool triple = t.substr(i, 3) == std::string(3, q);
  std::size_t j = i + (triple ? 3 : 1);
  while (j < t.size()) {
    if (t[j] == '\\') {
      j += 2;
      continue;
    }
    if (triple ? t.substr(j, 3) == std::string(3, q) : t[j] == q) return j + (triple ? 3 : 1);
    if (!triple && t[j] == '\n') return j;
    ++j;
  }
  return t.size();
}

/// The operand starting at `i`: up to a depth-0 binary operator, comma or closing bracket.
std::string_view operandAt(std::string_view t, std::size_t i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  const std::size_t begin = i;
  int depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      i = skipString(t, i);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    } else if (depth == 0 &&
               (c == '+' || c == '-' || c == '*' || c == '/' || c == ',' || c == '%' || c == '@' ||
                c == '=' || c == '<' || c == '>' || c == '\n' || c == ';' || c == ':')) {
      if (i > begin) break;
    } else if (depth == 0 && c == ' ') {
      // `k.mT if x else y`: a word after a space ends the operand.
      std::size_t j = i;
      while (j < t.size() && t[j] == ' ') ++j;
      if (j < t.size() && (isIdent(t[j]) && i > begin)) break;
    }
    ++i;
  }
  return t.substr(begin, i - begin);
}

/// The operand ending just before `end` (exclusive): a dotted chain with calls, subscripts and
/// parenthesised groups (`q.transpose(-2, -1)`, `(q * scale)`, `self.q[0]`).
std::string_view operandBefore(std::string_view t, std::size_t end) {
  std::size_t i = end;
  while (i > 0 && std::isspace(static_cast<unsigned char>(t[i - 1]))) --i;
  const std::size_t stop = i;
  while (i > 0) {
    const char c = t[i - 1];
    if (isIdent(c) || c == '.') {
      --i;
    } else if (c == ')' || c == ']') {
      int depth = 0;
      std::size_t j = i;
      while (j > 0) {
        const char d = t[j - 1];
        if (d == ')' || d == ']') ++depth;
        if ((d == '(' || d == '[') && --depth == 0) break;
        --j;
      }
      if (j == 0) break;
      i = j - 1;
    } else {
      break;
    }
  }
  return t.substr(i, stop - i);
}

/// Arguments of the call whose '(' is at `open`: the depth-0 comma-separated texts.
std::vector<std::string_view> argumentsAt(std::string_view t, std::size_t open) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open + 1; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      i = skipString(t, i) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        out.push_back(t.substr(start, i - start));
        return out;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(t.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(t.substr(start));
  return out;
}

}  // namespace

bool hasTransposeMarker(std::string_view s) {
  for (std::string_view m : {".transpose(", ".permute(", ".swapaxes(", ".swapdims(", ".t()", ".mT", ".mH"}) {
    const std::size_t p = s.find(m);
    if (p == std::string_view::npos) continue;
    if (m == ".mT" || m == ".mH") {
      const std::size_t e = p + m.size();
      if (e < s.size() && isIdent(s[e])) continue;
    }
    return true;
  }
  for (std::size_t p = s.find(".T"); p != std::string_view::npos; p = s.find(".T", p + 1)) {
    const std::size_t e = p + 2;
    if (e >= s.size() || !isIdent(s[e])) return true;
  }
  return false;
}

namespace {

/// Occurrences of `name(` as a whole word (`torch.matmul(`, `.bmm(`, `einsum(`).
std::vector<std::size_t> callOpens(std::string_view t, std::string_view name) {
  std::vector<std::size_t> out;
  const std::string needle = std::string(name) + "(";
  for (std::size_t p = t.find(needle); p != std::string_view::npos; p = t.find(needle, p + 1)) {
    if (p > 0 && isIdent(t[p - 1])) continue;
    out.push_back(p + name.size());
  }
  return out;
}

std::vector<std::string> axesOf(std::string_view term) {
  std::vector<std::string> axes;
  const bool spaced = term.find(' ') != std::string_view::npos;
  std::string cur;
  for (char c : term) {
    if (c == '.') continue;  // ellipsis
    if (spaced) {
      if (c == ' ') {
        if (!cur.empty()) axes.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      axes.emplace_back(1, c);
    }
  }
  if (!cur.empty()) axes.push_back(cur);
  return axes;
}

/// "bhid,bhjd->bhij" (or "b h i d, b h j d -> b h i j"): two inputs contracted over their
/// shared last axis, which the output drops.
bool einsumSpecIsQk(std::string_view spec) {
  const std::size_t arrow = spec.find("->");
  if (arrow == std::string_view::npos) return false;
  const std::string_view lhs = spec.substr(0, arrow);
  const std::string_view rhs = spec.substr(arrow + 2);
  const std::size_t comma = lhs.find(',');
  if (comma == std::string_view::npos || lhs.find(',', comma + 1) != std::string_view::npos) return false;
  const auto a = axesOf(trim(lhs.substr(0, comma)));
  const auto b = axesOf(trim(lhs.substr(comma + 1)));
  const auto out = axesOf(trim(rhs));
  if (a.empty() || b.empty() || out.size() < 2) return false;
  if (a.back() != b.back()) return false;
  return std::find(out.begin(), out.end(), a.back()) == out.end();
}

std::string unquote(std::string_view s) {
  std::string t = trim(s);
  std::size_t i = 0;
  while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;  // r"", f""
  if (i >= t.size() || (t[i] != '"' && t[i] != '\'')) return {};
  const char q = t[i];
  const std::size_t end = t.rfind(q);
  if (end == std::string::npos || end <= i) return {};
  return t.substr(i + 1, end - i - 1);
}

}  // namespace

SourceText::SourceText(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(static_cast<std::uint32_t>(i + 1));
}

std::string_view SourceText::line(std::uint32_t number) const {
  if (number == 0 || number > starts_.size()) return {};
  const std::uint32_t b = starts_[number - 1];
  std::uint32_t e = number < starts_.size() ? starts_[number] - 1 : static_cast<std::uint32_t>(text_.size());
  if (e > b && text_[e - 1] == '\r') --e;
  return text_.substr(b, e - b);
}

std::uint32_t SourceText::lineStart(std::uint32_t number) const {
  if (number == 0 || number > starts_.size()) return static_cast<std::uint32_t>(text_.size());
  return starts_[number - 1];
}

std::uint32_t SourceText::lineOf(std::uint32_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<std::uint32_t>(it - starts_.begin());
}

namespace {

std::string headerKind(std::string_view header) {
  if (startsWith(header, "try:") || startsWith(header, "try :")) return "try";
  if (startsWith(header, "if ") || startsWith(header, "if(") || startsWith(header, "elif ") ||
      startsWith(header, "elif(") || startsWith(header, "else:") || startsWith(header, "else :"))
    return "if";
  if (startsWith(header, "def ") || startsWith(header, "async def ")) return "def";
  return "";
}

}  // namespace

bool SourceText::handlersReraise(std::uint32_t try_line) const {
  const std::size_t indent = indentOf(line(try_line));
  bool any = false;
  for (std::uint32_t l = try_line + 1; l <= lineCount(); ++l) {
    const std::string_view s = stripComment(line(l));
    const std::string t = trim(s);
    if (t.empty()) continue;
    const std::size_t ind = indentOf(s);
    if (ind < indent) break;
    if (ind > indent) continue;
    if (!startsWith(t, "except")) {
      if (startsWith(t, "else") || startsWith(t, "finally")) continue;
      break;  // the try statement ended
    }
    any = true;
    // The handler's first statement: on the same line (`except E: raise`) or the next one.
    std::string body = trim(t.substr(t.find(':') == std::string::npos ? t.size() : t.find(':') + 1));
    for (std::uint32_t m = l + 1; body.empty() && m <= lineCount(); ++m) body = trim(stripComment(line(m)));
    if (!startsWith(body, "raise")) return false;
  }
  return any;
}

std::string SourceText::guardOf(std::uint32_t number) const {
  const std::string_view own = stripComment(line(number));
  const std::string own_trimmed = trim(own);
  // `try: import x` / `if ok: import x` on one line.
  if (const std::string k = headerKind(own_trimmed); k == "if" || (k == "try" && !handlersReraise(number)))
    return k;
  std::size_t indent = indentOf(own);
  for (std::uint32_t l = number; l-- > 1 && indent > 0;) {
    const std::string_view s = stripComment(line(l));
    if (trim(s).empty()) continue;
    const std::size_t ind = indentOf(s);
    if (ind >= indent) continue;
    indent = ind;
    const std::string k = headerKind(trim(s));
    if (k == "if" || (k == "try" && !handlersReraise(l))) return k;
  }
  return "";
}

bool SourceText::insideFunction(std::uint32_t number) const {
  std::size_t indent = indentOf(line(number));
  for (std::uint32_t l = number; l-- > 1 && indent > 0;) {
    const std::string_view s = stripComment(line(l));
    if (trim(s).empty()) continue;
    const std::size_t ind = indentOf(s);
    if (ind >= indent) continue;
    indent = ind;
    if (headerKind(trim(s)) == "def") return true;
  }
  return false;
}

std::size_t indentOf(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

std::string_view stripComment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' || c == '\'') {
      i = skipString(line, i) - 1;
      continue;
    }
    if (c == '#') return line.substr(0, i);
  }
  return line;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string assignmentTarget(std::string_view line) {
  const std::string_view s = stripComment(line);
  std::size_t i = indentOf(s);
  const std::size_t begin = i;
  while (i < s.size() && (isIdent(s[i]) || s[i] == '.')) ++i;
  if (i == begin || std::isdigit(static_cast<unsigned char>(s[begin]))) return {};
  const std::string target(s.substr(begin, i - begin));
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == ':') {  // `x: Tensor = ...`
    while (i < s.size() && s[i] != '=') ++i;
  }
  if (i + 1 < s.size() && s[i] == '=' && s[i + 1] != '=') return target;
  if (i + 1 == s.size() && s[i] == '=') return target;
  return {};
}

std::size_t assignmentEquals(std::string_view line) {
  const std::string_view s = stripComment(line);
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = skipString(s, i) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c != '=' || depth != 0) continue;
    const char prev = i > 0 ? s[i - 1] : ' ';
    const char next = i + 1 < s.size() ? s[i + 1] : ' ';
    if (next == '=' || prev == '=' || prev == '!' || prev == '<' || prev == '>' || prev == ':') continue;
    return i;
  }
  return std::string_view::npos;
}

bool leftOfAssignment(std::string_view line, std::size_t pos) {
  const std::size_t eq = assignmentEquals(line);
  return eq != std::string_view::npos && pos < eq;
}

int bracketBalance(std::string_view text) {
  const std::string_view s = stripComment(text);
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = skipString(s, i) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  return depth;
}

bool isQkProduct(std::string_view t, std::string& evidence) {
  // a @ b^T
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '"' || t[i] == '\'') {
      i = skipString(t, i) - 1;
      continue;
    }
    if (t[i] != '@' || (i + 1 < t.size() && t[i + 1] == '=')) continue;
    const std::string_view lhs = operandBefore(t, i);
    const std::string_view rhs = operandAt(t, i + 1);
    if (hasTransposeMarker(rhs) || hasTransposeMarker(lhs)) {
      evidence = trim(lhs) + " @ " + trim(rhs);
      return true;
    }
  }
  // torch.matmul(a, b^T), torch.bmm(a, b^T), a.matmul(b^T), torch.baddbmm(c, a, b^T)
  for (std::string_view fn : {"matmul", "bmm", "baddbmm"}) {
    for (std::size_t open : callOpens(t, fn)) {
      const auto args = argumentsAt(t, open);
      const std::size_t name_at = open - fn.size();
      const bool on_value =
          name_at > 0 && t[name_at - 1] == '.' && !(name_at >= 6 && t.substr(name_at - 6, 6) == "torch.");
      const std::size_t first = fn == "baddbmm" ? (on_value ? 0 : 1) : 0;
      for (std::size_t a = first; a < args.size(); ++a) {
        if (!hasTransposeMarker(args[a])) continue;
        const std::size_t end = static_cast<std::size_t>(args.back().data() + args.back().size() - t.data());
        evidence = std::string(t.substr(name_at, std::min(end + 1, t.size()) - name_at));
        return true;
      }
    }
  }
  // einsum("bhid,bhjd->bhij", q, k) or einops einsum(q, k, "b h i d, b h j d -> b h i j")
  for (std::size_t open : callOpens(t, "einsum")) {
    for (std::string_view a : argumentsAt(t, open)) {
      const std::string spec = unquote(a);
      if (spec.empty()) continue;
      if (einsumSpecIsQk(spec)) {
        evidence = "einsum(\"" + spec + "\", ...)";
        return true;
      }
      break;
    }
  }
  return false;
}

std::vector<std::string> productOperands(std::string_view t) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '"' || t[i] == '\'') {
      i = skipString(t, i) - 1;
      continue;
    }
    if (t[i] != '@' || (i + 1 < t.size() && t[i + 1] == '=')) continue;
    out.push_back(trim(operandBefore(t, i)));
    out.push_back(trim(operandAt(t, i + 1)));
  }
  for (std::string_view fn : {"matmul", "bmm", "baddbmm"}) {
    for (std::size_t open : callOpens(t, fn)) {
      const std::size_t name_at = open - fn.size();
      const bool on_value =
          name_at > 0 && t[name_at - 1] == '.' && !(name_at >= 6 && t.substr(name_at - 6, 6) == "torch.");
      if (on_value) out.push_back(trim(operandBefore(t, name_at - 1)));
      for (std::string_view a : argumentsAt(t, open))
        if (a.find('=') == std::string_view::npos) out.push_back(trim(a));
    }
  }
  return out;
}

bool usesAsMatmulOperand(std::string_view t, std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t p = t.find(name); p != std::string_view::npos; p = t.find(name, p + 1)) {
    const std::size_t e = p + name.size();
    if (p > 0 && (isIdent(t[p - 1]) || t[p - 1] == '.')) continue;
    if (e < t.size() && isIdent(t[e])) continue;
    // name @ x, x @ name, name.matmul(x)
    std::size_t j = e;
    while (j < t.size() && std::isspace(static_cast<unsigned char>(t[j]))) ++j;
    if (j < t.size() && t[j] == '@' && (j + 1 >= t.size() || t[j + 1] != '=')) return true;
    {
      std::size_t b = p;
      while (b > 0 && (std::isspace(static_cast<unsigned char>(t[b - 1])) || t[b - 1] == '(')) --b;
      if (b > 0 && t[b - 1] == '@') return true;
    }
    if (startsWith(t.substr(e), ".matmul(") || startsWith(t.substr(e), ".bmm(")) return true;
    // matmul(name, ...), bmm(name, ...)
    std::size_t k = p;
    while (k > 0 && std::isspace(static_cast<unsigned char>(t[k - 1]))) --k;
    const std::string_view before = t.substr(0, k);
    // matmul(x, name), bmm(name, x), einsum("...", name, v), einsum(name, v, "..."): name inside an
    // open product call of this statement.
    for (std::string_view fn : {"matmul(", "bmm(", "einsum("}) {
      const std::size_t open = before.rfind(fn);
      if (open == std::string_view::npos) continue;
      const std::string_view between = t.substr(open + fn.size(), p - open - fn.size());
      int depth = 1;
      for (char c : between) {
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth == 0) break;
      }
      if (depth > 0) return true;
    }
  }
  return false;
}

std::vector<std::string> splitTopLevel(std::string_view t) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      i = skipString(t, i) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(t.substr(start, i - start)));
      start = i + 1;
    }
  }
  const std::string last = trim(t.substr(start));
  if (!last.empty() || !out.empty()) out.push_back(last);
  return out;
}

std::vector<std::string> dottedNames(std::string_view t) {
  static const std::vector<std::string_view> kSkip{"if",   "else",  "and",    "or", "not", "None",
                                                   "True", "False", "lambda", "in", "is",  "for"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      i = skipString(t, i);
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_') ||
        (i > 0 && (isIdent(t[i - 1]) || t[i - 1] == '.'))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < t.size() && (isIdent(t[j]) || (t[j] == '.' && j + 1 < t.size() &&
                                              !std::isdigit(static_cast<unsigned char>(t[j + 1])))))
      ++j;
    std::string name(t.substr(i, j - i));
    while (!name.empty() && name.back() == '.') name.pop_back();
    if (!name.empty() && std::find(kSkip.begin(), kSkip.end(), name) == kSkip.end()) out.push_back(name);
    i = j;
  }
  return out;
}

}  // namespace migrate_attention

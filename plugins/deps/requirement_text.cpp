// Writing requirements back as text (see requirement_text.hpp).

#include "requirement_text.hpp"

#include <algorithm>
#include <cctype>

#include "requirement.hpp"

namespace deps {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string joinVersion(const Version& v) {
  std::string out;
  for (int part : v) out.append(out.empty() ? "" : ".").append(std::to_string(part));
  return out;
}

/// One poetry clause ("^1.2", ">=1", "1.2.*") in PEP 440; nothing when it has none.
std::optional<std::string> poetryClause(std::string_view clause) {
  std::string op;
  for (std::string_view candidate : {"===", "==", "!=", "~=", ">=", "<=", ">", "<", "^", "~", "="})
    if (clause.substr(0, candidate.size()) == candidate) {
      op = std::string(candidate);
      break;
    }
  const std::string value(trim(clause.substr(op.size())));
  if (value == "*" && (op.empty() || op == "==" || op == "=")) return std::string();
  // A version word: a digit, then [0-9A-Za-z.*!+_-]* (a loop: std::regex recursed once per character).
  const auto versionChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view(".*!+_-").find(c) != std::string_view::npos;
  };
  if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0])) ||
      !std::all_of(value.begin(), value.end(), versionChar))
    return std::nullopt;
  if (op.empty() || op == "=") return "==" + value;
  if (op != "^" && op != "~") return op + value;
  const auto release = parseVersion(value);
  if (!release || release->empty()) return std::nullopt;
  Version upper;
  if (op == "^") {  // up to the next change of the first non-zero part
    std::size_t i = 0;
    while (i + 1 < release->size() && (*release)[i] == 0) ++i;
    upper.assign(release->begin(), release->begin() + static_cast<std::ptrdiff_t>(i + 1));
  } else {  // ~1 → <2, ~1.2 and ~1.2.3 → <1.3
    upper.assign(release->begin(), release->begin() + (release->size() == 1 ? 1 : 2));
  }
  ++upper.back();
  return ">=" + value + ",<" + joinVersion(upper);
}

}  // namespace

std::optional<std::string> poetryToPep440(std::string_view spec) {
  const std::string_view s = trim(spec);
  if (s.find('|') != std::string_view::npos) return std::nullopt;
  // Clauses are separated by commas or spaces (">=1.2 <1.5"); an operator may stand apart
  // from its version (">= 1.2").
  std::vector<std::string> clauses;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) clauses.push_back(current);
    current.clear();
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ',') {
      flush();
    } else if (isSpace(s[i])) {
      if (!current.empty() && current.find_first_not_of("<>=!~^") != std::string::npos) flush();
    } else {
      current += s[i];
    }
  }
  flush();
  std::string out;
  for (const auto& c : clauses) {
    const auto pep = poetryClause(c);
    if (!pep) return std::nullopt;
    if (!pep->empty()) out += (out.empty() ? "" : ",") + *pep;
  }
  return out;
}

bool isDistributionName(std::string_view name) {
  // [A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])? as a loop (std::regex recursed once per character).
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !name.empty() && alnum(name.front()) && alnum(name.back()) &&
         std::all_of(name.begin(), name.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

bool isComputedSpec(std::string_view spec) {
  return spec.find_first_of("${}") != std::string_view::npos;
}

std::string requirementLine(std::string_view name, std::string_view extras, std::string_view spec,
                            std::string_view url, std::string_view marker) {
  std::string out(name);
  if (!extras.empty()) out.append("[").append(extras).append("]");
  if (!url.empty()) {
    out += " @ " + std::string(url);
    if (!marker.empty()) out += " ; " + std::string(marker);
    return out;
  }
  out += spec;
  if (!marker.empty()) out += "; " + std::string(marker);
  return out;
}

std::string withoutLocalVersion(std::string_view spec) {
  std::string out;
  bool local = false;
  for (char c : spec) {
    if (c == '+') local = true;
    if (local && (c == ',' || isSpace(c))) local = false;
    if (!local) out += c;
  }
  return out;
}

std::vector<std::string> commentLines(std::string_view text, std::size_t width) {
  std::vector<std::string> out;
  std::string line = "#";
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !isSpace(text[j])) ++j;
    if (j == i) break;
    const std::string_view word = text.substr(i, j - i);
    if (line.size() > 1 && line.size() + 1 + word.size() > width) {
      out.push_back(line);
      line.assign(1, '#');
    }
    line += " ";
    line += word;
    i = j;
  }
  if (line.size() > 1 || out.empty()) out.push_back(line);
  return out;
}

}  // namespace deps

// Requirement strings, conda specs, version specifiers and CUDA tags (see requirement.hpp).

#include "requirement.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace deps {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool isUrl(std::string_view t) {
  // `scheme://` (RFC 3986's scheme), read with a loop: std::regex recursed once per character
  // of the scheme and overflowed the stack on a long word.
  std::size_t i = 0;
  if (!t.empty() && std::isalpha(static_cast<unsigned char>(t[0])))
    for (i = 1; i < t.size() &&
                (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '+' || t[i] == '.' || t[i] == '-');
         ++i) {
    }
  if (i > 0 && t.substr(i, 3) == "://") return true;
  for (std::string_view vcs : {"git+", "hg+", "svn+", "bzr+", "file:"})
    if (startsWith(t, vcs)) return true;
  return false;
}

/// A directory pip installs: `.`, `./x`, `/x`, `~/x`, or a relative path such as
/// `submodules/simple-knn` (a PEP 508 name holds no `/`, so pip reads the word as a path).
bool isLocalPath(std::string_view t) {
  if (t == "." || t == ".." || startsWith(t, "./") || startsWith(t, "../") || startsWith(t, "/") ||
      startsWith(t, "~") || startsWith(t, ".["))
    return true;
  const std::string_view word = trim(t.substr(0, t.find(';')));
  return word.find('/') != std::string_view::npos && std::isalnum(static_cast<unsigned char>(word[0])) &&
         std::all_of(word.begin(), word.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '-' || c == '_' || c == '.';
         });
}

bool isArchive(std::string_view t) {
  return endsWith(t, ".whl") || endsWith(t, ".tar.gz") || endsWith(t, ".zip") || endsWith(t, ".tgz");
}

/// The distribution name a URL or path names: #egg=, a wheel or sdist file name, a repository.
std::string nameFromLocation(std::string_view loc) {
  const auto egg = loc.find("#egg=");
  if (egg != std::string_view::npos) {
    std::string_view n = loc.substr(egg + 5);
    n = n.substr(0, n.find_first_of("&# "));
    // egg=name-1.0 carries a version
    const auto dash = n.find('-');
    if (dash != std::string_view::npos && dash + 1 < n.size() &&
        std::isdigit(static_cast<unsigned char>(n[dash + 1])))
      n = n.substr(0, dash);
    return std::string(n);
  }
  std::string_view path = loc.substr(0, loc.find_first_of("?#"));
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  std::string_view file = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  if (const auto at = file.find('@'); at != std::string_view::npos) file = file.substr(0, at);  // repo@ref
  if (endsWith(file, ".whl")) return std::string(file.substr(0, file.find('-')));
  for (std::string_view ext : {".tar.gz", ".tar.bz2", ".tgz", ".zip"}) {
    if (endsWith(file, ext)) {
      file.remove_suffix(ext.size());
      for (std::size_t i = file.size(); i-- > 1;)
        if (file[i - 1] == '-' && std::isdigit(static_cast<unsigned char>(file[i])))
          return std::string(file.substr(0, i - 1));
      return std::string(file);
    }
  }
  if (endsWith(file, ".git")) file.remove_suffix(4);
  if (file == "." || file == "..") return {};
  return std::string(file);
}

/// Splits "url ; marker" (a marker after a URL needs whitespace before ';').
void splitUrlMarker(std::string_view rest, std::string& url, std::string& marker) {
  std::size_t cut = std::string_view::npos;
  for (std::size_t i = 1; i < rest.size(); ++i)
    if (rest[i] == ';' && isSpace(rest[i - 1])) {
      cut = i;
      break;
    }
  url = std::string(trim(rest.substr(0, cut)));
  if (cut != std::string_view::npos) marker = std::string(trim(rest.substr(cut + 1)));
}

bool validSpec(std::string_view spec) {
  if (spec.empty()) return true;
  for (char c : spec)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("<>=!~.,*+ \t()_-{}$^|").find(c) != std::string_view::npos))
      return false;
  const char first = spec.front() == '(' ? (spec.size() > 1 ? spec[1] : ')') : spec.front();
  return std::string_view("<>=!~{$").find(first) != std::string_view::npos;
}

struct Clause {
  std::string op;
  std::string value;
};

std::vector<std::string> splitAny(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string_view::npos) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<Clause> parseClause(std::string_view raw) {
  std::string_view c = trim(raw);
  if (c.empty()) return std::nullopt;
  for (std::string_view op : {"===", "==", "!=", "~=", ">=", "<=", ">", "<", "^", "~", "="})
    if (startsWith(c, op)) return Clause{std::string(op), std::string(trim(c.substr(op.size())))};
  return Clause{"", std::string(c)};
}

/// Splits a specifier into OR-groups of AND-clauses.
std::vector<std::vector<Clause>> clauses(std::string_view spec, SpecDialect dialect) {
  std::string s(trim(spec));
  if (!s.empty() && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  std::vector<std::vector<Clause>> groups;
  std::vector<std::string> ors;
  if (dialect == SpecDialect::Pep440) {
    ors.push_back(s);
  } else {
    std::string cur;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '|') {
        ors.push_back(cur);
        cur.clear();
        if (i + 1 < s.size() && s[i + 1] == '|') ++i;
      } else {
        cur += s[i];
      }
    }
    ors.push_back(cur);
  }
  for (const auto& group : ors) {
    std::vector<Clause> and_clauses;
    for (const auto& part : splitAny(group, ",")) {
      // Poetry and conda also separate clauses by spaces: ">=1.2 <1.5".
      std::vector<std::string> pieces{part};
      if (dialect != SpecDialect::Pep440) {
        pieces.clear();
        std::string cur;
        std::string_view p = trim(part);
        for (std::size_t i = 0; i < p.size(); ++i) {
          if (isSpace(p[i])) {
            std::size_t j = i;
            while (j < p.size() && isSpace(p[j])) ++j;
            const bool next_is_op =
                j < p.size() && std::string_view("<>=!~^").find(p[j]) != std::string_view::npos;
            const bool cur_is_op_only = !cur.empty() && cur.find_first_not_of("<>=!~^") == std::string::npos;
            if (next_is_op && !cur_is_op_only) {
              pieces.push_back(cur);
              cur.clear();
            }
            i = j - 1;
            continue;
          }
          cur += p[i];
        }
        pieces.push_back(cur);
      }
      for (const auto& piece : pieces)
        if (auto c = parseClause(piece)) and_clauses.push_back(*c);
    }
    groups.push_back(and_clauses);
  }
  return groups;
}

bool prefixEquals(const Version& v, const Version& prefix) {
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if ((i < v.size() ? v[i] : 0) != prefix[i]) return false;
  return true;
}

std::optional<bool> clauseAllows(const Clause& c, const Version& v, SpecDialect dialect) {
  if (c.value.find_first_of("${") != std::string::npos) return std::nullopt;
  if (c.value == "*" || c.value.empty())
    return c.op.empty() || c.op == "==" || c.op == "=" ? std::optional<bool>(true) : std::nullopt;
  const bool wildcard = c.value.find('*') != std::string::npos;
  auto parsed = parseVersion(c.value);
  if (!parsed) return std::nullopt;
  const Version& w = *parsed;
  const int cmp = compareVersions(v, w);
  std::string op = c.op;
  if (op.empty()) {
    if (dialect == SpecDialect::Pep440) return std::nullopt;
    op = dialect == SpecDialect::Conda ? "=" : "==";
  }
  if (op == "==" || op == "===") return wildcard ? prefixEquals(v, w) : cmp == 0;
  if (op == "=") return prefixEquals(v, w);  // conda's fuzzy '=': 2.1 → 2.1.*
  if (op == "!=") return wildcard ? !prefixEquals(v, w) : cmp != 0;
  if (op == ">=") return cmp >= 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  if (op == "<") return cmp < 0;
  if (op == "~=") {
    if (w.size() < 2) return std::nullopt;
    return cmp >= 0 && prefixEquals(v, Version(w.begin(), w.end() - 1));
  }
  if (op == "^") {
    std::size_t i = 0;
    while (i + 1 < w.size() && w[i] == 0) ++i;
    Version upper(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(i + 1));
    ++upper.back();
    return cmp >= 0 && compareVersions(v, upper) < 0;
  }
  if (op == "~") {
    Version upper(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(w.size(), 2)));
    if (w.size() == 1) {
      ++upper[0];
    } else {
      ++upper[1];
    }
    return cmp >= 0 && compareVersions(v, upper) < 0;
  }
  return std::nullopt;
}

}  // namespace

std::string substituteVariables(const std::string& s, const std::map<std::string, std::string>& args) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    std::string name;
    std::string fallback;
    bool has_fallback = false;
    std::size_t j = i + 1;
    if (s[j] == '{') {
      const auto close = s.find('}', j);
      if (close == std::string::npos) {
        out += s.substr(i);
        break;
      }
      std::string inner = s.substr(j + 1, close - j - 1);
      const auto colon = inner.find(":-");
      if (colon != std::string::npos) {
        fallback = inner.substr(colon + 2);
        has_fallback = true;
        inner = inner.substr(0, colon);
      }
      name = inner;
      j = close + 1;
    } else {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) name += s[j++];
    }
    auto it = args.find(name);
    if (it != args.end() && !it->second.empty()) {
      out += it->second;
    } else if (has_fallback) {
      out += fallback;
    } else {
      out += s.substr(i, j - i);
    }
    i = j - 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

namespace {
std::optional<Requirement> parsePep508(std::string_view t, std::size_t lead);
}  // namespace

std::optional<Requirement> parseRequirement(std::string_view text) {
  const std::size_t lead = text.size() - [&] {
    std::string_view t = text;
    while (!t.empty() && isSpace(t.front())) t.remove_prefix(1);
    return t.size();
  }();
  const std::string_view t = trim(text);
  if (t.empty()) return std::nullopt;
  auto location = [&]() -> std::optional<Requirement> {
    Requirement r;
    splitUrlMarker(t, r.url, r.marker);
    r.name = nameFromLocation(r.url);
    if (r.name.empty() || !std::all_of(r.name.begin(), r.name.end(), isNameChar)) return std::nullopt;
    r.name_from_url = true;
    r.local_path = !isUrl(t);
    r.name_begin = lead;
    r.name_end = lead + r.url.size();
    return r;
  };
  if (isUrl(t) || isLocalPath(t)) return location();
  auto req = parsePep508(t, lead);
  if (!req && isArchive(t.substr(0, t.find(';')))) return location();  // dist/pkg-1.0-py3-none-any.whl
  return req;
}

namespace {

std::optional<Requirement> parsePep508(std::string_view t, std::size_t lead) {
  Requirement r;
  std::size_t i = 0;
  if (!std::isalnum(static_cast<unsigned char>(t[0]))) return std::nullopt;
  // f-string holes ("{}") inside a name belong to it: f"cupy-cuda{major}x" reads "cupy-cuda{}x".
  while (i < t.size() && (isNameChar(t[i]) || (t[i] == '{' && t.substr(i, 2) == "{}") || t[i] == '}')) ++i;
  while (i > 0 && !std::isalnum(static_cast<unsigned char>(t[i - 1])) && t[i - 1] != '}')
    --i;  // names end alphanumeric
  r.name = std::string(t.substr(0, i));
  r.name_begin = lead;
  r.name_end = lead + i;
  while (i < t.size() && isSpace(t[i])) ++i;
  if (i < t.size() && t[i] == '[') {
    const auto close = t.find(']', i);
    if (close == std::string_view::npos) return std::nullopt;
    for (char c : t.substr(i + 1, close - i - 1))
      if (!isSpace(c)) r.extras += c;
    i = close + 1;
    while (i < t.size() && isSpace(t[i])) ++i;
  }
  std::string_view rest = t.substr(i);
  if (!rest.empty() && rest.front() == '@') {
    splitUrlMarker(rest.substr(1), r.url, r.marker);
    if (r.url.empty()) return std::nullopt;
    return r;
  }
  const auto semi = rest.find(';');
  r.spec = std::string(trim(rest.substr(0, semi)));
  if (semi != std::string_view::npos) r.marker = std::string(trim(rest.substr(semi + 1)));
  if (!validSpec(r.spec)) return std::nullopt;
  return r;
}

}  // namespace

std::optional<Requirement> parseCondaSpec(std::string_view text) {
  std::string_view t = trim(text);
  Requirement r;
  const std::size_t lead = static_cast<std::size_t>(t.data() - text.data());
  std::size_t base = 0;
  if (const auto ch = t.find("::"); ch != std::string_view::npos) {
    r.url = std::string(t.substr(0, ch));
    base = ch + 2;
  }
  std::size_t i = base;
  while (i < t.size() && (isNameChar(t[i]) || t[i] == '*')) ++i;
  if (i == base || !std::isalnum(static_cast<unsigned char>(t[base]))) return std::nullopt;
  r.name = std::string(t.substr(base, i - base));
  r.name_begin = lead + base;
  r.name_end = lead + i;
  std::string_view rest = trim(t.substr(i));
  if (rest.empty()) return r;
  if (rest.front() == '[') {
    r.spec = std::string(rest);
    return r;
  }
  // "=1.2=build", "==1.2=build", ">=1.2", "1.2 build"
  std::string version;
  std::string build;
  if (rest.front() == '=' && (rest.size() < 2 || rest[1] != '=')) {
    rest.remove_prefix(1);
    const auto eq = rest.find_first_of("= ");
    version = std::string("=").append(rest.substr(0, eq));
    if (eq != std::string_view::npos) build = std::string(trim(rest.substr(eq + 1)));
  } else {
    const auto sp = rest.find(' ');
    std::string_view v = rest.substr(0, sp);
    // "==1.2=build": a '=' after the operator and version starts the build string.
    const std::size_t op_end = v.find_first_not_of("<>=!~");
    if (op_end != std::string_view::npos) {
      const auto eq = v.find('=', op_end);
      if (eq != std::string_view::npos) {
        build = std::string(v.substr(eq + 1));
        v = v.substr(0, eq);
      }
    }
    version = std::string(v);
    if (sp != std::string_view::npos && build.empty()) build = std::string(trim(rest.substr(sp + 1)));
  }
  r.spec = version;
  r.marker = build;
  return r;
}

std::optional<Version> parseVersion(std::string_view text) {
  std::string_view t = trim(text);
  if (!t.empty() && (t.front() == 'v' || t.front() == 'V')) t.remove_prefix(1);
  if (const auto bang = t.find('!'); bang != std::string_view::npos) t = t.substr(bang + 1);
  Version v;
  std::size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
    int n = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
      n = n * 10 + (t[i] - '0');
      if (n > 1000000) return std::nullopt;
      ++i;
    }
    v.push_back(n);
    if (i + 1 < t.size() && t[i] == '.' && std::isdigit(static_cast<unsigned char>(t[i + 1]))) {
      ++i;
    } else {
      break;
    }
  }
  if (v.empty()) return std::nullopt;
  return v;
}

int compareVersions(const Version& a, const Version& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int x = i < a.size() ? a[i] : 0;
    const int y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::optional<bool> specAllows(std::string_view spec, const Version& version, SpecDialect dialect) {
  if (trim(spec).empty()) return true;
  bool any_group = false;
  bool unknown = false;
  for (const auto& group : clauses(spec, dialect)) {
    bool all = true;
    for (const Clause& c : group) {
      const auto ok = clauseAllows(c, version, dialect);
      if (!ok) {
        unknown = true;
        all = false;
        break;
      }
      if (!*ok) {
        all = false;
        break;
      }
    }
    if (all && !group.empty()) any_group = true;
  }
  if (any_group) return true;
  if (unknown) return std::nullopt;
  return false;
}

std::optional<std::string> exactPin(std::string_view spec, SpecDialect dialect) {
  const auto groups = clauses(spec, dialect);
  if (groups.size() != 1 || groups[0].size() != 1) return std::nullopt;
  const Clause& c = groups[0][0];
  if (c.value.find_first_of("*${") != std::string::npos || !parseVersion(c.value)) return std::nullopt;
  if (c.op == "==" || c.op == "===") return c.value;
  if (c.op.empty() && dialect == SpecDialect::Poetry) return c.value;
  return std::nullopt;
}

std::string cudaTag(std::string_view text) {
  // Read with loops, not std::regex, whose matcher recursed once per digit and overflowed the
  // stack on a long version.
  std::string s = lower(text);
  for (std::size_t at = s.find('%'); at != std::string::npos; at = s.find('%', at + 1))
    if (at + 2 < s.size() && s[at + 1] == '2' && s[at + 2] == 'b') s.replace(at, 3, "+");
  auto digitsFrom = [&](std::size_t i) {
    std::size_t e = i;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    return e;
  };
  // After a torch tag (`+pt24cu121`, PyG's wheels): the digits of `pt24`, then `pt` starting a word.
  auto afterTorchTag = [&](std::size_t at) {
    std::size_t b = at;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(s[b - 1]))) --b;
    return b < at && b >= 2 && s.compare(b - 2, 2, "pt") == 0 &&
           (b == 2 || !std::isalnum(static_cast<unsigned char>(s[b - 3])));
  };
  // "cu121": `cu` and two or three digits, not inside a word or a longer number.
  for (std::size_t at = s.find("cu"); at != std::string::npos; at = s.find("cu", at + 1)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(s[at - 1])) && !afterTorchTag(at)) continue;
    const std::size_t digits = digitsFrom(at + 2) - (at + 2);
    if (digits == 2 || digits == 3) return s.substr(at, 2 + digits);
  }
  // "cuda", "cuda11.8", "cuda-12x": the first `cuda`, then an optional '-' or '_' and version.
  const std::size_t at = s.find("cuda");
  if (at == std::string::npos) return {};
  std::size_t e = at + 4;
  if (e < s.size() && (s[e] == '-' || s[e] == '_')) ++e;
  if (const std::size_t d = digitsFrom(e); d > e) {
    e = d;
    if (e + 1 < s.size() && s[e] == '.' && std::isdigit(static_cast<unsigned char>(s[e + 1])))
      e = digitsFrom(e + 1);
    if (e < s.size() && s[e] == 'x') ++e;
  }
  return s.substr(at, e - at);
}

bool markerExcludesLinux(std::string_view marker) {
  std::string m;
  for (char c : marker)
    if (c != ' ' && c != '\t') m.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (m.empty() || m.find(")or") != std::string::npos || m.find("'or") != std::string::npos ||
      m.find("\"or") != std::string::npos)
    return false;
  for (const char* variable : {"sys_platform==", "platform_system==", "os_name=="})
    for (const char* value : {"win32", "cygwin", "darwin", "windows", "nt"})
      for (const char quote : {'\'', '"'}) {
        std::string clause = variable;
        clause.push_back(quote);
        clause.append(value).push_back(quote);
        if (m.find(clause) != std::string::npos) return true;
      }
  return false;
}

bool hasGpuExtra(std::string_view extras) {
  std::size_t b = 0;
  while (b <= extras.size()) {
    const std::size_t e = std::min(extras.find(',', b), extras.size());
    if (lower(trim(extras.substr(b, e - b))) == "gpu") return true;
    b = e + 1;
  }
  return false;
}

bool isCudaIndex(std::string_view url) {
  const std::string u = lower(url);
  if (u.find("nvidia.com") != std::string::npos) return true;
  if (u == "nvidia" || startsWith(u, "nvidia/") || u.find("/nvidia/") != std::string::npos ||
      endsWith(u, "/nvidia"))
    return true;
  return !cudaTag(u).empty();
}

}  // namespace deps

// setup.py from the module's facts: the requirement strings passed to setup() as
// install_requires / setup_requires / tests_require / extras_require, written in place or held
// by module variables (`install_requires=REQUIRED`, `REQUIRED = [...]`, `REQUIRED += [...]`,
// `REQUIRED.append("x")`, `EXTRAS = {"dev": [...]}`, `EXTRAS["gpu"] = [...]`,
// `extras_require=dict(dev=[...])`), or returned by a function of the file
// (`extras_require=get_extras_require()` … `return {"dev": [...]}`).

#include <algorithm>
#include <set>

#include "manifest.hpp"
#include "plugin_support/byte_regex.hpp"

namespace deps {
namespace {

using migrate::sdk::CallFact;
using migrate::sdk::Module;
using migrate::sdk::SourceRange;
using migrate::sdk::StringContext;
using migrate::sdk::StringFact;

const std::set<std::string, std::less<>> kKeywords{"install_requires", "setup_requires", "tests_require",
                                                   "extras_require"};
const std::set<std::string, std::less<>> kPythonWords{"if",  "else", "for",  "in",    "and",    "or",
                                                      "not", "None", "True", "False", "lambda", "is"};

bool inside(const SourceRange& inner, std::uint32_t begin, std::uint32_t end) {
  return inner.start_byte >= begin && inner.end_byte <= end;
}

/// Where a line of `src` assigns `name` (`NAME = `, `NAME: T = `, `NAME += `, not `NAME == `): the
/// offset after its `=`, and whether it extends. The regex
/// `(^|\n)[ \t]*NAME[ \t]*(:[^=\n]*)?(\+?=)(?!=)` as a loop: RE2 has no lookahead, and std::regex
/// recursed once per character of a long name.
struct Assignment {
  std::size_t rhs;
  bool augmented;
};

std::vector<Assignment> assignments(std::string_view src, std::string_view name) {
  std::vector<Assignment> out;
  const auto blanks = [&](std::size_t i) {
    while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
    return i;
  };
  for (std::size_t line = 0; line <= src.size();) {
    std::size_t eol = src.find('\n', line);
    if (eol == std::string_view::npos) eol = src.size();
    std::size_t i = blanks(line);
    if (src.compare(i, name.size(), name) == 0) {
      i = blanks(i + name.size());
      bool augmented = false;
      if (i < src.size() && src[i] == ':') {  // an annotation runs to the first '=' ("+=" in it is "=")
        while (i < eol && src[i] != '=') ++i;
      } else if (i + 1 < src.size() && src[i] == '+' && src[i + 1] == '=') {
        augmented = true;
        ++i;
      }
      if (i < src.size() && src[i] == '=' && (i + 1 == src.size() || src[i + 1] != '='))
        out.push_back({i + 1, augmented});
    }
    line = eol + 1;
  }
  return out;
}

/// End of the expression starting at `p` (an assignment's right-hand side): the end of the
/// statement, with brackets, strings, comments and backslash continuations followed.
std::uint32_t expressionEnd(std::string_view s, std::size_t p) {
  int depth = 0;
  while (p < s.size()) {
    const char c = s[p];
    if (c == '#') {
      while (p < s.size() && s[p] != '\n') ++p;
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool triple = s.substr(p, 3) == std::string(3, c);
      const std::string close = triple ? std::string(3, c) : std::string(1, c);
      p += close.size();
      while (p < s.size() && s.substr(p, close.size()) != close) {
        if (s[p] == '\\') ++p;
        if (!triple && s[p] == '\n') break;
        ++p;
      }
      p += close.size();
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == '\\' && p + 1 < s.size() && s[p + 1] == '\n') {
      p += 2;
      continue;
    }
    if ((c == '\n' || c == ';') && depth <= 0) break;
    ++p;
  }
  return static_cast<std::uint32_t>(std::min(p, s.size()));
}

class SetupPyReader {
 public:
  SetupPyReader(const Module& module, Manifests& out) : m_(module), out_(out) {}

  void run() {
    bool imports_setuptools = false;
    for (const auto& imp : m_.imports())
      if (imp.module.rfind("setuptools", 0) == 0 || imp.module.rfind("distutils", 0) == 0 ||
          imp.module.rfind("skbuild", 0) == 0)
        imports_setuptools = true;
    for (const CallFact& call : m_.calls()) {
      if (!isSetup(call, imports_setuptools)) continue;
      for (const auto& arg : call.args) {
        if (!kKeywords.count(arg.keyword)) continue;
        literalStrings(arg.keyword, arg.range.start_byte, arg.range.end_byte);
        for (const auto& name : identifiers(m_.text(arg.range))) variable(name, arg.keyword, 0);
        for (const auto& name : calledNames(m_.text(arg.range))) returned(name, arg.keyword);
      }
    }
    // Lists named like requirements that setup() reaches indirectly (e.g. through a dict of
    // `deps["x"]` look-ups): their direct string elements.
    static const RE2 named(R"((?i)(?:^|_)(?:deps|requirements|requires|required|dependencies|reqs)$)",
                           plugin_support::bytePattern());
    std::set<std::string> names;
    for (const StringFact& s : m_.strings())
      if (s.context == StringContext::Assignment && RE2::PartialMatch(s.name, named) &&
          !visited_.count(s.name))
        names.insert(s.name);
    for (const auto& name : names) {
      visited_.insert(name);
      for (const StringFact& s : m_.strings())
        if (s.context == StringContext::Assignment && s.name == name) add(s, "install_requires");
    }
  }

 private:
  static bool isSetup(const CallFact& call, bool imports_setuptools) {
    const std::string& r = call.callee_resolved;
    for (const char* root : {"setuptools.", "distutils.", "skbuild.", "numpy.distutils."})
      if (r.rfind(root, 0) == 0 && r.size() > 6 && r.compare(r.size() - 6, 6, ".setup") == 0) return true;
    return imports_setuptools && r.empty() && call.callee_written == "setup";
  }

  /// Strings written directly in a keyword argument of setup().
  void literalStrings(const std::string& keyword, std::uint32_t begin, std::uint32_t end) {
    for (const StringFact& s : m_.strings()) {
      if (!inside(s.range, begin, end)) continue;
      if (s.context == StringContext::KeywordArg && s.name == keyword) {
        add(s, keyword);
      } else if (keyword == "extras_require" &&
                 (s.context == StringContext::Assignment ||
                  (s.context == StringContext::KeywordArg && s.callee == "dict"))) {
        add(s, "extras_require[" + s.name + "]");
      }
    }
  }

  /// The requirement strings a module variable holds, wherever it is assigned or extended.
  void variable(const std::string& name, const std::string& keyword, int depth) {
    if (depth > 3 || visited_.count(name)) return;
    visited_.insert(name);
    const std::string_view src = m_.source();
    for (const auto [rhs, augmented] : assignments(src, name)) {
      const std::uint32_t stop = expressionEnd(src, rhs);
      for (const StringFact& s : m_.strings()) {
        if (!inside(s.range, static_cast<std::uint32_t>(rhs), stop)) continue;
        if (s.context == StringContext::Assignment && s.name == name) {
          add(s, keyword);
        } else if (s.context == StringContext::Assignment ||
                   (s.context == StringContext::KeywordArg && s.callee == "dict")) {
          add(s, keyword == "extras_require" ? "extras_require[" + s.name + "]" : keyword);
        } else if (augmented && s.context == StringContext::Other) {
          add(s, keyword);
        }
      }
      for (const auto& inner : identifiers(src.substr(rhs, stop - rhs))) variable(inner, keyword, depth + 1);
    }
    // NAME["gpu"] = ["flash-attn==2.7.4"]: an entry of a dict built item by item.
    const std::string item = name + "[";
    for (const StringFact& s : m_.strings())
      if (s.context == StringContext::Assignment && s.name.rfind(item, 0) == 0) {
        std::string key = s.name.substr(item.size(), s.name.find(']') - item.size());
        key.erase(std::remove_if(key.begin(), key.end(), [](char c) { return c == '"' || c == '\''; }),
                  key.end());
        add(s, keyword == "extras_require" ? "extras_require[" + key + "]" : keyword);
      }
    // NAME.append("x"), NAME.extend([...]), NAME.insert(i, "x")
    for (const StringFact& s : m_.strings())
      if (s.context == StringContext::PositionalArg && s.callee == name + "." + s.method &&
          (s.method == "append" || s.method == "extend" || (s.method == "insert" && s.arg_index == 1)))
        add(s, keyword);
  }

  /// The requirement strings a module-level function of the file returns: those written in its
  /// return statement (dict keys name the extra, as in a literal `extras_require`). Not a function
  /// with several returns: one list per platform (`if platform == "npu": return [...]`) is a choice
  /// this reading cannot make.
  void returned(const std::string& function, const std::string& keyword) {
    if (!visited_.insert(function + "()").second) return;
    const std::string_view src = m_.source();
    for (const auto& d : m_.definitions()) {
      if (d.kind != migrate::sdk::DefinitionFact::Kind::Function || d.qualified_name != function) continue;
      static const RE2 kReturn(R"((?m)^[ \t]*return\b)", plugin_support::bytePattern());
      const std::string_view body = src.substr(d.range.start_byte, d.range.end_byte - d.range.start_byte);
      int returns = 0;
      plugin_support::forEachMatch(kReturn, body, [&](const auto&) { ++returns; });
      if (returns != 1) continue;
      plugin_support::forEachMatch(kReturn, body, [&](const auto& g) {
        const std::size_t rhs = static_cast<std::size_t>(g[0].data() - src.data()) + g[0].size();
        const std::uint32_t stop = expressionEnd(src, rhs);
        std::string extra;
        for (const StringFact& s : m_.strings()) {
          if (!inside(s.range, static_cast<std::uint32_t>(rhs), stop) ||
              s.context == StringContext::Docstring || s.context == StringContext::Message)
            continue;
          std::size_t after = s.range.end_byte;
          while (after < src.size() && (src[after] == ' ' || src[after] == '\t')) ++after;
          if (after < src.size() && src[after] == ':') {  // a dict key: the extra's name
            extra = s.value;
            continue;
          }
          add(s, keyword == "extras_require" && !extra.empty() ? "extras_require[" + extra + "]" : keyword);
        }
      });
    }
  }

  /// Names called in an expression (`get_extras_require()`), not methods.
  static std::vector<std::string> calledNames(std::string_view text) {
    static const RE2 call(R"((?:^|[^\w.])([A-Za-z_]\w*)[ \t]*\()", plugin_support::bytePattern());
    std::vector<std::string> out;
    plugin_support::forEachMatch(call, text, [&](const auto& g) {
      std::string name = plugin_support::str(g[1]);
      if (name != "dict" && name != "list") out.push_back(std::move(name));
    });
    return out;
  }

  /// Plain names in an expression (not attributes, not calls).
  static std::vector<std::string> identifiers(std::string_view text) {
    static const RE2 ident(R"([A-Za-z_][A-Za-z0-9_]*)", plugin_support::bytePattern());
    std::vector<std::string> out;
    const std::string t(text);
    plugin_support::forEachMatch(ident, t, [&](const auto& groups) {
      const auto b = static_cast<std::size_t>(groups[0].data() - t.data());
      const auto e = b + groups[0].size();
      if (b > 0 && (t[b - 1] == '.' || t[b - 1] == '"' || t[b - 1] == '\'' ||
                    std::isalnum(static_cast<unsigned char>(t[b - 1]))))
        return;
      std::size_t n = e;
      while (n < t.size() && (t[n] == ' ' || t[n] == '\t')) ++n;
      if (n < t.size() && (t[n] == '(' || t[n] == '.' || t[n] == '=' || t[n] == '"' || t[n] == '\'')) return;
      std::string word = plugin_support::str(groups[0]);
      if (kPythonWords.count(word)) return;
      // inside a string literal: count quotes before
      const auto quotes = std::count_if(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(b),
                                        [](char c) { return c == '"' || c == '\''; });
      if (quotes % 2) return;
      out.push_back(std::move(word));
    });
    return out;
  }

  void add(const StringFact& s, const std::string& section) {
    if (!seen_.insert(s.range.start_byte).second) return;
    auto req = parseRequirement(s.value);
    if (!req) return;
    static const RE2 file_like(R"((?i)\.(?:txt|py|cfg|toml|in|md|rst|json|yaml|yml)$)",
                               plugin_support::bytePattern());
    if (RE2::PartialMatch(req->name, file_like)) return;
    DependencyUse d;
    d.file = std::string(m_.path());
    d.range = s.range;
    d.written = s.value;
    d.req = *req;
    d.source = "setup.py";
    d.section = section;
    out_.dependencies.push_back(std::move(d));
  }

  const Module& m_;
  Manifests& out_;
  std::set<std::string> visited_;
  std::set<std::uint32_t> seen_;
};

}  // namespace

void readSetupPy(const Module& module, Manifests& out) {
  SetupPyReader(module, out).run();
}

}  // namespace deps

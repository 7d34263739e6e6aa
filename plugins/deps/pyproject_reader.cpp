// pyproject.toml: a small TOML reader for what dependency lists need (tables, array tables, dotted
// and quoted keys, strings of all four kinds, arrays over several lines, inline tables), and the
// places dependencies are written: [project], [build-system], [dependency-groups], poetry, pdm,
// uv, hatch, pixi (a poetry or pixi dependency also in a table of its own); package indexes of
// poetry/uv/pdm; setuptools' dynamic `file =` lists.

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "compat_table.hpp"
#include "manifest.hpp"
#include "plugin_support/byte_regex.hpp"

namespace deps {
namespace {

struct TomlEntry;

struct TomlValue {
  enum class Kind { String, Array, Table, Other };
  Kind kind = Kind::Other;
  std::string str;  ///< String: the decoded content
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::vector<TomlValue> items;    ///< Array
  std::vector<TomlEntry> entries;  ///< inline Table

  const TomlValue* get(std::string_view key) const;
};

struct TomlEntry {
  std::vector<std::string> key;
  std::uint32_t key_begin = 0;
  TomlValue value;
};

const TomlValue* TomlValue::get(std::string_view key) const {
  for (const auto& e : entries)
    if (e.key.size() == 1 && e.key[0] == key) return &e.value;
  return nullptr;
}

struct Assignment {
  std::vector<std::string> path;  ///< table header + key
  std::size_t table_depth = 0;    ///< how many leading segments come from the header
  std::uint32_t table_begin = 0;  ///< where that header starts (its `[`)
  std::uint32_t key_begin = 0;
  TomlValue value;
};

struct ParseError {
  std::uint32_t offset;
  std::string what;
};

class TomlReader {
 public:
  explicit TomlReader(std::string_view text) : t_(text) {}

  /// Reads the document; stops at the first error (reported through `error`).
  std::vector<Assignment> read(std::optional<ParseError>& error) {
    std::vector<Assignment> out;
    std::vector<std::string> table;
    std::uint32_t table_begin = 0;
    try {
      while (true) {
        skipBlank();
        if (p_ >= t_.size()) break;
        if (t_[p_] == '[') {
          table_begin = static_cast<std::uint32_t>(p_);
          const bool array = p_ + 1 < t_.size() && t_[p_ + 1] == '[';
          p_ += array ? 2 : 1;
          skipSpaces();
          table = key();
          skipSpaces();
          expect(']');
          if (array) expect(']');
          endOfLine();
          continue;
        }
        Assignment a;
        a.key_begin = static_cast<std::uint32_t>(p_);
        auto k = key();
        skipSpaces();
        expect('=');
        skipSpaces();
        a.path = table;
        a.table_depth = table.size();
        a.table_begin = table_begin;
        a.path.insert(a.path.end(), k.begin(), k.end());
        a.value = value();
        endOfLine();
        out.push_back(std::move(a));
      }
    } catch (const ParseError& e) {
      error = e;
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError{static_cast<std::uint32_t>(p_), what};
  }

  void skipSpaces() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t')) ++p_;
  }
  void skipComment() {
    if (p_ < t_.size() && t_[p_] == '#')
      while (p_ < t_.size() && t_[p_] != '\n') ++p_;
  }
  /// Spaces, newlines and comments.
  void skipBlank() {
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++p_;
      } else if (c == '#') {
        skipComment();
      } else {
        break;
      }
    }
  }
  void endOfLine() {
    skipSpaces();
    skipComment();
    if (p_ < t_.size() && t_[p_] == '\r') ++p_;
    if (p_ < t_.size() && t_[p_] != '\n') fail("expected the end of the line");
  }
  void expect(char c) {
    if (p_ >= t_.size() || t_[p_] != c) fail(std::string("expected '") + c + "'");
    ++p_;
  }

  std::vector<std::string> key() {
    std::vector<std::string> parts;
    while (true) {
      skipSpaces();
      if (p_ < t_.size() && (t_[p_] == '"' || t_[p_] == '\'')) {
        parts.push_back(string().str);
      } else {
        const std::size_t b = p_;
        while (p_ < t_.size() &&
               (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' || t_[p_] == '-'))
          ++p_;
        if (b == p_) fail("expected a key");
        parts.emplace_back(t_.substr(b, p_ - b));
      }
      skipSpaces();
      if (p_ < t_.size() && t_[p_] == '.') {
        ++p_;
        continue;
      }
      return parts;
    }
  }

  TomlValue value() {
    if (p_ >= t_.size()) fail("expected a value");
    const char c = t_[p_];
    if (c == '"' || c == '\'') return string();
    if (c == '[' || c == '{') {
      // Arrays and inline tables are read recursively: a bound on their nesting keeps hostile
      // input (`[[[[…`) from overflowing the stack.
      if (nesting_ >= kMaxNesting)
        fail("arrays and inline tables nested deeper than " + std::to_string(kMaxNesting) + " levels");
      ++nesting_;
      TomlValue v = c == '[' ? array() : inlineTable();
      --nesting_;
      return v;
    }
    TomlValue v;
    v.begin = static_cast<std::uint32_t>(p_);
    while (p_ < t_.size() && t_[p_] != ',' && t_[p_] != ']' && t_[p_] != '}' && t_[p_] != '\n' &&
           t_[p_] != '#')
      ++p_;
    std::size_t e = p_;
    while (e > v.begin && (t_[e - 1] == ' ' || t_[e - 1] == '\t' || t_[e - 1] == '\r')) --e;
    if (e == v.begin) fail("expected a value");
    v.end = static_cast<std::uint32_t>(e);
    v.str = std::string(t_.substr(v.begin, e - v.begin));
    return v;
  }

  TomlValue string() {
    TomlValue v;
    v.kind = TomlValue::Kind::String;
    v.begin = static_cast<std::uint32_t>(p_);
    const char q = t_[p_];
    const bool multi = t_.substr(p_, 3) == std::string(3, q);
    p_ += multi ? 3 : 1;
    if (multi && p_ < t_.size() && t_[p_] == '\n') ++p_;  // a newline right after the opening is trimmed
    while (true) {
      if (p_ >= t_.size()) fail("unterminated string");
      const char c = t_[p_];
      if (multi && t_.substr(p_, 3) == std::string(3, q)) {
        p_ += 3;
        while (p_ < t_.size() && t_[p_] == q) {  // up to two quotes may end the content
          v.str += q;
          ++p_;
        }
        break;
      }
      if (!multi && c == q) {
        ++p_;
        break;
      }
      if (!multi && c == '\n') fail("newline in a string");
      if (c == '\\' && q == '"') {
        if (p_ + 1 >= t_.size()) fail("unterminated string");
        const char n = t_[p_ + 1];
        p_ += 2;
        switch (n) {
          case 'n':
            v.str += '\n';
            break;
          case 't':
            v.str += '\t';
            break;
          case '"':
          case '\\':
            v.str += n;
            break;
          case '\r':
          case '\n':
          case ' ':
            while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\r' || t_[p_] == '\n'))
              ++p_;
            break;
          default:
            v.str += '\\';
            v.str += n;
        }
        continue;
      }
      v.str += c;
      ++p_;
    }
    v.end = static_cast<std::uint32_t>(p_);
    return v;
  }

  TomlValue array() {
    TomlValue v;
    v.kind = TomlValue::Kind::Array;
    v.begin = static_cast<std::uint32_t>(p_);
    ++p_;
    while (true) {
      skipBlank();
      if (p_ >= t_.size()) fail("unterminated array");
      if (t_[p_] == ']') {
        ++p_;
        break;
      }
      v.items.push_back(value());
      skipBlank();
      if (p_ < t_.size() && t_[p_] == ',') {
        ++p_;
      } else if (p_ < t_.size() && t_[p_] != ']') {
        fail("expected ',' or ']' in an array");
      }
    }
    v.end = static_cast<std::uint32_t>(p_);
    return v;
  }

  TomlValue inlineTable() {
    TomlValue v;
    v.kind = TomlValue::Kind::Table;
    v.begin = static_cast<std::uint32_t>(p_);
    ++p_;
    while (true) {
      skipBlank();  // TOML 1.1 allows newlines; accept them
      if (p_ >= t_.size()) fail("unterminated inline table");
      if (t_[p_] == '}') {
        ++p_;
        break;
      }
      TomlEntry e;
      e.key_begin = static_cast<std::uint32_t>(p_);
      e.key = key();
      skipSpaces();
      expect('=');
      skipSpaces();
      e.value = value();
      v.entries.push_back(std::move(e));
      skipBlank();
      if (p_ < t_.size() && t_[p_] == ',') {
        ++p_;
      } else if (p_ < t_.size() && t_[p_] != '}') {
        fail("expected ',' or '}' in an inline table");
      }
    }
    v.end = static_cast<std::uint32_t>(p_);
    return v;
  }

  static constexpr int kMaxNesting = 100;

  std::string_view t_;
  std::size_t p_ = 0;
  int nesting_ = 0;
};

std::string joined(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

bool isOneOf(const std::string& s, std::initializer_list<std::string_view> set) {
  for (auto v : set)
    if (s == v) return true;
  return false;
}

class PyprojectInterpreter {
 public:
  PyprojectInterpreter(const std::string& path, std::string_view text, Manifests& out)
      : path_(path), text_(text), index_(text), out_(out) {}

  void run(const std::vector<Assignment>& assignments) {
    // The project's own name: `name[extra]` in its extras refers to itself, not to a dependency.
    for (const Assignment& a : assignments)
      if (a.value.kind == TomlValue::Kind::String &&
          (a.path == std::vector<std::string>{"project", "name"} ||
           a.path == std::vector<std::string>{"tool", "poetry", "name"}))
        out_.self_names.insert(self_ = normalizeName(a.value.str));
    std::map<std::vector<std::string>, TomlValue> own_tables;
    for (const Assignment& a : assignments) {
      if (!ownTableDependency(a)) {
        visit(a.path, a.key_begin, a.value);
        continue;
      }
      // `[tool.poetry.dependencies.jax]` with `version = …` and `extras = ["cuda12"]` on lines of
      // their own: the same dependency as `jax = {version = …, extras = […]}`, from its header to its
      // last value.
      TomlValue& table = own_tables[std::vector<std::string>(a.path.begin(), a.path.end() - 1)];
      if (table.kind != TomlValue::Kind::Table) {
        table.kind = TomlValue::Kind::Table;
        table.begin = a.table_begin;
      }
      table.entries.push_back({{a.path.back()}, a.key_begin, a.value});
      table.end = std::max(table.end, a.value.end);
    }
    for (const auto& [path, table] : own_tables)
      keyedDependency(path, table.begin, table,
                      path[1] == "pixi" && path[path.size() - 2] != "pypi-dependencies");
    uvSources(assignments);
  }

 private:
  /// A key of a dependency's own table (`[tool.poetry.dependencies.NAME]`,
  /// `[tool.poetry.group.G.dependencies.NAME]`, pixi's alike) rather than of an inline table.
  static bool ownTableDependency(const Assignment& a) {
    const std::size_t n = a.path.size();
    return n >= 5 && a.table_depth == n - 1 && a.path[0] == "tool" &&
           isOneOf(a.path[1], {"poetry", "pixi"}) &&
           isOneOf(a.path[n - 3],
                   {"dependencies", "dev-dependencies", "pypi-dependencies", "build-dependencies"});
  }

  void visit(const std::vector<std::string>& path, std::uint32_t key_begin, const TomlValue& v) {
    const std::size_t n = path.size();
    const std::string last = n ? path[n - 1] : "";
    const std::string parent = n > 1 ? path[n - 2] : "";
    const bool tool = n && path[0] == "tool";
    const bool pixi = tool && n > 1 && path[1] == "pixi";
    const bool poetry = tool && n > 1 && path[1] == "poetry";

    // Poetry and pixi: one dependency per key.
    if (n >= 4 && (poetry || pixi) &&
        isOneOf(parent, {"dependencies", "dev-dependencies", "pypi-dependencies", "build-dependencies"})) {
      keyedDependency(path, key_begin, v, pixi && parent != "pypi-dependencies");
      return;
    }
    if (v.kind == TomlValue::Kind::Table &&
        !(tool && n > 2 && path[1] == "setuptools" && path[2] == "dynamic")) {
      for (const auto& e : v.entries) {
        auto sub = path;
        sub.insert(sub.end(), e.key.begin(), e.key.end());
        visit(sub, e.key_begin, e.value);
      }
      return;
    }
    // `vllm = [{ url = "…+cu129…whl", marker = "…" }, …]` in [tool.uv.sources]: one source per platform.
    if (tool && n == 4 && path[1] == "uv" && path[2] == "sources" && v.kind == TomlValue::Kind::Array &&
        std::all_of(v.items.begin(), v.items.end(),
                    [](const TomlValue& item) { return item.kind == TomlValue::Kind::Table; })) {
      for (const auto& item : v.items) visit(path, item.begin, item);
      return;
    }
    // Lists of PEP 508 strings.
    // `requires-dist` of `[[tool.uv.dependency-metadata]]`: what uv installs for that package.
    const bool list_key =
        isOneOf(last, {"dependencies", "requires", "dev-dependencies", "extra-dependencies",
                       "constraint-dependencies", "override-dependencies", "requires-dist"});
    const bool list_parent =
        isOneOf(parent, {"optional-dependencies", "dependency-groups", "dev-dependencies"}) ||
        (n == 2 && path[0] == "dependency-groups");
    if (v.kind == TomlValue::Kind::Array && (list_key || list_parent) && !pixi && !poetry) {
      for (const auto& item : v.items)
        if (item.kind == TomlValue::Kind::String) stringDependency(item, joined(path));
      return;
    }
    // `deep-ep = { url = "…/deep_ep-1.2.1-cp312-…whl" }` in [tool.uv.sources]: a prebuilt wheel of a
    // package the table calls unsupported (or in need of replacement), with no CUDA tag to report it as a
    // CUDA build; the wheel is that dependency, where it is named. So is a git checkout of such a package
    // (`flash-attn-4 = { git = "https://github.com/Dao-AILab/flash-attention.git", … }`): uv builds it
    // from that source.
    if (tool && n == 5 && path[1] == "uv" && path[2] == "sources" && v.kind == TomlValue::Kind::String &&
        ((last == "url" && isWheelName(v.str) && cudaTag(v.str).empty()) || last == "git")) {
      const Lookup look = lookupPackage(path[3]);
      if (look.flagged()) {
        DependencyUse d;
        d.file = path_;
        d.range = index_.range(v.begin, v.end);
        d.written = v.str;
        d.req.name = path[3];
        d.req.url = v.str;
        d.source = "pyproject";
        d.section = joined(std::vector<std::string>(path.begin(), path.end() - 1));
        out_.dependencies.push_back(std::move(d));
        return;
      }
    }
    // Package indexes and conda channels.
    if (tool && isOneOf(last, {"url", "index-url", "extra-index-url", "find-links", "channels"})) {
      const std::string option = joined(path);
      auto add = [&](const TomlValue& s) {
        if (s.kind == TomlValue::Kind::String)
          out_.indexes.push_back({path_, index_.range(s.begin, s.end), s.str, option, "pyproject"});
      };
      if (v.kind == TomlValue::Kind::Array) {
        for (const auto& item : v.items) add(item);
      } else {
        add(v);
      }
      return;
    }
    // setuptools' dynamic metadata read from requirements files.
    if (tool && n >= 4 && path[1] == "setuptools" && path[2] == "dynamic" &&
        v.kind == TomlValue::Kind::Table) {
      if (const TomlValue* file = v.get("file")) {
        const std::uint32_t line = index_.position(file->begin).first;
        auto add = [&](const TomlValue& s) {
          if (s.kind == TomlValue::Kind::String) out_.includes.push_back({path_, line, s.str, false});
        };
        if (file->kind == TomlValue::Kind::Array) {
          for (const auto& item : file->items) add(item);
        } else {
          add(*file);
        }
      }
    }
  }

  /// `[tool.uv.sources]` that take a package from a PyTorch CUDA wheel index defined under
  /// `[[tool.uv.index]]` (`torch = [{ index = "pytorch-cu128", marker = "…" }]`) whatever extra is
  /// chosen: the source is where the CUDA build is picked, reported as that index's use. A source
  /// tied to an extra (`extra = "cu12"`) only serves that CUDA extra.
  void uvSources(const std::vector<Assignment>& assignments) {
    const std::vector<std::string> kIndex{"tool", "uv", "index"};
    std::map<std::string, const TomlValue*> urls;  // index name → its url string
    std::string name;
    const TomlValue* url = nullptr;
    auto flush = [&] {
      if (!name.empty() && url) urls[name] = url;
      name.clear();
      url = nullptr;
    };
    for (const Assignment& a : assignments) {
      if (a.path.size() != 4 || !std::equal(kIndex.begin(), kIndex.end(), a.path.begin()) ||
          a.value.kind != TomlValue::Kind::String)
        continue;
      const std::string& key = a.path[3];
      if (key != "name" && key != "url") continue;
      if (key == "name" ? !name.empty() : url != nullptr) flush();  // seen again: the next table
      if (key == "name")
        name = a.value.str;
      else
        url = &a.value;
    }
    flush();
    if (urls.empty()) return;
    auto source = [&](const TomlValue& t, const std::string& option) {
      const TomlValue* idx = t.kind == TomlValue::Kind::Table ? t.get("index") : nullptr;
      if (!idx || idx->kind != TomlValue::Kind::String || t.get("extra")) return;
      const auto it = urls.find(idx->str);
      static const RE2 kCudaIndex(R"(/whl/(?:test/|nightly/)?cu\d)", plugin_support::bytePattern());
      if (it == urls.end() || !RE2::PartialMatch(it->second->str, kCudaIndex)) return;
      out_.indexes.push_back({path_, index_.range(idx->begin, idx->end), it->second->str, option, "pyproject",
                              index_.range(it->second->begin, it->second->end)});
    };
    for (const Assignment& a : assignments) {
      if (a.path.size() < 3 || a.path[0] != "tool" || a.path[1] != "uv" || a.path[2] != "sources") continue;
      if (a.path.size() == 4) {
        const std::string option = "tool.uv.sources." + a.path[3];
        if (a.value.kind == TomlValue::Kind::Array)
          for (const auto& item : a.value.items) source(item, option);
        else
          source(a.value, option);
      } else if (a.path.size() == 3 && a.value.kind == TomlValue::Kind::Table) {
        for (const auto& e : a.value.entries) {
          if (e.key.size() != 1) continue;
          const std::string option = "tool.uv.sources." + e.key[0];
          if (e.value.kind == TomlValue::Kind::Array)
            for (const auto& item : e.value.items) source(item, option);
          else
            source(e.value, option);
        }
      }
    }
  }

  void stringDependency(const TomlValue& s, const std::string& section) {
    auto req = parseRequirement(s.str);
    const std::uint32_t line = index_.position(s.begin).first;
    if (!req) {
      if (!s.str.empty())
        out_.diagnostics.push_back({migrate::sdk::Severity::Info, "unparsed-requirement", path_, line,
                                    "not read as a requirement: " + s.str});
      return;
    }
    if (!self_.empty() && normalizeName(req->name) == self_) return;
    // Another package's metadata (`[[tool.uv.dependency-metadata]]`) matters only where it pulls a
    // package the table flags; its `torch>=2.1` is not the project's torch pin.
    if (section.find("dependency-metadata") != std::string::npos && !lookupPackage(req->name).flagged())
      return;
    DependencyUse d;
    d.file = path_;
    d.range = index_.range(s.begin, s.end);
    d.written = s.str;
    d.req = *req;
    d.source = "pyproject";
    d.section = section;
    out_.dependencies.push_back(std::move(d));
  }

  void keyedDependency(const std::vector<std::string>& path, std::uint32_t key_begin, const TomlValue& v,
                       bool conda) {
    DependencyUse d;
    d.file = path_;
    d.range = index_.range(key_begin, v.end);
    d.written = std::string(text_.substr(key_begin, v.end - key_begin));
    d.req.name = path.back();
    d.source = "pyproject";
    d.section = joined(std::vector<std::string>(path.begin(), path.end() - 1));
    d.dialect = conda ? SpecDialect::Conda : SpecDialect::Poetry;
    d.conda = conda;
    const TomlValue* spec = &v;
    if (v.kind == TomlValue::Kind::Array && !v.items.empty())
      spec = &v.items.front();  // multiple constraints
    if (spec->kind == TomlValue::Kind::String) {
      d.req.spec = spec->str;
    } else if (spec->kind == TomlValue::Kind::Table) {
      if (const TomlValue* ver = spec->get("version"); ver && ver->kind == TomlValue::Kind::String)
        d.req.spec = ver->str;
      if (const TomlValue* ex = spec->get("extras"); ex && ex->kind == TomlValue::Kind::Array)
        for (const auto& item : ex->items) d.req.extras += (d.req.extras.empty() ? "" : ",") + item.str;
      if (const TomlValue* m = spec->get("markers"); m && m->kind == TomlValue::Kind::String)
        d.req.marker = m->str;
      for (const char* loc : {"git", "url", "path"})
        if (const TomlValue* u = spec->get(loc); u && u->kind == TomlValue::Kind::String) d.req.url = u->str;
      if (const TomlValue* b = spec->get("build"); b && b->kind == TomlValue::Kind::String)
        d.req.marker = b->str;
      if (const TomlValue* c = spec->get("channel"); c && c->kind == TomlValue::Kind::String && conda)
        d.req.url = c->str;
    }
    if (d.req.spec == "*") d.req.spec.clear();
    out_.dependencies.push_back(std::move(d));
  }

  const std::string& path_;
  std::string_view text_;
  migrate::sdk::LineIndex index_;
  Manifests& out_;
  std::string self_;
};

}  // namespace

void readPyproject(const std::string& path, std::string_view text, Manifests& out) {
  std::optional<ParseError> error;
  TomlReader reader(text);
  const auto assignments = reader.read(error);
  PyprojectInterpreter(path, text, out).run(assignments);
  if (error) {
    const migrate::sdk::LineIndex index(text);
    out.diagnostics.push_back({migrate::sdk::Severity::Warning, "pyproject-unreadable", path,
                               index.position(error->offset).first,
                               "pyproject.toml could not be read past this line (" + error->what +
                                   "); dependencies after it are not analysed"});
  }
}

}  // namespace deps

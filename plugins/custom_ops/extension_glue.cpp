// Python glue to compiled extensions that only facts spanning files reveal (issue 16), found by one
// repository pass over the Python files' text:
// - OPS-028 / OPS-038: imports of, and calls into, an extension module whose name only a build
//   script declares (`CUDAExtension(name="fused_rotary_positional_embedding", ...)`); modules named
//   by the conventions (`*_cuda`, `_C`, `amp_C`) are the module pass's.
// - OPS-027: torch.autograd.Function subclasses whose passes reach a compiled extension only through
//   helpers of other modules of the repository (`from pkg.cpp_functions import conv_fwd`, with
//   re-exports through a package's __init__ and helpers calling helpers), which the per-file pass
//   cannot see. Classes whose body shows the module pass a kernel of its own are left to it.
// The per-file analysis stays a function of one file (its cache key is the file's content); what
// depends on other files is computed here once per run, and cached with the files it read.

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "python_scan.hpp"

namespace custom_ops {
namespace {

constexpr const char* kAutogradFunction = "OPS-027";
constexpr const char* kExtensionImport = "OPS-028";
constexpr const char* kExtensionCall = "OPS-038";

/// The text with comments and string contents blanked (same offsets, newlines kept).
std::string codeOnly(std::string_view s) {
  std::string out(s);
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') out[i++] = ' ';
      continue;
    }
    if (c != '"' && c != '\'') {
      ++i;
      continue;
    }
    const bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
    std::size_t j = i + (triple ? 3 : 1);
    while (j < s.size()) {
      if (s[j] == '\\' && j + 1 < s.size()) {
        out[j] = ' ';
        if (s[j + 1] != '\n') out[j + 1] = ' ';
        j += 2;
        continue;
      }
      if (s[j] == c && (!triple || (j + 2 < s.size() && s[j + 1] == c && s[j + 2] == c))) break;
      if (!triple && s[j] == '\n') break;
      if (s[j] != '\n') out[j] = ' ';
      ++j;
    }
    i = std::min(s.size(), j + (triple ? 3 : 1));
  }
  return out;
}

struct Line {
  std::size_t begin = 0;  ///< offset of the first character
  std::size_t indent = 0;
  std::string_view text;  ///< code only, indentation removed (a view into PyFile::code)
};

/// A block: a top-level function or a class, with the lines of its body.
struct Block {
  std::string name;
  std::string bases;  ///< classes: the text between the parentheses
  std::size_t line = 0;
  std::size_t name_begin = 0;
  std::size_t body_end = 0;  ///< index of the first line after the body
};

struct Import {
  std::size_t line = 0;
  std::string module;  ///< absolute dotted name of the module imported from (or imported)
  std::string name;    ///< `from module import name`; empty for `import module`
  std::string bound;   ///< the local name (`import a.b` binds "a.b" as written)
  bool star = false;
};

struct PyFile {
  std::string path;
  std::string dotted;
  bool package = false;
  std::string text;
  std::string code;  ///< the text with comments and strings blanked (parse); lines view into it
  std::vector<Line> lines;
  std::vector<Import> imports;
  std::vector<Block> functions;         ///< top level
  std::vector<Block> classes;           ///< any level
  std::set<std::string> exports;        ///< names of this module that reach an extension
  std::map<std::string, bool> helpers;  ///< top-level function -> reached only through other files
};

std::string dottedName(std::string path, bool& package) {
  if (startsWith(path, "src/")) path = path.substr(4);
  if (endsWith(path, ".py")) path.resize(path.size() - 3);
  for (char& c : path)
    if (c == '/') c = '.';
  package = path == "__init__" || endsWith(path, ".__init__");
  if (package) path.resize(path.size() >= 9 ? path.size() - 9 : 0);
  return path;
}

// The patterns run on RE2 (byte_regex.hpp): a hostile line of megabytes cannot overflow the stack.

const RE2& wordCall(const std::string& name) {
  thread_local std::map<std::string, std::unique_ptr<RE2>> cache;
  auto& re = cache[name];
  if (!re) re = std::make_unique<RE2>("(^|[^\\w.])" + RE2::QuoteMeta(name) + "\\s*\\(", bytePattern());
  return *re;
}

/// `name(` as a call of a plain name (not an attribute) somewhere in lines [from, to).
bool callsName(const PyFile& f, std::size_t from, std::size_t to, const std::string& name) {
  for (std::size_t i = from; i < to; ++i)
    if (f.lines[i].text.find(name) != std::string::npos && RE2::PartialMatch(f.lines[i].text, wordCall(name)))
      return true;
  return false;
}

/// `alias.attr(` / `alias.attr` uses in lines [from, to): the attribute names.
std::vector<std::string> attributesOf(const PyFile& f, std::size_t from, std::size_t to,
                                      const std::string& alias) {
  std::vector<std::string> out;
  bool any = false;
  for (std::size_t i = from; i < to && !any; ++i)
    any = f.lines[i].text.find(alias + ".") != std::string::npos;
  if (!any) return out;
  thread_local std::map<std::string, std::unique_ptr<RE2>> cache;
  auto& use = cache[alias];
  if (!use) use = std::make_unique<RE2>("(^|[^\\w.])" + RE2::QuoteMeta(alias) + "\\.(\\w+)", bytePattern());
  for (std::size_t i = from; i < to; ++i) {
    if (f.lines[i].text.find(alias + ".") == std::string::npos) continue;
    forEachMatch(*use, f.lines[i].text, [&](const auto& m) { out.push_back(str(m[2])); });
  }
  return out;
}

/// Reads the imports (and, with `blocks`, the top-level functions and the classes) of a file.
void parse(PyFile& f, bool blocks) {
  f.lines.clear();
  f.imports.clear();
  f.functions.clear();
  f.classes.clear();
  f.code = codeOnly(f.text);
  const std::string_view code = f.code;
  std::size_t at = 0;
  while (at <= code.size()) {
    std::size_t end = code.find('\n', at);
    if (end == std::string::npos) end = code.size();
    Line l;
    l.begin = at;
    std::size_t i = at;
    while (i < end && (code[i] == ' ' || code[i] == '\t')) ++i;
    l.indent = i - at;
    l.text = code.substr(i, end - i);
    while (!l.text.empty() && (l.text.back() == ' ' || l.text.back() == '\r')) l.text.remove_suffix(1);
    f.lines.push_back(std::move(l));
    if (end == code.size()) break;
    at = end + 1;
  }
  auto bodyEnd = [&](std::size_t header) {
    const std::size_t indent = f.lines[header].indent;
    std::size_t i = header + 1;
    // The header may continue over several lines (parameters): skip to the line ending in ':'.
    std::size_t h = header;
    while (h < f.lines.size() && (f.lines[h].text.empty() || f.lines[h].text.back() != ':') &&
           h < header + 30)
      ++h;
    i = h + 1;
    for (; i < f.lines.size(); ++i)
      if (!f.lines[i].text.empty() && f.lines[i].indent <= indent) break;
    return i;
  };
  std::string base =
      f.package ? f.dotted : f.dotted.substr(0, std::min(f.dotted.size(), f.dotted.rfind('.')));
  if (!f.package && f.dotted.find('.') == std::string::npos) base.clear();
  auto absolute = [&](const std::string& written) {
    std::size_t level = 0;
    while (level < written.size() && written[level] == '.') ++level;
    if (level == 0) return written;
    std::string b = base;
    for (std::size_t k = 1; k < level; ++k)
      b = b.substr(0, b.rfind('.') == std::string::npos ? 0 : b.rfind('.'));
    const std::string rest = written.substr(level);
    return b.empty() ? rest : rest.empty() ? b : b + "." + rest;
  };
  static const RE2 kImport(R"(^import\s+(.+)$)", bytePattern());
  static const RE2 kFrom(R"(^from\s+([\w.]+)\s+import\s+(.+)$)", bytePattern());
  static const RE2 kDef(R"(^(?:async\s+)?def\s+(\w+)\s*\()", bytePattern());
  static const RE2 kClass(R"(^class\s+(\w+)\s*\((.*)\)\s*:)", bytePattern());
  static const RE2 kAlias(R"(^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$)", bytePattern());
  for (std::size_t i = 0; i < f.lines.size(); ++i) {
    const Line& l = f.lines[i];
    if (l.text.empty()) continue;
    const char c0 = l.text[0];
    if (c0 != 'i' && c0 != 'f' && (!blocks || (c0 != 'd' && c0 != 'a' && c0 != 'c'))) continue;
    re2::StringPiece m1, m2;
    if (startsWith(l.text, "import ") && RE2::FullMatch(l.text, kImport, &m1)) {
      std::string list = str(m1);
      std::size_t p = 0;
      while (p <= list.size()) {
        std::size_t comma = list.find(',', p);
        if (comma == std::string::npos) comma = list.size();
        re2::StringPiece a1, a2;
        const std::string part = list.substr(p, comma - p);
        if (RE2::FullMatch(part, kAlias, &a1, &a2))
          f.imports.push_back({i, str(a1), "", a2.data() ? str(a2) : str(a1), false});
        p = comma + 1;
      }
    } else if (startsWith(l.text, "from ") && RE2::FullMatch(l.text, kFrom, &m1, &m2)) {
      const std::string module = absolute(str(m1));
      std::string names = str(m2);
      if (names.find('(') != std::string::npos) {
        for (std::size_t k = i + 1; names.find(')') == std::string::npos && k < f.lines.size() && k < i + 200;
             ++k)
          names.append(" ").append(f.lines[k].text);
        names.erase(std::remove(names.begin(), names.end(), '('), names.end());
        names.erase(std::remove(names.begin(), names.end(), ')'), names.end());
      } else if (!names.empty() && names.back() == '\\') {
        names.pop_back();
        if (i + 1 < f.lines.size()) names.append(" ").append(f.lines[i + 1].text);
      }
      std::size_t p = 0;
      while (p <= names.size()) {
        std::size_t comma = names.find(',', p);
        if (comma == std::string::npos) comma = names.size();
        const std::string part = names.substr(p, comma - p);
        re2::StringPiece a1, a2;
        if (part.find('*') != std::string::npos)
          f.imports.push_back({i, module, "*", "", true});
        else if (RE2::FullMatch(part, kAlias, &a1, &a2) && str(a1).find('.') == std::string::npos)
          f.imports.push_back({i, module, str(a1), a2.data() ? str(a2) : str(a1), false});
        p = comma + 1;
      }
    } else if (l.indent == 0 && (startsWith(l.text, "def ") || startsWith(l.text, "async ")) &&
               RE2::PartialMatch(l.text, kDef, &m1)) {
      f.functions.push_back(
          {str(m1), "", i, l.begin + static_cast<std::size_t>(m1.data() - l.text.data()), bodyEnd(i)});
    }
    if (startsWith(l.text, "class ") && RE2::PartialMatch(l.text, kClass, &m1, &m2))
      f.classes.push_back({str(m1), str(m2), i,
                           l.begin + l.indent + static_cast<std::size_t>(m1.data() - l.text.data()),
                           bodyEnd(i)});
  }
}

/// A quick look at the raw text: could an import line of this file name a compiled extension
/// (`import foo_cuda`, `from pkg import _C`)? No allocation per line; strings and comments are
/// not told apart (a false yes only costs the full reading).
bool mayImportExtension(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line = line.substr(first);
    if (!startsWith(line, "import ") && !startsWith(line, "from ")) continue;
    std::string module;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '#') {
      while (i < line.size() &&
             !(std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '.'))
        ++i;
      std::size_t b = i;
      while (i < line.size() &&
             (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '.'))
        ++i;
      if (b == i) continue;
      const std::string word(line.substr(b, i - b));
      if (word == "import" || word == "from" || word == "as") continue;
      if (module.empty()) module = word;
      if (looksLikeExtensionModule(word) || looksLikeExtensionModule(module + "." + word)) return true;
    }
  }
  return false;
}

/// `CUDAExtension(name="x", …)` / `CUDAExtension("x", …)`: the module names build scripts declare.
void declaredExtensions(const PyFile& f, std::map<std::string, std::string>& out) {
  if (f.text.find("CUDAExtension") == std::string::npos) return;
  static const RE2 kBuild(R"(\bCUDAExtension\s*\(\s*(?:name\s*=\s*)?["']([\w.]+)["'])", bytePattern());
  forEachMatch(kBuild, f.text, [&](const auto& m) { out.emplace(str(m[1]), f.path); });
}

/// Libraries whose imported functions the module pass takes as kernels (see autograd_functions.cpp).
bool kernelLibrary(const std::string& module) {
  static const std::set<std::string> kLibraries = {
      "flash_attn", "xformers",   "apex",       "mamba_ssm",          "causal_conv1d", "liger_kernel",
      "fla",        "flashinfer", "sgl_kernel", "transformer_engine", "deepspeed",     "vllm"};
  return kLibraries.count(module.substr(0, module.find('.'))) > 0;
}

class Glue {
 public:
  Glue(std::vector<PyFile>& files, std::map<std::string, std::string> declared)
      : files_(files), declared_(std::move(declared)) {
    for (std::size_t i = 0; i < files_.size(); ++i) by_module_[files_[i].dotted] = i;
    // A name that is a module of the repository is not a compiled extension.
    for (auto it = declared_.begin(); it != declared_.end();)
      it = by_module_.count(it->first) ? declared_.erase(it) : std::next(it);
  }

  const std::map<std::string, std::string>& declared() const { return declared_; }
  bool declaredOnly(const std::string& module) const {
    return declared_.count(module) && !looksLikeExtensionModule(module);
  }
  bool extension(const std::string& module) const {
    return declared_.count(module) || looksLikeExtensionModule(module);
  }
  /// True when some file imports a compiled extension: only then is there glue to follow.
  bool anyExtensionImport() const {
    for (const PyFile& f : files_)
      for (const Import& imp : f.imports)
        if (!imp.star && (extension(imp.name.empty() ? imp.module : imp.module + "." + imp.name) ||
                          (!imp.name.empty() && extension(imp.module))))
          return true;
    return false;
  }

  /// Propagates "reaches an extension" over functions and re-exports until nothing changes.
  void propagate() {
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      for (PyFile& f : files_) changed = update(f) || changed;
      if (!changed) break;
    }
  }

  /// Why lines [from, to) of `f` reach an extension: `visible` when the module pass sees a kernel
  /// there itself; `via` names the first way that goes through another file (or a build script).
  void reasons(const PyFile& f, std::size_t from, std::size_t to, bool& visible, std::string& via) const {
    auto note = [&](const std::string& why) {
      if (via.empty()) via = why;
    };
    for (const Import& imp : f.imports) {
      if (imp.star) continue;
      const std::string target = imp.name.empty() ? imp.module : imp.module + "." + imp.name;
      if (extension(target)) {  // an extension module: alias.fn(...)
        const auto attrs = attributesOf(f, from, to, imp.bound);
        if (attrs.empty()) continue;
        if (looksLikeExtensionModule(target))
          visible = true;
        else
          note(imp.bound + "." + attrs.front() + " (" + target + ", declared in " + declared_.at(target) +
               ")");
        continue;
      }
      if (!imp.name.empty() && extension(imp.module)) {  // from ext import fn
        if (!callsName(f, from, to, imp.bound)) continue;
        if (looksLikeExtensionModule(imp.module))
          visible = true;
        else
          note(imp.bound + " (" + imp.module + ")");
        continue;
      }
      // The module pass takes these as kernels (not a kernel library's own modules inside it).
      const bool own_library =
          imp.module.substr(0, imp.module.find('.')) == f.dotted.substr(0, f.dotted.find('.'));
      if (!imp.name.empty() && (kernelishModule(imp.module) || (kernelLibrary(imp.module) && !own_library))) {
        if (callsName(f, from, to, imp.bound)) visible = true;
        continue;
      }
      // A module of the repository: `import pkg.impl as m` / `from pkg import impl`, then m.helper().
      if (const auto mod = by_module_.find(target); mod != by_module_.end()) {
        const PyFile& src = files_[mod->second];
        if (src.exports.empty() || &src == &f) continue;
        for (const std::string& a : attributesOf(f, from, to, imp.bound))
          if (src.exports.count(a)) note(imp.bound + "." + a + "() (" + target + ")");
        continue;
      }
      // A helper of another module: `from pkg.impl import helper`.
      if (imp.name.empty()) continue;
      const auto src = by_module_.find(imp.module);
      if (src == by_module_.end() || &files_[src->second] == &f ||
          !files_[src->second].exports.count(imp.name))
        continue;
      if (callsName(f, from, to, imp.bound)) note(imp.bound + "() (" + imp.module + ")");
    }
    for (const auto& [name, cross] : f.helpers) {
      if (!callsName(f, from, to, name)) continue;
      if (!cross)
        visible = true;
      else
        note(name + "()");
    }
    for (std::size_t i = from; i < to; ++i)
      if (f.lines[i].text.find("](") != std::string::npos ||
          f.lines[i].text.find("torch.ops.") != std::string::npos)
        visible = true;
  }

 private:
  bool update(PyFile& f) {
    bool changed = false;
    for (const Block& fn : f.functions) {
      bool visible = false;
      std::string via;
      reasons(f, fn.line + 1, fn.body_end, visible, via);
      if (!visible && via.empty()) continue;
      const bool cross = !visible;
      auto it = f.helpers.find(fn.name);
      if (it == f.helpers.end()) {
        f.helpers[fn.name] = cross;
        changed = true;
      } else if (it->second && !cross) {
        it->second = false;
        changed = true;
      }
      changed = f.exports.insert(fn.name).second || changed;
    }
    // Re-exports: `from .impl import helper` (and `*`) make the helper a name of this module too.
    for (const Import& imp : f.imports) {
      const auto src = by_module_.find(imp.module);
      if (src == by_module_.end() || &files_[src->second] == &f) continue;
      const std::set<std::string> exported = files_[src->second].exports;
      if (imp.star) {
        for (const std::string& e : exported) changed = f.exports.insert(e).second || changed;
      } else if (exported.count(imp.name)) {
        changed = f.exports.insert(imp.bound).second || changed;
      }
    }
    return changed;
  }

  std::vector<PyFile>& files_;
  std::map<std::string, std::string> declared_;
  std::map<std::string, std::size_t> by_module_;
};

}  // namespace

void analyzeExtensionGlue(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink) {
  if (!rules.get(kAutogradFunction) && !rules.get(kExtensionImport)) return;
  std::vector<PyFile> files;
  for (const auto& entry : workspace.files()) {
    if (entry.language != sdk::Language::Python || inSkippedDir(entry.path, options.skip_dirs)) continue;
    auto text = workspace.read(entry.path);
    if (!text) continue;
    PyFile f;
    f.path = entry.path;
    f.dotted = dottedName(entry.path, f.package);
    f.text = std::move(*text);
    files.push_back(std::move(f));
  }
  std::map<std::string, std::string> declared;
  for (const PyFile& f : files) declaredExtensions(f, declared);
  // Most repositories have no compiled extension: stop before reading the files closely.
  bool candidate = !declared.empty();
  for (std::size_t i = 0; i < files.size() && !candidate; ++i) candidate = mayImportExtension(files[i].text);
  if (!candidate) return;
  for (PyFile& f : files) parse(f, false);  // the imports first
  Glue glue(files, declared);
  if (!glue.anyExtensionImport()) return;  // no compiled extension, no glue to it
  for (PyFile& f : files) parse(f, true);
  glue.propagate();

  for (const PyFile& f : files) {
    const sdk::LineIndex index(f.text);
    auto lineRange = [&](std::size_t line) {
      const Line& l = f.lines[line];
      return index.range(static_cast<std::uint32_t>(l.begin + l.indent),
                         static_cast<std::uint32_t>(l.begin + l.indent + l.text.size()));
    };
    const bool npu_path = !options.include_npu_paths &&
                          (inNpuDir(f.path) || npuSpecificFile(f.path) || inOtherVendorBackend(f.path));
    // Imports of, and calls into, extension modules only a build script names.
    for (const Import& imp : f.imports) {
      if (imp.star) continue;
      const std::string target = imp.name.empty() ? imp.module : imp.module + "." + imp.name;
      const std::string module = glue.declaredOnly(target)       ? target
                                 : glue.declaredOnly(imp.module) ? imp.module
                                                                 : "";
      if (module.empty()) continue;
      auto f1 =
          rules.make(kExtensionImport, f.path, lineRange(imp.line), module, module, {{"value", module}});
      if (f1) {
        f1->details = {
            {"module", module}, {"bound_as", imp.bound}, {"declared_in", glue.declared().at(module)}};
        sink.report(std::move(*f1));
      }
      if (npu_path || module != target) continue;
      const RE2 call("(^|[^\\w.])(" + RE2::QuoteMeta(imp.bound) + "\\.(\\w+))\\s*\\(", bytePattern());
      for (std::size_t i = imp.line + 1; i < f.lines.size(); ++i) {
        const Line& l = f.lines[i];
        if (l.text.find(imp.bound + ".") == std::string::npos) continue;
        forEachMatch(call, l.text, [&](const auto& m) {
          const std::size_t b = l.begin + l.indent + static_cast<std::size_t>(m[2].data() - l.text.data());
          auto f2 = rules.make(
              kExtensionCall, f.path,
              index.range(static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b + m[2].size())),
              str(m[2]), {}, {{"value", module}});
          if (!f2) return;
          f2->details = {
              {"module", module}, {"function", str(m[3])}, {"declared_in", glue.declared().at(module)}};
          sink.report(std::move(*f2));
        });
      }
    }
    if (npu_path) continue;
    // autograd Functions reaching an extension only through other modules.
    static const RE2 kFunctionBase(
        R"((^|[^\w])(torch\.autograd\.|autograd\.)?(Function|InplaceFunction)\s*$)", bytePattern());
    for (const Block& cls : f.classes) {
      std::string bases = cls.bases;
      const auto comma = bases.find(',');
      if (comma != std::string::npos) bases.resize(comma);
      if (!RE2::PartialMatch(bases, kFunctionBase)) continue;
      if (bases.find("autograd") == std::string::npos &&
          f.text.find("from torch.autograd import") == std::string::npos &&
          f.text.find("from torch.autograd.function import") == std::string::npos)
        continue;
      bool visible = false;
      std::string via;
      glue.reasons(f, cls.line + 1, cls.body_end, visible, via);
      if (visible || via.empty()) continue;
      const auto b = static_cast<std::uint32_t>(cls.name_begin);
      auto fn = rules.make(kAutogradFunction, f.path,
                           index.range(b, b + static_cast<std::uint32_t>(cls.name.size())), cls.name, {},
                           {{"value", clip("calls " + via, 240)}, {"class", cls.name}});
      if (!fn) continue;
      fn->details = {
          {"class", cls.name}, {"via", via}, {"evidence", "helper of another module of the repository"}};
      sink.report(std::move(*fn));
    }
  }
}

}  // namespace custom_ops

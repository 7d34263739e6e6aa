// Python glue to compiled extensions that only facts spanning files reveal (issue 16), found by one
// repository pass over the Python files' text:
// - OPS-028 / OPS-038: imports of, and calls into, an extension module whose name only a build
//   script declares (`CUDAExtension(name="fused_rotary_positional_embedding", ...)`); modules named
//   by the conventions (`*_cuda`, `_C`, `amp_C`) are the module pass's.
// - OPS-027: torch.autograd.Function subclasses whose passes reach a compiled extension only through
//   helpers of other modules of the repository (`from pkg.cpp_functions import conv_fwd`, with
//   re-exports through a package's __init__ and helpers calling helpers), which the per-file pass
//   cannot see. Classes whose body shows the module pass a kernel of its own are left to it.
// - OPS-018 / OPS-038: calls, from other modules, of a function that JIT-builds a CUDA extension,
//   and calls into what it returns (jit_builders.cpp, from the same scan and summaries).
// The per-file analysis stays a function of one file (its cache key is the file's content); what
// depends on other files is computed here once per run, and cached with the files it read. What
// the pass takes of each file (the scan for build scripts and extension imports, then the summary
// of imports and blocks: glue_summary.hpp) is a per-file memo (WorkspaceView::remember), so that
// one changed file costs one file's reading; only the propagation over the summaries runs again.

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "extension_declarations.hpp"
#include "glue_summary.hpp"
#include "jit_builders.hpp"
#include "migrate/sdk/text_position.hpp"
#include "python_scan.hpp"

namespace custom_ops {
namespace {
using namespace glue;

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
  std::string_view text;  ///< code only, indentation removed (a view into Text::code)
};

/// A file's text while it is read: the passes keep only the summaries below, never the text, so
/// memory stays that of one file plus the summaries however large the repository.
struct Text {
  std::string text;
  std::string code;  ///< the text with comments and strings blanked; lines view into it
  std::vector<Line> lines;
};

Text split(std::string text) {
  Text t;
  t.text = std::move(text);
  t.code = codeOnly(t.text);
  const std::string_view code = t.code;
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
    t.lines.push_back(l);
    if (end == code.size()) break;
    at = end + 1;
  }
  return t;
}

// The scans are loops and RE2 (byte_regex.hpp): a hostile line of megabytes cannot overflow the stack.

bool word(char c) {  // RE2's \w
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool space(char c) {  // RE2's \s
  return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n';
}

/// Adds what lines [from, to) use of `names` (calls of them, attributes read on them). A name
/// starts where the character before is neither a word character nor a dot (as `(^|[^\w.])name`
/// would), so `x.name(` is not a call of `name`.
void readUses(const Text& t, std::size_t from, std::size_t to, const std::set<std::string_view>& names,
              Uses& uses) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (std::size_t n = from; n < to && n < t.lines.size(); ++n) {
    const std::string_view s = t.lines[n].text;
    if (s.find("](") != std::string_view::npos || s.find("torch.ops.") != std::string_view::npos)
      uses.launch = true;
    std::size_t i = 0;
    while (i < s.size()) {
      if (!word(s[i]) || (i > 0 && (word(s[i - 1]) || s[i - 1] == '.'))) {
        ++i;
        continue;
      }
      std::size_t e = i;
      while (e < s.size() && word(s[e])) ++e;
      std::size_t k = e;
      while (k < s.size() && space(s[k])) ++k;
      if (k < s.size() && s[k] == '(' && names.count(s.substr(i, e - i)))
        uses.calls.emplace(s.substr(i, e - i));
      // The chain a.b.c: each prefix with the attribute after it.
      while (e + 1 < s.size() && s[e] == '.' && word(s[e + 1])) {
        std::size_t a = e + 1;
        while (a < s.size() && word(s[a])) ++a;
        const std::string_view prefix = s.substr(i, e - i);
        const std::string_view attribute = s.substr(e + 1, a - e - 1);
        if (names.count(prefix) && seen.emplace(prefix, attribute).second)
          uses.attributes.emplace_back(prefix, attribute);
        e = a;
      }
      i = e;
    }
  }
}

/// `name(` as a call of a plain name (not an attribute) in the block.
bool callsName(const Uses& uses, const std::string& name) {
  return uses.calls.count(name) > 0;
}

/// `alias.attr(` / `alias.attr` uses in the block: the attribute names, first sightings in order.
std::vector<std::string> attributesOf(const Uses& uses, const std::string& alias) {
  std::vector<std::string> out;
  for (const auto& [prefix, attribute] : uses.attributes)
    if (prefix == alias) out.push_back(attribute);
  return out;
}

/// `class X(torch.autograd.Function)` (or `Function` / `InplaceFunction` imported from torch.autograd).
bool autogradFunction(std::string bases, bool autograd_import) {
  static const RE2 kFunctionBase(R"((^|[^\w])(torch\.autograd\.|autograd\.)?(Function|InplaceFunction)\s*$)",
                                 bytePattern());
  const auto comma = bases.find(',');
  if (comma != std::string::npos) bases.resize(comma);
  return RE2::PartialMatch(bases, kFunctionBase) &&
         (autograd_import || bases.find("autograd") != std::string::npos);
}

/// Reads the imports, the top-level functions and the autograd Function classes of a file, with
/// what the bodies use.
void parse(const Text& t, PyFile& f) {
  f.imports.clear();
  f.functions.clear();
  f.classes.clear();
  f.autograd_import = t.text.find("from torch.autograd import") != std::string::npos ||
                      t.text.find("from torch.autograd.function import") != std::string::npos;
  const std::vector<Line>& lines = t.lines;
  auto bodyEnd = [&](std::size_t header) {
    const std::size_t indent = lines[header].indent;
    std::size_t i = header + 1;
    // The header may continue over several lines (parameters): skip to the line ending in ':'.
    std::size_t h = header;
    while (h < lines.size() && (lines[h].text.empty() || lines[h].text.back() != ':') && h < header + 30) ++h;
    i = h + 1;
    for (; i < lines.size(); ++i)
      if (!lines[i].text.empty() && lines[i].indent <= indent) break;
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
  static const RE2 kAssign(R"(^([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=])", bytePattern());
  // Names bound by `import lib` of a kernel library, and the top-level assignments that read one
  // (`backend = grouped_gemm.backend if ok else None`): blocks of their own, so that a module
  // re-binding a library's ops exports the name (`gg.backend.gmm(…)` elsewhere reaches it).
  std::set<std::string> library_names;
  std::vector<std::size_t> assignments;  // indices in f.functions
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.text.empty()) continue;
    if (!library_names.empty() && l.indent == 0) {
      re2::StringPiece name;
      if (RE2::PartialMatch(l.text, kAssign, &name) &&
          std::any_of(library_names.begin(), library_names.end(),
                      [&](const std::string& n) { return l.text.find(n + ".") != std::string::npos; })) {
        assignments.push_back(f.functions.size());
        f.functions.push_back(
            {str(name), i, l.begin + static_cast<std::size_t>(name.data() - l.text.data()), i + 1, {}});
        continue;
      }
    }
    const char c0 = l.text[0];
    if (c0 != 'i' && c0 != 'f' && c0 != 'd' && c0 != 'a' && c0 != 'c') continue;
    re2::StringPiece m1, m2;
    if (startsWith(l.text, "import ") && RE2::FullMatch(l.text, kImport, &m1)) {
      std::string list = str(m1);
      std::size_t p = 0;
      while (p <= list.size()) {
        std::size_t comma = list.find(',', p);
        if (comma == std::string::npos) comma = list.size();
        re2::StringPiece a1, a2;
        const std::string part = list.substr(p, comma - p);
        if (RE2::FullMatch(part, kAlias, &a1, &a2)) {
          f.imports.push_back({i, str(a1), "", a2.data() ? str(a2) : str(a1), false});
          if (kernelLibrary(f.imports.back().module)) library_names.insert(f.imports.back().bound);
        }
        p = comma + 1;
      }
    } else if (startsWith(l.text, "from ") && RE2::FullMatch(l.text, kFrom, &m1, &m2)) {
      const std::string module = absolute(str(m1));
      std::string names = str(m2);
      if (names.find('(') != std::string::npos) {
        for (std::size_t k = i + 1; names.find(')') == std::string::npos && k < lines.size() && k < i + 200;
             ++k)
          names.append(" ").append(lines[k].text);
        names.erase(std::remove(names.begin(), names.end(), '('), names.end());
        names.erase(std::remove(names.begin(), names.end(), ')'), names.end());
      } else if (!names.empty() && names.back() == '\\') {
        names.pop_back();
        if (i + 1 < lines.size()) names.append(" ").append(lines[i + 1].text);
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
          {str(m1), i, l.begin + static_cast<std::size_t>(m1.data() - l.text.data()), bodyEnd(i), {}});
    }
    if (startsWith(l.text, "class ") && RE2::PartialMatch(l.text, kClass, &m1, &m2) &&
        autogradFunction(str(m2), f.autograd_import)) {
      f.classes.push_back({str(m1),
                           i,
                           l.begin + l.indent + static_cast<std::size_t>(m1.data() - l.text.data()),
                           bodyEnd(i),
                           {}});
    }
  }
  // The glue asks a block only about the names this file imports and its own top-level
  // functions: only those are kept.
  std::set<std::string_view> names;
  for (const Import& imp : f.imports) names.insert(imp.bound);
  for (const Block& fn : f.functions) names.insert(fn.name);
  for (std::size_t k = 0; k < f.functions.size(); ++k) {
    Block& fn = f.functions[k];
    const bool assignment = std::find(assignments.begin(), assignments.end(), k) != assignments.end();
    readUses(t, assignment ? fn.line : fn.line + 1, fn.body_end, names, fn.uses);
  }
  for (Block& cls : f.classes) readUses(t, cls.line + 1, cls.body_end, names, cls.uses);
  // A function that uses none of them can reach no extension.
  std::erase_if(f.functions, [](const Block& fn) {
    return fn.uses.calls.empty() && fn.uses.attributes.empty() && !fn.uses.launch;
  });
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
      // `import grouped_gemm`: a kernel library's ops reached through its module (usedImports).
      if (startsWith(line, "import ") && kernelLibrary(word)) return true;
    }
  }
  return false;
}

class Glue {
 public:
  Glue(std::vector<PyFile>& files, std::map<std::string, std::string> declared)
      : files_(files), declared_(std::move(declared)) {
    for (std::size_t i = 0; i < files_.size(); ++i) by_module_[files_[i].dotted] = i;
    // A name that is a module of the repository is not a compiled extension.
    for (auto it = declared_.begin(); it != declared_.end();)
      it = by_module_.count(it->first) ? declared_.erase(it) : std::next(it);
    auto file = [&](const std::string& module) {
      const auto it = by_module_.find(module);
      return it == by_module_.end() ? kNone : it->second;
    };
    for (PyFile& f : files_)
      for (Import& imp : f.imports) {
        imp.target_file = file(imp.name.empty() ? imp.module : imp.module + "." + imp.name);
        imp.from_file = file(imp.module);
      }
    resolveReexports();
    for (PyFile& f : files_) {
      for (Block& b : f.functions) b.used = usedImports(f, b.uses);
      for (Block& b : f.classes) b.used = usedImports(f, b.uses);
    }
  }

  /// The module or name an import binds: the extension a re-export stands for, else what it names.
  static std::string targetOf(const Import& imp) {
    if (!imp.reexported.empty()) return imp.reexported;
    return imp.name.empty() ? imp.module : imp.module + "." + imp.name;
  }

  /// The build script declaring `module`, or one of the packages holding it (the submodules of
  /// a compiled package are compiled: `spconv.core_cc.csrc.sparse.all` of `spconv/core_cc`);
  /// nullptr when none does.
  const std::string* declaredIn(const std::string& module) const {
    for (std::string m = module;;) {
      if (by_module_.count(m)) return nullptr;  // a Python module of the repository
      if (const auto it = declared_.find(m); it != declared_.end()) return &it->second;
      const std::size_t dot = m.rfind('.');
      if (dot == std::string::npos) return nullptr;
      m.resize(dot);
    }
  }
  /// `exactly`: declared under this very name, not as a module inside a declared package.
  bool declaredOnly(const std::string& module, bool exactly = false) const {
    return (exactly ? declared_.count(module) > 0 : declaredIn(module) != nullptr) &&
           !looksLikeExtension(module);
  }
  bool extension(const std::string& module) const { return declaredIn(module) || looksLikeExtension(module); }
  /// looksLikeExtensionModule, remembered per name: propagate() asks it for every import of
  /// every block in every round, and it was most of the glue pass's time.
  bool looksLikeExtension(const std::string& module) const {
    const auto it = looks_like_extension_.find(module);
    if (it != looks_like_extension_.end()) return it->second;
    return looks_like_extension_.emplace(module, looksLikeExtensionModule(module)).first->second;
  }
  /// The packages sub-folder build scripts compile an extension into (kPackageDeclared), with the
  /// script; a package that is a module of the repository is its own source, not an installed copy.
  void setInstalledPackages(std::map<std::string, std::string> packages) {
    for (auto& [name, script] : packages)
      if (!by_module_.count(name)) installed_.emplace(name, std::move(script));
  }
  /// The installed package `imp` loads (`from texture_baker import TextureBaker`, whose package
  /// imports its compiled `_C`), or "": not for the files of the package's own folder.
  std::string installedPackage(const PyFile& f, const Import& imp) const {
    if (imp.star) return {};
    const auto it = installed_.find(imp.module.substr(0, imp.module.find('.')));
    if (it == installed_.end()) return {};
    const std::string folder = it->second.substr(0, it->second.rfind('/') + 1);
    return startsWith(f.path, folder) ? std::string() : it->first;
  }
  const std::string& installedFrom(const std::string& package) const { return installed_.at(package); }

  /// `from .jit_compiler import tutel_custom_kernel` where jit_compiler.py does `import
  /// tutel_custom_kernel` (a declared extension): the name is that extension here too, also through
  /// chains of such re-exports (a package's __init__).
  void resolveReexports() {
    for (int round = 0; round < 4; ++round) {
      bool changed = false;
      for (PyFile& f : files_)
        for (Import& imp : f.imports) {
          if (imp.star || imp.name.empty() || !imp.reexported.empty() || imp.target_file != kNone ||
              imp.from_file == kNone || &files_[imp.from_file] == &f)
            continue;
          for (const Import& other : files_[imp.from_file].imports) {
            if (other.star || other.bound != imp.name) continue;
            const std::string target = targetOf(other);
            if (other.reexported.empty() && !extension(target)) continue;
            imp.reexported = target;
            changed = true;
          }
        }
      if (!changed) break;
    }
  }

  /// True when some file imports a compiled extension: only then is there glue to follow.
  bool anyExtensionImport() const {
    for (const PyFile& f : files_)
      for (const Import& imp : f.imports)
        if (!installedPackage(f, imp).empty()) return true;
    for (const PyFile& f : files_)
      for (const Import& imp : f.imports)
        if (!imp.star &&
            (extension(imp.name.empty() ? imp.module : imp.module + "." + imp.name) ||
             (!imp.name.empty() && extension(imp.module)) || (imp.name.empty() && kernelLibrary(imp.module))))
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

  /// The imports of `f` a block with `uses` uses in a way that can reach an extension, in import
  /// order. Every way starts from a use of an import's bound name in the block.
  std::vector<UsedImport> usedImports(const PyFile& f, const Uses& uses) const {
    using Way = UsedImport::Way;
    std::vector<UsedImport> used;
    for (std::size_t i = 0; i < f.imports.size(); ++i) {
      const Import& imp = f.imports[i];
      if (imp.star) continue;
      const bool called = callsName(uses, imp.bound);
      std::vector<std::string> attrs = attributesOf(uses, imp.bound);
      if (!called && attrs.empty()) continue;
      auto add = [&](Way way, std::string note = {}) { used.push_back({i, way, std::move(note), {}}); };
      const std::string target = targetOf(imp);
      if (extension(target) && !attrs.empty()) {  // an extension module: alias.fn(...)
        if (looksLikeExtension(target))
          add(Way::Kernel);
        else
          add(Way::Declared,
              imp.bound + "." + attrs.front() + " (" + target + ", declared in " + *declaredIn(target) + ")");
        continue;
      }
      if (!imp.name.empty() && imp.reexported.empty() && extension(imp.module)) {  // from ext import fn
        if (!called) continue;
        if (looksLikeExtension(imp.module))
          add(Way::Kernel);
        else
          add(Way::Declared, imp.bound + " (" + imp.module + ")");
        continue;
      }
      if (extension(target)) continue;
      // The module pass takes these as kernels (not a kernel library's own modules inside it).
      const bool own_library =
          imp.module.substr(0, imp.module.find('.')) == f.dotted.substr(0, f.dotted.find('.'));
      if (!imp.name.empty() && (kernelishModule(imp.module) || (kernelLibrary(imp.module) && !own_library))) {
        if (called) add(Way::Kernel);
        continue;
      }
      // `import grouped_gemm` … `grouped_gemm.backend.gmm(…)`: the library's ops through its module.
      if (imp.name.empty() && kernelLibrary(imp.module) && !own_library) {
        if (!attrs.empty()) add(Way::Kernel);
        continue;
      }
      // A module of the repository: `import pkg.impl as m` / `from pkg import impl`, then m.helper().
      if (imp.target_file != kNone) {
        if (&files_[imp.target_file] == &f) continue;
        used.push_back({i, Way::Module, target, std::move(attrs)});
        continue;
      }
      // A helper of another module: `from pkg.impl import helper`.
      if (!called || imp.name.empty() || imp.from_file == kNone || &files_[imp.from_file] == &f) continue;
      add(Way::Helper);
    }
    return used;
  }

  /// Why block `block` of `f` reaches an extension: `visible` when the module pass sees a kernel
  /// there itself; `via` names the first way that goes through another file (or a build script).
  void reasons(const PyFile& f, const Block& block, bool& visible, std::string& via) const {
    auto note = [&](const std::string& why) {
      if (via.empty()) via = why;
    };
    for (const UsedImport& u : block.used) {
      const Import& imp = f.imports[u.import];
      switch (u.way) {
        case UsedImport::Way::Kernel:
          visible = true;
          break;
        case UsedImport::Way::Declared:
          note(u.note);
          break;
        case UsedImport::Way::Module:
          for (const std::string& a : u.attributes)
            if (files_[imp.target_file].exports.count(a)) note(imp.bound + "." + a + "() (" + u.note + ")");
          break;
        case UsedImport::Way::Helper:
          if (files_[imp.from_file].exports.count(imp.name)) note(imp.bound + "() (" + imp.module + ")");
          break;
      }
    }
    // The file's helpers the block calls, in name order (both sets are sorted).
    for (const std::string& name : block.uses.calls) {
      const auto helper = f.helpers.find(name);
      if (helper == f.helpers.end()) continue;
      if (!helper->second)
        visible = true;
      else
        note(name + "()");
    }
    if (block.uses.launch) visible = true;
  }

 private:
  bool update(PyFile& f) {
    bool changed = false;
    for (const Block& fn : f.functions) {
      bool visible = false;
      std::string via;
      reasons(f, fn, visible, via);
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
      if (imp.from_file == kNone || &files_[imp.from_file] == &f) continue;
      const std::set<std::string>& exported = files_[imp.from_file].exports;
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
  std::map<std::string, std::string> installed_;  ///< installed package → its build script
  std::map<std::string, std::size_t> by_module_;
  /// looksLikeExtension's answers (the pass runs on one thread).
  mutable std::unordered_map<std::string, bool> looks_like_extension_;
};

/// The module a non-star import binds when only a build script declares it ("" when none).
std::string declaredModule(const Glue& glue, const Import& imp) {
  if (imp.star) return "";
  if (!imp.reexported.empty()) return glue.declaredOnly(imp.reexported, true) ? imp.reexported : "";
  const std::string target = imp.name.empty() ? imp.module : imp.module + "." + imp.name;
  // A name a build declares itself first (`from structured_kernels import fn` is a function of the
  // declared module), then a name inside a declared package (`from pkg.core_cc.x import Ops`).
  for (const std::string& m : {target, imp.module})
    if (glue.declaredOnly(m, true)) return m;
  return glue.declaredOnly(target) ? target : "";
}

/// The autograd Functions of `f` that reach an extension only through other modules, with the way.
std::vector<std::pair<const Block*, std::string>> gluedFunctions(const Glue& glue, const PyFile& f) {
  std::vector<std::pair<const Block*, std::string>> out;
  for (const Block& cls : f.classes) {
    bool visible = false;
    std::string via;
    glue.reasons(f, cls, visible, via);
    if (!visible && !via.empty()) out.emplace_back(&cls, std::move(via));
  }
  return out;
}

/// True when line `at` is in the body of an `if`/`elif` that tests for a CUDA device
/// (`x.device.type == "cuda"`, `x.is_cuda`) and that has an `elif`/`else` after it, or ends in a
/// return: other devices, the NPU among them, take the other path, so the body's kernel calls are
/// not theirs.
bool inCudaBranchWithElse(const Text& t, std::size_t at) {
  const std::size_t indent = t.lines[at].indent;
  std::size_t header = at;
  while (header-- > 0)
    if (!t.lines[header].text.empty() && t.lines[header].indent < indent) break;
  if (header >= at) return false;
  const Line& h = t.lines[header];
  if (!startsWith(h.text, "if ") && !startsWith(h.text, "elif ")) return false;
  static const RE2 kCudaTest(R"(==\s*["']cuda["']|\.is_cuda\b)", bytePattern());
  const std::string_view raw = std::string_view(t.text).substr(h.begin + h.indent, h.text.size());
  if (!RE2::PartialMatch(raw, kCudaTest)) return false;
  // An elif/else after the body, or code after a body that returns (`if cuda: return k(x)` then
  // the portable path).
  std::size_t last = at;
  for (std::size_t j = at + 1; j < t.lines.size(); ++j) {
    const Line& l = t.lines[j];
    if (l.text.empty()) continue;
    if (l.indent > h.indent) {
      if (l.indent == indent) last = j;
      continue;
    }
    if (l.indent < h.indent) return false;
    return startsWith(l.text, "elif") || startsWith(l.text, "else") ||
           startsWith(t.lines[last].text, "return") || startsWith(t.lines[last].text, "raise");
  }
  return false;
}

/// Reports what the glue found in one file, reading its text again only when there is something.
void report(const sdk::WorkspaceView& workspace, const Glue& glue, const PyFile& f, const Rules& rules,
            const Options& options, sdk::FindingSink& sink) {
  const bool npu_path = !options.include_npu_paths &&
                        (inNpuDir(f.path) || npuSpecificFile(f.path) || inOtherVendorBackend(f.path));
  const auto classes = npu_path ? decltype(gluedFunctions(glue, f)){} : gluedFunctions(glue, f);
  const bool imports = std::any_of(f.imports.begin(), f.imports.end(), [&](const Import& imp) {
    return !declaredModule(glue, imp).empty() || !glue.installedPackage(f, imp).empty();
  });
  if (classes.empty() && !imports) return;
  auto read = workspace.read(f.path);
  if (!read) return;
  const Text t = split(std::move(*read));
  const sdk::LineIndex index(t.text);
  auto lineRange = [&](std::size_t line) {
    const Line& l = t.lines.at(line);
    return index.range(static_cast<std::uint32_t>(l.begin + l.indent),
                       static_cast<std::uint32_t>(l.begin + l.indent + l.text.size()));
  };
  // Imports of a package a sub-folder's script compiles an extension into: its Python API (the
  // calls through it are the package's own, not the extension's, so they are not followed).
  for (const Import& imp : f.imports) {
    const std::string package = glue.installedPackage(f, imp);
    if (package.empty() || !declaredModule(glue, imp).empty() || imp.line >= t.lines.size()) continue;
    const std::string what = package + " (the package " + glue.installedFrom(package) + " compiles it into)";
    auto f1 = rules.make(kExtensionImport, f.path, lineRange(imp.line), package, package, {{"value", what}});
    if (f1) {
      f1->details = {
          {"module", package}, {"bound_as", imp.bound}, {"declared_in", glue.installedFrom(package)}};
      sink.report(std::move(*f1));
    }
  }
  // Imports of, and calls into, extension modules only a build script names.
  for (const Import& imp : f.imports) {
    const std::string module = declaredModule(glue, imp);
    if (module.empty() || imp.line >= t.lines.size()) continue;
    // A re-export's import is reported where the extension is imported; here only its calls.
    auto f1 = imp.reexported.empty() ? rules.make(kExtensionImport, f.path, lineRange(imp.line), module,
                                                  module, {{"value", module}})
                                     : std::nullopt;
    if (f1) {
      f1->details = {{"module", module}, {"bound_as", imp.bound}, {"declared_in", *glue.declaredIn(module)}};
      sink.report(std::move(*f1));
    }
    if (npu_path) continue;
    // `from structured_kernels import cauchy_mult_fwd`: the imported function is called by name.
    const bool function_import = !imp.name.empty() && imp.module == module;
    if (!function_import && module != Glue::targetOf(imp)) continue;
    // The names the module goes by: its import's, and plain aliases of it (`ext_c = exllamav2_ext`).
    std::vector<std::string> names{imp.bound};
    const RE2 alias("^(\\w+)\\s*=\\s*" + RE2::QuoteMeta(imp.bound) + "\\s*$", bytePattern());
    for (std::size_t i = imp.line + 1; i < t.lines.size(); ++i)
      if (std::string name; RE2::FullMatch(t.lines[i].text, alias, &name) && name != imp.bound)
        names.push_back(name);
    std::string quoted;
    for (const std::string& n : names) {
      if (!quoted.empty()) quoted += '|';
      quoted += RE2::QuoteMeta(n);
    }
    // `ext.fn(`, or `fn(` for an imported function (not its `def`); also `ext.fn` taken as a value
    // (`forward_fn = ext.forward_cpu if … else ext.forward_gpu`), called later through the name.
    const RE2 call(function_import ? "(^|[^\\w.])((" + quoted + "))\\s*\\("
                                   : "(^|[^\\w.])((?:" + quoted + ")\\.(\\w+))(\\s*[^\\s\\w]?)",
                   bytePattern());
    for (std::size_t i = imp.line + 1; i < t.lines.size(); ++i) {
      const Line& l = t.lines[i];
      if (std::none_of(names.begin(), names.end(), [&](const std::string& n) {
            return l.text.find(function_import ? n + "(" : n + ".") != std::string::npos;
          }))
        continue;
      if (inCudaBranchWithElse(t, i)) continue;
      forEachMatch(call, l.text, [&](const auto& m) {
        if (dualBuildCpuKernel(str(m[3]))) return;
        if (!function_import) {
          // What follows the name: a call, or a value read; not an attribute of it, a subscript, an
          // assignment to it, a dunder (`ext.__file__`) or an enum member (`RegionType.HYPER_CUBE`).
          const char next = m[4].empty() ? ' ' : m[4][m[4].size() - 1];
          const std::size_t after = static_cast<std::size_t>(m[4].data() - l.text.data()) + m[4].size();
          if (next == '.' || next == '[' ||
              (next == '=' && (after >= l.text.size() || l.text[after] != '=')) ||
              str(m[3]).rfind("__", 0) == 0 || (next != '(' && constantName(str(m[3]))))
            return;
        }
        static const RE2 kDef(R"(\bdef\s*$)", bytePattern());
        if (RE2::PartialMatch(l.text.substr(0, static_cast<std::size_t>(m[2].data() - l.text.data())), kDef))
          return;
        // On the function's name, as the module pass reports its calls: a call both passes see
        // (an extension loaded with load() and declared by setup.py) is one finding.
        const std::size_t b = l.begin + l.indent + static_cast<std::size_t>(m[3].data() - l.text.data());
        auto f2 = rules.make(
            kExtensionCall, f.path,
            index.range(static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b + m[3].size())),
            str(m[2]), {}, {{"value", module}});
        if (!f2) return;
        f2->details = {
            {"module", module}, {"function", str(m[3])}, {"declared_in", *glue.declaredIn(module)}};
        sink.report(std::move(*f2));
      });
    }
  }
  for (const auto& [cls, via] : classes) {
    const auto b = static_cast<std::uint32_t>(cls->name_begin);
    auto fn = rules.make(kAutogradFunction, f.path,
                         index.range(b, b + static_cast<std::uint32_t>(cls->name.size())), cls->name, {},
                         {{"value", clip("calls " + via, 240)}, {"class", cls->name}});
    if (!fn) continue;
    fn->details = {
        {"class", cls->name}, {"via", via}, {"evidence", "helper of another module of the repository"}};
    sink.report(std::move(*fn));
  }
}

/// The first look at a file's text (see Scan).
Scan scanText(const std::string& path, std::string_view text) {
  const std::map<std::string, std::string> declared = declaredModules(path, text);
  Scan scan;
  for (auto& [name, _] : declared) scan.declared.push_back(name);
  scan.may_import = mayImportExtension(text);
  scan.builders = jitBuilders(text);
  return scan;
}

}  // namespace

void analyzeExtensionGlue(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink) {
  if (!rules.get(kAutogradFunction) && !rules.get(kExtensionImport)) return;
  // The files are read one at a time, up to twice, and only summaries are kept: holding
  // every file's text at once cost hundreds of megabytes on large repositories. A file whose
  // memo a run kept is not read at all.
  std::vector<PyFile> files;
  std::vector<Scan> scans;
  std::vector<char> summarised, fresh;  ///< per file: summary in hand; memo to (re)write
  std::map<std::string, std::string> declared;
  bool candidate = false;
  for (const auto& entry : workspace.files()) {
    if (entry.language != sdk::Language::Python || inSkippedDir(entry.path, options.skip_dirs)) continue;
    PyFile f;
    f.path = entry.path;
    f.dotted = dottedName(entry.path, f.package);
    Scan scan;
    bool summary = false;
    const auto memo = workspace.recall(entry.path, kMemoKind);
    const bool recalled = memo && decodeMemo(*memo, scan, f, summary);
    if (!recalled) {
      const auto text = workspace.read(entry.path);
      if (!text) continue;
      scan = scanText(entry.path, *text);
    }
    for (const std::string& name : scan.declared) declared.emplace(name, entry.path);
    candidate = candidate || scan.may_import;
    files.push_back(std::move(f));
    scans.push_back(std::move(scan));
    summarised.push_back(summary);
    fresh.push_back(!recalled);
  }
  auto rememberFresh = [&] {
    for (std::size_t i = 0; i < files.size(); ++i)
      if (fresh[i])
        workspace.remember(files[i].path, kMemoKind,
                           encodeMemo(scans[i], summarised[i] ? &files[i] : nullptr));
  };
  // CMake-built extensions are compiled CUDA when the repository's CMake builds CUDA.
  const CudaCMake cmake = readCudaCMake(workspace, options.skip_dirs);
  const auto first = declared.lower_bound(std::string(kCMakeDeclared));
  std::vector<std::pair<std::string, std::string>> cmake_builds;
  for (auto it = first; it != declared.end() && startsWith(it->first, std::string(kCMakeDeclared));) {
    if (cmake.any) declared.emplace(it->first.substr(kCMakeDeclared.size()), it->second);
    if (cmake.unconditional) cmake_builds.emplace_back(it->first.substr(kCMakeDeclared.size()), it->second);
    it = declared.erase(it);
  }
  reportCMakeExtensions(workspace, cmake_builds, rules, sink);
  std::map<std::string, std::string> installed;
  for (auto it = declared.lower_bound(std::string(kPackageDeclared));
       it != declared.end() && startsWith(it->first, std::string(kPackageDeclared));) {
    installed.emplace(it->first.substr(kPackageDeclared.size()), it->second);
    it = declared.erase(it);
  }
  const CudaBuilders builders = cudaBuilders(scans);
  // Most repositories have no compiled extension: stop before reading the files closely.
  if (!candidate && declared.empty() && installed.empty() && cmake.modules.empty() && builders.empty())
    return rememberFresh();
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (summarised[i]) continue;
    if (auto text = workspace.read(files[i].path)) {
      parse(split(std::move(*text)), files[i]);
      summarised[i] = fresh[i] = true;
    }
  }
  rememberFresh();
  // `import quest._kernels` with `project(_kernels LANGUAGES CUDA CXX)`: a module a CUDA CMake
  // file builds, imported by its last name.
  for (const PyFile& f : files)
    for (const Import& imp : f.imports) {
      if (imp.star || cmake.modules.empty()) continue;
      const std::string target = imp.name.empty() ? imp.module : imp.module + "." + imp.name;
      const auto built = cmake.modules.find(target.substr(target.rfind('.') + 1));
      if (built != cmake.modules.end()) declared.emplace(target, built->second);
    }
  Glue glue(files, declared);
  reportJitBuilderCalls(workspace, files, builders, rules, options, sink);
  glue.setInstalledPackages(std::move(installed));
  if (!glue.anyExtensionImport()) return;  // no compiled extension, no glue to it
  glue.propagate();
  for (const PyFile& f : files) report(workspace, glue, f, rules, options, sink);
}

}  // namespace custom_ops

// The machinery around CUDA extension builds in Python files (OPS-031, OPS-032, OPS-034, OPS-035)
// and calls into compiled extension modules (OPS-038). OPS-033 and OPS-036 are data rules; the
// .gitmodules and Dockerfile checks (OPS-037, OPS-039) are in repository_builds.cpp.

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/definitions.hpp"
#include "python_file.hpp"

namespace custom_ops {
namespace python {
namespace {

constexpr const char* kBuildImport = "OPS-031";
constexpr const char* kNvccFlags = "OPS-032";
constexpr const char* kNvccRun = "OPS-034";
constexpr const char* kCudaSources = "OPS-035";
constexpr const char* kExtensionCall = "OPS-038";

using plugin_support::stringEnd;

/// Statements (logical lines) of Python source as byte ranges [first non-blank, end of line):
/// brackets, strings (triple-quoted too), comments and backslash continuations respected.
std::vector<std::pair<std::uint32_t, std::uint32_t>> logicalLines(std::string_view s) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  std::size_t start = std::string_view::npos;
  int depth = 0;
  auto close = [&](std::size_t end) {
    if (start != std::string_view::npos)
      out.emplace_back(static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end));
    start = std::string_view::npos;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') {
      if (depth == 0) close(i);
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') continue;
    if (c == '#') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n' ? 2 : 1;
      continue;
    }
    if (start == std::string_view::npos) start = i;
    if (c == '"' || c == '\'') {
      i = stringEnd(s, i, true);
      if (i < s.size() && s[i] == '\n' && depth == 0) close(i);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
  }
  close(s.size());
  return out;
}

/// Byte offsets of the brackets open at `to`, scanning from `from` (a statement start, depth 0).
std::vector<std::uint32_t> openBrackets(std::string_view s, std::uint32_t from, std::uint32_t to) {
  std::vector<std::uint32_t> open;
  for (std::size_t i = from; i < to && i < s.size(); ++i) {
    const char c = s[i];
    if (c == '#') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      i = stringEnd(s, i, false);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') open.push_back(static_cast<std::uint32_t>(i));
    if ((c == ')' || c == ']' || c == '}') && !open.empty()) open.pop_back();
  }
  return open;
}

/// Byte offset of the first non-blank character of the line holding `at`.
std::uint32_t lineStart(std::string_view s, std::uint32_t at) {
  std::size_t b = s.rfind('\n', at == 0 ? 0 : at - 1);
  b = (b == std::string_view::npos || at == 0) ? 0 : b + 1;
  while (b < at && (s[b] == ' ' || s[b] == '\t')) ++b;
  return static_cast<std::uint32_t>(b);
}

/// Strings a program uses (not docstrings, not log/error messages).
bool codeString(const sdk::StringFact& s) {
  return s.context != sdk::StringContext::Docstring && s.context != sdk::StringContext::Message;
}

/// An nvcc-only flag, or a link flag naming a CUDA library (`-lcudart`, `-lcublas`, `-lnccl`): both
/// only mean something to a CUDA build.
bool isNvccFlag(const std::string& v) {
  if (v.empty() || (v[0] != '-' && !startsWith(v, "arch="))) return false;  // most strings: no regex
  static const RE2 kCudaLib(
      R"(^-l(?:cudart|cuda|cublas|cublasLt|curand|cusparse|cusolver|cufft|cudnn|nccl|nvrtc|nvToolsExt|nvjpeg|cupti)(?:_static)?$)",
      bytePattern());
  if (startsWith(v, "-l") && RE2::FullMatch(v, kCudaLib)) return true;
  static const RE2 kFlag(
      R"(^(?:-gencode|--generate-code|-arch=(?:sm|compute)_|--gpu-architecture|arch=compute_|--expt-relaxed-constexpr|--expt-extended-lambda|--extended-lambda|-U__CUDA_NO_|-D__CUDA_NO_|--use_fast_math|-use_fast_math|-Xptxas|--ptxas-options|-lineinfo$|-maxrregcount|-Xcompiler|-rdc=|--relocatable-device-code|-ccbin|--compiler-bindir))",
      bytePattern());
  return RE2::PartialMatch(v, kFlag);
}

/// Where `word` first stands as a whole word in `text` at or after `from` (the regex `\bWORD\b`
/// searched from `from`, which counts as a start of text), or npos.
std::size_t wholeWord(std::string_view text, std::size_t from, std::string_view word) {
  const auto inWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = text.find(word, from); i != std::string_view::npos; i = text.find(word, i + 1)) {
    const std::size_t end = i + word.size();
    if ((i == from || !inWord(text[i - 1])) && (end == text.size() || !inWord(text[end]))) return i;
  }
  return std::string_view::npos;
}

/// A path component naming HIP or ROCm sources (`hip_*`, `rocm`, `csrc/hip/`).
const RE2& hipPath() {
  static const RE2 kHip(R"((?i)(^|[/_.*-])(hip|rocm)([/_.*-]|$))", bytePattern());
  return kHip;
}

bool isCudaSourcePath(const std::string& v) {
  if (!(endsWith(v, ".cu") || endsWith(v, ".cuh"))) return false;
  // A bare extension (".cu", "*.cu" is a glob and counts) names a file type, not a source.
  return v != ".cu" && v != ".cuh" && v != "cu" && v != "cuh";
}

}  // namespace

std::string PythonFile::extensionAround(const sdk::SourceRange& r) const {
  static const std::set<std::string> kBuilders = {"torch.utils.cpp_extension.CUDAExtension",
                                                  "torch.utils.cpp_extension.CppExtension",
                                                  "torch.utils.cpp_extension.load",
                                                  "torch.utils.cpp_extension.load_inline",
                                                  "setuptools.Extension",
                                                  "setuptools.extension.Extension",
                                                  "distutils.core.Extension"};
  const CallFact* inner = nullptr;
  for (const auto& c : m_.calls())
    if (kBuilders.count(c.callee_resolved) && within(r, c.range) &&
        (!inner || c.range.start_byte > inner->range.start_byte))
      inner = &c;
  if (!inner) return {};
  const std::string name = argText(*inner, "name", 0);
  return name.find_first_of("\"'()[]{} ") == std::string::npos ? name : std::string();
}

void PythonFile::cudaBuildImports() {
  static const std::set<std::string> kNames = {"CUDAExtension", "CUDA_HOME"};
  for (const auto& imp : m_.imports()) {
    if (imp.module != "torch.utils.cpp_extension" || !kNames.count(imp.name)) continue;
    // The imported name's own line: `from … import (\n  CUDAExtension,\n  CUDA_HOME,\n)`.
    const std::string_view text = m_.text(imp.range);
    const std::size_t after = text.find(" import");
    sdk::SourceRange range = imp.range;
    if (const std::size_t at = wholeWord(text, after == std::string_view::npos ? 0 : after, imp.name);
        at != std::string_view::npos) {
      const auto b = static_cast<std::uint32_t>(imp.range.start_byte + at);
      range = lines_.range(b, b + static_cast<std::uint32_t>(imp.name.size()));
    }
    auto f = rules_.make(kBuildImport, std::string(m_.path()), range, imp.target, {},
                         {{"value", imp.name == "CUDA_HOME" ? "the CUDA toolkit path, None there"
                                                            : "an nvcc-built extension class"}});
    if (f) f->details = {{"name", imp.name}, {"bound_as", imp.bound}};
    report(std::move(f));
  }
}

namespace {

using ByteRanges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

void addList(std::string_view src, std::size_t open, ByteRanges& lists) {
  lists.emplace_back(static_cast<std::uint32_t>(open), static_cast<std::uint32_t>(closingBracket(src, open)));
}

std::size_t skipBlank(std::string_view src, std::size_t i) {
  while (i < src.size() && std::isspace(static_cast<unsigned char>(src[i]))) ++i;
  return i;
}

/// The value of a dict entry from `i` to the `,` or closing bracket that ends it (or, for an
/// assignment, to the end of its line at `limit`): the lists written at its top level, and the
/// names it reads (`nvcc_args if use_cuda else rocm_args`, `nvcc_args + [...]`). ROCm/HIP lists
/// are not nvcc's.
void entryValue(std::string_view src, std::size_t i, ByteRanges& lists, std::set<std::string>& names,
                std::size_t limit = std::string_view::npos) {
  static const std::set<std::string, std::less<>> kKeywords = {"if",  "else", "and", "or",
                                                               "not", "None", "in"};
  limit = std::min(limit, src.size());
  while (i < limit && src[i] != ',' && src[i] != '}' && src[i] != ')' && src[i] != ']') {
    const char c = src[i];
    if (c == '"' || c == '\'') {
      i = python::stringEnd(src, i, false) + 1;
    } else if (c == '[') {
      addList(src, i, lists);
      i = closingBracket(src, i) + 1;
    } else if (c == '(' || c == '{') {
      i = closingBracket(src, i) + 1;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t e = i;
      while (e < src.size() &&
             (std::isalnum(static_cast<unsigned char>(src[e])) || src[e] == '_' || src[e] == '.'))
        ++e;
      const std::string name(src.substr(i, e - i));
      const std::string low = lower(name);
      if (!kKeywords.count(name) && low.find("rocm") == std::string::npos &&
          low.find("hip") == std::string::npos)
        names.insert(name);
      i = e;
    } else {
      ++i;
    }
  }
}

}  // namespace

/// The byte ranges of the lists that reach nvcc: given to an "nvcc" or "extra_cuda_cflags" key
/// (`{"nvcc": ["-O3"]}`),
/// added to one (`args["nvcc"].extend([...])`, `.append`, `+=`), written as load()'s
/// `extra_cuda_cflags=[...]`, returned by a function named for nvcc (`def nvcc_flags(self)`), or bound
/// in the module to a name such a key reads (`nvcc_args = [...]` with `"nvcc": nvcc_args if
/// use_cuda else rocm_args`). Every string there is an nvcc flag, however common (`-O3`), since
/// only nvcc reads them.
std::vector<std::pair<std::uint32_t, std::uint32_t>> nvccKeyLists(
    std::string_view src, const std::vector<sdk::StringFact>& strings) {
  ByteRanges lists;
  std::set<std::string> names;
  for (const auto& s : strings) {
    // `"extra_cuda_cflags": [...]`: load()'s keyword as the key of a dict of its arguments
    // (`myargs = {…}` … `load(name, sources, **myargs)`).
    if ((s.value != "nvcc" && s.value != "extra_cuda_cflags") || !codeString(s)) continue;
    std::size_t i = s.range.end_byte;
    while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
    if (i < src.size() && src[i] == ':') {
      entryValue(src, skipBlank(src, i + 1), lists, names);
    } else if (i < src.size() && src[i] == ']') {
      // args["nvcc"].extend([...]) / .append(...) / += [...], and args["nvcc"] = flags
      i = skipBlank(src, i + 1);
      if (i + 1 < src.size() && src[i] == '=' && src[i + 1] != '=') {
        const std::size_t v = i + 1;
        entryValue(src, v, lists, names, src.find('\n', v));
        continue;
      }
      for (std::string_view op : {".extend(", ".append(", "+="})
        if (src.substr(i, op.size()) == op) {
          const std::size_t v = skipBlank(src, i + op.size());
          if (v < src.size() && src[v] == '[') addList(src, v, lists);
        }
    }
  }
  // load(..., extra_cuda_cflags=[...]): a list written as the keyword's value.
  static const RE2 kCudaCflags(R"([(,][ \t\r\n]*extra_cuda_cflags[ \t]*=[ \t]*\[)", bytePattern());
  plugin_support::forEachMatch(kCudaCflags, src, [&](const auto& m) {
    addList(src, static_cast<std::size_t>(m[0].data() - src.data()) + m[0].size() - 1, lists);
  });
  // What a function named for nvcc returns (`def nvcc_flags(self): return ["-DWITH_CUDA"]`): its
  // first list that holds a string; other returns are alternatives of the same list.
  static const RE2 kNvccDef(R"((?m)^([ \t]*)def[ \t]+\w*nvcc\w*[ \t]*\()", bytePattern());
  plugin_support::forEachMatch(kNvccDef, src, [&](const auto& m) {
    const std::size_t indent = m[1].size();
    std::size_t line = src.find('\n', static_cast<std::size_t>(m[0].data() - src.data()));
    while (line != std::string_view::npos && line + 1 < src.size()) {
      const std::size_t begin = line + 1;
      std::size_t i = begin;
      while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
      if (i < src.size() && src[i] != '\n' && src[i] != '#' && i - begin <= indent) break;  // body ends
      if (src.substr(i, 6) == "return") {
        const std::size_t v = skipBlank(src, i + 6);
        if (v < src.size() && src[v] == '[') {
          const std::size_t close = closingBracket(src, v);
          if (close != std::string_view::npos &&
              src.substr(v, close - v).find_first_of("\"'") != std::string_view::npos) {
            addList(src, v, lists);
            break;
          }
        }
      }
      line = src.find('\n', begin);
    }
  });
  for (const std::string& name : names) {
    if (name.find('.') != std::string::npos) continue;
    const RE2 assigned("(?m)^[ \\t]*" + RE2::QuoteMeta(name) + "[ \\t]*\\+?=[ \\t]*\\[", bytePattern());
    plugin_support::forEachMatch(assigned, src, [&](const auto& m) {
      addList(src, static_cast<std::size_t>(m[0].data() - src.data()) + m[0].size() - 1, lists);
    });
  }
  return lists;
}

namespace {

using Statements = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// The column of a statement's first character.
std::uint32_t columnOf(std::string_view src, std::uint32_t at) {
  const std::size_t nl = at == 0 ? std::string_view::npos : src.rfind('\n', at - 1);
  return static_cast<std::uint32_t>(at - (nl == std::string_view::npos ? 0 : nl + 1));
}

/// Where a flag list built over several statements is created: when statements `first`..`last`
/// add to a name (`flags += [...]`, `flags.append(...)`), the earliest statement above them in the
/// same block that binds it (`flags: List[str] = []`, `flags = os.getenv("NVCC_FLAGS", "")`), at
/// most ten statements up; else npos (the list is written where it is bound).
std::uint32_t listCreation(std::string_view src, const Statements& statements, std::size_t first,
                           std::size_t last) {
  static const RE2 kAdds(R"(^([A-Za-z_]\w*)\s*(?:\+=|\.(?:append|extend)\s*\())", bytePattern());
  static const RE2 kBinds(R"(^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=[^=])", bytePattern());
  std::string name;
  std::uint32_t column = UINT32_MAX;
  for (std::size_t st = first; st <= last; ++st) {
    const auto [b, e] = statements[st];
    std::string n;
    if (!RE2::PartialMatch(re2::StringPiece(src.data() + b, e - b), kAdds, &n)) continue;
    if (name.empty()) name = n;
    if (n == name) column = std::min(column, columnOf(src, b));
  }
  std::uint32_t start = UINT32_MAX;
  if (name.empty()) return start;
  for (std::size_t st = first, seen = 0; st-- > 0 && seen < 10; ++seen) {
    const auto [b, e] = statements[st];
    const std::uint32_t col = columnOf(src, b);
    if (col < column) break;  // the block ends above
    std::string n;
    if (col == column && RE2::PartialMatch(re2::StringPiece(src.data() + b, e - b), kBinds, &n) && n == name)
      start = b;
  }
  return start;
}

}  // namespace

void PythonFile::nvccFlagLists() {
  std::vector<const sdk::StringFact*> flags;
  const auto key_lists = nvccKeyLists(m_.source(), m_.strings());
  auto inKeyList = [&](const sdk::StringFact& s) {
    for (const auto& [open, close] : key_lists)
      if (s.range.start_byte > open && s.range.end_byte <= close) return true;
    return false;
  };
  // A flag a test reads (`if arg == "-ccbin":`, `arg.startswith("-ccbin=")`) is not passed: no list.
  auto tested = [](const sdk::StringFact& s) {
    return s.context == sdk::StringContext::Compare ||
           (s.method_on_value && (s.method == "startswith" || s.method == "endswith"));
  };
  for (const auto& s : m_.strings())
    if (codeString(s) && !tested(s) && (isNvccFlag(s.value) || (!s.value.empty() && inKeyList(s))))
      flags.push_back(&s);
  if (flags.empty()) return;
  const auto statements = logicalLines(m_.source());
  auto statementOf = [&](std::uint32_t byte) -> std::size_t {
    auto it = std::upper_bound(statements.begin(), statements.end(), byte,
                               [](std::uint32_t b, const auto& st) { return b < st.first; });
    return it == statements.begin() ? 0 : static_cast<std::size_t>(it - statements.begin() - 1);
  };
  // Statements holding flags, grouped while the next one starts within two lines of the last.
  struct Group {
    std::size_t first, last;
    std::vector<std::string> values;
  };
  std::vector<Group> groups;
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->range.start_byte < b->range.start_byte; });
  for (const auto* s : flags) {
    if (statements.empty()) break;
    const std::size_t st = statementOf(s->range.start_byte);
    if (!groups.empty()) {
      Group& g = groups.back();
      const auto last_end = lines_.position(statements[g.last].second).first;
      const auto this_start = lines_.position(statements[st].first).first;
      // An `else:` / `elif …:` between them, less indented, starts another branch: the lists are
      // alternatives (one per platform), not one list built up.
      const std::uint32_t inner = std::min(columnOf(m_.source(), statements[g.last].first),
                                           columnOf(m_.source(), statements[st].first));
      bool block_ends = false;
      for (std::size_t k = g.last + 1; k < st && !block_ends; ++k) {
        const std::string_view head = m_.source().substr(statements[k].first, 5);
        block_ends = columnOf(m_.source(), statements[k].first) < inner &&
                     (head.substr(0, 4) == "else" || head.substr(0, 4) == "elif");
      }
      if (st == g.last || (this_start <= last_end + 2 && !block_ends)) {
        g.last = std::max(g.last, st);
        if (std::find(g.values.begin(), g.values.end(), s->value) == g.values.end())
          g.values.push_back(s->value);
        continue;
      }
    }
    groups.push_back({st, st, {s->value}});
  }
  for (const Group& g : groups) {
    // From the line that opens the list holding the first flag (`nvcc_flags = [`,
    // `"nvcc": helper(` when the `[` stands alone on its line) to the last flag.
    const sdk::StringFact* first = nullptr;
    const sdk::StringFact* last = nullptr;
    for (const auto* f : flags)
      if (statementOf(f->range.start_byte) >= g.first && statementOf(f->range.start_byte) <= g.last) {
        if (!first) first = f;
        last = f;
      }
    const std::string_view src = m_.source();
    std::uint32_t start = statements[g.first].first;
    const auto open = openBrackets(src, start, first->range.start_byte);
    if (!open.empty()) {
      std::uint32_t bracket = open.back();
      if (open.size() >= 2 && lineStart(src, bracket) == bracket) {
        const std::size_t eol = src.find('\n', bracket);
        const std::string_view rest = src.substr(
            bracket + 1, eol == std::string_view::npos ? std::string_view::npos : eol - bracket - 1);
        if (rest.find_first_not_of(" \t\r") == std::string_view::npos) bracket = open[open.size() - 2];
      }
      start = lineStart(src, bracket);
      // `"nvcc": nvcc_args\n    + [...]`: the list continues the line above.
      const std::string_view before = src.substr(start, bracket - start);
      if (start > 0 && before.find('+') != std::string_view::npos &&
          before.find_first_not_of(" \t+") == std::string_view::npos)
        start = lineStart(src, start - 1);
    }
    // The first flag written straight into the addition (`flags += ["-O3"]`, `flags.append("-ccbin")`),
    // not nested in something appended (`exts.append(CUDAExtension(..., {"nvcc": [...]}))`).
    if (open.size() <= 1) start = std::min(start, listCreation(src, statements, g.first, g.last));
    const auto range = lines_.range(start, last->range.end_byte);
    std::vector<std::string> shown(g.values.begin(),
                                   g.values.begin() + std::min<std::size_t>(g.values.size(), 4));
    const std::string value = join(shown, " ") + (g.values.size() > 4 ? " …" : "");
    auto f = rules_.make(kNvccFlags, std::string(m_.path()), range, g.values.front(), {}, {{"value", value}});
    if (f) {
      f->details = {{"flags", clip(join(g.values, " "), 300)}};
      if (std::string ext = extensionAround(first->range); !ext.empty()) f->details["extension"] = ext;
    }
    report(std::move(f));
  }
}

void PythonFile::nvccRuns() {
  static const std::set<std::string> kRunners = {
      "subprocess.check_output",    "subprocess.run",   "subprocess.call",
      "subprocess.check_call",      "subprocess.Popen", "subprocess.getoutput",
      "subprocess.getstatusoutput", "os.system",        "os.popen"};
  for (const auto& c : m_.calls()) {
    if (!kRunners.count(c.callee_resolved)) continue;
    for (const auto& a : c.args) {
      if (!(a.index == 0 || a.keyword == "args" || a.keyword == "cmd")) continue;
      if (a.text.find("nvcc") == std::string::npos) continue;
      auto f = rules_.make(kNvccRun, std::string(m_.path()), a.range, c.callee_written, {},
                           {{"value", clip(collapseSpace(m_.text(a.range)), 80)}});
      if (f)
        f->details = {{"command", clip(collapseSpace(m_.text(a.range)), 200)}, {"runner", c.callee_resolved}};
      report(std::move(f));
      break;
    }
  }
}

void PythonFile::cudaSourceLists() {
  // A `.cu` path that a list drops (`sources.remove(…)`) or that sits under a HIP/ROCm directory
  // (`os.path.join(d, "hip_*", "*.cu")`: hipified sources) is no CUDA source of the build.
  auto notACudaSource = [&](const sdk::StringFact& s) {
    for (const auto& c : m_.calls()) {
      if (!within(s.range, c.range)) continue;
      if (c.method == "remove" || c.method == "discard") return true;
      for (const auto& a : c.args)
        if (a.kind == sdk::ValueKind::String && RE2::PartialMatch(a.text, hipPath())) return true;
    }
    return false;
  };
  std::vector<const sdk::StringFact*> sources;
  for (const auto& s : m_.strings())
    if (codeString(s) && isCudaSourcePath(s.value) && !notACudaSource(s)) sources.push_back(&s);
  std::sort(sources.begin(), sources.end(),
            [](const auto* a, const auto* b) { return a->range.start_byte < b->range.start_byte; });
  // Groups of sources on nearby lines (at most two lines apart): one extension's list.
  for (std::size_t i = 0; i < sources.size();) {
    std::size_t j = i + 1;
    while (j < sources.size() && sources[j]->range.line <= sources[j - 1]->range.end_line + 2) ++j;
    std::vector<std::string> values;
    for (std::size_t k = i; k < j; ++k) values.push_back(sources[k]->value);
    sdk::SourceRange range = sources[i]->range;
    range.end_line = sources[j - 1]->range.end_line;
    range.end_column = sources[j - 1]->range.end_column;
    range.end_byte = sources[j - 1]->range.end_byte;
    const std::string value = values.size() == 1
                                  ? values.front()
                                  : values.front() + " and " + std::to_string(values.size() - 1) + " more";
    auto f = rules_.make(kCudaSources, std::string(m_.path()), range, values.front(), {}, {{"value", value}});
    if (f) {
      f->details = {{"sources", clip(join(values, ", "), 300)}, {"count", std::to_string(values.size())}};
      if (std::string ext = extensionAround(sources[i]->range); !ext.empty()) f->details["extension"] = ext;
    }
    report(std::move(f));
    i = j;
  }
}

void PythonFile::extensionCalls() {
  if (extension_names_.empty() && extension_functions_.empty() && op_namespaces_.empty() &&
      extension_providers_.empty())
    return;
  auto rootOf = [](const std::string& chain) {
    const std::size_t dot = chain.find('.');
    return dot == std::string::npos ? std::string() : chain.substr(0, dot);
  };
  // The innermost function holding a call (nullptr at module level).
  auto scopeOf = [&](const sdk::SourceRange& r) {
    return plugin_support::innermostDefinition(m_, r, DefinitionFact::Kind::Function);
  };
  // Names bound to an object a call into the extension constructs (`m = QuantizedModel()`, a
  // class: capitalised), per function: its method calls run the extension's code too (`m.init(…)`,
  // `m.load(path)`). What a function returns (`out = ext.fused_act(x)`) is a tensor.
  std::map<std::pair<const DefinitionFact*, std::string>, std::string> instances;  // → module
  // Those handed in by an annotated parameter, and the attributes a class keeps them in.
  const ExtensionObjects objects = annotatedExtensionObjects();
  instances.insert(objects.parameters.begin(), objects.parameters.end());
  auto reportCall = [&](const CallFact& c, const std::string& module, std::string function) {
    if (dataTypeName(lastPart(c.callee_written))) return;  // `Config(…)`: settings, no kernel
    // `deform_conv_cpu.deform_conv_forward_cpu(…)`: a dual build's CPU kernel, no CUDA.
    if (dualBuildCpuKernel(lastPart(c.callee_written))) return;
    auto f = rules_.make(kExtensionCall, std::string(m_.path()), c.name_range, c.callee_written,
                         c.callee_resolved, {{"value", module}});
    if (f) f->details = {{"module", module}, {"function", std::move(function)}};
    report(std::move(f));
    const std::string called = lastPart(c.callee_written);
    if (!c.assigned_to.empty() && !called.empty() && std::isupper(static_cast<unsigned char>(called[0])))
      instances[{scopeOf(c.range), c.assigned_to}] = module;
  };
  // `cls.packbits = packbits_cpp.packbits_cpp` … `ResidualCodec.packbits(x)`, `self.packbits(x)`:
  // a kernel held as an attribute of a class is called through the class or its instances.
  std::map<std::string, std::string> class_held;  // attribute → module
  for (const auto& a : value_reads_) {
    const std::string ref = kernelReference(a);
    if (ref.empty()) continue;
    const std::string_view src = m_.source();
    const std::size_t bol = src.rfind('\n', a.range.start_byte) + 1;  // npos + 1 == 0
    const std::string_view line = src.substr(bol, src.find('\n', a.range.start_byte) - bol);
    static const RE2 kHeld(R"(^\s*(?:self|cls|[A-Z]\w*)\.(\w+)\s*=\s*([\w.]+)\s*$)", bytePattern());
    std::string attribute, value;
    if (RE2::FullMatch(line, kHeld, &attribute, &value) && value == ref)
      class_held.emplace(attribute, ref.substr(0, ref.find('.')));
  }
  for (const auto& c : m_.calls()) {
    const std::string& w = c.callee_written;
    // `_get_plugin().xfm_fwd(…)`: the extension a provider of this file builds and returns.
    if (const auto p = providerCall(c)) {
      reportCall(c, extension_providers_.at(p->provider), p->function);
      continue;
    }
    if (const std::size_t dot = w.find('.');
        !class_held.empty() && dot != std::string::npos && w.find('.', dot + 1) == std::string::npos) {
      const std::string receiver = w.substr(0, dot);
      const auto kernel = class_held.find(w.substr(dot + 1));
      if (kernel != class_held.end() && (receiver == "self" || receiver == "cls" ||
                                         std::isupper(static_cast<unsigned char>(receiver[0])))) {
        reportCall(c, kernel->second, kernel->first);
        continue;
      }
    }
    // torch.ops.NS.fn(…) / OP.fn(…) with OP = torch.ops.NS, NS built by a load() of this file.
    std::string ns;
    if (startsWith(w, "torch.ops.")) ns = rootOf(w.substr(10));
    if (const auto alias = op_namespace_names_.find(rootOf(w)); alias != op_namespace_names_.end())
      ns = alias->second;
    if (!ns.empty() && op_namespaces_.count(ns)) {
      auto f = rules_.make(kExtensionCall, std::string(m_.path()), c.name_range, w, c.callee_resolved,
                           {{"value", ns}});
      if (f) f->details = {{"module", ns}, {"function", lastPart(w)}, {"registered_as", "torch.ops." + ns}};
      report(std::move(f));
      continue;
    }
    // torch.library.register_autograd("NS::op", …) (register_fake, impl, …) for an op of NS: the
    // registration wraps the extension's CUDA kernel.
    if (startsWith(c.callee_resolved, "torch.library.") && !c.args.empty() && c.args.front().index == 0 &&
        c.args.front().kind == sdk::ValueKind::String) {
      const std::string& qualified = c.args.front().text;
      const std::size_t sep = qualified.find("::");
      if (sep != std::string::npos && op_namespaces_.count(qualified.substr(0, sep))) {
        const std::string op_ns = qualified.substr(0, sep);
        auto f = rules_.make(kExtensionCall, std::string(m_.path()), c.name_range, w, c.callee_resolved,
                             {{"value", op_ns}});
        if (f)
          f->details = {
              {"module", op_ns}, {"function", qualified.substr(sep + 2)}, {"registered_as", qualified}};
        report(std::move(f));
        continue;
      }
    }
    // A function imported from the extension by name (`conv1d_forward(x, w)`), or a submodule or
    // class imported by name and called through (`from ._C import ops` … `ops.gemm_w4a4(…)`).
    if (auto fn = extension_functions_.find(w); fn != extension_functions_.end()) {
      reportCall(c, fn->second, w);
      continue;
    }
    // `getattr(_C, name)(…)`: a function of the extension looked up by name.
    if (w == "getattr" && c.args.size() >= 2 && c.args[0].index == 0 &&
        c.args[0].kind == sdk::ValueKind::Name && extension_names_.count(c.args[0].text)) {
      reportCall(c, c.args[0].text, "getattr(" + c.args[0].text + ", " + c.args[1].text + ")");
      continue;
    }
    const std::string root = rootOf(w);
    if (auto held = extension_functions_.find(root); !root.empty() && held != extension_functions_.end()) {
      reportCall(c, held->second, w);
      continue;
    }
    // `self.m.forward(…)` where a method of the class stored an extension object in `self.m`.
    if (!objects.attributes.empty() && startsWith(w, "self.") && std::count(w.begin(), w.end(), '.') == 2) {
      const std::string attribute = w.substr(5, w.find('.', 5) - 5);
      if (auto held = objects.attributes.find(
              {plugin_support::innermostDefinition(m_, c.range, DefinitionFact::Kind::Class), attribute});
          held != objects.attributes.end()) {
        reportCall(c, held->second, w);
        continue;
      }
    }
    // `self.native_tcnn_module.fwd(…)`: an object an extension factory of the file made.
    if (const std::string module = factoryObjectCall(c); !module.empty()) {
      reportCall(c, module, w);
      continue;
    }
    // A method of what an extension call returned in the same function (`m.init(…)`; not a
    // method of one of its attributes, `m.data_.copy_(…)`, a tensor it holds).
    if (!root.empty() && !instances.empty() && w.find('.', root.size() + 1) == std::string::npos) {
      if (auto obj = instances.find({scopeOf(c.range), root}); obj != instances.end()) {
        reportCall(c, obj->second, w);
        continue;
      }
    }
    // Through an alias too (`ext_c = exllamav2_ext` … `ext_c.make_q_matrix(...)`): the resolved
    // name's root is the extension.
    std::string module = root;
    if (!extension_names_.count(module)) module = rootOf(c.callee_resolved);
    if (module.empty() || !extension_names_.count(module)) continue;
    reportCall(c, module, w.substr(w.find('.') + 1));
  }
  // `forward = spmm.spmm_forward_cuda` … `forward(x)`: the kernel taken where it is named.
  for (const auto& a : value_reads_) {
    const std::string ref = kernelReference(a);
    if (ref.empty()) continue;
    const std::string module = ref.substr(0, ref.find('.'));
    auto f = rules_.make(kExtensionCall, std::string(m_.path()), a.range, ref, {}, {{"value", module}});
    if (f) f->details = {{"module", module}, {"function", a.name}};
    report(std::move(f));
  }
}

}  // namespace python

}  // namespace custom_ops

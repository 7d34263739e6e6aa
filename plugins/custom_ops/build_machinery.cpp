// The machinery around CUDA extension builds in Python files (OPS-031, OPS-032, OPS-034, OPS-035),
// calls into compiled extension modules (OPS-038), CUDA library submodules in .gitmodules
// (OPS-037) and Dockerfile steps that build the extensions (OPS-039). OPS-033 and OPS-036 are
// data rules.

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
#include "python_file.hpp"

namespace custom_ops {
namespace python {
namespace {

constexpr const char* kBuildImport = "OPS-031";
constexpr const char* kNvccFlags = "OPS-032";
constexpr const char* kNvccRun = "OPS-034";
constexpr const char* kCudaSources = "OPS-035";
constexpr const char* kExtensionCall = "OPS-038";

/// Where the string literal opening at `i` ends: its last closing quote; for an unterminated
/// one-line string, its line's end when `stop_at_line_end`, else the end of `s`.
std::size_t stringEnd(std::string_view s, std::size_t i, bool stop_at_line_end) {
  const char quote = s[i];
  const bool triple = i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote;
  for (i += triple ? 3 : 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (stop_at_line_end && !triple && s[i] == '\n') break;
    if (s[i] == quote && (!triple || (i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote))) {
      if (triple) i += 2;
      break;
    }
  }
  return i;
}

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

/// The byte ranges of the lists that reach nvcc: given to an "nvcc" key (`{"nvcc": ["-O3"]}`),
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
    if (s.value != "nvcc" || !codeString(s)) continue;
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
  if (extension_names_.empty() && extension_functions_.empty() && op_namespaces_.empty()) return;
  auto rootOf = [](const std::string& chain) {
    const std::size_t dot = chain.find('.');
    return dot == std::string::npos ? std::string() : chain.substr(0, dot);
  };
  // The innermost function holding a call (nullptr at module level).
  auto scopeOf = [&](const sdk::SourceRange& r) -> const DefinitionFact* {
    const DefinitionFact* best = nullptr;
    for (const auto& d : m_.definitions())
      if (d.kind == DefinitionFact::Kind::Function && within(r, d.range) &&
          (!best || d.range.end_byte - d.range.start_byte < best->range.end_byte - best->range.start_byte))
        best = &d;
    return best;
  };
  // Names bound to an object a call into the extension constructs (`m = QuantizedModel()`, a
  // class: capitalised), per function: its method calls run the extension's code too (`m.init(…)`,
  // `m.load(path)`). What a function returns (`out = ext.fused_act(x)`) is a tensor.
  std::map<std::pair<const DefinitionFact*, std::string>, std::string> instances;  // → module
  auto reportCall = [&](const CallFact& c, const std::string& module, std::string function) {
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
  for (const auto& a : m_.attributes()) {
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
    const std::string root = rootOf(w);
    if (auto held = extension_functions_.find(root); !root.empty() && held != extension_functions_.end()) {
      reportCall(c, held->second, w);
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
  for (const auto& a : m_.attributes()) {
    const std::string ref = kernelReference(a);
    if (ref.empty()) continue;
    const std::string module = ref.substr(0, ref.find('.'));
    auto f = rules_.make(kExtensionCall, std::string(m_.path()), a.range, ref, {}, {{"value", module}});
    if (f) f->details = {{"module", module}, {"function", a.name}};
    report(std::move(f));
  }
}

}  // namespace python

std::size_t closingBracket(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = python::stringEnd(s, i, false);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return s.size();
}

namespace {

constexpr const char* kCudaSubmodule = "OPS-037";
constexpr const char* kDockerBuild = "OPS-039";

std::string baseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return path.substr(slash == std::string::npos ? 0 : slash + 1);
}

bool isDockerfile(const std::string& path) {
  const std::string name = baseName(path);
  return name == "Dockerfile" || startsWith(name, "Dockerfile.") || endsWith(lower(name), ".dockerfile");
}

/// What one `pip install …` of a local directory builds: the directory (".", "-e ./pkg",
/// "/src/ext") and the extras it asks for (`.[compile]` → "compile").
struct LocalInstall {
  std::string target;
  std::string extras;
  bool vcs = false;  ///< a source checkout (`pkg @ git+https://…`), built like a local directory
};

/// The local directory (or VCS source) the arguments of one `pip install` name, up to the next
/// command.
std::optional<LocalInstall> pipLocalTarget(std::string_view args) {
  static const std::set<std::string> kWithValue = {"-r",
                                                   "--requirement",
                                                   "-c",
                                                   "--constraint",
                                                   "-f",
                                                   "--find-links",
                                                   "-i",
                                                   "--index-url",
                                                   "--extra-index-url",
                                                   "-t",
                                                   "--target",
                                                   "--prefix",
                                                   "--root",
                                                   "--config-settings",
                                                   "-C"};
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < args.size()) {
    while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
    std::size_t j = i;
    while (j < args.size() && !std::isspace(static_cast<unsigned char>(args[j]))) ++j;
    if (j > i) tokens.emplace_back(args.substr(i, j - i));
    i = j;
  }
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    std::string t = tokens[k];
    if (t == "&&" || t == "||" || t == ";" || t == "|") break;  // the next command
    if (kWithValue.count(t)) {
      ++k;
      continue;
    }
    if (startsWith(t, "-")) continue;
    while (!t.empty() && (t.front() == '"' || t.front() == '\'')) t.erase(0, 1);
    while (!t.empty() && (t.back() == '"' || t.back() == '\'')) t.pop_back();
    LocalInstall install;
    if (startsWith(t, "git+")) {
      install.target = t.substr(4);
      install.vcs = true;
      return install;
    }
    if (const auto open = t.find('['); open != std::string::npos && endsWith(t, "]")) {
      install.extras = t.substr(open + 1, t.size() - open - 2);
      t.resize(open);
    }
    const bool local = t == "." || startsWith(t, "./") || startsWith(t, "../") || startsWith(t, "/");
    if (local && !endsWith(t, ".txt") && !endsWith(t, ".whl") && !endsWith(t, ".tar.gz")) {
      install.target = t;
      return install;
    }
  }
  return std::nullopt;
}

/// Every local install of a line: each `pip install` on it (`pip install -e . && pip install -e .[x]`).
/// With `open`, the line continues a `pip install … \` whose packages had not come yet; it is left
/// set when this line does the same.
std::vector<LocalInstall> pipLocalTargets(std::string_view line, bool& open) {
  static const RE2 kPipInstall(R"(\bpip[0-9.]*[[:space:]]+install([[:space:]]|$))", bytePattern());
  std::vector<LocalInstall> out;
  if (open)
    if (auto install = pipLocalTarget(line)) out.push_back(std::move(*install));
  const std::size_t end = line.find_last_not_of(" \t\r");
  const bool continued = end != std::string_view::npos && line[end] == '\\';
  open = open && out.empty() && continued;
  re2::StringPiece rest(line.data(), line.size());
  while (RE2::FindAndConsume(&rest, kPipInstall)) {
    if (auto install = pipLocalTarget(std::string_view(rest.data(), rest.size())))
      out.push_back(std::move(*install));
    else
      open = continued && std::string_view(rest.data(), rest.size()).find("&&") == std::string_view::npos;
  }
  return out;
}

/// An extra whose name says it builds kernels (`.[compile]`, `.[cuda_ext]`, `.[kernels]`).
bool buildExtra(const std::string& extras) {
  static const RE2 kBuild(
      R"((?i)(^|[,_-])(compile|kernels?|ext|extensions?|cuda|cuda_ext|flash\w*)($|[,_-]))", bytePattern());
  return RE2::PartialMatch(extras, kBuild);
}

/// The repository's shell script a RUN line runs (`bash scripts/install_ext.sh`, `sh ./x.sh`,
/// `./tools/build.sh`, an absolute path under the image's copy of the repository), or "".
std::string repositoryScript(const sdk::WorkspaceView& workspace, const std::string& line) {
  static const RE2 kRuns(
      R"((?:^|[[:space:];&|])(?:(?:bash|sh|source|\.)[[:space:]]+)?((?:\.{0,2}/)?[\w./-]*\w\.sh)\b)",
      bytePattern());
  std::string written;
  if (!RE2::PartialMatch(line, kRuns, &written)) return {};
  while (startsWith(written, "./")) written.erase(0, 2);
  // As written from the repository's root; else the one file whose path ends with the written
  // path's last two parts (`/app/repo/scripts/x.sh` → scripts/x.sh).
  std::string suffix = written;
  if (const auto last = written.rfind('/'); last != std::string::npos && last > 0)
    if (const auto before = written.rfind('/', last - 1); before != std::string::npos)
      suffix = written.substr(before + 1);
  std::string found;
  for (const auto& f : workspace.files()) {
    if (f.path == written) return f.path;
    if (suffix.find('/') != std::string::npos && (f.path == suffix || endsWith(f.path, "/" + suffix))) {
      if (!found.empty()) return {};
      found = f.path;
    }
  }
  return found;
}

/// What a repository script builds: its first `setup.py install/build…` or local `pip install`.
std::string scriptBuild(const sdk::WorkspaceView& workspace, const std::string& script) {
  static const RE2 kSetup(R"(\bsetup\.py[[:space:]]+(install|build_ext|build|develop|bdist_wheel)\b)",
                          bytePattern());
  const auto text = workspace.read(script);
  if (!text) return {};
  std::size_t pos = 0;
  while (pos < text->size()) {
    std::size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    const std::string_view line = std::string_view(*text).substr(pos, nl - pos);
    pos = nl + 1;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    std::string verb;
    if (RE2::PartialMatch(line, kSetup, &verb)) return "setup.py " + verb;
    bool open = false;
    for (const LocalInstall& in : pipLocalTargets(line, open))
      if (!in.vcs) return "pip install " + in.target;
  }
  return {};
}

/// The CUDA-only library a submodule's name, path or url names, or "".
std::string cudaLibraryOf(const std::string& text) {
  static const std::pair<const char*, const char*> kLibraries[] = {{"cutlass", "CUTLASS"},
                                                                   {"cccl", "CCCL (CUB, Thrust)"},
                                                                   {"cub", "CUB"},
                                                                   {"thrust", "Thrust"},
                                                                   {"nccl", "NCCL"},
                                                                   {"flash-attention", "flash-attention"},
                                                                   {"fastertransformer", "FasterTransformer"},
                                                                   {"tensorrt", "TensorRT"}};
  // Each key between characters other than [a-z0-9] (the regex `(^|[^a-z0-9])KEY($|[^a-z0-9])`).
  const auto other = [](char c) { return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')); };
  const std::string l = lower(text);
  for (const auto& [key, name] : kLibraries) {
    const std::string_view k(key);
    for (std::size_t i = l.find(k); i != std::string::npos; i = l.find(k, i + 1))
      if ((i == 0 || other(l[i - 1])) && (i + k.size() == l.size() || other(l[i + k.size()]))) return name;
  }
  return {};
}

}  // namespace

void analyzeGitmodules(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink) {
  for (const auto& file : workspace.files()) {
    const auto slash = file.path.rfind('/');
    if (file.path.substr(slash == std::string::npos ? 0 : slash + 1) != ".gitmodules") continue;
    const auto text = workspace.read(file.path);
    if (!text) continue;
    const sdk::LineIndex lines(*text);
    // One [submodule "name"] section at a time: its header's range and its keys' values.
    struct Section {
      std::uint32_t start = 0, end = 0;
      std::string name, path, url;
    };
    std::vector<Section> sections;
    // RE2: a line of megabytes cannot overflow the stack (std::regex recursed once per character).
    static const RE2 kHeader(R"re(^\s*\[submodule\s+"([^"]*)"\s*\])re", bytePattern());
    static const RE2 kKey(R"(^\s*(path|url)\s*=\s*(\S+))", bytePattern());
    std::size_t pos = 0;
    while (pos <= text->size()) {
      std::size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      const std::string line = text->substr(pos, nl - pos);
      std::string name, key, value;
      if (RE2::PartialMatch(line, kHeader, &name)) {
        sections.push_back(
            {static_cast<std::uint32_t>(pos + line.find('[')), static_cast<std::uint32_t>(nl), name, "", ""});
      } else if (!sections.empty() && RE2::PartialMatch(line, kKey, &key, &value)) {
        (key == "path" ? sections.back().path : sections.back().url) = value;
      }
      pos = nl + 1;
    }
    for (const Section& s : sections) {
      std::string library = cudaLibraryOf(s.path);
      if (library.empty()) library = cudaLibraryOf(s.url);
      if (library.empty()) library = cudaLibraryOf(s.name);
      if (library.empty()) continue;
      const std::string where = s.path.empty() ? s.name : s.path;
      auto f = rules.make(kCudaSubmodule, file.path, lines.range(s.start, s.end), where, {},
                          {{"value", where}, {"library", library}});
      if (!f) continue;
      f->details = {{"submodule", s.name}, {"path", s.path}, {"url", s.url}, {"library", library}};
      sink.report(std::move(*f));
    }
  }
}

void analyzeDockerBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink) {
  std::vector<const sdk::FileEntry*> dockerfiles;
  bool cuda_extension = false;       // some setup.py of the repository builds a CUDAExtension
  bool root_cuda_extension = false;  // the one at the root does
  for (const auto& file : workspace.files()) {
    if (isDockerfile(file.path)) dockerfiles.push_back(&file);
    if ((!cuda_extension || file.path == "setup.py") && baseName(file.path) == "setup.py")
      if (const auto text = workspace.read(file.path)) {
        const bool builds = text->find("CUDAExtension") != std::string::npos;
        cuda_extension = cuda_extension || builds;
        root_cuda_extension = root_cuda_extension || (builds && file.path == "setup.py");
      }
  }
  // RE2: a line of megabytes cannot overflow the stack (std::regex recursed once per character).
  static const RE2 kSetupPy(R"(\bsetup\.py[[:space:]]+(install|build_ext|build|develop|bdist_wheel)\b)",
                            bytePattern());
  static const RE2 kInstruction(R"(^[[:space:]]*([A-Za-z]+)[[:space:]])", bytePattern());
  // A stage of a CUDA toolkit image (`FROM nvidia/cuda:12.4-devel… AS builder`, or a stage built
  // on one): what it compiles is CUDA code, whatever the repository's own setup.py says.
  static const RE2 kFrom(
      R"(^[[:space:]]*(?i:FROM)[[:space:]]+(?:--\S+[[:space:]]+)*(\S+)(?:[[:space:]]+(?i:AS)[[:space:]]+(\S+))?)",
      bytePattern());
  static const RE2 kCudaDevelImage(
      R"((?i)nvidia/cuda:\S*devel|nvcr\.io/nvidia/(pytorch|cuda)|pytorch/pytorch:\S*devel)", bytePattern());
  static const RE2 kCompile(
      R"((^|[[:space:];&|])(make|cmake[[:space:]]+--build|ninja|\./build\w*\.sh)([[:space:]]|$))",
      bytePattern());
  // …and of CUDA work: a toolkit image also builds MPI, UCX and the like, which the NPU image needs too.
  static const RE2 kCudaWork(R"((?i)cuda|nvcc|flash|kernel|peer_mem|nccl|cutlass|gencode|arch_list)",
                             bytePattern());
  // …and of a stage's own switch (`ENV FORCE_CUDA_EXTENSION=1`, `ARG BUILD_EXT=1`): a setting named
  // for forcing or building, and for CUDA or an extension.
  static const RE2 kStageSwitch(
      R"((?:^|[[:space:]])([A-Z0-9_]*(?:FORCE|BUILD)[A-Z0-9_]*)=(?:"?)(?:1|true|TRUE|True|ON|yes)(?:"?)(?:[[:space:]]|$))",
      bytePattern());
  static const RE2 kSwitchedBuild(R"(CUDA|EXT|KERNEL|OPS)", bytePattern());
  static const RE2 kBuildSwitch(
      R"((^|[[:space:];&|])[A-Z0-9_]*(BUILD|EXT|CUDA|KERNEL|OPS)[A-Z0-9_]*=("?)(1|true|TRUE|True|ON|yes)("?)([[:space:]]|$))",
      bytePattern());
  for (const sdk::FileEntry* file : dockerfiles) {
    const auto text = workspace.read(file->path);
    if (!text) continue;
    const sdk::LineIndex lines(*text);
    std::string instruction;
    std::set<std::string> cuda_stages;  // names of the stages built on a CUDA toolkit image
    bool cuda_stage = false;
    std::string stage_names;    // the current stage's name and the stage it is built on
    bool stage_switch = false;  // an ENV/ARG of the stage switched an extension build on
    bool pip_open = false;      // a `pip install … \` whose packages follow on the next lines
    std::string step;           // the text of the current instruction so far
    std::vector<std::pair<std::size_t, std::size_t>> step_lines;  // [begin, end) of its lines
    bool continued = false;
    std::size_t pos = 0;
    while (pos < text->size()) {
      std::size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      std::string line = text->substr(pos, nl - pos);
      const std::size_t first = line.find_first_not_of(" \t");
      const bool comment = first != std::string::npos && line[first] == '#';
      std::string group;
      if (!continued && !comment && RE2::PartialMatch(line, kInstruction, &group)) {
        instruction = group;
        step.clear();
        step_lines.clear();
      }
      if (!comment) {
        step += line;
        step_lines.emplace_back(pos, nl);
      }
      std::string image, stage;
      if (!continued && !comment && RE2::PartialMatch(line, kFrom, &image, &stage)) {
        cuda_stage = RE2::PartialMatch(image, kCudaDevelImage) || cuda_stages.count(image) != 0;
        if (cuda_stage && !stage.empty()) cuda_stages.insert(stage);
        stage_names = stage + (cuda_stages.count(image) != 0 ? " " + image : std::string());
        stage_switch = false;
      }
      // `ENV FORCE_CUDA_EXTENSION=1`: the stage switches extension builds on for what follows.
      if (std::string name; !comment && (instruction == "ENV" || instruction == "ARG") &&
                            RE2::PartialMatch(line, kStageSwitch, &name) &&
                            RE2::PartialMatch(name, kSwitchedBuild))
        stage_switch = true;
      // `BUILD_EXT=1 pip install .`, `DS_BUILD_OPS=1 …`: the command switches its extension build on.
      const bool build_switch = RE2::PartialMatch(line, kBuildSwitch);
      if (!comment && (cuda_extension || cuda_stage || build_switch || stage_switch) &&
          (instruction == "RUN" || instruction == "run")) {
        std::string what;
        std::size_t at = pos, end = nl;  // the line reported
        if (RE2::PartialMatch(line, kSetupPy, &group)) {
          what = "setup.py " + group;
        } else if (auto installs = pipLocalTargets(line, pip_open); !installs.empty()) {
          // A local install builds the repository's CUDA extension, or says it builds CUDA code
          // (`--cuda_ext`), or asks a CUDA toolkit stage for an extra named for a kernel build
          // (`.[compile]`); a CUDA image alone does not make a pure-Python package a kernel build.
          // A source checkout is a build when the step or its stage switched extension builds on.
          // With extras the project is the one at the root (a clone's `pip install -e ".[x]"` is
          // no build of the repository's own extension).
          for (const LocalInstall& in : installs)
            if (in.vcs ? build_switch || stage_switch
                       : (in.extras.empty() ? cuda_extension : root_cuda_extension) || build_switch ||
                             RE2::PartialMatch(line, kCudaWork) || (cuda_stage && buildExtra(in.extras))) {
              what = "pip install " + in.target + (in.extras.empty() ? "" : "[" + in.extras + "]");
              break;
            }
        } else if (std::string head, tool;
                   cuda_stage && RE2::PartialMatch(line, kCompile, &head, &tool) &&
                   (RE2::PartialMatch(step, kCudaWork) || RE2::PartialMatch(stage_names, kCudaWork))) {
          what = tool + " in a CUDA toolkit image";
          // On the step's configure line that asks for CUDA (`cmake -DCMAKE_CUDA_ARCHITECTURES=…`),
          // the place to change, when there is one; else on the compile command.
          static const RE2 kConfigure(R"((^|[[:space:];&|])(cmake|\./configure)([[:space:]]|$))",
                                      bytePattern());
          for (const auto& [b, e] : step_lines)
            if (const std::string_view l = std::string_view(*text).substr(b, e - b);
                RE2::PartialMatch(l, kConfigure) && RE2::PartialMatch(l, kCudaWork)) {
              at = b;
              end = e;
              break;
            }
        } else if (const std::string script = repositoryScript(workspace, line);
                   !script.empty() && cuda_extension) {
          // `RUN bash scripts/install_ext.sh`: a script of the repository that builds its extensions.
          if (const std::string built = scriptBuild(workspace, script); !built.empty())
            what = script + " (" + built + ")";
        }
        if (!what.empty()) {
          const std::string_view shown = std::string_view(*text).substr(at, end - at);
          const std::size_t indent = shown.find_first_not_of(" \t");
          const auto start = static_cast<std::uint32_t>(at + (indent == std::string_view::npos ? 0 : indent));
          auto f = rules.make(kDockerBuild, file->path, lines.range(start, static_cast<std::uint32_t>(end)),
                              what, {}, {{"value", what}, {"instruction", "RUN"}});
          if (f) {
            f->details = {{"command", what}};
            sink.report(std::move(*f));
          }
        }
      }
      if (!comment) {
        std::size_t end = line.find_last_not_of(" \t\r");
        continued = end != std::string::npos && line[end] == '\\';
      }
      pos = nl + 1;
    }
  }
}

}  // namespace custom_ops

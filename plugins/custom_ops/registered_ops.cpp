// Calls into ops the repository registers for CUDA in its native sources (OPS-038, across files):
// `TORCH_LIBRARY_IMPL(ns, CUDA, m) { m.impl("op", …); }` (also the STABLE_ variants) makes
// `torch.ops.ns.op(…)` in any Python file a call into a CUDA kernel with no NPU implementation.
// Only the ops a CUDA block implements count: a namespace may register CPU kernels too. A catch-all
// kernel counts when its file has a CUDA path of its own (`#ifdef WITH_CUDA`, `x.is_cuda()`, a CUDA
// header): `torch::RegisterOperators().op("ns::op", &fn)` and `TORCH_LIBRARY(ns, m) {
// m.def("op(…)", &fn); }`, whose one kernel serves every device and dispatches to CUDA inside.
// `torch.ops.load_library(…)` in a repository that registers such ops loads them (OPS-028). Files
// that build the namespace themselves with `load(name="ns", …)` are the module pass's
// (extensionCalls). What each native file registers is a per-file memo, so a changed file costs
// one file's reading.

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "native_scan.hpp"

namespace custom_ops {
namespace {

constexpr const char* kExtensionCall = "OPS-038";
constexpr const char* kExtensionImport = "OPS-028";
constexpr std::string_view kMemoKind = "cuda-ops/3";

/// The end of the `{ … }` block whose body starts at `open` (just past its brace).
std::size_t blockEnd(const std::string& code, std::size_t open) {
  int depth = 1;
  std::size_t end = open;
  while (end < code.size() && depth > 0) {
    if (code[end] == '{') ++depth;
    if (code[end] == '}') --depth;
    ++end;
  }
  return end;
}

/// The op name of a registration string at `at` in `text` ("ns::op.overload(Tensor x) -> Tensor"),
/// without namespace, overload and schema; "" when the string does not end before `limit`.
std::string opName(const std::string& text, std::size_t at, std::size_t limit) {
  const std::size_t close = text.find('"', at);
  if (close == std::string::npos || close > limit) return {};
  std::string op = text.substr(at, close - at);
  if (const std::size_t q = op.find("::"); q != std::string::npos) op = op.substr(q + 2);
  if (const std::size_t cut = op.find_first_of(".( "); cut != std::string::npos) op.resize(cut);
  return op;
}

/// Each string that opens a `MODULE.METHOD("…", …)` call in the block body [open, end) of `code`
/// (comments and string contents masked), with the byte offsets of the string's content and its
/// closing quote in `text`: `m.impl("op", …)`, `m.def("op(Tensor x) -> Tensor", &fn)`, also through
/// TORCH_SELECTIVE_NAME / TORCH_SELECTIVE_SCHEMA.
template <typename Visit>
void forEachBlockCall(const std::string& text, const std::string& code, std::size_t open, std::size_t end,
                      const std::string& module, std::string_view method, Visit&& visit) {
  // The name may come through PyTorch's selective-build macros: `m.impl(TORCH_SELECTIVE_NAME("ns::op"), …)`,
  // `m.def(TORCH_SELECTIVE_SCHEMA("ns::op(Tensor x) -> Tensor"), …)` (torchvision's and pyg-lib's form).
  const RE2 call("\\b" + RE2::QuoteMeta(module) + R"(\s*\.\s*)" + std::string(method) +
                     R"(\s*\(\s*(?:TORCH_SELECTIVE_(?:NAME|SCHEMA)\s*\(\s*)?")",
                 bytePattern());
  re2::StringPiece body(code.data() + open, end - open);
  while (RE2::FindAndConsume(&body, call)) {
    const std::size_t at = static_cast<std::size_t>(body.data() - code.data());
    const std::size_t close = text.find('"', at);
    if (close == std::string::npos || close > end) break;
    visit(at, close);
  }
}

/// Whether a native file's code has a CUDA path of its own: code compiled under WITH_CUDA /
/// USE_CUDA, a device test (`src.is_cuda()`, `device().is_cuda()`), or a CUDA header included.
bool hasCudaPath(const std::string& text, const std::string& code) {
  static const RE2 kCudaCode(R"(\b(?:WITH_CUDA|USE_CUDA)\b|\bis_cuda\s*\(\s*\))", bytePattern());
  static const RE2 kCudaInclude(R"((?m)^\s*#\s*include\s*[<"][^>"]*(?:cuda|\.cuh)[^>"]*[>"])", bytePattern());
  return RE2::PartialMatch(code, kCudaCode) || RE2::PartialMatch(text, kCudaInclude);
}

/// "ns op\n" for every op a catch-all kernel registers in a file with a CUDA path:
/// `RegisterOperators().op("ns::op", &fn)` and `TORCH_LIBRARY(ns, m) { m.def("op(…)", &fn); }`
/// (a def with a kernel; a schema alone is implemented per key by TORCH_LIBRARY_IMPL blocks).
std::string catchAllOpsOf(const std::string& text, const std::string& code) {
  std::string out;
  if (text.find("RegisterOperators") != std::string::npos) {
    static const RE2 kOp(R"(\.\s*op\s*\(\s*")", bytePattern());
    re2::StringPiece rest(code);
    while (RE2::FindAndConsume(&rest, kOp)) {
      const std::size_t at = static_cast<std::size_t>(rest.data() - code.data());
      const std::size_t colons = text.find("::", at);
      const std::size_t close = text.find('"', at);
      if (colons == std::string::npos || close == std::string::npos || colons > close) continue;
      const std::string op = opName(text, at, close);
      if (!op.empty()) out += text.substr(at, colons - at) + " " + op + "\n";
    }
  }
  static const RE2 kLibrary(R"(\bTORCH_LIBRARY\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{)", bytePattern());
  re2::StringPiece rest(code);
  std::string ns, module;
  while (RE2::FindAndConsume(&rest, kLibrary, &ns, &module)) {
    const std::size_t open = static_cast<std::size_t>(rest.data() - code.data());
    const std::size_t end = blockEnd(code, open);
    forEachBlockCall(text, code, open, end, module, "def", [&](std::size_t at, std::size_t close) {
      std::size_t next = close + 1;
      while (next < end && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
      if (next >= end || code[next] != ',') return;  // a schema alone
      if (const std::string op = opName(text, at, close); !op.empty()) out += ns + " " + op + "\n";
    });
  }
  return out;
}

/// "ns op\n" for every op a CUDA block of the text implements, or a catch-all kernel of a file
/// with a CUDA path registers.
std::string cudaOpsOf(const std::string& text) {
  if (text.find("TORCH_LIBRARY") == std::string::npos && text.find("RegisterOperators") == std::string::npos)
    return {};
  const std::string code = maskCommentsAndStrings(text);
  static const RE2 kBlock(R"((?:STABLE_)?TORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{)",
                          bytePattern());
  std::string out;
  re2::StringPiece rest(code);
  std::string ns, key, module;
  while (RE2::FindAndConsume(&rest, kBlock, &ns, &key, &module)) {
    if (key.find("CUDA") == std::string::npos) continue;
    const std::size_t open = static_cast<std::size_t>(rest.data() - code.data());
    const std::size_t end = blockEnd(code, open);
    // `m.impl("op", …)`, found in the code; the name is in the original text at the same offset
    // (the mask blanked string contents, not the quotes).
    forEachBlockCall(text, code, open, end, module, "impl", [&](std::size_t at, std::size_t close) {
      if (const std::string op = opName(text, at, close); !op.empty()) out += ns + " " + op + "\n";
    });
  }
  if (hasCudaPath(text, code)) out += catchAllOpsOf(text, code);
  return out;
}

/// Whether the text builds `ns` itself: `load(name="ns", …)` (extensionCalls reports its calls).
/// `torch.library.Library("ns", "FRAGMENT")` only adds schemas to the namespace: no build.
bool buildsItself(const std::string& text, const std::string& ns) {
  for (const std::string& quoted : {"\"" + ns + "\"", "'" + ns + "'"})
    for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
      std::size_t before = at;
      while (before > 0 && std::isspace(static_cast<unsigned char>(text[before - 1]))) --before;
      if (!(before >= 8 && text.compare(before - 8, 8, "Library(") == 0)) return true;
    }
  return false;
}

/// Whether the text before `at` on its line leaves `at` inside a string: an odd number of quotes.
bool inString(std::string_view line, std::size_t at) {
  const std::string_view head = line.substr(0, at);
  return (std::count(head.begin(), head.end(), '"') + std::count(head.begin(), head.end(), '\'')) % 2 != 0;
}

/// `torch.ops.load_library(…)` on one code line (comment cut off) at `offset` of the file: it loads
/// a compiled library, and the repository's native sources register CUDA kernels (OPS-028).
void reportLibraryLoad(const std::string& path, std::size_t offset, std::string_view line,
                       const std::map<std::string, std::map<std::string, std::string>>& ops,
                       const sdk::LineIndex& index, const Rules& rules, sdk::FindingSink& sink) {
  static const RE2 kLoad(R"((\btorch\s*\.\s*ops\s*\.\s*load_library\s*\())", bytePattern());
  re2::StringPiece match;
  if (line.find("load_library") == std::string_view::npos ||
      !RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), kLoad, &match))
    return;
  const std::size_t at = static_cast<std::size_t>(match.data() - line.data());
  if (inString(line, at)) return;
  std::string spaces;
  for (const auto& [ns, registered] : ops) spaces += (spaces.empty() ? "" : ", ") + ns;
  const auto start = static_cast<std::uint32_t>(offset + at);
  const auto stop = static_cast<std::uint32_t>(offset + at + match.size() - 1);
  if (auto f = rules.make(kExtensionImport, path, index.range(start, stop), "torch.ops.load_library",
                          "torch.ops.load_library", {{"value", spaces}})) {
    f->details = {{"registers", spaces}, {"registered_in", ops.begin()->second.begin()->second}};
    sink.report(std::move(*f));
  }
}

/// `torch.ops.NS.OP` in code (not in a comment or a string) of one Python file.
void reportCalls(const std::string& path, const std::string& text,
                 const std::map<std::string, std::map<std::string, std::string>>& ops, const Rules& rules,
                 sdk::FindingSink& sink) {
  static const RE2 kUse(R"(\btorch\s*\.\s*ops\s*\.\s*(\w+)\s*\.\s*(\w+))", bytePattern());
  const sdk::LineIndex index(text);
  std::map<std::string, bool> builds_itself;
  std::size_t offset = 0;
  while (offset < text.size()) {
    std::size_t end = text.find('\n', offset);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + offset, end - offset);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    reportLibraryLoad(path, offset, line, ops, index, rules, sink);
    re2::StringPiece rest(line.data(), line.size());
    std::string ns, op;
    const char* before = rest.data();
    while (RE2::FindAndConsume(&rest, kUse, &ns, &op)) {
      const auto space = ops.find(ns);
      if (space == ops.end()) continue;
      const auto registered = space->second.find(op);
      if (registered == space->second.end()) continue;
      // Whether the file builds the namespace itself: asked once per namespace, not per use.
      const auto own = builds_itself.try_emplace(ns, false);
      if (own.second) own.first->second = buildsItself(text, ns);
      if (own.first->second) continue;
      if (inString(line, static_cast<std::size_t>(rest.data() - before))) continue;
      const std::string written = "torch.ops." + ns + "." + op;
      const std::size_t at = text.find(written, offset);
      const auto start = static_cast<std::uint32_t>(at == std::string::npos ? offset : at);
      const auto stop = static_cast<std::uint32_t>(at == std::string::npos ? end : at + written.size());
      if (auto f =
              rules.make(kExtensionCall, path, index.range(start, stop), written, written, {{"value", ns}})) {
        f->details = {{"module", ns},
                      {"function", op},
                      {"registered_as", "torch.ops." + ns},
                      {"registered_in", registered->second}};
        sink.report(std::move(*f));
      }
    }
    offset = end + 1;
  }
}

}  // namespace

void analyzeRegisteredOps(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink) {
  if (!rules.get(kExtensionCall) && !rules.get(kExtensionImport)) return;
  std::map<std::string, std::map<std::string, std::string>> ops;  // ns → op → registering file
  for (const sdk::FileEntry& f : workspace.files()) {
    if ((f.language != sdk::Language::Cuda && f.language != sdk::Language::Cpp) ||
        inSkippedDir(f.path, options.skip_dirs) || inOtherAcceleratorDir(f.path))
      continue;
    std::optional<std::string> found = workspace.recall(f.path, kMemoKind);
    if (!found) {
      const auto text = workspace.read(f.path);
      if (!text) continue;
      found = cudaOpsOf(*text);
      workspace.remember(f.path, kMemoKind, *found);
    }
    std::size_t b = 0;
    while (b < found->size()) {
      std::size_t e = found->find('\n', b);
      if (e == std::string::npos) e = found->size();
      const std::string entry = found->substr(b, e - b);
      if (const std::size_t sp = entry.find(' '); sp != std::string::npos && sp > 0 && sp + 1 < entry.size())
        ops[entry.substr(0, sp)].emplace(entry.substr(sp + 1), f.path);
      b = e + 1;
    }
  }
  if (ops.empty()) return;
  for (const sdk::FileEntry& f : workspace.files()) {
    if (f.language != sdk::Language::Python || inSkippedDir(f.path, options.skip_dirs)) continue;
    if (!options.include_npu_paths && (inNpuDir(f.path) || npuSpecificFile(f.path))) continue;
    const auto text = workspace.read(f.path);
    if (!text || text->find("torch") == std::string::npos || text->find("ops") == std::string::npos) continue;
    reportCalls(f.path, *text, ops, rules, sink);
  }
}

}  // namespace custom_ops

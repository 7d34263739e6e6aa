// Calls into ops the repository registers for CUDA in its native sources (OPS-038, across files):
// `TORCH_LIBRARY_IMPL(ns, CUDA, m) { m.impl("op", …); }` (also the STABLE_ variants) makes
// `torch.ops.ns.op(…)` in any Python file a call into a CUDA kernel with no NPU implementation.
// Only the ops a CUDA block implements count: a namespace may register CPU kernels too. Files that
// build the namespace themselves with `load(name="ns", …)` are the module pass's (extensionCalls).
// What each native file registers is a per-file memo, so a changed file costs one file's reading.

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "native_scan.hpp"

namespace custom_ops {
namespace {

constexpr const char* kExtensionCall = "OPS-038";
constexpr std::string_view kMemoKind = "cuda-ops/1";

/// "ns op\n" for every op a CUDA block of the text implements.
std::string cudaOpsOf(const std::string& text) {
  if (text.find("TORCH_LIBRARY_IMPL") == std::string::npos) return {};
  const std::string code = maskCommentsAndStrings(text);
  static const RE2 kBlock(R"((?:STABLE_)?TORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{)",
                          bytePattern());
  std::string out;
  re2::StringPiece rest(code);
  std::string ns, key, module;
  while (RE2::FindAndConsume(&rest, kBlock, &ns, &key, &module)) {
    if (key.find("CUDA") == std::string::npos) continue;
    // The block's body, to its closing brace.
    const std::size_t open = static_cast<std::size_t>(rest.data() - code.data());
    int depth = 1;
    std::size_t end = open;
    while (end < code.size() && depth > 0) {
      if (code[end] == '{') ++depth;
      if (code[end] == '}') --depth;
      ++end;
    }
    // `m.impl("op", …)`, found in the code; the name is in the original text at the same offset
    // (the mask blanked string contents, not the quotes).
    const RE2 impl("\\b" + RE2::QuoteMeta(module) + R"(\s*\.\s*impl\s*\(\s*")", bytePattern());
    re2::StringPiece body(code.data() + open, end - open);
    while (RE2::FindAndConsume(&body, impl)) {
      const std::size_t at = static_cast<std::size_t>(body.data() - code.data());
      const std::size_t close = text.find('"', at);
      if (close == std::string::npos || close > end) break;
      std::string op = text.substr(at, close - at);
      if (const std::size_t q = op.find("::"); q != std::string::npos) op = op.substr(q + 2);
      if (const std::size_t dot = op.find('.'); dot != std::string::npos) op.resize(dot);  // overload
      if (!op.empty()) out += ns + " " + op + "\n";
    }
  }
  return out;
}

/// Whether the text builds `ns` itself: `load(name="ns", …)` (extensionCalls reports its calls).
bool buildsItself(const std::string& text, const std::string& ns) {
  return text.find("\"" + ns + "\"") != std::string::npos || text.find("'" + ns + "'") != std::string::npos;
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
      // Inside a string literal: an odd number of quotes before it on the line.
      const std::string_view head(before, static_cast<std::size_t>(rest.data() - before));
      if ((std::count(head.begin(), head.end(), '"') + std::count(head.begin(), head.end(), '\'')) % 2)
        continue;
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
  if (!rules.get(kExtensionCall)) return;
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

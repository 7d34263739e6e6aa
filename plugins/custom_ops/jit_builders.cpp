// Calls of the repository's run-time CUDA builders from other modules (issue 30, repository facts):
// a top-level function that compiles a CUDA extension with torch.utils.cpp_extension's load() —
// itself (MONAI's `load_module`, `.cu` sources and extra_cuda_cflags), or through a loader of the
// repository it hands `.cu` sources (StyleGAN's `_init()` calling `custom_ops.get_plugin(sources=
// [..., "bias_act.cu"])`) — runs nvcc wherever it is called. The module pass sees the build only in
// the builder's own file; here its calls in other modules are reported (OPS-018), and the calls into
// what a builder returns (`self.ext = load_module("gmm")` … `self.ext.init()`, OPS-038), also where it is
// handed to an autograd Function of the file (`Fn.apply(x, self.ext)`: the class, OPS-027, and its
// forward's calls through that parameter, OPS-038).

#include "jit_builders.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/python_text.hpp"

namespace custom_ops {
namespace {

using glue::Builder;
using glue::kNone;

constexpr const char* kJitBuild = "OPS-018";
constexpr const char* kExtensionCall = "OPS-038";
constexpr const char* kAutogradFunction = "OPS-027";

/// `.cu` sources (`"x.cu"`, `"*.cu"`) or a CUDA keyword of load().
const RE2& cudaEvidence() {
  static const RE2 re(R"(\.cu["']|extra_cuda_cflags|cuda_sources|with_cuda\s*=\s*True)", bytePattern());
  return re;
}

struct Span {
  std::size_t begin = 0, end = 0;
};

/// Top-level `def` blocks: from the line of `def` to the next line that starts at column 0 with code.
std::vector<std::pair<std::string, Span>> topLevelFunctions(std::string_view text) {
  static const RE2 kDef(R"(^(?:async\s+)?def\s+(\w+)\s*\()", bytePattern());
  std::vector<std::pair<std::string, Span>> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    // Code at column 0; not a closing bracket of the header (`) -> ModuleType:`).
    const bool code = !line.empty() && std::string_view(" \t#\r)]}").find(line[0]) == std::string_view::npos;
    if (code && !out.empty() && out.back().second.end == 0) out.back().second.end = at;
    std::string name;
    if (code && RE2::PartialMatch(line, kDef, &name)) out.push_back({name, {at, 0}});
    at = end + 1;
  }
  if (!out.empty() && out.back().second.end == 0) out.back().second.end = text.size();
  return out;
}

std::string alternation(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out.push_back('|');
    out.append(RE2::QuoteMeta(n));
  }
  return out;
}

/// What one importing file calls: `bound(` (a builder imported by name) or `bound.name(` (through its
/// module), with the builder's module for the message.
struct Callee {
  std::string written;  ///< regex of the callee as written
  std::size_t after_line = 0;
  const Builder* builder = nullptr;
  std::string module;
};

/// The class `name` of `text` based on an autograd Function, from its `class` line to the last
/// line indented deeper; empty when the file has no such class.
std::string_view functionClass(std::string_view text, const std::string& name) {
  const RE2 header(
      "(?m)^([ \\t]*)class[ \\t]+" + RE2::QuoteMeta(name) + "[ \\t]*\\([^)]*Function[^)]*\\)[ \\t]*:",
      bytePattern());
  re2::StringPiece indent;
  if (!RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), header, &indent)) return {};
  const auto begin = static_cast<std::size_t>(indent.data() - text.data());
  std::size_t end = text.find('\n', begin);
  while (end != std::string_view::npos && end + 1 < text.size()) {
    const std::size_t next = std::min(text.find('\n', end + 1), text.size());
    const std::string_view line = text.substr(end + 1, next - end - 1);
    const std::size_t code = line.find_first_not_of(" \t\r");
    if (code != std::string_view::npos && code <= indent.size() && line[code] != '#') break;
    end = next < text.size() ? next : std::string_view::npos;
  }
  return text.substr(begin, (end == std::string_view::npos ? text.size() : end) - begin);
}

/// `Fn.apply(self.params, x, self.compiled_extension)` with a handle of what a builder returned,
/// where `Fn` is an autograd Function of the file: the class (OPS-027) and the calls its forward
/// makes through the parameter the handle binds to (`compiled_extension.apply(params, x)`,
/// OPS-038).
void reportHandedToFunctions(const glue::PyFile& f, std::string_view text, const sdk::LineIndex& index,
                             const std::set<std::string>& handles, const Rules& rules,
                             sdk::FindingSink& sink) {
  static const RE2 kApply(R"((?:^|[^\w.])(\w+)\.apply\s*\()", bytePattern());
  std::map<std::string, std::set<std::size_t>> handed;  // Function class → argument positions
  forEachMatch(kApply, text, [&](const auto& m) {
    const std::size_t open = static_cast<std::size_t>(m[0].data() - text.data()) + m[0].size() - 1;
    const std::size_t close = plugin_support::closingBracket(text, open);
    if (close >= text.size()) return;
    const std::vector<std::string> args =
        plugin_support::topLevelParts(text.substr(open + 1, close - open - 1));
    for (std::size_t k = 0; k < args.size(); ++k)
      if (handles.count(args[k])) handed[str(m[1])].insert(k);
  });
  static const RE2 kForward(R"((?m)^[ \t]*def[ \t]+forward[ \t]*(\())", bytePattern());
  for (const auto& [cls, positions] : handed) {
    const std::string_view body = functionClass(text, cls);
    re2::StringPiece paren;
    if (body.empty() || !RE2::PartialMatch(re2::StringPiece(body.data(), body.size()), kForward, &paren))
      continue;
    const auto open = static_cast<std::size_t>(paren.data() - body.data());
    const std::size_t close = plugin_support::closingBracket(body, open);
    if (close >= body.size()) continue;
    const std::vector<std::string> params =
        plugin_support::topLevelParts(body.substr(open + 1, close - open - 1));
    std::set<std::string> names;  // forward's parameters the handle binds to (after ctx)
    for (const std::size_t k : positions) {
      if (k + 1 >= params.size()) continue;
      const std::string p = params[k + 1].substr(0, params[k + 1].find_first_of(":= \t"));
      if (!p.empty() && p[0] != '*') names.insert(p);
    }
    if (names.empty()) continue;
    const RE2 into("(?:^|[^\\w.])(" + alternation(names) + ")\\.(\\w+)\\s*\\(", bytePattern());
    std::string first_call;
    forEachMatch(into, body.substr(close), [&](const auto& m) {
      const auto b = static_cast<std::uint32_t>(m[2].data() - text.data());
      const std::size_t bol = text.rfind('\n', b) + 1;  // npos + 1 == 0
      if (text.find('#', bol) < b) return;              // in a comment
      auto finding = rules.make(
          kExtensionCall, f.path, index.range(b, b + static_cast<std::uint32_t>(m[2].size())),
          str(m[1]) + "." + str(m[2]), {},
          {{"value", "handed to " + cls + ".apply as what a JIT builder of the repository returned"}});
      if (!finding) return;
      finding->details = {{"module", str(m[1])}, {"function", str(m[2])}};
      sink.report(std::move(*finding));
      if (first_call.empty()) first_call = str(m[1]) + "." + str(m[2]);
    });
    if (first_call.empty()) continue;
    const auto name_at = static_cast<std::uint32_t>(body.find(cls) + (body.data() - text.data()));
    auto fn = rules.make(
        kAutogradFunction, f.path, index.range(name_at, name_at + static_cast<std::uint32_t>(cls.size())),
        cls, {},
        {{"value", "calls " + first_call + ", the compiled extension handed to apply"}, {"class", cls}});
    if (fn) sink.report(std::move(*fn));
  }
}

}  // namespace

std::vector<Builder> jitBuilders(std::string_view text) {
  const bool cpp_extension = text.find("cpp_extension") != std::string_view::npos;
  // Plain searches first: most files name neither (the evidence pattern has no literal prefix).
  const auto has = [&](std::string_view word) { return text.find(word) != std::string_view::npos; };
  if (!cpp_extension && !has(".cu\"") && !has(".cu'") && !has("cuda_")) return {};
  if (!cpp_extension && !RE2::PartialMatch(text, cudaEvidence())) return {};
  // load() and load_inline() under the names the file gives them (`import load as _load`).
  std::set<std::string> loaders{"load", "load_inline"};
  static const RE2 kAlias(R"(\bload(?:_inline)?\s+as\s+(\w+))", bytePattern());
  plugin_support::forEachMatch(kAlias, text, [&](const auto& m) { loaders.insert(str(m[1])); });
  const RE2 load(
      "(?:^|[^\\w.])(?:" + alternation(loaders) + ")\\s*\\(|cpp_extension\\.load(?:_inline)?\\s*\\(",
      bytePattern());
  static const RE2 kReturn(R"((?m)^[ \t]+return[ \t]+([A-Za-z_]\w*)[ \t]*(?:#.*)?$)", bytePattern());
  static const RE2 kCall(R"(([A-Za-z_]\w*)\s*\()", bytePattern());
  std::vector<Builder> out;
  for (const auto& [name, span] : topLevelFunctions(text)) {
    // The body, after the `def` line's name and parameters.
    std::string_view body = text.substr(span.begin, span.end - span.begin);
    Builder b;
    b.name = name;
    b.loads = cpp_extension && RE2::PartialMatch(body.substr(body.find('(') + 1), load);
    b.cuda = RE2::PartialMatch(body, cudaEvidence());
    if (!b.loads && !b.cuda) continue;
    plugin_support::forEachMatch(kReturn, body, [&](const auto& m) {
      const std::string value = str(m[1]);
      if (value != "True" && value != "False" && value != "None") b.returns = true;
    });
    if (b.cuda && !b.loads) {
      std::set<std::string> called;
      plugin_support::forEachMatch(kCall, body, [&](const auto& m) { called.insert(str(m[1])); });
      called.erase(name);
      b.calls.assign(called.begin(), called.end());
    }
    out.push_back(std::move(b));
  }
  return out;
}

CudaBuilders cudaBuilders(const std::vector<glue::Scan>& scans) {
  std::set<std::string> loaders;
  for (const glue::Scan& s : scans)
    for (const Builder& b : s.builders)
      if (b.loads) loaders.insert(b.name);
  CudaBuilders out;
  if (loaders.empty()) return out;
  for (std::size_t i = 0; i < scans.size(); ++i)
    for (const Builder& b : scans[i].builders)
      if (b.cuda && (b.loads || std::any_of(b.calls.begin(), b.calls.end(),
                                            [&](const std::string& c) { return loaders.count(c) > 0; })))
        out[i].push_back(&b);
  return out;
}

void reportJitBuilderCalls(const sdk::WorkspaceView& workspace, const std::vector<glue::PyFile>& files,
                           const CudaBuilders& cuda_builders, const Rules& rules, const Options& options,
                           sdk::FindingSink& sink) {
  if (cuda_builders.empty()) return;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const glue::PyFile& f = files[i];
    if (!options.include_npu_paths &&
        (inNpuDir(f.path) || npuSpecificFile(f.path) || inOtherVendorBackend(f.path)))
      continue;
    std::vector<Callee> callees;
    for (const glue::Import& imp : f.imports) {
      if (imp.star) continue;
      // `from pkg.loader import load_module`: the builder imported by name.
      if (const auto it = cuda_builders.find(imp.from_file);
          !imp.name.empty() && imp.from_file != i && it != cuda_builders.end())
        for (const Builder* b : it->second)
          if (b->name == imp.name)
            callees.push_back({RE2::QuoteMeta(imp.bound), imp.line, b, files[imp.from_file].dotted});
      // `from torch_utils.ops import bias_act` … `bias_act._init()`: through its module.
      if (const auto it = cuda_builders.find(imp.target_file);
          imp.target_file != i && it != cuda_builders.end())
        for (const Builder* b : it->second)
          callees.push_back({RE2::QuoteMeta(imp.bound) + "\\s*\\.\\s*" + RE2::QuoteMeta(b->name), imp.line, b,
                             files[imp.target_file].dotted});
    }
    if (callees.empty()) continue;
    const auto text = workspace.read(f.path);
    if (!text) continue;
    const sdk::LineIndex index(*text);
    std::set<std::string> handles;  // names bound to what a builder returned
    std::size_t first_handle_line = kNone;
    for (const Callee& c : callees) {
      const RE2 call("(?m)^([ \\t]*)(?:([\\w.]+)[ \\t]*=[ \\t]*)?(.*?[^\\w.])?(" + c.written + ")\\s*\\(",
                     bytePattern());
      const std::string value = c.module + "." + c.builder->name + "() builds";
      plugin_support::forEachMatch(call, *text, [&](const auto& m) {
        const auto b = static_cast<std::uint32_t>(m[4].data() - text->data());
        const sdk::SourceRange range = index.range(b, b + static_cast<std::uint32_t>(m[4].size()));
        static const RE2 kDef(R"(\bdef\s*$)", bytePattern());
        if (range.line <= c.after_line + 1 || (!m[3].empty() && RE2::PartialMatch(m[3], kDef))) return;
        if (m[3].find('#') != std::string_view::npos) return;  // in a comment
        auto finding = rules.make(kJitBuild, f.path, range, str(m[4]), {}, {{"value", "that " + value}});
        if (!finding) return;
        finding->details = {{"builder", c.module + "." + c.builder->name},
                            {"evidence",
                             "a function of another module of the repository that builds CUDA sources with "
                             "torch.utils.cpp_extension.load"}};
        sink.report(std::move(*finding));
        if (c.builder->returns && !m[2].empty() && m[3].empty()) {
          handles.insert(str(m[2]));
          first_handle_line = std::min<std::size_t>(first_handle_line, range.line);
        }
      });
    }
    if (handles.empty()) continue;
    // `self.compiled_extension.init()`: calls into what a builder returned (not its attributes read).
    const RE2 into("(?:^|[^\\w.])(" + alternation(handles) + ")\\.(\\w+)\\s*\\(", bytePattern());
    plugin_support::forEachMatch(into, *text, [&](const auto& m) {
      const auto b = static_cast<std::uint32_t>(m[2].data() - text->data());
      const std::size_t bol = text->rfind('\n', b) + 1;  // npos + 1 == 0
      if (text->find('#', bol) < b) return;              // in a comment
      const sdk::SourceRange range = index.range(b, b + static_cast<std::uint32_t>(m[2].size()));
      if (range.line <= first_handle_line) return;
      auto finding = rules.make(kExtensionCall, f.path, range, str(m[1]) + "." + str(m[2]), {},
                                {{"value", "that a JIT builder of the repository returned"}});
      if (!finding) return;
      finding->details = {{"module", str(m[1])}, {"function", str(m[2])}};
      sink.report(std::move(*finding));
    });
    reportHandedToFunctions(f, *text, index, handles, rules, sink);
  }
}

}  // namespace custom_ops

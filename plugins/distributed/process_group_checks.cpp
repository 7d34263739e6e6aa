// DIST-004 / DIST-005: the backend of init_process_group when it is not a string literal, and
// DIST-012 for classes derived from nn.DataParallel.

#include <algorithm>
#include <string>
#include <vector>

#include "distributed_checks.hpp"
#include "plugin_support/byte_regex.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

/// A literal that names a process-group backend ("nccl", "gloo", "cpu:gloo,cuda:nccl", ...).
bool looksLikeBackend(const std::string& value) {
  static const RE2 kBackend(
      R"((?i)[[:space:]]*(?:(?:cpu|cuda|npu|xpu|mps):)?(?:nccl|gloo|hccl|mpi|ucc|lccl|xccl)(?:[[:space:]]*,[[:space:]]*(?:(?:cpu|cuda|npu|xpu|mps):)?(?:nccl|gloo|hccl|mpi|ucc|lccl|xccl))*[[:space:]]*)",
      plugin_support::bytePattern());
  return RE2::FullMatch(value, kBackend);
}

bool countsAsValue(const StringFact& s) {
  return s.context != StringContext::Docstring && s.context != StringContext::Message;
}

std::string compact(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') out += c;
  return out;
}

std::string lastSegment(const std::string& chain) {
  const auto dot = chain.rfind('.');
  return dot == std::string::npos ? chain : chain.substr(dot + 1);
}

bool contains(const SourceRange& outer, const SourceRange& inner) {
  return outer.start_byte <= inner.start_byte && inner.end_byte <= outer.end_byte;
}

/// The innermost function whose definition contains `offset`; nullptr at module or class level.
const DefinitionFact* enclosingFunction(const Module& module, std::uint32_t offset) {
  const DefinitionFact* best = nullptr;
  for (const DefinitionFact& d : module.definitions()) {
    if (d.kind != DefinitionFact::Kind::Function) continue;
    if (d.range.start_byte > offset || offset >= d.range.end_byte) continue;
    if (!best || d.range.start_byte >= best->range.start_byte) best = &d;
  }
  return best;
}

/// Where the backend expression of one init_process_group call can be traced to.
class BackendTracer {
 public:
  BackendTracer(const Module& module, const CallFact& call)
      : module_(module), scope_(enclosingFunction(module, call.range.start_byte)) {}

  /// True when a backend literal in this file is the value of `arg` (so DIST-001/002 report the
  /// literal, or it is already "hccl" / "gloo").
  bool traced(const ArgumentFact& arg) const {
    if (literalWithin(arg.range)) return true;  // "nccl" if ok else "gloo", cfg.get("backend", "nccl")
    const std::string expr = compact(arg.text);
    if (arg.kind == ValueKind::Name) {
      if (libraryConstant(arg.range)) return true;  // dist.Backend.NCCL (DIST-003) or Backend.GLOO
      return expr.find('.') == std::string::npos ? tracedName(expr) : tracedAttribute(expr);
    }
    static const RE2 kKey(R"(\[[[:space:]]*["'](\w+)["'][[:space:]]*\]$)", plugin_support::bytePattern());
    if (std::string key; RE2::PartialMatch(expr, kKey, &key)) return tracedKey(key);
    const auto paren = expr.find('(');
    if (paren != std::string::npos) return tracedLocalFunction(expr.substr(0, paren));
    return false;
  }

 private:
  bool literalWithin(const SourceRange& range) const {
    for (const StringFact& s : module_.strings())
      if (countsAsValue(s) && contains(range, s.range) && looksLikeBackend(s.value)) return true;
    return false;
  }

  bool sameScope(std::uint32_t offset) const {
    const DefinitionFact* at = enclosingFunction(module_, offset);
    return at == nullptr || at == scope_;
  }

  bool libraryConstant(const SourceRange& range) const {
    for (const ReferenceFact& r : module_.references())
      if (r.range.start_byte == range.start_byte && r.resolved.rfind("torch.", 0) == 0) return true;
    return false;
  }

  /// `backend = "nccl"` (or a parameter default) in the same function or at module level, or
  /// `backend = os.environ.get("BACKEND", "nccl")`.
  bool tracedName(const std::string& name) const {
    for (const StringFact& s : module_.strings())
      if (s.context == StringContext::Assignment && s.name == name && looksLikeBackend(s.value) &&
          sameScope(s.range.start_byte))
        return true;
    for (const CallFact& c : module_.calls()) {
      if (c.assigned_to != name || !sameScope(c.range.start_byte)) continue;
      // `backend = dist.get_default_backend_for_device(device)`: PyTorch chooses per device, which is
      // "hccl" for an NPU device once torch_npu is imported.
      if (c.callee_resolved.rfind("torch.distributed.", 0) == 0) return true;
      if (literalWithin(c.range)) return true;
    }
    return false;
  }

  /// `args.dist_backend` / `self.backend` / `cfg.backend`: an assignment to the same attribute
  /// (or a dictionary key of that name) anywhere in the file, or an argparse option of that dest.
  bool tracedAttribute(const std::string& chain) const {
    const std::string attr = lastSegment(chain);
    for (const StringFact& s : module_.strings()) {
      if (s.context != StringContext::Assignment || !looksLikeBackend(s.value)) continue;
      if (s.name == chain || lastSegment(s.name) == attr || s.name == attr) return true;
    }
    std::string dashed = attr;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    for (const CallFact& c : module_.calls()) {
      if (c.method != "add_argument") continue;
      bool option = false;
      for (const ArgumentFact& a : c.args)
        if (a.index >= 0 && a.kind == ValueKind::String && (a.text == "--" + attr || a.text == "--" + dashed))
          option = true;
      if (!option) continue;
      for (const ArgumentFact& a : c.args)
        if (a.keyword == "default" && a.kind == ValueKind::String) return true;
    }
    return false;
  }

  /// `cfg["backend"]`: a dictionary entry or subscript assignment with that key.
  bool tracedKey(const std::string& key) const {
    for (const StringFact& s : module_.strings()) {
      if (s.context != StringContext::Assignment || !looksLikeBackend(s.value)) continue;
      const std::string quoted1 = "[\"" + key + "\"]", quoted2 = "['" + key + "']";
      if (s.name == key || (s.name.size() > quoted1.size() &&
                            (s.name.compare(s.name.size() - quoted1.size(), quoted1.size(), quoted1) == 0 ||
                             s.name.compare(s.name.size() - quoted2.size(), quoted2.size(), quoted2) == 0)))
        return true;
    }
    return false;
  }

  /// `get_backend()` defined in this module with a backend literal in its body.
  bool tracedLocalFunction(const std::string& callee) const {
    for (const DefinitionFact& d : module_.definitions())
      if (d.kind == DefinitionFact::Kind::Function && (d.qualified_name == callee || d.name == callee) &&
          literalWithin(d.range))
        return true;
    return false;
  }

  const Module& module_;
  const DefinitionFact* scope_;
};

/// `f(**kwargs)` / `f(*args)`: the facts leave splats out, so look at the call's text.
bool hasSplat(const Module& module, const CallFact& call, bool keyword_splat) {
  static const RE2 kKeywordSplat(R"([(,][[:space:]]*\*\*[[:space:]]*[A-Za-z_(\[{])",
                                 plugin_support::bytePattern());
  static const RE2 kPositionalSplat(R"([(,][[:space:]]*\*[[:space:]]*[A-Za-z_(\[])",
                                    plugin_support::bytePattern());
  return RE2::PartialMatch(module.text(call.range), keyword_splat ? kKeywordSplat : kPositionalSplat);
}

/// The `backend=` argument of the `dict(...)` call assigned to the name splatted into `call`
/// (`kw = dict(backend=b, ...)`, then `init_process_group(**kw)`) in the same scope; nullptr when
/// there is none.
const ArgumentFact* splatBackend(const Module& module, const CallFact& call) {
  static const RE2 kSplatName(R"(\*\*[[:space:]]*([A-Za-z_]\w*)[[:space:]]*[,)])",
                              plugin_support::bytePattern());
  std::string name;
  if (!RE2::PartialMatch(module.text(call.range), kSplatName, &name)) return nullptr;
  const DefinitionFact* scope = enclosingFunction(module, call.range.start_byte);
  const ArgumentFact* found = nullptr;
  for (const CallFact& c : module.calls()) {
    if (c.assigned_to != name || c.callee_written != "dict" || c.range.start_byte > call.range.start_byte)
      continue;
    if (enclosingFunction(module, c.range.start_byte) != scope) continue;
    for (const ArgumentFact& a : c.args)
      if (a.keyword == "backend") found = &a;
  }
  return found;
}

void reportVariable(const Module& module, const CallFact& call, const SourceRange& range,
                    const std::string& expr, const std::string& reason, const RuleTable& rules,
                    FindingSink& sink) {
  Finding f = findingFrom(*rules.variable_backend, std::string(module.path()), range, call.callee_written,
                          call.callee_resolved, {{"value", expr}});
  f.details["backend_expression"] = expr;
  f.details["reason"] = reason;
  sink.report(std::move(f));
}

}  // namespace

bool isInitProcessGroup(const CallFact& call) {
  return call.callee_resolved == "torch.distributed.init_process_group" ||
         call.callee_resolved == "torch.distributed.distributed_c10d.init_process_group";
}

void checkInitProcessGroup(const Module& module, const RuleTable& rules, FindingSink& sink) {
  for (const CallFact& call : module.calls()) {
    if (!isInitProcessGroup(call)) continue;
    const ArgumentFact* backend = nullptr;
    for (const ArgumentFact& a : call.args)
      if (a.keyword == "backend" || a.index == 0) backend = &a;
    if (backend == nullptr || backend->kind == ValueKind::None) {
      if (backend == nullptr && hasSplat(module, call, true)) {
        // `init_process_group(**pg_kwargs)` with `pg_kwargs = dict(backend=…)` in this scope: the
        // backend is that keyword's value, traced like a direct argument.
        if (const ArgumentFact* inner = splatBackend(module, call)) {
          if (inner->kind == ValueKind::String || BackendTracer(module, call).traced(*inner)) continue;
          reportVariable(module, call, inner->range, compact(inner->text), "untraced", rules, sink);
          continue;
        }
        reportVariable(module, call, call.range, "**kwargs", "keyword-splat", rules, sink);
      } else if (backend == nullptr && hasSplat(module, call, false)) {
        reportVariable(module, call, call.range, "*args", "positional-splat", rules, sink);
      } else {
        Finding f = findingFrom(*rules.default_backend, std::string(module.path()), call.range,
                                call.callee_written, call.callee_resolved);
        f.details["backend"] = "default";
        sink.report(std::move(f));
      }
      continue;
    }
    if (backend->kind == ValueKind::String) continue;  // literals: DIST-001 / DIST-002 or fine
    if (BackendTracer(module, call).traced(*backend)) continue;
    reportVariable(module, call, backend->range, compact(backend->text), "untraced", rules, sink);
  }
}

void checkDataParallelBases(const Module& module, const RuleTable& rules, FindingSink& sink) {
  static const char* const kDataParallel[] = {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                                              "torch.nn.parallel.data_parallel.DataParallel"};
  for (const ReferenceFact& ref : module.references()) {
    if (ref.role != ReferenceFact::Role::BaseClass) continue;
    if (std::find(std::begin(kDataParallel), std::end(kDataParallel), ref.resolved) ==
        std::end(kDataParallel))
      continue;
    Finding f =
        findingFrom(*rules.data_parallel, std::string(module.path()), ref.range, ref.written, ref.resolved);
    f.details["use"] = "base-class";
    sink.report(std::move(f));
  }
}

}  // namespace distributed

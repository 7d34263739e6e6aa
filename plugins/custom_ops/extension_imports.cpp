// Extension builds (CUDAExtension, load/load_inline) and compiled-extension imports in Python
// files (OPS-017, OPS-018, OPS-028), and what names a compiled extension module.

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "python_file.hpp"
#include "python_scan.hpp"

namespace custom_ops {
namespace python {
namespace {

constexpr const char* kExtension = "OPS-017";
constexpr const char* kJitExtension = "OPS-018";

}  // namespace

bool PythonFile::hasKeyword(const CallFact& c, std::string_view keyword) {
  return std::any_of(c.args.begin(), c.args.end(), [&](const auto& a) { return a.keyword == keyword; });
}

bool PythonFile::mentionsCudaSource(std::string_view text) {
  // The regex `\.cuh?\b(?!\.)` as a loop (std::regex recursed; RE2 has no lookahead).
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = text.find(".cu"); i != std::string_view::npos; i = text.find(".cu", i + 1)) {
    std::size_t end = i + 3;
    if (end < text.size() && text[end] == 'h') ++end;
    if (end == text.size() || (!word(text[end]) && text[end] != '.')) return true;
  }
  return false;
}

bool PythonFile::fileHasCudaSourceString() const {
  for (const auto& s : m_.strings())
    if (s.context != sdk::StringContext::Docstring && s.context != sdk::StringContext::Message &&
        (endsWith(s.value, ".cu") || endsWith(s.value, ".cuh")))
      return true;
  return false;
}

/// `load(name, sources, **myargs)` beside `myargs = {"with_cuda": True, "extra_cuda_cflags": [...]}`:
/// a dict this file binds (by a plain assignment of a `{…}` or `dict(…)` literal) and the call
/// unpacks carries load()'s CUDA keywords or .cu sources.
bool PythonFile::splatDictBuildsCuda(const CallFact& c) const {
  if (!c.splat) return false;
  static const RE2 kSplat(R"(\*\*[ \t]*([A-Za-z_]\w*))", bytePattern());
  static const RE2 kCudaKey(
      R"(["'](?:extra_cuda_cflags|cuda_sources)["'][ \t]*:|["']with_cuda["'][ \t]*:[ \t]*True\b|\b(?:extra_cuda_cflags|cuda_sources)[ \t]*=|\bwith_cuda[ \t]*=[ \t]*True\b)",
      bytePattern());
  const std::string_view src = m_.source();
  re2::StringPiece call(m_.text(c.range).data(), m_.text(c.range).size());
  for (std::string name; RE2::FindAndConsume(&call, kSplat, &name);) {
    const RE2 bound("(?m)^[ \\t]*" + RE2::QuoteMeta(name) + "[ \\t]*=[ \\t]*(\\{|dict\\()", bytePattern());
    bool cuda = false;
    plugin_support::forEachMatch(bound, src, [&](const auto& g) {
      const auto open = static_cast<std::size_t>(g[1].data() - src.data()) + g[1].size() - 1;
      const std::size_t close = closingBracket(src, open);
      if (close == std::string_view::npos || open > c.range.start_byte) return;
      const std::string_view body = src.substr(open, close - open);
      if (RE2::PartialMatch(re2::StringPiece(body.data(), body.size()), kCudaKey) || mentionsCudaSource(body))
        cuda = true;
    });
    if (cuda) return true;
  }
  return false;
}

namespace {

/// `load_extension`, `TorchOpsJitExtension`, `build_kernel`: a callee named for building or loading.
bool builderName(const std::string& callee) {
  const std::string fn = lower(lastPart(callee));
  for (const char* word : {"load", "build", "ext", "jit", "compile"})
    if (fn.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace

bool PythonFile::wrapperJitBuild(const CallFact& c) {
  return !startsWith(c.callee_resolved, "torch.utils.cpp_extension.") && builderName(c.callee_written) &&
         (hasKeyword(c, "extra_cuda_cflags") || hasKeyword(c, "cuda_sources") ||
          mentionsCudaSource(argText(c, "sources", -1)));
}

void PythonFile::extensionBuilds() {
  for (const auto& c : m_.calls()) {
    const std::string& r = c.callee_resolved;
    // pccm's extension (cumm's code generator: its generated C++ and CUDA built with nvcc) names
    // the package it builds second: `PCCMExtension(cus, "spconv/core_cc", …)`.
    const bool pccm = r == "pccm.extension.PCCMExtension" || r == "pccm.PCCMExtension";
    if (r == "torch.utils.cpp_extension.CUDAExtension" || pccm ||
        ((r == "torch.utils.cpp_extension.CppExtension" || r == "setuptools.Extension" ||
          r == "distutils.core.Extension" || r == "setuptools.extension.Extension") &&
         std::any_of(c.args.begin(), c.args.end(),
                     [](const auto& a) { return mentionsCudaSource(a.text); }))) {
      std::string name = argText(c, "name", pccm ? 1 : 0);
      std::string sources = argText(c, "sources", pccm ? 0 : 1);
      auto f = rules_.make(kExtension, std::string(m_.path()), c.name_range, c.callee_written, r,
                           {{"value", name.empty() ? std::string("?") : name}});
      if (!f) continue;
      f->details = {{"extension", name},
                    {"sources", clip(collapseSpace(sources), 300)},
                    {"builder", lastPart(r)},
                    {"nvcc_flags",
                     argText(c, "extra_compile_args", -1).find("nvcc") != std::string::npos ? "yes" : "no"},
                    {"libraries", clip(collapseSpace(argText(c, "libraries", -1)), 200)}};
      report(std::move(f));
    }
    // The repository's own JIT builder speaking load()'s words (`TorchOpsJitExtension(…,
    // extra_cuda_cflags=…)`, `load(name=…, sources=[… "kernel.cu" …])` of a wrapper): a CUDA build
    // declared through a wrapper named as one (not a record of build parameters:
    // `SimpleNamespace(extra_cuda_cflags=…)`).
    if (wrapperJitBuild(c)) {
      const std::string name = argText(c, "name", 0);
      auto f = rules_.make(kJitExtension, std::string(m_.path()), c.name_range, c.callee_written, r,
                           {{"value", name.empty() ? std::string("?") : name}});
      if (!f) continue;
      f->details = {{"extension", name},
                    {"builder", lastPart(c.callee_written)},
                    {"sources", clip(collapseSpace(argText(c, "sources", -1)), 300)},
                    {"bound_to", c.assigned_to}};
      report(std::move(f));
      continue;
    }
    if (r == "torch.utils.cpp_extension.load" || r == "torch.utils.cpp_extension.load_inline") {
      const bool inline_build = endsWith(r, "load_inline");
      bool cuda = hasKeyword(c, "cuda_sources") || hasKeyword(c, "extra_cuda_cflags") ||
                  argText(c, "with_cuda", -1) == "True" || splatDictBuildsCuda(c);
      bool literal_sources = false;
      for (const auto& a : c.args) {
        if (a.keyword == "with_cuda") continue;
        if (mentionsCudaSource(a.text)) cuda = true;
        if ((a.keyword == "sources" || a.index == 1) &&
            (a.kind == sdk::ValueKind::String || startsWith(a.text, "[")))
          literal_sources = true;
      }
      if (!cuda && !inline_build && !literal_sources && fileHasCudaSourceString()) cuda = true;
      if (!cuda) continue;
      const std::string name = argText(c, "name", 0);
      auto f = rules_.make(kJitExtension, std::string(m_.path()), c.name_range, c.callee_written, r,
                           {{"value", name.empty() ? std::string("?") : name}});
      if (!f) continue;
      f->details = {
          {"extension", name},
          {"builder", lastPart(r)},
          {"sources",
           clip(collapseSpace(argText(c, inline_build ? "cuda_sources" : "sources", inline_build ? 2 : 1)),
                300)},
          {"bound_to", c.assigned_to}};
      report(std::move(f));
    }
  }
  // `Ext = CUDAExtension if cuda else CppExtension`: a reference that is not a call.
  for (const auto& ref : m_.references())
    if (ref.resolved == "torch.utils.cpp_extension.CUDAExtension" && ref.call < 0 &&
        ref.role == sdk::ReferenceFact::Role::Plain) {
      auto f = rules_.make(kExtension, std::string(m_.path()), ref.range, ref.written, ref.resolved,
                           {{"value", "(chosen where this reference is used)"}});
      if (f) f->details = {{"builder", "CUDAExtension"}, {"extension", ""}};
      report(std::move(f));
    }
}

/// `ext_module = ext_loader.load_ext("_ext", [...])`, `m = importlib.import_module("foo_cuda")`,
/// `_C, _ = optional_import("monai._C")`: a name bound to a compiled extension loaded by its module name.
bool PythonFile::loadsExtensionByName(const CallFact& c) const {
  if (loadedAs(c).empty()) return false;
  if (!hubKernel(c).empty() || projectBuilderLoad(c)) return true;
  // A loader by its name (`load_ext`, `import_module`, `_load_cuda_ext`), not `info.get("force_cuda")`.
  const std::string fn = lower(lastPart(c.callee_written));
  if (fn.find("load") == std::string::npos && fn.find("import") == std::string::npos) return false;
  // The repository's own build wrapper: `spmm = utils.load_extension("spmm", [..."spmm.cu"])`, or
  // a loader whose result is named like a compiled module (`act_cuda = load.load()`).
  // (cpp_extension's own load() is a build, reported as such.)
  if (startsWith(c.callee_resolved, "torch.utils.cpp_extension.")) return false;
  if (looksLikeExtensionModule(loadedAs(c)) ||
      std::any_of(c.args.begin(), c.args.end(), [](const auto& a) { return mentionsCudaSource(a.text); }))
    return true;
  if (c.args.empty()) return false;
  const auto& a = c.args.front();
  return a.index == 0 && a.kind == sdk::ValueKind::String && looksLikeExtensionModule(a.text);
}

/// `transformer_cuda_module = TransformerBuilder().load()` (also `.jit_load()`): a DeepSpeed-style op
/// builder, a class named `*Builder` of the project's own modules or of this file, compiles its CUDA
/// sources when load() runs and hands out the compiled module. DeepSpeed's own builders are not
/// meant: its accelerator picks the builder, and it has an NPU one.
bool PythonFile::projectBuilderLoad(const CallFact& c) const {
  // The receiver is a call (`X().load`), so the callee is no name chain.
  if (!c.callee_written.empty() || (c.method != "load" && c.method != "jit_load")) return false;
  for (const auto& b : m_.calls()) {
    if (b.result_use != sdk::ResultUse::Attribute || b.result_attribute != c.method ||
        b.range.start_byte != c.range.start_byte || b.range.end_byte >= c.range.end_byte)
      continue;
    const std::string cls = lastPart(b.callee_written);
    if (!endsWith(cls, "Builder") || startsWith(b.callee_resolved, "deepspeed.")) continue;
    if (!b.callee_resolved.empty() && m_.isProjectModule(b.callee_resolved)) return true;
    for (const auto& d : m_.definitions())
      if (d.kind == DefinitionFact::Kind::Class && d.name == cls) return true;
  }
  return false;
}

/// `kernel = get_kernel("kernels-community/activation")` (Hugging Face's `kernels` hub, also through
/// a wrapper named `load_kernel(module=…, repo_id=…)`): the hub repository of a compiled kernel the
/// call downloads, or "". The hub's builds are CUDA (and ROCm, Metal, XPU) ones, none for the NPU.
std::string PythonFile::hubKernel(const CallFact& c) {
  const std::string fn = lastPart(c.callee_written);
  if (fn != "get_kernel" && fn != "load_kernel") return {};
  for (const auto& a : c.args)
    if (a.kind == sdk::ValueKind::String && (a.index == 0 || a.keyword == "repo_id") &&
        a.text.find('/') != std::string::npos && a.text.find(' ') == std::string::npos)
      return a.text;
  return {};
}

void PythonFile::extensionImports() {
  for (const auto& c : m_.calls()) {
    if (!loadsExtensionByName(c)) continue;
    const std::string hub = hubKernel(c);
    const bool named =
        !c.args.empty() && c.args.front().index == 0 && c.args.front().kind == sdk::ValueKind::String;
    const std::string target = !hub.empty() ? hub : named ? c.args.front().text : loadedAs(c);
    auto f = rules_.make(kExtensionImport, std::string(m_.path()), c.range, c.callee_written,
                         c.callee_resolved, {{"value", target}});
    if (!f) continue;
    f->details = {{"module", target}, {"bound_as", loadedAs(c)}, {"loaded_by", c.callee_written}};
    report(std::move(f));
  }
  // `OP = torch.ops.wkv7` beside `load(name="wkv7", …)`: the op namespace bound like an import.
  for (const OpBinding& op : op_namespace_bindings_) {
    const std::string target(m_.source().substr(op.begin, op.end - op.begin));
    auto f = rules_.make(kExtensionImport, std::string(m_.path()), lines_.range(op.begin, op.end), target,
                         target, {{"value", op.ns}});
    if (!f) continue;
    f->details = {{"module", op.ns}, {"bound_as", op.alias}, {"loaded_by", "load()"}};
    report(std::move(f));
  }
  std::set<std::uint32_t> seen;
  for (const auto& imp : m_.imports()) {
    std::string target = imp.name.empty() ? imp.module : imp.target;
    // `import renderutils_plugin` (or `from exllama_ext import make_q4`) after
    // `load(name='renderutils_plugin', …)` of this file: the JIT build puts its module on the
    // import path under that name.
    const bool jit_built = imp.level == 0 && op_namespaces_.count(imp.module) != 0;
    if (fromExtensionModule(imp) || (jit_built && !imp.name.empty()))
      target = imp.module;
    else if (!jit_built && !looksLikeExtensionModule(target))
      continue;
    if (!seen.insert(imp.range.start_byte).second) continue;
    auto f =
        rules_.make(kExtensionImport, std::string(m_.path()), imp.range, target, target, {{"value", target}});
    if (!f) continue;
    f->details = {{"module", target}, {"bound_as", imp.bound}};
    report(std::move(f));
  }
}

}  // namespace python

bool looksLikeExtensionModule(std::string_view target) {
  if (target.empty()) return false;
  const std::string root(target.substr(0, target.find('.')));
  // Frameworks and CUDA bindings (deps domain), flash-attn / xformers (attention domain).
  static const std::set<std::string> kNotExtensions = {
      "torch",  "triton",   "numpy",  "jax",   "tensorflow", "cupy",   "numba",     "pycuda",     "cuda",
      "nvidia", "tensorrt", "jaxlib", "cupyx", "mlx",        "paddle", "mindspore", "flash_attn", "xformers"};
  if (kNotExtensions.count(root)) return false;
  const std::size_t dot = target.rfind('.');
  std::string last(dot == std::string_view::npos ? target : target.substr(dot + 1));
  // A version suffix does not change what a module is: `fast_layer_norm_cuda_v2`, `ops_cuda_v10`.
  if (const std::size_t v = last.rfind("_v");
      v != std::string::npos && v + 2 < last.size() &&
      std::all_of(last.begin() + static_cast<long>(v) + 2, last.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    last.resize(v);
  // yacs-style configs are conventionally `_C = CN()` in a config/defaults module.
  for (const char* cfg : {".config.", ".configs.", ".defaults.", ".default.", ".cfg.", ".settings."})
    if (std::string(".").append(target).append(".").find(cfg) != std::string::npos) return false;
  if (last == "_C" || last == "_ext" || last == "_cuda") return true;
  // Top-level modules that flash-attention's csrc builds as CUDA extensions, named otherwise, and
  // DeepGEMM's package, whose functions are those of its compiled `_C` module (Hopper/Blackwell
  // FP8 GEMMs; evidence in plugins/deps/data/compatibility.yaml, entry deep-gemm).
  static const std::set<std::string, std::less<>> kKnownCudaModules = {
      "dropout_layer_norm", "fused_dense_lib", "xentropy_cuda_lib",
      "fused_softmax_lib",  "ft_attention",    "deep_gemm"};
  if (dot == std::string_view::npos && kKnownCudaModules.count(last)) return true;
  // amp_C, fused_adam_C: a lower-case stem and the `_C` suffix of compiled modules.
  if (endsWith(last, "_C") && last.size() > 2 && std::islower(static_cast<unsigned char>(last[0])))
    return true;
  if (std::any_of(last.begin(), last.end(),
                  [](char c) { return std::isupper(static_cast<unsigned char>(c)); }))
    return false;
  static const char* const kHelperPrefixes[] = {"is_",    "has_",    "use_",     "to_",   "get_", "set_",
                                                "check_", "enable_", "disable_", "with_", "_is_", "_has_",
                                                "on_",    "init_",   "maybe_",   "all_",  "no_"};
  for (const char* p : kHelperPrefixes)
    if (startsWith(last, p)) return false;
  // A predicate named for what it tests (`backend_supports_cuda`, `device_supports_cuda`): a helper
  // function, whichever module it is imported from.
  if (startsWith(last, "supports_") || last.find("_supports_") != std::string::npos) return false;
  return endsWith(last, "_cuda") || endsWith(last, "cuda_ext") || endsWith(last, "_cuda_kernel") ||
         endsWith(last, "_cuda_kernels") || endsWith(last, "cuda_ops") || startsWith(last, "cuda_ext");
}

bool fromExtensionModule(const sdk::ImportFact& imp) {
  return !imp.name.empty() && !imp.star && looksLikeExtensionModule(imp.module) &&
         !looksLikeExtensionModule(imp.target);
}

}  // namespace custom_ops

// The Python side of custom operators: Triton kernels and their launches, extension builds,
// compiled-extension imports and autograd Functions over custom kernels. Everything is read from
// the Module's facts (aliases already resolved); the source text is read only inside ranges the
// facts give (a definition's header, a launch's `kernel[grid]`).
// This file holds what the checks share and the driver; each family of checks has a file of its own.

#include "python_scan.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "byte_regex.hpp"
#include "kernel_advice.hpp"
#include "python_file.hpp"

namespace custom_ops {
namespace python {
namespace {

/// Top-level modules of the standard library and common pure-Python packages: never compiled
/// extensions of the project.
bool knownLibrary(const std::string& module) {
  static const std::set<std::string> kKnown = {"abc",
                                               "argparse",
                                               "ast",
                                               "asyncio",
                                               "base64",
                                               "bisect",
                                               "builtins",
                                               "collections",
                                               "contextlib",
                                               "copy",
                                               "csv",
                                               "ctypes",
                                               "dataclasses",
                                               "datetime",
                                               "enum",
                                               "functools",
                                               "gc",
                                               "glob",
                                               "hashlib",
                                               "heapq",
                                               "importlib",
                                               "inspect",
                                               "io",
                                               "itertools",
                                               "json",
                                               "logging",
                                               "math",
                                               "multiprocessing",
                                               "operator",
                                               "os",
                                               "pathlib",
                                               "pickle",
                                               "platform",
                                               "pprint",
                                               "queue",
                                               "random",
                                               "re",
                                               "shutil",
                                               "signal",
                                               "socket",
                                               "string",
                                               "struct",
                                               "subprocess",
                                               "sys",
                                               "tempfile",
                                               "threading",
                                               "time",
                                               "timeit",
                                               "traceback",
                                               "types",
                                               "typing",
                                               "unittest",
                                               "uuid",
                                               "warnings",
                                               "weakref",
                                               "torch",
                                               "numpy",
                                               "scipy",
                                               "einops",
                                               "triton",
                                               "transformers",
                                               "accelerate",
                                               "timm",
                                               "torchvision",
                                               "PIL",
                                               "cv2",
                                               "tqdm",
                                               "yaml",
                                               "packaging",
                                               "pytest",
                                               "safetensors",
                                               "peft",
                                               "sklearn",
                                               "pandas",
                                               "matplotlib",
                                               "deepspeed",
                                               "apex",
                                               "xformers",
                                               "flash_attn",
                                               "jax",
                                               "tensorflow",
                                               "cupy",
                                               "numba",
                                               "pycuda",
                                               "cuda",
                                               "tilelang",
                                               "cutlass",
                                               "huggingface_hub",
                                               "datasets",
                                               "tokenizers",
                                               "sentencepiece",
                                               "wandb",
                                               "omegaconf",
                                               "hydra",
                                               "mmcv",
                                               "mmengine",
                                               "requests",
                                               "psutil",
                                               "fvcore",
                                               "detectron2",
                                               "opt_einsum",
                                               "h5py",
                                               "lightning",
                                               "pytorch_lightning"};
  return kKnown.count(module) > 0;
}

/// The string a name is bound to when the file assigns it exactly once, and to a string; else "".
std::string assignedString(const sdk::Module& m, const std::string& name) {
  std::string value;
  int bindings = 0;
  for (const auto& s : m.strings())
    if (s.context == sdk::StringContext::Assignment && s.name == name && !s.fstring) {
      value = s.value;
      ++bindings;
    }
  return bindings == 1 ? value : std::string();
}

}  // namespace

bool isTritonJit(const std::string& d) {
  return d == "triton.jit" || (startsWith(d, "triton.") && endsWith(d, ".jit"));
}

bool within(const sdk::SourceRange& inner, const sdk::SourceRange& outer) {
  return inner.start_byte >= outer.start_byte && inner.end_byte <= outer.end_byte;
}

std::optional<Subscripted> subscriptCallee(const sdk::Module& m, const CallFact& c) {
  if (!c.callee_written.empty()) return std::nullopt;
  const std::string_view t = m.text(c.name_range);
  static const RE2 kShape(R"([[:space:]]*([A-Za-z_][\w.]*)[[:space:]]*\[((?s:.)*)\][[:space:]]*)",
                          bytePattern());
  std::string base, subscript;
  if (!RE2::FullMatch(t, kShape, &base, &subscript)) return std::nullopt;
  return Subscripted{base, collapseSpace(subscript)};
}

std::string lastPart(const std::string& chain) {
  const auto dot = chain.rfind('.');
  return dot == std::string::npos ? chain : chain.substr(dot + 1);
}

PythonFile::PythonFile(const sdk::Module& m, const Rules& rules, const Options& options,
                       sdk::FindingSink& sink)
    : m_(m), rules_(rules), options_(options), sink_(sink), lines_(m.source()), value_reads_(m.attributes()) {
  for (const auto& r : m.references())
    if (const auto dot = r.written.rfind('.'); r.role == sdk::ReferenceFact::Role::Plain && r.call < 0 &&
                                               !r.resolved.empty() && dot != std::string::npos)
      value_reads_.push_back({r.written.substr(dot + 1), r.written.substr(0, dot), r.range});
  for (const auto& imp : m.imports()) {
    if (startsWith(imp.target, "triton") || startsWith(imp.module, "triton")) triton_imported_ = true;
    if (!imp.bound.empty() && looksLikeExtensionModule(imp.name.empty() ? imp.module : imp.target))
      extension_names_.insert(imp.bound);
    else if (!imp.bound.empty() && fromExtensionModule(imp))
      extension_functions_.emplace(imp.bound, imp.module);
    // `import MultiScaleDeformableAttention as MSDA`: a top-level module that is no known library
    // may be a compiled extension; its calls count as kernels only by their names (see kernelCall).
    if (imp.name.empty() && imp.level == 0 && imp.module.find('.') == std::string::npos &&
        !imp.bound.empty() && !knownLibrary(imp.module))
      plain_modules_.emplace(imp.bound, &imp);
  }
  std::set<std::string> provider_methods;  // `Cls.method` (see below)
  for (const auto& c : m.calls()) {
    const bool load = c.callee_resolved == "torch.utils.cpp_extension.load" ||
                      c.callee_resolved == "torch.utils.cpp_extension.load_inline";
    if (load && !c.assigned_to.empty()) extension_names_.insert(c.assigned_to);
    // `cls.mod[key] = load(…)` in a method of a top-level class that returns it (torch's load() or
    // the repository's JIT builder): `x = Cls.instance(cfg)` binds the extension.
    if (load || wrapperJitBuild(c))
      for (const auto& d : m.definitions())
        if (d.kind == DefinitionFact::Kind::Function && within(c.range, d.range) &&
            std::count(d.qualified_name.begin(), d.qualified_name.end(), '.') == 1 &&
            m.text(d.range).find("return ") != std::string_view::npos)
          for (const auto& cls : m.definitions())
            if (cls.kind == DefinitionFact::Kind::Class && cls.top_level &&
                d.qualified_name == cls.name + "." + d.name)
              provider_methods.insert(d.qualified_name);
    std::string built;
    if (load)
      for (const auto& a : c.args)
        if (a.keyword == "name" || (a.keyword.empty() && a.index == 0)) {
          // `load(name=extension_name, …)` beside `extension_name = "exllama_ext"`.
          built = a.kind == sdk::ValueKind::String ? a.text : assignedString(m, a.text);
          if (!built.empty()) op_namespaces_.insert(built);
        }
    // A top-level function holding the build that returns a value hands the extension out.
    if (load)
      for (const auto& d : m.definitions())
        if (d.kind == DefinitionFact::Kind::Function && d.top_level && within(c.range, d.range) &&
            m.text(d.range).find("return ") != std::string_view::npos)
          extension_providers_.emplace(d.name, built.empty() ? d.name : built);
    if (loadsExtensionByName(c)) extension_names_.insert(loadedAs(c));
  }
  for (const auto& c : m.calls())
    if (!c.assigned_to.empty() && provider_methods.count(c.callee_written))
      extension_names_.insert(c.assigned_to);
  // `slstm_mod = slstm_cuda.sLSTMFunc(…)`: an object of a class the extension defines (a name with
  // its first or second letter upper case) runs the extension's code in its methods
  // (`slstm_mod.forward(…)`), in nested functions too.
  for (const auto& c : m.calls()) {
    if (c.assigned_to.empty() || c.assigned_to.find('.') != std::string::npos) continue;
    const std::size_t dot = c.callee_written.rfind('.');
    if (dot == std::string::npos || !extension_names_.count(c.callee_written.substr(0, dot))) continue;
    const std::string cls = c.callee_written.substr(dot + 1);
    if (!cls.empty() &&
        (std::isupper(static_cast<unsigned char>(cls[0])) ||
         (cls.size() > 1 && std::isupper(static_cast<unsigned char>(cls[1])))) &&
        !dataTypeName(cls))
      extension_names_.insert(c.assigned_to);
  }
  // `cuda_module = transformer_cuda_module` (in a function too): one more name for an extension.
  if (!extension_names_.empty()) {
    static const RE2 kAlias(R"((?m)^[ \t]*(\w+)[ \t]*=[ \t]*(\w+)[ \t]*(?:#.*)?$)", bytePattern());
    plugin_support::forEachMatch(kAlias, m.source(), [&](const auto& g) {
      if (extension_names_.count(str(g[2]))) extension_names_.insert(str(g[1]));
    });
  }
  // `dot = {"cuda": causal_dot_product_cuda}`: a table of the extension's functions by device,
  // called as `Cls.dot[device.type](…)`.
  if (!extension_functions_.empty()) {
    static const RE2 kTable(R"((?m)^[ \t]*(\w+)[ \t]*=[ \t]*\{([^{}]*)\})", bytePattern());
    static const RE2 kWord(R"((\w+))", bytePattern());
    plugin_support::forEachMatch(kTable, m.source(), [&](const auto& g) {
      re2::StringPiece body = g[2];
      for (std::string word; RE2::FindAndConsume(&body, kWord, &word);)
        if (extension_functions_.count(word)) {
          kernel_tables_.insert(str(g[1]));
          return;
        }
    });
  }
  // `OP = torch.ops.wkv7`: a name for the op namespace a load() of this file builds.
  if (!op_namespaces_.empty()) {
    static const RE2 kBinding(R"((?m)^[ \t]*(\w+)[ \t]*=[ \t]*(torch\.ops\.(\w+))[ \t]*(?:#.*)?$)",
                              bytePattern());
    const std::string_view src = m.source();
    plugin_support::forEachMatch(kBinding, src, [&](const auto& g) {
      if (!op_namespaces_.count(str(g[3]))) return;
      op_namespace_names_[str(g[1])] = str(g[3]);
      const auto b = static_cast<std::uint32_t>(g[2].data() - src.data());
      op_namespace_bindings_.push_back(
          {str(g[1]), str(g[3]), b, b + static_cast<std::uint32_t>(g[2].size())});
    });
  }
  // `kernel = triton.jit(fn)`: the call form of the decorator, on a def of this file, also
  // through a local bound to one (`kernel = fwd_kernel; … triton.jit(kernel)`).
  std::set<std::string> top_level_functions;
  for (const auto& d : m.definitions())
    if (d.kind == DefinitionFact::Kind::Function && d.top_level) top_level_functions.insert(d.name);
  std::set<std::string> jitted;
  for (const auto& c : m.calls())
    if (isTritonJit(c.callee_resolved) && !c.args.empty() && c.args.front().index == 0 &&
        c.args.front().kind == sdk::ValueKind::Name) {
      const std::string& name = c.args.front().text;
      if (top_level_functions.count(name)) {
        jitted.insert(name);
      } else if (auto def = boundFunction(c, name, top_level_functions); !def.empty()) {
        jitted.insert(def);
        jit_calls_.emplace(def, &c);
      }
    }
  for (const auto& d : m.definitions())
    if (d.kind == DefinitionFact::Kind::Function &&
        (std::any_of(d.decorators.begin(), d.decorators.end(), isTritonJit) ||
         (d.top_level && jitted.count(d.name)))) {
      triton_kernels_.push_back(&d);
      triton_kernel_names_.insert(d.name);
    } else if (isGpuDslKernel(d)) {
      dsl_kernel_names_.insert(d.name);
    }
  for (const auto& c : m.calls()) {
    if (c.callee_resolved == "torch.cuda.get_device_capability" ||
        c.callee_resolved == "torch.cuda.get_device_properties" ||
        startsWith(c.callee_resolved, "triton.runtime.driver."))
      device_queries_ = true;
  }
  tvm_sites_ = tvmCudaSites();
  npu_path_ = !options.include_npu_paths &&
              (inNpuDir(m.path()) || npuSpecificFile(m.path()) || inOtherVendorBackend(m.path()));
}

void PythonFile::run() {
  extensionBuilds();
  extensionImports();
  cudaBuildImports();
  nvccFlagLists();
  nvccRuns();
  cudaSourceLists();
  if (npu_path_) return;  // already the NPU port of the kernels
  prebuiltCudaLibraries();
  tritonKernels();
  tritonAutotune();
  tritonLaunches();
  tritonApis();
  factoryExtensionObjects();
  autogradFunctions();
  extensionCalls();  // after the autograd passes: a module they call like a kernel is an extension
  gpuDslKernels();
  inlineCudaSources();
}

void PythonFile::report(std::optional<sdk::Finding> f) {
  if (f) sink_.report(std::move(*f));
}

std::string PythonFile::argText(const CallFact& c, std::string_view keyword, int index) {
  for (const auto& a : c.args)
    if ((!keyword.empty() && a.keyword == keyword) || (index >= 0 && a.index == index)) return a.text;
  return {};
}

/// The docstring's first line, unless it is code (`e = e.float()`), else words from the name.
std::string PythonFile::summaryOrName(const DefinitionFact& d) {
  std::string s = d.docstring_summary;
  if (s.find('=') != std::string::npos || s.size() < 4) s.clear();
  s = s.empty() ? describeName(d.name) + " (derived from the name)" : clip(s, 200);
  while (!s.empty() && (s.back() == '.' || s.back() == ' ' || s.back() == ':')) s.pop_back();
  return s;
}

sdk::SourceRange PythonFile::nameRange(const DefinitionFact& d) const {
  const std::string_view def = m_.text(d.range);
  const std::size_t kw = def.find(d.kind == DefinitionFact::Kind::Class ? "class" : "def");
  std::size_t at = def.find(d.name, kw == std::string_view::npos ? 0 : kw);
  if (at == std::string_view::npos) at = 0;
  const auto b = static_cast<std::uint32_t>(d.range.start_byte + at);
  return lines_.range(b, b + static_cast<std::uint32_t>(d.name.size()));
}

}  // namespace python

void analyzePython(const sdk::Module& module, const Rules& rules, const Options& options,
                   sdk::FindingSink& sink) {
  if (inSkippedDir(module.path(), options.skip_dirs)) return;
  python::PythonFile(module, rules, options, sink).run();
}

}  // namespace custom_ops

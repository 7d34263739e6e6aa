// The Python side of custom operators: Triton kernels and their launches, extension builds,
// compiled-extension imports and autograd Functions over custom kernels. Everything is read from
// the Module's facts (aliases already resolved); the source text is read only inside ranges the
// facts give (a definition's header, a launch's `kernel[grid]`).

#include "python_scan.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "kernel_advice.hpp"
#include "migrate/sdk/text_position.hpp"

namespace custom_ops {
namespace {

constexpr const char* kExtension = "OPS-017";
constexpr const char* kJitExtension = "OPS-018";
constexpr const char* kTritonKernel = "OPS-021";
constexpr const char* kAutotune = "OPS-022";
constexpr const char* kTritonLaunch = "OPS-023";
constexpr const char* kTritonTma = "OPS-024";
constexpr const char* kTritonDriver = "OPS-025";
constexpr const char* kTritonCudaOnly = "OPS-026";
constexpr const char* kAutogradFunction = "OPS-027";
constexpr const char* kExtensionImport = "OPS-028";
constexpr const char* kGpuDsl = "OPS-030";

/// Python kernel DSLs that compile for NVIDIA GPUs only: decorators, and classes/functions that
/// compile CUDA source text.
struct Dsl {
  const char* name;
  const char* label;
};
/// Kernels only: CuTe DSL's @cute.jit host launchers and device helpers go with their @cute.kernel.
constexpr Dsl kDslDecorators[] = {{"numba.cuda.jit", "numba.cuda"},
                                  {"cuda.tile.kernel", "cuTile"},
                                  {"cutlass.cute.kernel", "CuTe DSL"},
                                  {"cupyx.jit.rawkernel", "CuPy JIT"},
                                  {"warp.kernel", "NVIDIA Warp"}};
constexpr Dsl kDslCalls[] = {{"cupy.RawKernel", "CuPy"},
                             {"cupy.ElementwiseKernel", "CuPy"},
                             {"cupy.ReductionKernel", "CuPy"},
                             {"cupy.RawModule", "CuPy"},
                             {"pycuda.compiler.SourceModule", "PyCUDA"},
                             {"cuda.nvrtc.nvrtcCreateProgram", "NVRTC (cuda-python)"}};

using sdk::CallFact;
using sdk::DefinitionFact;

bool within(const sdk::SourceRange& inner, const sdk::SourceRange& outer) {
  return inner.start_byte >= outer.start_byte && inner.end_byte <= outer.end_byte;
}

bool isTritonJit(const std::string& d) {
  return d == "triton.jit" || (startsWith(d, "triton.") && endsWith(d, ".jit"));
}

/// One parameter of a `def`: its name, annotation and default as written.
struct Param {
  std::string name;
  std::string annotation;
  std::string default_value;
};

/// The text between the parentheses of a `def name(...)`, and its byte offset; strings skipped.
std::pair<std::string_view, std::size_t> paramText(std::string_view def) {
  const std::size_t open = def.find('(');
  if (open == std::string_view::npos) return {{}, 0};
  int depth = 0;
  for (std::size_t i = open; i < def.size(); ++i) {
    const char c = def[i];
    if (c == '"' || c == '\'') {
      const char q = c;
      for (++i; i < def.size() && def[i] != q; ++i)
        if (def[i] == '\\') ++i;
      continue;
    }
    if (c == '#') {
      while (i < def.size() && def[i] != '\n') ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0)
      return {def.substr(open + 1, i - open - 1), open + 1};
  }
  return {{}, 0};
}

/// Splits at top-level commas (brackets and strings respected); comments dropped.
std::vector<std::string> splitTopLevel(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      const std::size_t b = i;
      for (++i; i < s.size() && s[i] != c; ++i)
        if (s[i] == '\\') ++i;
      cur += s.substr(b, i - b + 1);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(collapseSpace(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!collapseSpace(cur).empty()) out.push_back(collapseSpace(cur));
  return out;
}

std::vector<Param> parseParams(std::string_view text) {
  std::vector<Param> out;
  for (const std::string& p : splitTopLevel(text)) {
    Param param;
    std::string rest = p;
    const std::size_t eq = rest.find('=');
    if (eq != std::string::npos) {
      param.default_value = collapseSpace(rest.substr(eq + 1));
      rest = rest.substr(0, eq);
    }
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      param.annotation = collapseSpace(rest.substr(colon + 1));
      rest = rest.substr(0, colon);
    }
    param.name = collapseSpace(rest);
    while (!param.name.empty() && param.name.front() == '*') param.name.erase(0, 1);
    if (!param.name.empty() && param.name != "/") out.push_back(std::move(param));
  }
  return out;
}

/// The subscripted callee of `kernel[grid](…)`: base chain and grid text.
struct Subscripted {
  std::string base;
  std::string grid;
};

std::optional<Subscripted> subscriptCallee(const sdk::Module& m, const CallFact& c) {
  if (!c.callee_written.empty()) return std::nullopt;
  const std::string_view t = m.text(c.name_range);
  static const std::regex kShape(R"(^\s*([A-Za-z_][\w.]*)\s*\[([\s\S]*)\]\s*$)");
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_match(t.begin(), t.end(), match, kShape)) return std::nullopt;
  return Subscripted{match[1].str(), collapseSpace(match[2].str())};
}

std::string lastPart(const std::string& chain) {
  const auto dot = chain.rfind('.');
  return dot == std::string::npos ? chain : chain.substr(dot + 1);
}

std::string rootPart(const std::string& chain) {
  return chain.substr(0, chain.find('.'));
}

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

/// Everything about one file that several checks share.
class PythonFile {
 public:
  PythonFile(const sdk::Module& m, const Rules& rules, const Options& options, sdk::FindingSink& sink)
      : m_(m), rules_(rules), options_(options), sink_(sink), lines_(m.source()) {
    for (const auto& imp : m.imports()) {
      if (startsWith(imp.target, "triton") || startsWith(imp.module, "triton")) triton_imported_ = true;
      if (!imp.bound.empty() && looksLikeExtensionModule(imp.name.empty() ? imp.module : imp.target))
        extension_names_.insert(imp.bound);
      // `import MultiScaleDeformableAttention as MSDA`: a top-level module that is no known library
      // may be a compiled extension; its calls count as kernels only by their names (see kernelCall).
      if (imp.name.empty() && imp.level == 0 && imp.module.find('.') == std::string::npos &&
          !imp.bound.empty() && !knownLibrary(imp.module))
        plain_modules_.emplace(imp.bound, &imp);
    }
    for (const auto& c : m.calls()) {
      if ((c.callee_resolved == "torch.utils.cpp_extension.load" ||
           c.callee_resolved == "torch.utils.cpp_extension.load_inline") &&
          !c.assigned_to.empty())
        extension_names_.insert(c.assigned_to);
      if (loadsExtensionByName(c)) extension_names_.insert(c.assigned_to);
    }
    // `kernel = triton.jit(fn)`: the call form of the decorator, on a def of this file.
    std::set<std::string> jitted;
    for (const auto& c : m.calls())
      if (isTritonJit(c.callee_resolved) && !c.args.empty() && c.args.front().index == 0 &&
          c.args.front().kind == sdk::ValueKind::Name)
        jitted.insert(c.args.front().text);
    for (const auto& d : m.definitions())
      if (d.kind == DefinitionFact::Kind::Function &&
          (std::any_of(d.decorators.begin(), d.decorators.end(), isTritonJit) ||
           (d.top_level && jitted.count(d.name)))) {
        triton_kernels_.push_back(&d);
        triton_kernel_names_.insert(d.name);
      }
    for (const auto& c : m.calls()) {
      if (c.callee_resolved == "torch.cuda.get_device_capability" ||
          c.callee_resolved == "torch.cuda.get_device_properties" ||
          startsWith(c.callee_resolved, "triton.runtime.driver."))
        device_queries_ = true;
    }
    npu_path_ = !options.include_npu_paths &&
                (inNpuDir(m.path()) || npuSpecificFile(m.path()) || inOtherVendorBackend(m.path()));
  }

  void run() {
    extensionBuilds();
    extensionImports();
    if (npu_path_) return;  // already the NPU port of the kernels
    tritonKernels();
    tritonAutotune();
    tritonLaunches();
    tritonApis();
    autogradFunctions();
    gpuDslKernels();
  }

 private:
  void report(std::optional<sdk::Finding> f) {
    if (f) sink_.report(std::move(*f));
  }

  // ---- extension builds and imports ---------------------------------------------------------------

  static std::string argText(const CallFact& c, std::string_view keyword, int index) {
    for (const auto& a : c.args)
      if ((!keyword.empty() && a.keyword == keyword) || (index >= 0 && a.index == index)) return a.text;
    return {};
  }

  static bool hasKeyword(const CallFact& c, std::string_view keyword) {
    return std::any_of(c.args.begin(), c.args.end(), [&](const auto& a) { return a.keyword == keyword; });
  }

  static bool mentionsCudaSource(std::string_view text) {
    static const std::regex kCu(R"(\.cuh?\b(?!\.))");
    return std::regex_search(text.begin(), text.end(), kCu);
  }

  bool fileHasCudaSourceString() const {
    for (const auto& s : m_.strings())
      if (s.context != sdk::StringContext::Docstring && s.context != sdk::StringContext::Message &&
          (endsWith(s.value, ".cu") || endsWith(s.value, ".cuh")))
        return true;
    return false;
  }

  void extensionBuilds() {
    for (const auto& c : m_.calls()) {
      const std::string& r = c.callee_resolved;
      if (r == "torch.utils.cpp_extension.CUDAExtension" ||
          ((r == "torch.utils.cpp_extension.CppExtension" || r == "setuptools.Extension" ||
            r == "distutils.core.Extension" || r == "setuptools.extension.Extension") &&
           std::any_of(c.args.begin(), c.args.end(),
                       [](const auto& a) { return mentionsCudaSource(a.text); }))) {
        std::string name = argText(c, "name", 0);
        std::string sources = argText(c, "sources", 1);
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
      if (r == "torch.utils.cpp_extension.load" || r == "torch.utils.cpp_extension.load_inline") {
        const bool inline_build = endsWith(r, "load_inline");
        bool cuda = hasKeyword(c, "cuda_sources") || hasKeyword(c, "extra_cuda_cflags") ||
                    argText(c, "with_cuda", -1) == "True";
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

  /// `ext_module = ext_loader.load_ext("_ext", [...])`, `m = importlib.import_module("foo_cuda")`:
  /// a name bound to a compiled extension loaded by its module name.
  static bool loadsExtensionByName(const CallFact& c) {
    if (c.assigned_to.empty() || c.args.empty()) return false;
    const auto& a = c.args.front();
    return a.index == 0 && a.kind == sdk::ValueKind::String && looksLikeExtensionModule(a.text);
  }

  void extensionImports() {
    for (const auto& c : m_.calls()) {
      if (!loadsExtensionByName(c)) continue;
      const std::string target = c.args.front().text;
      auto f = rules_.make(kExtensionImport, std::string(m_.path()), c.range, c.callee_written,
                           c.callee_resolved, {{"value", target}});
      if (!f) continue;
      f->details = {{"module", target}, {"bound_as", c.assigned_to}, {"loaded_by", c.callee_written}};
      report(std::move(f));
    }
    std::set<std::uint32_t> seen;
    for (const auto& imp : m_.imports()) {
      const std::string target = imp.name.empty() ? imp.module : imp.target;
      if (!looksLikeExtensionModule(target)) continue;
      if (!seen.insert(imp.range.start_byte).second) continue;
      auto f = rules_.make(kExtensionImport, std::string(m_.path()), imp.range, target, target,
                           {{"value", target}});
      if (!f) continue;
      f->details = {{"module", target}, {"bound_as", imp.bound}};
      report(std::move(f));
    }
  }

  // ---- Triton ------------------------------------------------------------------------------------

  struct KernelFacts {
    std::vector<Param> params;
    std::vector<std::string> constexprs;
    std::vector<std::string> block_params;
    int loads = 0;
    int stores = 0;
    int dots = 0;
    int atomics = 0;
    int program_id_axes = 0;
    std::set<std::string> features;
    const CallFact* autotune = nullptr;
  };

  /// The docstring's first line, unless it is code (`e = e.float()`), else words from the name.
  static std::string summaryOrName(const DefinitionFact& d) {
    std::string s = d.docstring_summary;
    if (s.find('=') != std::string::npos || s.size() < 4) s.clear();
    s = s.empty() ? describeName(d.name) + " (derived from the name)" : clip(s, 200);
    while (!s.empty() && (s.back() == '.' || s.back() == ' ' || s.back() == ':')) s.pop_back();
    return s;
  }

  sdk::SourceRange nameRange(const DefinitionFact& d) const {
    const std::string_view def = m_.text(d.range);
    const std::size_t kw = def.find(d.kind == DefinitionFact::Kind::Class ? "class" : "def");
    std::size_t at = def.find(d.name, kw == std::string_view::npos ? 0 : kw);
    if (at == std::string_view::npos) at = 0;
    const auto b = static_cast<std::uint32_t>(d.range.start_byte + at);
    return lines_.range(b, b + static_cast<std::uint32_t>(d.name.size()));
  }

  KernelFacts kernelFacts(const DefinitionFact& d) const {
    KernelFacts k;
    const std::string_view def = m_.text(d.range);
    k.params = parseParams(paramText(def).first);
    for (const auto& p : k.params) {
      if (p.annotation.find("constexpr") == std::string::npos) continue;
      k.constexprs.push_back(p.name);
      const std::string u = p.name;
      if (u.find("BLOCK") != std::string::npos || u.find("TILE") != std::string::npos ||
          u.find("CHUNK") != std::string::npos || endsWith(u, "_SIZE") || startsWith(u, "BS"))
        k.block_params.push_back(p.name);
    }
    std::set<std::string> axes;
    bool loop = false;
    bool num_programs = false;
    for (const auto& c : m_.calls()) {
      if (!within(c.range, d.range)) continue;
      const std::string& r = c.callee_resolved;
      if (r == "triton.language.load") ++k.loads;
      if (r == "triton.language.store") ++k.stores;
      if (r == "triton.language.dot" || r == "triton.language.dot_scaled") ++k.dots;
      if (startsWith(r, "triton.language.atomic_")) ++k.atomics;
      if (r == "triton.language.make_block_ptr" || r == "triton.language.advance")
        k.features.insert("block_ptr");
      if (r == "triton.language.make_tensor_descriptor" ||
          r == "triton.language._experimental_descriptor_load" ||
          r == "triton.language._experimental_descriptor_store" ||
          r == "triton.language._experimental_make_tensor_descriptor" ||
          startsWith(r, "triton.language.experimental_descriptor") || startsWith(r, "triton.tools."))
        k.features.insert("tma");
      if (r == "triton.language.program_id")
        axes.insert(c.args.empty() ? std::string("0") : c.args.front().text);
      if (r == "triton.language.num_programs") num_programs = true;
      if (c.callee_written == "range" || r == "triton.language.range" || r == "triton.language.static_range")
        loop = true;
    }
    k.program_id_axes = static_cast<int>(axes.size());
    if (k.dots) k.features.insert("dot");
    if (k.atomics) k.features.insert("atomics");
    if (loop) k.features.insert("loop");
    if (loop && num_programs) k.features.insert("grid_stride_loop");
    if (device_queries_) k.features.insert("device_capability");
    if (std::any_of(d.decorators.begin(), d.decorators.end(),
                    [](const std::string& s) { return s == "triton.autotune"; })) {
      k.features.insert("autotune");
      // The autotune decorator is the nearest triton.autotune call above the def.
      for (const auto& c : m_.calls())
        if (c.callee_resolved == "triton.autotune" && c.range.end_byte <= d.range.start_byte &&
            (!k.autotune || c.range.start_byte > k.autotune->range.start_byte))
          k.autotune = &c;
    }
    return k;
  }

  struct LaunchInfo {
    const CallFact* call;
    Subscripted callee;
  };

  /// `kernel[grid](…)` calls that launch a Triton kernel: the kernel is defined here, or it is an
  /// imported name in a file that uses Triton (or its name says kernel).
  std::vector<LaunchInfo> launches() const {
    std::vector<LaunchInfo> out;
    for (const auto& c : m_.calls()) {
      auto s = subscriptCallee(m_, c);
      if (!s) continue;
      // `fx = _fwd_kernel if a else _fwd_kernel_alt; fx[grid](…)`: a local bound to kernels.
      if (!triton_kernel_names_.count(s->base) && s->base.find('.') == std::string::npos) {
        const std::string bound = assignedExpression(c, s->base);
        static const std::regex kWord(R"([A-Za-z_]\w*)");
        for (auto it = std::sregex_iterator(bound.begin(), bound.end(), kWord); it != std::sregex_iterator();
             ++it)
          if (triton_kernel_names_.count(it->str())) {
            s->base = it->str();
            break;
          }
      }
      const std::string last = lastPart(s->base);
      bool ok = triton_kernel_names_.count(s->base) > 0;
      if (!ok) {
        bool imported = false;
        for (const auto& ref : m_.references())
          if (ref.range.start_byte == c.name_range.start_byte && ref.written == s->base &&
              !ref.resolved.empty())
            imported = true;
        const bool kernel_name = lower(last).find("kernel") != std::string::npos;
        ok = (imported && (triton_imported_ || kernel_name)) || (triton_imported_ && kernel_name);
      }
      if (ok) out.push_back({&c, std::move(*s)});
    }
    return out;
  }

  void tritonKernels() {
    if (triton_kernels_.empty()) return;
    const auto all_launches = launches();
    for (const DefinitionFact* def : triton_kernels_) {
      const DefinitionFact& d = *def;
      KernelFacts k = kernelFacts(d);
      // A @triton.jit helper that touches no memory (no load/store/atomic/descriptor, no
      // program_id) is inlined into kernels and needs no adaptation of its own.
      if (k.loads == 0 && k.stores == 0 && k.atomics == 0 && k.program_id_axes == 0 &&
          !k.features.count("tma") && !k.features.count("block_ptr"))
        continue;
      std::vector<std::string> sites;
      std::vector<std::string> grids;
      for (const auto& l : all_launches)
        if (l.callee.base == d.name) {
          sites.push_back(std::string(m_.path()) + ":" + std::to_string(l.call->range.line));
          if (std::find(grids.begin(), grids.end(), l.callee.grid) == grids.end())
            grids.push_back(l.callee.grid);
        }
      const KernelAdvice a = adviseTritonKernel(d.name, k.features);
      const std::string description = summaryOrName(d);
      const std::string blocks = k.block_params.empty() ? std::string("none") : join(k.block_params, ", ");
      auto f = rules_.make(kTritonKernel, std::string(m_.path()), nameRange(d), d.name, {},
                           {{"kernel", d.name},
                            {"description", description},
                            {"blocks", blocks},
                            {"path", a.replacement_path},
                            {"npu", a.replacement_path},
                            {"effort", effortLabel(a.effort_days)}});
      if (!f) continue;
      f->effort_days = a.effort_days;
      f->difficulty = a.effort_days <= 1   ? sdk::Level::Low
                      : a.effort_days <= 3 ? sdk::Level::Medium
                                           : sdk::Level::High;
      std::vector<std::string> params;
      for (const auto& p : k.params)
        params.push_back(p.annotation.empty() ? p.name : p.name + ": " + p.annotation);
      std::vector<std::string> features(k.features.begin(), k.features.end());
      f->details = {{"kernel", d.name},
                    {"qualified_name", d.qualified_name},
                    {"signature", "(" + join(params, ", ") + ")"},
                    {"constexpr_params", join(k.constexprs, ", ")},
                    {"block_params", join(k.block_params, ", ")},
                    {"loads", std::to_string(k.loads)},
                    {"stores", std::to_string(k.stores)},
                    {"dots", std::to_string(k.dots)},
                    {"atomics", std::to_string(k.atomics)},
                    {"grid_axes", std::to_string(k.program_id_axes)},
                    {"features", join(features, ", ")},
                    {"autotuned", k.autotune || k.features.count("autotune") ? "yes" : "no"},
                    {"launches", std::to_string(sites.size())},
                    {"launch_sites", join(sites, ", ")},
                    {"grids", join(grids, " | ")},
                    {"description", description},
                    {"category", a.category},
                    {"replacement_kind", a.kind},
                    {"replacement_path", a.replacement_path},
                    {"effort", effortLabel(a.effort_days)},
                    {"effort_days", formatDays(a.effort_days)},
                    {"decorators", join(d.decorators, ", ")},
                    {"source", std::string(m_.path()) + ":" + std::to_string(d.range.line) + "-" +
                                   std::to_string(d.range.end_line)},
                    {"language", "triton"}};
      report(std::move(f));
    }
  }

  void tritonAutotune() {
    const auto& calls = m_.calls();
    std::vector<const CallFact*> tunes;
    for (const auto& c : calls)
      if (c.callee_resolved == "triton.autotune") tunes.push_back(&c);
    if (tunes.empty()) return;
    // Configs built outside the decorator (configs=NAME or a helper function).
    std::vector<const CallFact*> loose;
    for (const auto& c : calls)
      if (c.callee_resolved == "triton.Config" &&
          std::none_of(tunes.begin(), tunes.end(),
                       [&](const CallFact* t) { return within(c.range, t->range); }))
        loose.push_back(&c);
    for (const CallFact* t : tunes) {
      std::vector<const CallFact*> configs;
      for (const auto& c : calls)
        if (c.callee_resolved == "triton.Config" && within(c.range, t->range)) configs.push_back(&c);
      const bool indirect = configs.empty();
      if (indirect) configs = loose;
      std::set<std::string> warps, stages, keys;
      for (const CallFact* c : configs) {
        for (const auto& a : c->args) {
          if (a.keyword == "num_warps") warps.insert(a.text);
          if (a.keyword == "num_stages") stages.insert(a.text);
          if (a.index == 0 || a.keyword == "kwargs") {
            static const std::regex kKey(R"(["'](\w+)["']\s*:)");
            for (auto it = std::sregex_iterator(a.text.begin(), a.text.end(), kKey);
                 it != std::sregex_iterator(); ++it)
              keys.insert((*it)[1].str());
          }
        }
      }
      const std::string written =
          t->callee_written.empty() ? std::string("triton.autotune") : t->callee_written;
      const std::string configs_text = argText(*t, "configs", 0);
      static const std::regex kComprehension(R"(\bfor\b[\s\S]*\bin\b)");
      const bool generated = !indirect && std::regex_search(configs_text, kComprehension);
      std::string summary =
          generated         ? std::string("configs generated by a comprehension")
          : configs.empty() ? "configs from " + clip(collapseSpace(configs_text), 80)
                            : std::to_string(configs.size()) + " config" + (configs.size() == 1 ? "" : "s");
      if (!warps.empty()) summary += ", num_warps " + join({warps.begin(), warps.end()}, "/");
      if (!stages.empty()) summary += ", num_stages " + join({stages.begin(), stages.end()}, "/");
      auto f = rules_.make(kAutotune, std::string(m_.path()), t->name_range, written, t->callee_resolved,
                           {{"value", summary}});
      if (!f) continue;
      f->details = {{"configs", std::to_string(configs.size())},
                    {"configs_source", indirect    ? "outside the decorator"
                                       : generated ? "comprehension"
                                                   : "inline"},
                    {"num_warps", join({warps.begin(), warps.end()}, ", ")},
                    {"num_stages", join({stages.begin(), stages.end()}, ", ")},
                    {"tuned_params", join({keys.begin(), keys.end()}, ", ")},
                    {"key", clip(collapseSpace(argText(*t, "key", 1)), 200)}};
      report(std::move(f));
    }
  }

  /// The right-hand side of the last `name = …` line before a call (within 4000 bytes), or "".
  std::string assignedExpression(const CallFact& c, const std::string& name) const {
    static const std::regex kIdent(R"(^[A-Za-z_]\w*$)");
    if (!std::regex_match(name, kIdent)) return {};
    const std::string_view src = m_.source();
    const std::size_t from = c.range.start_byte > 4000 ? c.range.start_byte - 4000 : 0;
    const std::string before(src.substr(from, c.range.start_byte - from));
    const std::regex assign("(^|\n)[ \t]*" + name + R"([ \t]*=[ \t]*([^\n]+))");
    std::string found;
    for (auto it = std::sregex_iterator(before.begin(), before.end(), assign); it != std::sregex_iterator();
         ++it)
      found = (*it)[2].str();
    if (const auto hash = found.find("  #"); hash != std::string::npos) found = found.substr(0, hash);
    return collapseSpace(found);
  }

  /// `grid = lambda meta: (…)` or `grid = (…)` assigned before a launch that passes `grid`.
  std::string gridExpression(const CallFact& c, const std::string& grid) const {
    const std::string found = assignedExpression(c, grid);
    return found.empty() ? grid : clip(found, 200);
  }

  void tritonLaunches() {
    for (const auto& l : launches()) {
      const CallFact& c = *l.call;
      std::vector<std::string> blocks;
      std::string warps, stages;
      const DefinitionFact* kernel = nullptr;
      for (const DefinitionFact* d : triton_kernels_)
        if (d->name == l.callee.base) kernel = d;
      std::set<std::string> constexprs;
      if (kernel)
        for (const auto& p : parseParams(paramText(m_.text(kernel->range)).first))
          if (p.annotation.find("constexpr") != std::string::npos) constexprs.insert(p.name);
      for (const auto& a : c.args) {
        if (a.keyword == "num_warps") warps = a.text;
        if (a.keyword == "num_stages") stages = a.text;
        if (!a.keyword.empty() &&
            (constexprs.count(a.keyword) || a.keyword.find("BLOCK") != std::string::npos ||
             a.keyword.find("TILE") != std::string::npos))
          blocks.push_back(a.keyword + "=" + a.text);
      }
      std::string extra;
      if (!warps.empty()) extra += ", num_warps=" + warps;
      if (!stages.empty()) extra += ", num_stages=" + stages;
      const std::string grid_expression = gridExpression(c, l.callee.grid);
      auto f = rules_.make(
          kTritonLaunch, std::string(m_.path()), c.name_range, l.callee.base, {},
          {{"kernel", l.callee.base}, {"grid", l.callee.grid}, {"value", grid_expression + extra}});
      if (!f) continue;
      f->details = {{"kernel", l.callee.base},
                    {"grid", l.callee.grid},
                    {"num_warps", warps},
                    {"num_stages", stages},
                    {"block_args", join(blocks, ", ")},
                    {"arguments", std::to_string(c.args.size())},
                    {"grid_expression", grid_expression},
                    {"kernel_defined_here", kernel ? "yes" : "no"}};
      report(std::move(f));
    }
  }

  /// The rule of a Triton API that does not exist on triton-ascend, or nullptr.
  static const char* tritonApiRule(const std::string& r) {
    if (r == "triton.language.make_tensor_descriptor" ||
        r == "triton.language._experimental_make_tensor_descriptor" ||
        r == "triton.language._experimental_descriptor_load" ||
        r == "triton.language._experimental_descriptor_store" ||
        startsWith(r, "triton.tools.tensor_descriptor.") ||
        startsWith(r, "triton.tools.experimental_descriptor."))
      return kTritonTma;
    if (r == "triton.runtime.driver.active.utils.get_device_properties" ||
        r == "triton.runtime.driver.active.get_current_target")
      return kTritonDriver;
    if (r == "triton.language.inline_asm_elementwise" || startsWith(r, "triton.language.extra.cuda."))
      return kTritonCudaOnly;
    return nullptr;
  }

  /// TMA descriptors, driver property queries and CUDA-only extensions (custom rather than data
  /// rules so that NPU ports and other vendors' backends stay silent).
  void tritonApis() {
    for (const auto& ref : m_.references())
      if (const char* rule = tritonApiRule(ref.resolved))
        report(rules_.make(rule, std::string(m_.path()), ref.range, ref.written, ref.resolved));
  }

  // ---- kernels in other CUDA-only Python DSLs ---------------------------------------------------------

  void gpuDslKernels() {
    for (const auto& d : m_.definitions()) {
      if (d.kind != DefinitionFact::Kind::Function) continue;
      const Dsl* dsl = nullptr;
      for (const auto& dec : d.decorators)
        for (const Dsl& candidate : kDslDecorators)
          if (dec == candidate.name) dsl = &candidate;
      if (!dsl) continue;
      const KernelAdvice a = adviseCudaKernel(d.name, {});
      const std::string path = a.kind == "ascend_c"
                                   ? "a triton-ascend kernel, or Ascend C (" + a.replacement_path + ")"
                                   : a.replacement_path + ", or a triton-ascend kernel";
      const std::string description = summaryOrName(d);
      // `kernel`/`__call__` methods of kernel classes: the class names the kernel.
      const std::string shown = d.qualified_name.empty() ? d.name : d.qualified_name;
      auto f =
          rules_.make(kGpuDsl, std::string(m_.path()), nameRange(d), d.name, {},
                      {{"value", "kernel " + shown}, {"dsl", dsl->label}, {"path", path}, {"npu", path}});
      if (!f) continue;
      f->effort_days = std::max(1.0, a.effort_days);
      f->details = {{"kernel", d.name},
                    {"qualified_name", d.qualified_name},
                    {"dsl", dsl->label},
                    {"description", description},
                    {"category", a.category},
                    {"replacement_path", path},
                    {"effort", effortLabel(f->effort_days)},
                    {"effort_days", formatDays(f->effort_days)},
                    {"decorators", join(d.decorators, ", ")},
                    {"source", std::string(m_.path()) + ":" + std::to_string(d.range.line) + "-" +
                                   std::to_string(d.range.end_line)},
                    {"language", "python-dsl"}};
      report(std::move(f));
    }
    for (const auto& c : m_.calls())
      for (const Dsl& candidate : kDslCalls)
        if (c.callee_resolved == candidate.name) {
          const std::string name = c.assigned_to.empty() ? argText(c, "name", 1) : c.assigned_to;
          const std::string path = "native/torch_npu ops or a triton-ascend kernel";
          auto f =
              rules_.make(kGpuDsl, std::string(m_.path()), c.name_range, c.callee_written, c.callee_resolved,
                          {{"value", c.callee_written + (name.empty() ? "" : " (" + name + ")")},
                           {"dsl", candidate.label},
                           {"path", path},
                           {"npu", path}});
          if (!f) continue;
          f->details = {{"kernel", name},
                        {"dsl", candidate.label},
                        {"replacement_path", path},
                        {"language", "python-dsl"}};
          report(std::move(f));
        }
  }

  // ---- autograd Functions ---------------------------------------------------------------------------

  /// Why a call runs a custom kernel, or empty.
  std::string kernelCall(const CallFact& c) const {
    if (!c.callee_written.empty() && extension_names_.count(rootPart(c.callee_written)) &&
        c.callee_written.find('.') != std::string::npos)
      return c.callee_written;
    if (!c.callee_written.empty() && c.callee_written.find('.') != std::string::npos &&
        plain_modules_.count(rootPart(c.callee_written))) {
      static const std::regex kKernelish(R"((^|_)(forward|backward|fwd|bwd)(_|$)|cuda|kernel)");
      if (std::regex_search(lower(lastPart(c.callee_written)), kKernelish)) {
        used_plain_modules_.insert(rootPart(c.callee_written));
        return c.callee_written;
      }
    }
    const std::string& r = c.callee_resolved;
    if (startsWith(r, "torch.ops.")) {
      const std::string ns = rootPart(r.substr(10));
      static const std::set<std::string> kBuiltin = {
          "aten",     "prims",    "prim",         "quantized", "_quantized",  "c10d",     "_c10d_functional",
          "_dtensor", "profiler", "higher_order", "npu",       "torchvision", "inductor", "load_library"};
      if (!ns.empty() && !kBuiltin.count(ns) && r.find('.', 10) != std::string::npos) return r;
    }
    if (!r.empty() && r != c.callee_written) {  // an imported function
      // Kernel libraries: their ops (flash_attn's interface, xformers.ops, mamba_ssm.ops, …); not
      // when the file belongs to that library itself (its own helpers are judged by their module).
      static const std::set<std::string> kKernelLibraries = {
          "flash_attn", "xformers",   "apex",       "mamba_ssm",          "causal_conv1d", "liger_kernel",
          "fla",        "flashinfer", "sgl_kernel", "transformer_engine", "deepspeed",     "vllm"};
      const std::string lib = rootPart(r);
      const std::string own = "." + std::string(m_.dottedName()) + ".";
      if (kKernelLibraries.count(lib) && own.find("." + lib + ".") == std::string::npos &&
          (r.find(".ops.") != std::string::npos || r.find("_interface.") != std::string::npos ||
           lib == "causal_conv1d" || lib == "apex" || lib == "flashinfer" || lib == "sgl_kernel"))
        return r;
      // Helpers of a kernels module (device contexts, block-size calculators, checks) are not kernels.
      static const char* const kHelperPrefixes[] = {
          "get_",   "is_",      "has_",   "calculate_", "ensure_",    "check_",
          "torch_", "set_",     "_get",   "_is",        "_calculate", "next_power",
          "cdiv",   "compare_", "infer_", "device_",    "use_",       "_ensure"};
      const std::string fn = lastPart(r);
      for (const char* p : kHelperPrefixes)
        if (startsWith(fn, p)) return {};
      std::size_t b = 0;
      const std::string module = r.substr(0, r.rfind('.'));
      for (std::size_t i = 0; i <= module.size(); ++i)
        if (i == module.size() || module[i] == '.') {
          const std::string seg = module.substr(b, i - b);
          if (seg == "kernels" || seg == "kernel" || seg == "triton" || seg == "csrc" || seg == "_C" ||
              seg == "cuda" || endsWith(seg, "_kernels") || endsWith(seg, "_triton") ||
              startsWith(seg, "triton_") || endsWith(seg, "_cuda"))
            return r;
          b = i + 1;
        }
    }
    return {};
  }

  void autogradFunctions() {
    std::vector<const DefinitionFact*> classes;
    for (const auto& d : m_.definitions())
      if (d.kind == DefinitionFact::Kind::Class &&
          std::any_of(d.bases.begin(), d.bases.end(), [](const std::string& b) {
            return b == "torch.autograd.Function" || b == "torch.autograd.function.Function" ||
                   b == "torch.autograd.function.InplaceFunction";
          }))
        classes.push_back(&d);
    if (classes.empty()) return;
    std::set<std::uint32_t> launch_bytes;
    for (const auto& l : launches()) launch_bytes.insert(l.call->range.start_byte);
    auto reason = [&](const CallFact& c) {
      if (launch_bytes.count(c.range.start_byte)) {
        auto s = subscriptCallee(m_, c);
        return (s ? s->base : std::string("kernel")) + "[grid]";
      }
      return kernelCall(c);
    };
    // Functions of this file that run custom kernels, directly or through each other.
    std::map<std::string, std::string> runs;  // function name -> first kernel call
    std::vector<const DefinitionFact*> functions;
    for (const auto& d : m_.definitions())
      if (d.kind == DefinitionFact::Kind::Function && !triton_kernel_names_.count(d.name))
        functions.push_back(&d);
    for (const DefinitionFact* d : functions)
      for (const auto& c : m_.calls())
        if (within(c.range, d->range))
          if (std::string why = reason(c); !why.empty() && !runs.count(d->name)) runs[d->name] = why;
    for (int round = 0; round < 6; ++round) {
      bool changed = false;
      for (const DefinitionFact* d : functions) {
        if (runs.count(d->name)) continue;
        for (const auto& c : m_.calls())
          if (within(c.range, d->range) && c.callee_written.find('.') == std::string::npos &&
              runs.count(c.callee_written) && c.callee_written != d->name) {
            runs[d->name] = c.callee_written + "() -> " + runs[c.callee_written];
            changed = true;
            break;
          }
      }
      if (!changed) break;
    }
    for (const DefinitionFact* cls : classes) {
      std::map<std::string, std::vector<std::string>> per_method;
      for (const auto& d : m_.definitions()) {
        if (d.kind != DefinitionFact::Kind::Function || !within(d.range, cls->range)) continue;
        if (d.name != "forward" && d.name != "backward" && d.name != "setup_context" && d.name != "jvp")
          continue;
        std::vector<std::string>& found = per_method[d.name];
        for (const auto& c : m_.calls()) {
          if (!within(c.range, d.range)) continue;
          std::string why = reason(c);
          if (why.empty() && c.callee_written.find('.') == std::string::npos && runs.count(c.callee_written))
            why = c.callee_written + "() -> " + runs.at(c.callee_written);
          if (!why.empty() && std::find(found.begin(), found.end(), why) == found.end()) found.push_back(why);
        }
      }
      std::vector<std::string> all;
      for (const auto& [method, calls] : per_method)
        for (const auto& c : calls) all.push_back(method + ": " + c);
      if (all.empty()) continue;
      const bool has_backward = per_method.count("backward") > 0;
      auto f = rules_.make(kAutogradFunction, std::string(m_.path()), nameRange(*cls), cls->name, {},
                           {{"value", clip(join(all, "; "), 240)}, {"class", cls->name}});
      if (!f) continue;
      f->details = {{"class", cls->qualified_name},
                    {"forward_calls", per_method.count("forward") ? join(per_method["forward"], "; ") : ""},
                    {"backward_calls", has_backward ? join(per_method["backward"], "; ") : ""},
                    {"has_backward", has_backward ? "yes" : "no"}};
      report(std::move(f));
    }
    // A plain `import X as Y` whose module autograd passes call like a kernel is a compiled extension.
    for (const auto& bound : used_plain_modules_) {
      const sdk::ImportFact& imp = *plain_modules_.at(bound);
      if (looksLikeExtensionModule(imp.module)) continue;  // already reported with the imports
      auto f = rules_.make(kExtensionImport, std::string(m_.path()), imp.range, imp.module, imp.module,
                           {{"value", imp.module}});
      if (!f) continue;
      f->confidence = sdk::Level::Medium;
      f->details = {
          {"module", imp.module}, {"bound_as", imp.bound}, {"evidence", "called from an autograd Function"}};
      report(std::move(f));
    }
  }

  const sdk::Module& m_;
  const Rules& rules_;
  const Options& options_;
  sdk::FindingSink& sink_;
  sdk::LineIndex lines_;
  bool triton_imported_ = false;
  bool device_queries_ = false;
  bool npu_path_ = false;
  std::set<std::string> extension_names_;
  std::map<std::string, const sdk::ImportFact*> plain_modules_;  ///< bound name → `import X [as Y]`
  mutable std::set<std::string> used_plain_modules_;  ///< those called like kernels from autograd passes
  std::vector<const DefinitionFact*> triton_kernels_;
  std::set<std::string> triton_kernel_names_;
};

}  // namespace

bool looksLikeExtensionModule(std::string_view target) {
  if (target.empty()) return false;
  const std::string root(target.substr(0, target.find('.')));
  // Frameworks and CUDA bindings (deps domain), flash-attn / xformers (attention domain).
  static const std::set<std::string> kNotExtensions = {
      "torch",  "triton",   "numpy",  "jax",   "tensorflow", "cupy",   "numba",     "pycuda",     "cuda",
      "nvidia", "tensorrt", "jaxlib", "cupyx", "mlx",        "paddle", "mindspore", "flash_attn", "xformers"};
  if (kNotExtensions.count(root)) return false;
  const std::size_t dot = target.rfind('.');
  const std::string last(dot == std::string_view::npos ? target : target.substr(dot + 1));
  // yacs-style configs are conventionally `_C = CN()` in a config/defaults module.
  for (const char* cfg : {".config.", ".configs.", ".defaults.", ".default.", ".cfg.", ".settings."})
    if (("." + std::string(target) + ".").find(cfg) != std::string::npos) return false;
  if (last == "_C" || last == "_ext" || last == "_cuda") return true;
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
  return endsWith(last, "_cuda") || endsWith(last, "cuda_ext") || endsWith(last, "_cuda_kernel") ||
         endsWith(last, "_cuda_kernels") || endsWith(last, "cuda_ops") || startsWith(last, "cuda_ext");
}

void analyzePython(const sdk::Module& module, const Rules& rules, const Options& options,
                   sdk::FindingSink& sink) {
  if (inSkippedDir(module.path(), options.skip_dirs)) return;
  PythonFile(module, rules, options, sink).run();
}

}  // namespace custom_ops

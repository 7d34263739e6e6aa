#pragma once
/// One Python file under analysis and the helpers its checks share; the members are defined in
/// python_scan.cpp (the shared parts), extension_imports.cpp, build_machinery.cpp, extension_objects.cpp,
/// triton_kernels.cpp, autograd_functions.cpp and other_dsls.cpp (also TVM's CUDA builds).

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common.hpp"
#include "migrate/sdk/text_position.hpp"

namespace custom_ops::python {

using sdk::CallFact;
using sdk::DefinitionFact;

/// Reported by the import checks and by the autograd check (a plain import used like a kernel).
inline constexpr char kExtensionImport[] = "OPS-028";

bool within(const sdk::SourceRange& inner, const sdk::SourceRange& outer);

/// `triton.jit` and the jit of Triton's submodules (`triton.runtime.jit`).
bool isTritonJit(const std::string& resolved);
/// A function decorated as a kernel of a CUDA-only Python DSL (numba.cuda.jit, cuTile, …; OPS-030).
bool isGpuDslKernel(const sdk::DefinitionFact& d);

/// The subscripted callee of `kernel[grid](…)`: base chain and grid text.
struct Subscripted {
  std::string base;
  std::string grid;
};

std::optional<Subscripted> subscriptCallee(const sdk::Module& m, const CallFact& c);

std::string lastPart(const std::string& chain);

/// Everything about one file that several checks share.
class PythonFile {
 public:
  PythonFile(const sdk::Module& m, const Rules& rules, const Options& options, sdk::FindingSink& sink);

  void run();

 private:
  void report(std::optional<sdk::Finding> f);
  static std::string argText(const CallFact& c, std::string_view keyword, int index);
  static std::string summaryOrName(const DefinitionFact& d);
  sdk::SourceRange nameRange(const DefinitionFact& d) const;

  // ---- extension builds and imports (extension_imports.cpp)
  static bool hasKeyword(const CallFact& c, std::string_view keyword);
  static bool mentionsCudaSource(std::string_view text);
  bool fileHasCudaSourceString() const;
  bool splatDictBuildsCuda(const CallFact& c) const;
  /// The repository's own JIT builder given load()'s CUDA keywords or .cu sources.
  static bool wrapperJitBuild(const CallFact& c);
  void extensionBuilds();
  bool loadsExtensionByName(const CallFact& c) const;
  /// The name a loader call's result is bound to: `name = load(…)`, or the first name of
  /// `name, _ = optional_import("pkg._C")` (a module and an availability flag); "" for neither.
  static const std::string& loadedAs(const CallFact& c) {
    return c.assigned_to.empty() ? c.unpacked_first : c.assigned_to;
  }
  /// `ops = TransformerBuilder().load()`: an op builder of the project JIT-builds its kernels.
  bool projectBuilderLoad(const CallFact& c) const;
  /// The hub repository of a kernel `get_kernel("org/name")` downloads, or "" (extension_imports.cpp).
  static std::string hubKernel(const CallFact& c);
  void extensionImports();

  // ---- build machinery and extension calls (build_machinery.cpp)
  /// The name of the extension build call (CUDAExtension, load, …) around `r`, or "".
  std::string extensionAround(const sdk::SourceRange& r) const;
  void cudaBuildImports();
  /// `torch.ops.load_library` of a shared library named for a CUDA build (OPS-047).
  void prebuiltCudaLibraries();
  void nvccFlagLists();
  void nvccRuns();
  void cudaSourceLists();
  void extensionCalls();

  // ---- Triton (triton_kernels.cpp)
  struct KernelFacts;
  struct LaunchInfo {
    const CallFact* call;
    Subscripted callee;
  };
  KernelFacts kernelFacts(const DefinitionFact& d) const;
  /// Where a Triton kernel is reported: its `@triton.jit` decorator, the `triton.jit(fn)` call
  /// that applies it, else the def's name.
  sdk::SourceRange kernelSite(const DefinitionFact& d) const;
  /// The decorator of `d` whose resolved name satisfies `is` (a finding matched through a
  /// decorator is reported on the decorator's line), else the def's name.
  sdk::SourceRange decoratorSite(const DefinitionFact& d,
                                 const std::function<bool(const std::string&)>& is) const;
  std::vector<LaunchInfo> launches() const;
  void tritonKernels();
  void tritonAutotune();
  std::string assignedExpression(const CallFact& c, const std::string& name) const;
  /// The top-level function of `defs` that the local `name` holds at call `c`, through its
  /// assignments before the call (`kernel = fwd_kernel; kernel = copy_func(kernel, …)`), or "".
  std::string boundFunction(const CallFact& c, const std::string& name,
                            const std::set<std::string>& defs) const;
  std::string gridExpression(const CallFact& c, const std::string& grid) const;
  void tritonLaunches();
  static const char* tritonApiRule(const std::string& r);
  void tritonApis();
  /// Where a CUDA-only Triton API use is reported: the `@core.extern` decorator of the PTX
  /// primitive that holds it, else the use itself.
  sdk::SourceRange primitiveSite(const sdk::SourceRange& use) const;

  // ---- kernels in other CUDA-only Python DSLs (other_dsls.cpp)
  void gpuDslKernels();
  /// CUDA C kernels defined in the file's string literals (`extern "C" __global__ void f(...)`)
  /// that no known compiler call takes (OPS-048): a JIT of the repository's own compiles them.
  void inlineCudaSources();
  /// TVM used as a CUDA kernel toolchain: its nvcc wrapper imported or called, and in a file that
  /// does so (or names the cuda target) the builds and loads of the compiled kernel module.
  struct TvmSite {
    sdk::SourceRange range;
    std::string written, resolved, what;
  };
  std::vector<TvmSite> tvmCudaSites() const;

  // ---- extension objects handed in by parameter (extension_objects.cpp)
  /// Objects of an extension's classes that a function receives by a parameter annotated with the
  /// class (`def __init__(self, m: QuantizedSanaModel, …)`, the class imported from the extension
  /// or named through it): the parameter per function, and the attributes a method of a class
  /// stores them in (`self.m = m`) per class. Each maps to the extension module.
  struct ExtensionObjects {
    std::map<std::pair<const DefinitionFact*, std::string>, std::string> parameters;
    std::map<std::pair<const DefinitionFact*, std::string>, std::string> attributes;
  };
  ExtensionObjects annotatedExtensionObjects() const;
  /// Objects an extension's factory returned, kept in an attribute: a method of the file that
  /// returns a call into the extension (`def _native_tcnn_module(self): return
  /// _C.create_network(…)`) and `self.native_tcnn_module = self._native_tcnn_module()` make
  /// `native_tcnn_module` such an attribute (factory_attributes_), wherever it is read
  /// (`ctx.native_tcnn_module.bwd(…)`); handed to an autograd Function of the file
  /// (`_module_function.apply(self.native_tcnn_module, x)`), the forward's parameter at that
  /// position holds it (handed_parameters_).
  void factoryExtensionObjects();
  /// The extension module behind `c` when it calls a method of such an object
  /// (`self.native_tcnn_module.fwd(…)`, `native_tcnn_module.fwd(…)` in that forward), or "".
  std::string factoryObjectCall(const CallFact& c) const;

  // ---- autograd Functions (autograd_functions.cpp)
  std::string kernelCall(const CallFact& c) const;
  /// `_get_plugin().xfm_fwd(…)`: a call of what a provider (extension_providers_) returns.
  struct ProviderCall {
    std::string provider;  ///< "_get_plugin"
    std::string function;  ///< "xfm_fwd"
  };
  std::optional<ProviderCall> providerCall(const CallFact& c) const;
  /// `forward = spmm.spmm_forward_cuda`: an extension's function taken as a value, or "".
  std::string kernelReference(const sdk::AttributeFact& a) const;
  void autogradFunctions();

  const sdk::Module& m_;
  const Rules& rules_;
  const Options& options_;
  sdk::FindingSink& sink_;
  sdk::LineIndex lines_;
  bool triton_imported_ = false;
  bool device_queries_ = false;
  bool npu_path_ = false;
  std::set<std::string> extension_names_;
  /// Chains read as values, not called: the engine's attribute reads on values plus the plain
  /// references rooted in an import (`forward_fn = rpe_index_cpp.forward_gpu if … else …`).
  std::vector<sdk::AttributeFact> value_reads_;
  /// Top-level functions that JIT-build an extension and return it (`def _get_plugin(): …
  /// cpp_extension.load(name=…) … return _cached_plugin`), each with the build's name.
  std::map<std::string, std::string> extension_providers_;
  /// Functions imported by name from a compiled extension (`from monarch_cuda import conv1d_forward`).
  std::map<std::string, std::string> extension_functions_;  ///< bound name → module
  std::set<std::string> kernel_tables_;  ///< names of dicts holding extension functions (`dot = {"cuda": f}`)
  /// Op namespaces this file's load() calls build (`load(name="wkv7", …, is_python_module=False)`
  /// registers torch.ops.wkv7), and the names bound to them (`OP = torch.ops.wkv7`) → namespace.
  std::set<std::string> op_namespaces_;
  std::map<std::string, std::string> op_namespace_names_;
  /// Each such binding (reported as OPS-028): the name, the namespace, and where `torch.ops.NS`
  /// stands ([begin, end) bytes).
  struct OpBinding {
    std::string alias, ns;
    std::uint32_t begin = 0, end = 0;
  };
  std::vector<OpBinding> op_namespace_bindings_;
  std::map<std::string, const sdk::ImportFact*> plain_modules_;  ///< bound name → `import X [as Y]`
  mutable std::set<std::string> used_plain_modules_;  ///< those called like kernels from autograd passes
  std::vector<const DefinitionFact*> triton_kernels_;
  std::set<std::string> triton_kernel_names_;
  std::map<std::string, const CallFact*> jit_calls_;  ///< kernel → `triton.jit(local)` applying it
  std::set<std::string> dsl_kernel_names_;            ///< functions of this file in a CUDA-only DSL (OPS-030)
  std::vector<TvmSite> tvm_sites_;                    ///< tvmCudaSites(), OPS-030
  std::map<std::string, std::string> factory_attributes_;  ///< factoryExtensionObjects(): attribute → module
  std::map<std::pair<const DefinitionFact*, std::string>, std::string>
      handed_parameters_;  ///< (forward, name)
};

}  // namespace custom_ops::python

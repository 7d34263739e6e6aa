// Kernels written in other CUDA-only Python DSLs: numba.cuda, cuTile, CuTe DSL, CuPy, PyCUDA,
// NVIDIA Warp, NVRTC, and TVM built for its cuda target (OPS-030); CUDA C kernels written in a
// Python string that the repository's own JIT compiles (OPS-048).

#include <algorithm>
#include <string>

#include "byte_regex.hpp"
#include "kernel_advice.hpp"
#include "python_file.hpp"

namespace custom_ops::python {
namespace {

constexpr const char* kGpuDsl = "OPS-030";
constexpr const char* kInlineCudaSource = "OPS-048";

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

constexpr const char* kTvmNvcc = "tvm.contrib.nvcc";
/// TVM calls that build or load a compiled kernel module: CUDA code when the file targets cuda.
constexpr const char* kTvmBuilds[] = {
    "tvm.build",       "tvm.driver.build",        "tvm.relay.build",
    "tvm.module.load", "tvm.runtime.load_module", "tvm.runtime.module.load_module"};

bool tvmBuild(const std::string& resolved) {
  return std::any_of(std::begin(kTvmBuilds), std::end(kTvmBuilds),
                     [&](const char* b) { return resolved == b; });
}

bool cudaTarget(const sdk::ArgumentFact& a) {
  return a.kind == sdk::ValueKind::String && (a.keyword.empty() || a.keyword == "target") &&
         (a.text == "cuda" || startsWith(a.text, "cuda ") || startsWith(a.text, "nvidia/"));
}

const Dsl* gpuDsl(const DefinitionFact& d) {
  if (d.kind != DefinitionFact::Kind::Function) return nullptr;
  const Dsl* dsl = nullptr;
  for (const auto& dec : d.decorators)
    for (const Dsl& candidate : kDslDecorators)
      if (dec == candidate.name) dsl = &candidate;
  return dsl;
}

}  // namespace

std::vector<PythonFile::TvmSite> PythonFile::tvmCudaSites() const {
  std::vector<TvmSite> sites;
  // Every Python file comes through here: without a TVM import there is nothing to look at.
  if (std::none_of(m_.imports().begin(), m_.imports().end(),
                   [](const sdk::ImportFact& imp) { return startsWith(imp.target, "tvm"); }))
    return sites;
  bool cuda = false;
  for (const auto& imp : m_.imports())
    if (startsWith(imp.target, kTvmNvcc)) {
      cuda = true;
      sites.push_back({imp.range, imp.target, imp.target, "an import of TVM's nvcc wrapper"});
    }
  const std::string nvcc_call = kTvmNvcc + std::string(".");
  for (const auto& c : m_.calls())
    cuda = cuda || startsWith(c.callee_resolved, nvcc_call) ||
           (tvmBuild(c.callee_resolved) && std::any_of(c.args.begin(), c.args.end(), cudaTarget));
  if (!cuda) return sites;
  for (const auto& c : m_.calls()) {
    if (startsWith(c.callee_resolved, nvcc_call))
      sites.push_back({c.name_range, c.callee_written, c.callee_resolved, "TVM's nvcc compile"});
    else if (tvmBuild(c.callee_resolved))
      sites.push_back({c.name_range, c.callee_written, c.callee_resolved,
                       c.callee_resolved.find("load") == std::string::npos
                           ? "a TVM build of CUDA code"
                           : "a load of a TVM-built CUDA module"});
  }
  return sites;
}

bool isGpuDslKernel(const DefinitionFact& d) {
  return gpuDsl(d) != nullptr;
}

void PythonFile::gpuDslKernels() {
  for (const auto& d : m_.definitions()) {
    const Dsl* dsl = gpuDsl(d);
    if (!dsl) continue;
    const KernelAdvice a = adviseCudaKernel(d.name, {});
    const std::string path = a.kind == "ascend_c"
                                 ? "a triton-ascend kernel, or Ascend C (" + a.replacement_path + ")"
                                 : a.replacement_path + ", or a triton-ascend kernel";
    const std::string description = summaryOrName(d);
    // `kernel`/`__call__` methods of kernel classes: the class names the kernel.
    const std::string shown = d.qualified_name.empty() ? d.name : d.qualified_name;
    const std::string decorator_name = dsl->name;
    const auto site = decoratorSite(d, [&](const std::string& r) { return r == decorator_name; });
    auto f = rules_.make(kGpuDsl, std::string(m_.path()), site, d.name, {},
                         {{"value", "kernel " + shown}, {"dsl", dsl->label}, {"path", path}, {"npu", path}});
    if (!f) continue;
    f->effort_days = std::max(1.0, a.effort_days);
    f->details = {{"kernel", d.name},
                  {"group", d.name},  // one bottleneck per kernel
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
                      {"group", name},  // one bottleneck per kernel
                      {"dsl", candidate.label},
                      {"replacement_path", path},
                      {"language", "python-dsl"}};
        report(std::move(f));
      }
  for (const auto& t : tvm_sites_) {
    const std::string path = "native torch_npu ops, a triton-ascend kernel or an Ascend C kernel";
    auto f = rules_.make(kGpuDsl, std::string(m_.path()), t.range, t.written, t.resolved,
                         {{"value", t.written + " (" + t.what + ")"},
                          {"dsl", "TVM for its cuda target"},
                          {"path", path},
                          {"npu", path}});
    if (!f) continue;
    f->details = {{"dsl", "TVM"}, {"replacement_path", path}, {"language", "python-dsl"}};
    report(std::move(f));
  }
}

void PythonFile::inlineCudaSources() {
  if (m_.source().find("__global__") == std::string_view::npos) return;
  // `extern "C" __global__ __launch_bounds__(1024) void execute(…)`: a kernel's definition.
  static const RE2 kKernel(R"((__global__)\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(\w+)\s*\()",
                           bytePattern());
  for (const auto& s : m_.strings()) {
    if (s.context == sdk::StringContext::Docstring || s.context == sdk::StringContext::Message) continue;
    // Handed to a compiler OPS-030 or the extension builds report at the call.
    if (std::any_of(std::begin(kDslCalls), std::end(kDslCalls),
                    [&](const Dsl& d) { return s.callee == d.name; }) ||
        s.callee == "torch.utils.cpp_extension.load_inline")
      continue;
    const std::string_view text = m_.text(s.range);
    re2::StringPiece rest(text.data(), text.size());
    re2::StringPiece keyword, name;
    while (RE2::FindAndConsume(&rest, kKernel, &keyword, &name)) {
      const auto at = static_cast<std::uint32_t>(s.range.start_byte + (keyword.data() - text.data()));
      const sdk::SourceRange site = lines_.range(at, at + 10);
      auto f = rules_.make(kInlineCudaSource, std::string(m_.path()), site, "__global__ " + std::string(name),
                           {}, {{"value", std::string(name)}});
      if (f)
        f->details = {
            {"kernel", std::string(name)}, {"group", std::string(name)}, {"language", "cuda-c-string"}};
      report(std::move(f));
    }
  }
}

}  // namespace custom_ops::python

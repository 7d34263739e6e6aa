// Uses of CUDA libraries and APIs (cuBLAS, cuDNN, cuRAND, NCCL, Thrust/CUB, CUTLASS, PTX, warp
// intrinsics, the CUDA runtime) and CUDA headers, aggregated per function, and their reports
// (OPS-003 … OPS-012).

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "byte_regex.hpp"
#include "file_scanner.hpp"
#include "native_facts.hpp"

namespace custom_ops::native {
namespace {

constexpr const char* kWarp = "OPS-004";
constexpr const char* kBlas = "OPS-005";
constexpr const char* kDnn = "OPS-006";
constexpr const char* kRand = "OPS-007";
constexpr const char* kNccl = "OPS-008";
constexpr const char* kThrust = "OPS-009";
constexpr const char* kCutlass = "OPS-010";
constexpr const char* kHeader = "OPS-011";
constexpr const char* kCudaLibrary = "CUDA library (third-party)";

// ---- classification of headers and names ------------------------------------------------------

std::optional<HeaderInfo> classifyHeader(std::string_view h) {
  auto starts = [&](std::string_view p) { return startsWith(h, p); };
  if (starts("cublas") || starts("cusparse") || starts("cusolver") || starts("cufft") ||
      starts("ATen/cuda/CUDABlas"))
    return HeaderInfo{kBlas, "CUDA math library"};
  if (starts("cudnn") || starts("ATen/cudnn/")) return HeaderInfo{kDnn, "cuDNN"};
  if (starts("curand")) return HeaderInfo{kRand, "cuRAND"};
  if (starts("nccl") || h.find("ProcessGroupNCCL") != std::string_view::npos ||
      starts("torch/csrc/cuda/nccl"))
    return HeaderInfo{kNccl, "NCCL"};
  if (starts("thrust/") || starts("cub/") || starts("hipcub/") || starts("ATen/cuda/cub"))
    return HeaderInfo{kThrust, "Thrust/CUB"};
  if (starts("cutlass/") || starts("cute/") || starts("cutlass_extensions/"))
    return HeaderInfo{kCutlass, "CUTLASS"};
  if (starts("tiny-cuda-nn/") || starts("flashinfer/") || starts("cuco/"))
    return HeaderInfo{kHeader, kCudaLibrary};
  static const char* const kCudaHeaders[] = {"cuda.h",
                                             "cuda_runtime.h",
                                             "cuda_runtime_api.h",
                                             "cuda_fp16.h",
                                             "cuda_fp16.hpp",
                                             "cuda_bf16.h",
                                             "cuda_bf16.hpp",
                                             "cuda_fp8.h",
                                             "cuda_fp8.hpp",
                                             "cuda_fp4.h",
                                             "cuda_pipeline.h",
                                             "cuda_awbarrier.h",
                                             "cuda_texture_types.h",
                                             "cudaTypedefs.h",
                                             "device_launch_parameters.h",
                                             "device_functions.h",
                                             "cooperative_groups.h",
                                             "mma.h",
                                             "nvrtc.h",
                                             "nvToolsExt.h",
                                             "nvml.h",
                                             "math_constants.h",
                                             "helper_cuda.h",
                                             "vector_types.h",
                                             "sm_60_atomic_functions.h",
                                             "cuda_occupancy.h"};
  for (const char* c : kCudaHeaders)
    if (h == c) return HeaderInfo{kHeader, "CUDA toolkit"};
  if (starts("cooperative_groups/") || starts("cuda/") || starts("nvtx3/") || starts("ATen/cuda/") ||
      starts("ATen/native/cuda/") || starts("c10/cuda/") || starts("THC/") || starts("torch/csrc/cuda/") ||
      starts("ATen/cuda") || starts("c10/cuda"))
    return HeaderInfo{kHeader, starts("cuda/") || starts("cooperative_groups") || starts("nvtx3")
                                   ? "CUDA toolkit"
                                   : "PyTorch CUDA"};
  return std::nullopt;
}

bool upperAt(std::string_view s, std::size_t i) {
  return i < s.size() && s[i] >= 'A' && s[i] <= 'Z';
}

/// `cublasSgemm`, `cudnnHandle_t`: a library prefix followed by an upper-case letter.
bool apiPrefix(std::string_view s, std::string_view prefix) {
  return startsWith(s, prefix) && upperAt(s, prefix.size());
}

bool isWarpIntrinsic(std::string_view s) {
  static const char* const kNames[] = {"__shfl_sync",
                                       "__shfl_up_sync",
                                       "__shfl_down_sync",
                                       "__shfl_xor_sync",
                                       "__shfl",
                                       "__shfl_up",
                                       "__shfl_down",
                                       "__shfl_xor",
                                       "__ballot_sync",
                                       "__ballot",
                                       "__any_sync",
                                       "__all_sync",
                                       "__uni_sync",
                                       "__any",
                                       "__all",
                                       "__activemask",
                                       "__syncwarp",
                                       "__match_any_sync",
                                       "__match_all_sync",
                                       "__reduce_add_sync",
                                       "__reduce_min_sync",
                                       "__reduce_max_sync",
                                       "__reduce_and_sync",
                                       "__reduce_or_sync",
                                       "__reduce_xor_sync",
                                       "__lanemask_lt",
                                       "__lanemask_le",
                                       "__lanemask_gt",
                                       "__lanemask_ge",
                                       "__lanemask_eq",
                                       "this_thread_block",
                                       "tiled_partition",
                                       "this_grid",
                                       "coalesced_threads",
                                       "this_cluster",
                                       "__cluster_dims__",
                                       "__pipeline_memcpy_async"};
  for (const char* n : kNames)
    if (s == n) return true;
  return false;
}

bool isDriverApi(std::string_view s) {
  static const char* const kPrefixes[] = {
      "cuInit",   "cuCtx",       "cuMem",  "cuModule",           "cuLaunch",         "cuDevice",
      "cuStream", "cuEvent",     "cuFunc", "cuGetError",         "cuTensorMap",      "cuPointer",
      "cuGraph",  "cuOccupancy", "cuLink", "cuDriverGetVersion", "cuGetProcAddress", "cuLibrary",
      "cuKernel"};
  for (const char* p : kPrefixes)
    if (startsWith(s, p)) return true;
  return false;
}

/// Kernel features implied by a rule of a name used in its body.
const char* featureOf(const char* rule, std::string_view name) {
  if (rule == kWarp) {
    if (name.find("wmma") != std::string_view::npos || name.find("mma_sync") != std::string_view::npos ||
        name.find("matrix_sync") != std::string_view::npos)
      return "tensor_cores";
    return "warp_intrinsics";
  }
  if (rule == kPtx) return "inline_ptx";
  if (rule == kRand) return "curand";
  if (rule == kThrust) return "cub_thrust";
  if (rule == kCutlass) return "cutlass";
  if (rule == kBlas) return "cublas";
  return nullptr;
}

}  // namespace

/// The last `::` segment without template arguments.
std::string_view lastSegment(std::string_view s) {
  if (const auto lt = s.find('<'); lt != std::string_view::npos) s = s.substr(0, lt);
  if (const auto c = s.rfind("::"); c != std::string_view::npos) s = s.substr(c + 2);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

/// The rule a C++ name belongs to, or nullptr.
const char* classifyName(std::string_view name, NameKind kind) {
  while (startsWith(name, "::")) name.remove_prefix(2);
  auto starts = [&](std::string_view p) { return startsWith(name, p); };
  if (name.find("::") != std::string_view::npos) {
    if (starts("thrust::") || starts("cub::") || starts("hipcub::") || starts("at::cuda::cub::") ||
        starts("at_cuda_detail::cub::"))
      return kThrust;
    if (starts("cutlass::") || starts("cute::")) return kCutlass;
    if (starts("cooperative_groups::") || starts("cg::") || starts("nvcuda::") || starts("wmma::"))
      return kWarp;
    if (starts("at::cuda::blas::") || name.find("getCurrentCUDABlas") != std::string_view::npos) return kBlas;
    if (name.find("getCudnnHandle") != std::string_view::npos || starts("at::native::cudnn")) return kDnn;
    if (name.find("ProcessGroupNCCL") != std::string_view::npos) return kNccl;
    if (starts("at::cuda::") || starts("c10::cuda::") || starts("torch::cuda::") ||
        starts("at::native::cuda::"))
      return kRuntime;
    if (endsWith(name, "::kCUDA") || endsWith(name, "DeviceType::CUDA") ||
        endsWith(name, "DispatchKey::CUDA") || endsWith(name, "::hasCUDA"))
      return kRuntime;
  }
  const std::string_view s = lastSegment(name);
  if (s == "kCUDA") return kRuntime;
  if (kind == NameKind::Identifier) return nullptr;
  if (kind == NameKind::Qualified && name.find("::") == std::string_view::npos) return nullptr;
  if (apiPrefix(s, "cublas") || apiPrefix(s, "cusparse") || apiPrefix(s, "cusolver") || apiPrefix(s, "cufft"))
    return kBlas;
  if (apiPrefix(s, "cudnn")) return kDnn;
  if (apiPrefix(s, "curand") || startsWith(s, "curand_")) return kRand;
  if (apiPrefix(s, "nccl")) return kNccl;
  if (kind == NameKind::Type) {
    if (s == "CUDAGuard" || s == "OptionalCUDAGuard" || s == "CUDAStreamGuard" || s == "CUDAStream" ||
        s == "CUDAEvent" || s == "CUDAMultiStreamGuard")
      return kRuntime;
    if (startsWith(s, "cuda") && upperAt(s, 4) && endsWith(s, "_t")) return kRuntime;
    return nullptr;
  }
  // called
  if (isWarpIntrinsic(s)) return kWarp;
  if (startsWith(s, "wmma") || s == "mma_sync" || s == "load_matrix_sync" || s == "store_matrix_sync")
    return kWarp;
  if (startsWith(s, "cuda") && upperAt(s, 4)) return kRuntime;
  if (isDriverApi(s)) return kRuntime;
  if (startsWith(s, "C10_CUDA_") || startsWith(s, "AT_CUDA_")) return kRuntime;
  if (s == "TORCH_CUDABLAS_CHECK") return kBlas;
  if (s == "AT_CUDNN_CHECK") return kDnn;
  if (s == "getCurrentCUDAStream" || s == "getDefaultCUDAStream" || s == "getStreamFromPool" ||
      s == "getCurrentDeviceProperties" || s == "getCurrentCUDABlasHandle")
    return s == "getCurrentCUDABlasHandle" ? kBlas : kRuntime;
  return nullptr;
}

// ---- includes, macros and names on the tree -----------------------------------------------------

void FileScanner::onInclude(TSNode n) {
  TSNode p = field(n, "path");
  if (ts_node_is_null(p)) return;
  std::string_view h = text(p);
  if (h.size() >= 2) h = h.substr(1, h.size() - 2);
  const auto info = classifyHeader(h);
  if (!info) return;
  if (perFile(info->rule)) {  // the include is the first use of the file's one finding
    useAt(info->rule, range(n), "#include <" + std::string(h) + ">", {}, 0);
    return;
  }
  repo_.headers.push_back({path_, range(n), std::string(h), *info});
  repo_.cuda_evidence_files.insert(path_);
}

/// A macro's body is not parsed: classify the identifiers of its (masked) text.
void FileScanner::onMacro(TSNode n) {
  TSNode name = field(n, "name");
  TSNode value = field(n, "value");
  if (ts_node_is_null(value)) return;
  const uint32_t b = ts_node_start_byte(value);
  const uint32_t e = ts_node_end_byte(value);
  const std::string body = masked_.substr(b, e - b);
  const std::string scope = ts_node_is_null(name) ? std::string() : "macro " + std::string(text(name));
  // RE2 (bytes, leftmost-first like std::regex): linear time on a long word.
  static const RE2 kToken(R"((\.\s*)?((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)(\s*\()?)", bytePattern());
  const re2::StringPiece input(body.data(), body.size());
  re2::StringPiece m[4];
  for (std::size_t pos = 0;
       pos < body.size() && kToken.Match(input, pos, body.size(), RE2::UNANCHORED, m, 4);) {
    pos = static_cast<std::size_t>(m[0].data() - body.data()) + std::max<std::size_t>(m[0].size(), 1);
    std::string token(m[2].data(), m[2].size());
    token.erase(std::remove(token.begin(), token.end(), ' '), token.end());
    const bool called = m[3].data() != nullptr;
    const bool method = m[1].data() != nullptr;
    const char* rule = nullptr;
    if (method)
      rule = called && token == "is_cuda" ? kRuntime : nullptr;
    else if (token == "asm" || token == "__asm__")
      rule = called ? kPtx : nullptr;
    else
      rule = classifyName(token, called ? NameKind::Call : NameKind::Qualified);
    if (!rule) continue;
    const auto at = static_cast<uint32_t>(b + (m[2].data() - body.data()));
    useAt(rule, lines_.range(at, at + static_cast<uint32_t>(m[2].size())),
          method ? "." + token + "()" : token, scope, ts_node_start_byte(n));
  }
}

void FileScanner::onQualified(TSNode n) {
  TSNode parent = ts_node_parent(n);
  if (ts_node_is_null(parent)) return;
  const std::string_view pt = type(parent);
  if (pt == "qualified_identifier") return;                                         // only the outermost
  if (pt == "call_expression" && ts_node_eq(field(parent, "function"), n)) return;  // done by onCall
  if (pt == "namespace_alias_definition" || pt == "using_declaration") return;
  std::string name = collapseSpace(text(n));
  name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  if (const char* rule = classifyName(name, NameKind::Qualified)) use(rule, n, name, !weakPosition(n));
}

void FileScanner::onName(TSNode n, NameKind kind) {
  TSNode parent = ts_node_parent(n);
  if (!ts_node_is_null(parent) && type(parent) == "qualified_identifier") return;
  const std::string_view s = text(n);
  if (const char* rule = classifyName(s, kind))
    use(rule, n, std::string(s), kind != NameKind::Type || !weakPosition(n));
}

// ---- uses, aggregated per function --------------------------------------------------------------

/// Template libraries are used throughout a file: one finding per file, not per function.
bool FileScanner::perFile(const char* rule) {
  return rule == kThrust || rule == kCutlass;
}

/// A type name in a parameter list or a template argument list (`cudaStream_t stream`,
/// `run<cutlass::half_t>`): it alone does not make a finding (generated instantiation files
/// are full of them); calls and other uses do.
bool FileScanner::weakPosition(TSNode n) const {
  TSNode p = ts_node_parent(n);
  for (int up = 0; up < 3 && !ts_node_is_null(p); ++up, p = ts_node_parent(p)) {
    const std::string_view t = type(p);
    if (t == "template_argument_list" || t == "parameter_declaration" ||
        t == "optional_parameter_declaration")
      return true;
    if (t != "type_descriptor" && t != "pointer_declarator" && t != "reference_declarator" &&
        t != "abstract_pointer_declarator" && t != "abstract_reference_declarator")
      return false;
  }
  return false;
}

void FileScanner::use(const char* rule, TSNode n, std::string api, bool strong) {
  std::string scope;
  uint32_t key = 0;
  for (auto it = functions_.rbegin(); it != functions_.rend(); ++it)
    if (!it->name.empty()) {
      scope = it->name;
      key = ts_node_start_byte(it->node) + 1;
      break;
    }
  if (const char* f = featureOf(rule, api)) addFeature(f);
  useAt(rule, range(n), std::move(api), scope, key, strong);
}

/// What a use of the PyTorch CUDA C++ API does in its function. A port changes each job at its
/// own line (the tensor check, the stream fetched for the launch, the device guard), so each gets
/// a finding of its own; so does each memory call (every copy, allocation and fill becomes an
/// ACL call with arguments of its own), each line that fetches or uses a stream or an event
/// (every launch takes the NPU stream where it fetched the CUDA one; every event becomes an ACL
/// event) and each line that tests for CUDA (`if (x.is_cuda())` dispatches to the kernel at its
/// line, a `TORCH_CHECK` rejects NPU tensors at its own). The other runtime calls of a function
/// share one.
std::string FileScanner::useGroup(const char* rule, std::string_view api, const sdk::SourceRange& at) {
  std::string group(rule);
  if (group != kRuntime) return group;
  if (startsWith(api, "cudaMemcpy") || startsWith(api, "cudaMemset") || startsWith(api, "cudaMalloc") ||
      startsWith(api, "cudaFree"))
    return group + "/memory@" + std::to_string(at.line);
  if (api.find("Guard") != std::string_view::npos) return group + "/guard";
  if (api.find("Stream") != std::string_view::npos || api.find("Event") != std::string_view::npos)
    return group + "/stream@" + std::to_string(at.line);
  if (api == ".is_cuda()" || endsWith(api, "kCUDA") || endsWith(api, "::CUDA") || endsWith(api, "::hasCUDA"))
    return group + "/check@" + std::to_string(at.line);
  return group;
}

void FileScanner::useAt(const char* rule, const sdk::SourceRange& r, std::string api,
                        const std::string& scope, uint32_t key, bool strong) {
  const bool per_file = perFile(rule);
  auto [it, fresh] = use_index_.try_emplace({useGroup(rule, api, r), per_file ? 0u : key}, uses_.size());
  if (fresh) {
    Use u;
    u.rule = rule;
    u.file = path_;
    u.range = r;
    u.scope = per_file ? std::string() : scope;
    u.per_file = per_file;
    uses_.push_back(std::move(u));
  }
  Use& u = uses_[it->second];
  if (!scope.empty() && !startsWith(scope, "macro ")) repo_.cuda_functions.insert(scope);
  if (strong && !u.strong) u.range = r;  // point at the first real use
  u.strong |= strong;
  ++u.count;
  if (std::find(u.apis.begin(), u.apis.end(), api) == u.apis.end()) u.apis.push_back(std::move(api));
  if (per_file && !scope.empty() &&
      std::find(u.functions.begin(), u.functions.end(), scope) == u.functions.end())
    u.functions.push_back(scope);
  repo_.cuda_evidence_files.insert(path_);
}

void FileScanner::flushUses() {
  for (auto& u : uses_)
    if (u.strong) repo_.uses.push_back(std::move(u));
  uses_.clear();
}

// ---- reporting ----------------------------------------------------------------------------------

namespace {

struct LibraryText {
  const char* library;
  const char* npu;
};

LibraryText libraryText(const std::string& rule) {
  if (rule == kPtx) return {"inline PTX", "Ascend C intrinsics (no PTX on the NPU)"};
  if (rule == kWarp)
    return {
        "warp-level primitives",
        "block-level Ascend C reductions (ReduceSum/ReduceMax on the unified buffer); Ascend has no warps"};
  if (rule == kBlas)
    return {"cuBLAS / CUDA math libraries",
            "torch.matmul / F.linear / torch.linalg on NPU tensors, or aclnn matmul ops from C++"};
  if (rule == kDnn)
    return {"cuDNN", "native torch ops (conv, norm, RNN) on NPU tensors, or aclnn ops from C++"};
  if (rule == kRand)
    return {"cuRAND", "torch random ops with a torch.Generator on the host side, or Ascend C random numbers"};
  if (rule == kNccl)
    return {"NCCL", "HCCL (hccl.h: HcclAllReduce, HcclCommInitRootInfo) or torch.distributed hccl"};
  if (rule == kThrust)
    return {"Thrust/CUB",
            "torch ops (sort, cumsum, unique, sum) on NPU tensors, or Ascend C block primitives"};
  if (rule == kCutlass)
    return {"CUTLASS/CuTe", "torch.matmul / torch_npu GEMM ops, or Ascend C GEMM templates (CATLASS)"};
  if (rule == kRuntime)
    return {"CUDA runtime / PyTorch CUDA API",
            "ACL runtime (aclrtMalloc, aclrtMemcpyAsync, aclrtSynchronizeStream) and torch_npu C++ API "
            "(c10_npu::getCurrentNPUStream, NPU guards, tensor.is_privateuseone())"};
  return {"CUDA", "the NPU counterpart"};
}

/// Known one-to-one counterparts of CUDA runtime names, for details.
std::string runtimeCounterpart(std::string_view api) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"cudaMalloc", "aclrtMalloc"},
      {"cudaFree", "aclrtFree"},
      {"cudaMemcpy", "aclrtMemcpy"},
      {"cudaMemcpyAsync", "aclrtMemcpyAsync"},
      {"cudaMemset", "aclrtMemset"},
      {"cudaMemsetAsync", "aclrtMemsetAsync"},
      {"cudaMallocHost", "aclrtMallocHost"},
      {"cudaFreeHost", "aclrtFreeHost"},
      {"cudaSetDevice", "aclrtSetDevice"},
      {"cudaGetDevice", "aclrtGetDevice"},
      {"cudaGetDeviceCount", "aclrtGetDeviceCount"},
      {"cudaDeviceSynchronize", "aclrtSynchronizeDevice"},
      {"cudaStreamCreate", "aclrtCreateStream"},
      {"cudaStreamDestroy", "aclrtDestroyStream"},
      {"cudaStreamSynchronize", "aclrtSynchronizeStream"},
      {"cudaEventCreate", "aclrtCreateEvent"},
      {"cudaEventRecord", "aclrtRecordEvent"},
      {"cudaEventSynchronize", "aclrtSynchronizeEvent"},
      {"cudaEventDestroy", "aclrtDestroyEvent"},
      {"cudaStreamWaitEvent", "aclrtStreamWaitEvent"},
      {"at::cuda::getCurrentCUDAStream", "c10_npu::getCurrentNPUStream"},
      {"c10::cuda::getCurrentCUDAStream", "c10_npu::getCurrentNPUStream"},
      {"getCurrentCUDAStream", "c10_npu::getCurrentNPUStream"},
      {"c10::cuda::CUDAGuard", "c10_npu::NPUGuard"},
      {"at::cuda::CUDAGuard", "c10_npu::NPUGuard"},
      {"c10::cuda::OptionalCUDAGuard", "c10_npu::OptionalNPUGuard"},
      {"at::cuda::OptionalCUDAGuard", "c10_npu::OptionalNPUGuard"},
      {".is_cuda()", ".is_privateuseone()"},
      {"at::kCUDA", "at::kPrivateUse1"},
      {"torch::kCUDA", "torch::kPrivateUse1"},
      {"c10::kCUDA", "c10::kPrivateUse1"},
      {"kCUDA", "kPrivateUse1"},
  };
  for (const auto& [from, to] : kMap)
    if (api == from) return to;
  return {};
}

}  // namespace

void reportUses(const Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
  std::set<std::pair<std::string, std::string>> ported;  // (file, function) with a runtime finding
  for (const Use& u : repo.uses) {
    const LibraryText lt = libraryText(u.rule);
    std::string shown;
    for (std::size_t i = 0; i < u.apis.size() && i < 4; ++i) shown += (i ? ", " : "") + u.apis[i];
    if (u.apis.size() > 4) shown += ", …";
    std::string where = u.scope.empty()                 ? std::string("file scope")
                        : startsWith(u.scope, "macro ") ? u.scope
                                                        : u.scope + "()";
    if (u.per_file)
      where = u.functions.empty() ? std::string("this file")
                                  : "this file (" + std::to_string(u.functions.size()) + " functions)";
    std::string what = shown + " in " + where;
    if (u.count > 1) what += " (" + std::to_string(u.count) + " uses)";
    auto f = rules.make(u.rule, u.file, u.range, u.apis.front(), {},
                        {{"value", shown}, {"what", what}, {"library", lt.library}, {"npu", lt.npu}});
    if (!f) continue;
    f->details["apis"] = join(u.apis, ", ");
    f->details["uses"] = std::to_string(u.count);
    f->details["function"] = u.per_file ? join(u.functions, ", ") : u.scope;
    f->details["library"] = lt.library;
    if (u.rule == kRuntime) {
      // The check, the stream and the guard of one function are one port: the first carries
      // its effort, the others are lines of the same change.
      if (!u.scope.empty() && !ported.insert({u.file, u.scope}).second)
        f->effort_days = std::min(f->effort_days, 0.02);
      std::vector<std::string> mapped;
      for (const auto& a : u.apis)
        if (const std::string to = runtimeCounterpart(a); !to.empty()) mapped.push_back(a + " -> " + to);
      if (!mapped.empty()) f->details["counterparts"] = join(mapped, "; ");
    }
    sink.report(std::move(*f));
  }
}

void reportHeaders(const Repo& repo, const sdk::WorkspaceView& workspace, const Rules& rules,
                   sdk::FindingSink& sink) {
  // A CUDA library's header is its own when the repository holds it: tiny-cuda-nn including
  // <tiny-cuda-nn/common.h> needs nothing beyond its kernels' findings.
  std::set<std::string> own, checked;
  for (const Header& h : repo.headers)
    if (std::string_view(h.info.library) == kCudaLibrary && checked.insert(h.path).second)
      for (const sdk::FileEntry& f : workspace.files())
        if (f.path == h.path || endsWith(f.path, "/" + h.path)) {
          own.insert(h.path);
          break;
        }
  for (const Header& h : repo.headers) {
    if (own.count(h.path) != 0) continue;
    const LibraryText lt = libraryText(h.info.rule);
    const bool runtime = std::string_view(h.info.rule) == kHeader;
    auto f = rules.make(h.info.rule, h.file, h.range, "#include <" + h.path + ">", {},
                        {{"value", h.path},
                         {"what", "#include <" + h.path + ">"},
                         {"library", runtime ? h.info.library : lt.library},
                         {"npu", lt.npu}});
    if (!f) continue;
    f->details["header"] = h.path;
    f->details["library"] = h.info.library;
    if (!runtime) f->effort_days = std::min(f->effort_days, 0.02);  // the include goes with its uses
    if (runtime) {
      if (startsWith(h.path, "ATen/cuda/") || startsWith(h.path, "c10/cuda/"))
        f->details["counterpart"] = "torch_npu/csrc/core/npu/ headers (NPUStream.h, NPUGuard.h)";
      else if (std::string_view(h.info.library) == kCudaLibrary)
        f->details["counterpart"] =
            "the library's NPU port, or torch / torch_npu ops in place of its kernels";
      else
        f->details["counterpart"] = "acl/acl.h (ACL runtime) or nothing (fp16/bf16 types come with Ascend C)";
    }
    sink.report(std::move(*f));
  }
}

}  // namespace custom_ops::native

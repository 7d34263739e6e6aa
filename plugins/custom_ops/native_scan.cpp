// CUDA and C++ sources: kernels, launches, CUDA libraries, PTX, warp intrinsics, runtime calls,
// bindings and op registrations, found on the tree-sitter cuda grammar's syntax tree (which also
// parses plain C++). The C API of tree-sitter 0.20 evaluates no query predicates, so the walk
// compares node types and texts itself.

#include "native_scan.hpp"

#include <tree_sitter/api.h>

#include <algorithm>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include "kernel_advice.hpp"
#include "migrate/sdk/text_position.hpp"

extern "C" const TSLanguage* tree_sitter_cuda();

namespace custom_ops {
namespace {

constexpr const char* kKernel = "OPS-001";
constexpr const char* kLaunch = "OPS-002";
constexpr const char* kPtx = "OPS-003";
constexpr const char* kWarp = "OPS-004";
constexpr const char* kBlas = "OPS-005";
constexpr const char* kDnn = "OPS-006";
constexpr const char* kRand = "OPS-007";
constexpr const char* kNccl = "OPS-008";
constexpr const char* kThrust = "OPS-009";
constexpr const char* kCutlass = "OPS-010";
constexpr const char* kHeader = "OPS-011";
constexpr const char* kRuntime = "OPS-012";
constexpr const char* kPybind = "OPS-013";
constexpr const char* kTorchLibrary = "OPS-014";
constexpr const char* kSourceDir = "OPS-020";

constexpr std::size_t kMaxDepth = 1500;
constexpr std::uint64_t kParseTimeoutMicros = 20'000'000;

// ---- classification of headers and names ------------------------------------------------------

struct HeaderInfo {
  const char* rule;
  const char* library;
};

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

bool isLaunchApi(std::string_view s) {
  return s == "cudaLaunchKernel" || s == "cudaLaunchCooperativeKernel" || s == "cudaLaunchKernelEx" ||
         s == "cuLaunchKernel" || s == "cuLaunchCooperativeKernel" || s == "cuLaunchKernelEx" ||
         s == "cudaLaunchKernelExC";
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

/// The last `::` segment without template arguments.
std::string_view lastSegment(std::string_view s) {
  if (const auto lt = s.find('<'); lt != std::string_view::npos) s = s.substr(0, lt);
  if (const auto c = s.rfind("::"); c != std::string_view::npos) s = s.substr(c + 2);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

enum class NameKind { Call, Qualified, Type, Identifier };

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
        endsWith(name, "DispatchKey::CUDA"))
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

// ---- per-file and repository facts --------------------------------------------------------------

struct Kernel {
  std::string file;
  std::string name;
  std::string qualified;
  std::string signature;
  std::string template_params;
  std::string description;
  sdk::SourceRange range;  ///< the kernel's name
  std::uint32_t first_line = 0;
  std::uint32_t last_line = 0;
  std::set<std::string> features;
  std::set<std::string> callees;  ///< plain names it calls (to inherit features of __device__ helpers)
  std::vector<std::string> launch_sites;
  bool recovered = false;  ///< found by the text scan (the tree had an error there)
};

struct DeviceFunction {
  std::set<std::string> features;
  std::set<std::string> callees;
};

struct Launch {
  std::string file;
  sdk::SourceRange range;
  std::string written;  ///< the launched name as written
  std::string kernel;   ///< the kernel it names (through a local `auto k = &kernel<…>;`)
  std::string config;
  std::string via;  ///< "<<<>>>" or the launch API
  std::string function;
  int arguments = 0;
};

/// Uses of one rule inside one function (or one macro, or file scope): reported once, at the
/// first use, with the list of what was used.
struct Use {
  std::string rule;
  std::string file;
  sdk::SourceRange range;
  std::string scope;  ///< function or macro name; empty at file scope
  std::vector<std::string> apis;
  std::vector<std::string> functions;  ///< for rules aggregated per file: the functions using it
  bool per_file = false;
  bool strong = false;  ///< a use beyond type names in signatures/template arguments
  int count = 0;
};

struct Binding {
  std::string file;
  sdk::SourceRange range;
  std::string macro;
  std::vector<std::string> params;
  std::vector<std::string> functions;   ///< m.def names
  std::vector<std::string> targets;     ///< the C++ functions m.def binds (`&forward` → forward)
  std::vector<std::string> cuda_impls;  ///< ops registered for a CUDA key
};

struct Header {
  std::string file;
  sdk::SourceRange range;
  std::string path;
  HeaderInfo info;
};

struct Repo {
  std::vector<Kernel> kernels;
  std::map<std::string, DeviceFunction> device_functions;
  std::vector<Launch> launches;
  std::vector<Use> uses;
  std::vector<Binding> bindings;
  std::vector<Header> headers;
  std::set<std::string> cuda_evidence_files;  ///< files with any CUDA fact
  std::map<std::string, int> kernel_macros;   ///< macros defining kernels → index of the name parameter
  std::set<std::string> cuda_functions;       ///< functions defined in CUDA files or using CUDA
};

// ---- masking ------------------------------------------------------------------------------------

}  // namespace

std::string maskCommentsAndStrings(std::string_view text) {
  std::string out(text);
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      std::size_t e = i;
      while (e < n && text[e] != '\n') {
        if (text[e] == '\\' && e + 1 < n && text[e + 1] == '\n') ++e;  // continued comment line
        ++e;
      }
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      std::size_t e = text.find("*/", i + 2);
      e = e == std::string_view::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (c == 'R' && i + 1 < n && text[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'))) {
      const std::size_t open = text.find('(', i + 2);
      if (open == std::string_view::npos) {
        ++i;
        continue;
      }
      const std::string close = ")" + std::string(text.substr(i + 2, open - i - 2)) + "\"";
      std::size_t e = text.find(close, open);
      e = e == std::string_view::npos ? n : e + close.size();
      blank(i + 2, e - 1);
      i = e;
    } else if (c == '"' || c == '\'') {
      if (c == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1])) && i + 1 < n &&
          std::isxdigit(static_cast<unsigned char>(text[i + 1]))) {
        ++i;  // digit separator: 1'000'000
        continue;
      }
      std::size_t e = i + 1;
      while (e < n && text[e] != c && text[e] != '\n') e += text[e] == '\\' ? 2 : 1;
      blank(i + 1, std::min(e, n));
      i = std::min(e + 1, n);
    } else {
      ++i;
    }
  }
  return out;
}

namespace {

/// The offset of the bracket closing the one at `open` in masked text, or npos.
std::size_t matchingIn(const std::string& text, std::size_t open, char o, char c) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == o) ++depth;
    if (text[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

/// After `__global__` at `at` of masked text: the kernel's name and the offset of its parameter
/// list's '(', skipping specifiers, `__launch_bounds__(…)`, template arguments and `*`/`&`.
std::pair<std::string, std::size_t> kernelHeadIn(const std::string& masked, std::size_t at) {
  std::size_t i = at + 10;
  std::string last;
  const std::size_t limit = std::min(masked.size(), at + 800);
  while (i < limit) {
    const char c = masked[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == '*' || c == '&' || c == '\\') {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < limit &&
             (std::isalnum(static_cast<unsigned char>(masked[i])) || masked[i] == '_' || masked[i] == ':'))
        ++i;
      const std::string word = masked.substr(b, i - b);
      std::size_t j = i;
      while (j < limit && (std::isspace(static_cast<unsigned char>(masked[j])) || masked[j] == '\\')) ++j;
      if (word == "__launch_bounds__" && j < limit && masked[j] == '(') {
        const std::size_t close = matchingIn(masked, j, '(', ')');
        if (close == std::string::npos) return {};
        i = close + 1;
        continue;
      }
      const std::size_t colon = word.rfind(':');
      last = colon == std::string::npos ? word : word.substr(colon + 1);
      if (j < limit && masked[j] == '(') return {last, j};
    } else if (c == '<') {
      const std::size_t close = matchingIn(masked, i, '<', '>');
      if (close == std::string::npos) return {};
      i = close + 1;
    } else {
      return {};  // ';', '{', '=', … : not a function head
    }
  }
  return {};
}

/// Function-like macros that define kernels: `#define DEFINE_KERNEL(name, ...) template <…>
/// __global__ void name(…)` → {"DEFINE_KERNEL", index of `name` among the parameters}.
void collectKernelMacros(const std::string& masked, std::map<std::string, int>& out) {
  std::size_t at = 0;
  while ((at = masked.find("#define", at)) != std::string::npos) {
    std::size_t i = at + 7;
    at = i;
    while (i < masked.size() && (masked[i] == ' ' || masked[i] == '\t')) ++i;
    const std::size_t name_b = i;
    while (i < masked.size() && (std::isalnum(static_cast<unsigned char>(masked[i])) || masked[i] == '_'))
      ++i;
    if (i >= masked.size() || masked[i] != '(' || i == name_b) continue;
    const std::string macro = masked.substr(name_b, i - name_b);
    const std::size_t close = masked.find(')', i);
    if (close == std::string::npos) continue;
    std::vector<std::string> params;
    std::string cur;
    for (std::size_t k = i + 1; k < close; ++k) {
      if (masked[k] == ',') {
        params.push_back(collapseSpace(cur));
        cur.clear();
      } else {
        cur += masked[k];
      }
    }
    params.push_back(collapseSpace(cur));
    // the logical line of the body: up to a newline not preceded by a backslash
    std::size_t end = close;
    while ((end = masked.find('\n', end + 1)) != std::string::npos) {
      std::size_t back = end;
      while (back > 0 && (masked[back - 1] == ' ' || masked[back - 1] == '\t' || masked[back - 1] == '\r'))
        --back;
      if (back == 0 || masked[back - 1] != '\\') break;
    }
    if (end == std::string::npos) end = masked.size();
    const std::string body = masked.substr(close + 1, end - close - 1);
    const std::size_t g = body.find("__global__");
    if (g == std::string::npos) continue;
    const std::string name = kernelHeadIn(body, g).first;
    for (std::size_t p = 0; p < params.size(); ++p)
      if (!name.empty() && params[p] == name) out[macro] = static_cast<int>(p);
  }
}

// ---- the tree walk ------------------------------------------------------------------------------

struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};

class FileScanner {
 public:
  FileScanner(const std::string& path, const std::string& text, bool cuda_file, Repo& repo)
      : path_(path), text_(text), lines_(text), repo_(repo), cuda_file_(cuda_file) {}

  void scan(TSParser* parser) {
    ts_parser_reset(parser);
    std::unique_ptr<TSTree, TreeDeleter> tree(
        ts_parser_parse_string(parser, nullptr, text_.data(), static_cast<uint32_t>(text_.size())));
    masked_ = maskCommentsAndStrings(text_);
    if (tree) visit(ts_tree_root_node(tree.get()), 0);
    recoverKernels();
    flushUses();
  }

 private:
  // -- node helpers
  std::string_view type(TSNode n) const { return ts_node_type(n); }
  std::string_view text(TSNode n) const {
    const uint32_t b = ts_node_start_byte(n);
    const uint32_t e = ts_node_end_byte(n);
    return std::string_view(text_).substr(b, e - b);
  }
  TSNode field(TSNode n, const char* name) const {
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
  }
  sdk::SourceRange range(TSNode n) const { return lines_.range(ts_node_start_byte(n), ts_node_end_byte(n)); }

  struct Function {
    TSNode node;
    std::string name;
    bool global = false;
    bool device = false;
    int kernel = -1;          ///< index into repo_.kernels
    int binding = -1;         ///< index into repo_.bindings
    std::string binding_var;  ///< `m` of PYBIND11_MODULE(name, m)
  };

  void visit(TSNode n, std::size_t depth) {
    if (depth > kMaxDepth) return;
    const std::string_view t = type(n);
    bool pushed = false;
    if (t == "comment" || t == "string_literal" || t == "raw_string_literal" || t == "char_literal") return;
    if (t == "preproc_include") {
      onInclude(n);
      return;
    }
    if (t == "preproc_def" || t == "preproc_function_def") {
      onMacro(n);
      return;
    }
    if (t == "namespace_definition") {
      TSNode name = field(n, "name");
      namespaces_.push_back(ts_node_is_null(name) ? std::string() : std::string(text(name)));
    } else if (t == "function_definition") {
      pushed = onFunction(n);
    } else if (t == "call_expression") {
      onCall(n);
    } else if (t == "qualified_identifier") {
      onQualified(n);
    } else if (t == "type_identifier") {
      onName(n, NameKind::Type);
    } else if (t == "identifier") {
      if (text(n) == "kCUDA") onName(n, NameKind::Identifier);
    } else if (t == "gnu_asm_expression" || t == "asm_statement") {
      use(kPtx, n, "asm");
    } else if (t == "type_qualifier" && text(n) == "__shared__") {
      addFeature(isExternShared(n) ? "dynamic_shared_memory" : "shared_memory");
      if (isExternShared(n)) addFeature("shared_memory");
    }
    const uint32_t count = ts_node_child_count(n);
    for (uint32_t i = 0; i < count; ++i) visit(ts_node_child(n, i), depth + 1);
    if (pushed) functions_.pop_back();
    if (t == "namespace_definition") namespaces_.pop_back();
  }

  bool isExternShared(TSNode qualifier) const {
    TSNode decl = ts_node_parent(qualifier);
    if (ts_node_is_null(decl)) return false;
    for (uint32_t i = 0; i < ts_node_child_count(decl); ++i) {
      TSNode c = ts_node_child(decl, i);
      if (type(c) == "storage_class_specifier" && text(c) == "extern") return true;
    }
    return false;
  }

  void addFeature(const std::string& f) {
    for (auto it = functions_.rbegin(); it != functions_.rend(); ++it) {
      if (it->kernel >= 0) {
        repo_.kernels[it->kernel].features.insert(f);
        return;
      }
      if (it->device) {
        repo_.device_functions[it->name].features.insert(f);
        return;
      }
    }
  }

  void addCallee(std::string_view name) {
    if (functions_.empty()) return;
    Function& f = functions_.back();
    if (f.kernel >= 0)
      repo_.kernels[f.kernel].callees.insert(std::string(name));
    else if (f.device)
      repo_.device_functions[f.name].callees.insert(std::string(name));
  }

  // -- includes and macros

  void onInclude(TSNode n) {
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
  void onMacro(TSNode n) {
    TSNode name = field(n, "name");
    TSNode value = field(n, "value");
    if (ts_node_is_null(value)) return;
    const uint32_t b = ts_node_start_byte(value);
    const uint32_t e = ts_node_end_byte(value);
    const std::string body = masked_.substr(b, e - b);
    const std::string scope = ts_node_is_null(name) ? std::string() : "macro " + std::string(text(name));
    static const std::regex kToken(R"((\.\s*)?((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)(\s*\()?)");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), kToken); it != std::sregex_iterator();
         ++it) {
      const std::smatch& m = *it;
      std::string token = m[2].str();
      token.erase(std::remove(token.begin(), token.end(), ' '), token.end());
      const bool called = m[3].matched;
      const bool method = m[1].matched;
      const char* rule = nullptr;
      if (method)
        rule = called && token == "is_cuda" ? kRuntime : nullptr;
      else if (token == "asm" || token == "__asm__")
        rule = called ? kPtx : nullptr;
      else
        rule = classifyName(token, called ? NameKind::Call : NameKind::Qualified);
      if (!rule) continue;
      const auto at = static_cast<uint32_t>(b + m.position(2));
      useAt(rule, lines_.range(at, at + static_cast<uint32_t>(m.length(2))),
            method ? "." + token + "()" : token, scope, ts_node_start_byte(n));
    }
  }

  // -- functions

  static bool isBindingMacro(std::string_view s) {
    return s == "PYBIND11_MODULE" || startsWith(s, "TORCH_LIBRARY");
  }

  /// The declarator's name node and the parameter list of a function definition.
  std::pair<TSNode, TSNode> declaratorOf(TSNode fn) const {
    TSNode d = field(fn, "declarator");
    // Walk through pointer/reference/attributed declarators to the function_declarator.
    for (int guard = 0; !ts_node_is_null(d) && guard < 8 && type(d) != "function_declarator"; ++guard) {
      TSNode inner = field(d, "declarator");
      if (ts_node_is_null(inner)) break;
      d = inner;
    }
    if (ts_node_is_null(d) || type(d) != "function_declarator") return {TSNode{}, TSNode{}};
    return {field(d, "declarator"), field(d, "parameters")};
  }

  bool hasSpecifier(TSNode fn, std::string_view spec) const {
    for (uint32_t i = 0; i < ts_node_child_count(fn); ++i) {
      TSNode c = ts_node_child(fn, i);
      const std::string_view t = type(c);
      if (t == spec) return true;
      if ((t == "type_qualifier" || t == "storage_class_specifier" || t == "attribute_specifier") &&
          text(c) == spec)
        return true;
    }
    return false;
  }

  bool onFunction(TSNode n) {
    auto [name_node, params] = declaratorOf(n);
    if (ts_node_is_null(name_node)) return false;
    Function f;
    f.node = n;
    f.name = std::string(lastSegment(text(name_node)));
    if (cuda_file_) repo_.cuda_functions.insert(f.name);
    f.global = hasSpecifier(n, "__global__");
    f.device = hasSpecifier(n, "__device__");
    if (f.global) f.kernel = addKernel(n, name_node, params);
    // DEFINE_KERNEL(flash_fwd_kernel, bool Is_causal) { … }: a kernel defined through a macro.
    if (auto m = repo_.kernel_macros.find(f.name);
        m != repo_.kernel_macros.end() && !ts_node_is_null(params) &&
        ts_node_named_child_count(params) > static_cast<uint32_t>(m->second)) {
      TSNode name_param = ts_node_named_child(params, static_cast<uint32_t>(m->second));
      f.kernel = addKernel(n, name_param, params);
      Kernel& k = repo_.kernels[static_cast<std::size_t>(f.kernel)];
      k.name = collapseSpace(text(name_param));
      k.qualified = k.name;
      k.signature = "(declared by the macro " + f.name + ")";
      k.template_params = collapseSpace(text(params));
      k.features.insert("macro_defined");
      f.name = k.name;
    }
    if (isBindingMacro(f.name) && !ts_node_is_null(params)) {
      Binding b;
      b.file = path_;
      b.range = range(name_node);
      b.macro = f.name;
      for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i)
        b.params.push_back(collapseSpace(text(ts_node_named_child(params, i))));
      if (!b.params.empty()) f.binding_var = b.params.back();
      f.binding = static_cast<int>(repo_.bindings.size());
      repo_.bindings.push_back(std::move(b));
    }
    functions_.push_back(std::move(f));
    return true;
  }

  int addKernel(TSNode fn, TSNode name_node, TSNode params) {
    Kernel k;
    k.file = path_;
    k.name = std::string(lastSegment(text(name_node)));
    std::string qual;
    for (const auto& ns : namespaces_)
      if (!ns.empty()) qual += ns + "::";
    const std::string_view written = text(name_node);
    k.qualified = written.find("::") != std::string_view::npos ? std::string(written) : qual + k.name;
    k.signature = ts_node_is_null(params) ? std::string("()") : collapseSpace(text(params));
    TSNode holder = fn;
    TSNode parent = ts_node_parent(fn);
    if (!ts_node_is_null(parent) && type(parent) == "template_declaration") {
      holder = parent;
      TSNode tp = field(parent, "parameters");
      if (!ts_node_is_null(tp)) k.template_params = collapseSpace(text(tp));
    }
    k.range = range(name_node);
    k.first_line = ts_node_start_point(holder).row + 1;
    k.last_line = ts_node_end_point(fn).row + 1;
    k.description = docComment(holder);
    for (uint32_t i = 0; i < ts_node_child_count(fn); ++i)
      if (type(ts_node_child(fn, i)) == "launch_bounds") k.features.insert("launch_bounds");
    kernel_spans_.push_back({ts_node_start_byte(holder), ts_node_end_byte(fn)});
    repo_.kernels.push_back(std::move(k));
    repo_.cuda_evidence_files.insert(path_);
    return static_cast<int>(repo_.kernels.size()) - 1;
  }

  /// The comment block right above a definition, reduced to its first sentence.
  std::string docComment(TSNode holder) const {
    std::vector<std::string> parts;
    uint32_t expect_row = ts_node_start_point(holder).row;
    for (TSNode p = ts_node_prev_sibling(holder); !ts_node_is_null(p); p = ts_node_prev_sibling(p)) {
      if (type(p) != "comment") break;
      if (ts_node_end_point(p).row + 1 < expect_row) break;  // a blank line separates it
      parts.insert(parts.begin(), std::string(text(p)));
      expect_row = ts_node_start_point(p).row;
    }
    std::string joined;
    for (const auto& c : parts) {
      std::string s = c;
      if (startsWith(s, "//")) {
        s = s.substr(2);
        while (!s.empty() && (s.front() == '/' || s.front() == '!')) s.erase(0, 1);
      } else if (startsWith(s, "/*")) {
        s = s.substr(2, s.size() >= 4 ? s.size() - 4 : 0);
        std::string cleaned;
        std::size_t b = 0;
        while (b <= s.size()) {  // drop the leading " * " of block comment lines
          std::size_t e = s.find('\n', b);
          if (e == std::string::npos) e = s.size();
          std::string line = s.substr(b, e - b);
          const std::size_t star = line.find_first_not_of(" \t");
          if (star != std::string::npos && (line[star] == '*' || line[star] == '!'))
            line = line.substr(star + 1);
          cleaned += line + "\n";
          b = e + 1;
        }
        s = cleaned;
      }
      joined += s + "\n";
    }
    std::string line = collapseSpace(joined);
    // Doxygen tags and separators are not a description.
    if (startsWith(line, "@brief ") || startsWith(line, "\\brief ")) line = line.substr(7);
    if (line.find_first_not_of("-=*/# ") == std::string::npos) return {};
    const std::size_t stop = line.find(". ");
    if (stop != std::string::npos) line = line.substr(0, stop + 1);
    return clip(line, 200);
  }

  // -- calls and names

  void onCall(TSNode n) {
    TSNode fn = field(n, "function");
    if (ts_node_is_null(fn)) return;
    TSNode launch{};
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (type(c) == "kernel_call_syntax") launch = c;
    }
    const std::string_view ft = type(fn);
    std::string name;
    if (ft == "identifier") {
      name = std::string(text(fn));
    } else if (ft == "template_function") {
      TSNode nm = field(fn, "name");
      name = std::string(ts_node_is_null(nm) ? text(fn) : text(nm));
    } else if (ft == "qualified_identifier") {
      name = collapseSpace(text(fn));
      name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    }
    TSNode args = field(n, "arguments");
    if (!ts_node_is_null(launch)) {
      std::string config =
          masked_.substr(ts_node_start_byte(launch), ts_node_end_byte(launch) - ts_node_start_byte(launch));
      if (startsWith(config, "<<<")) config = config.substr(3);
      if (endsWith(config, ">>>")) config.resize(config.size() - 3);
      addLaunch(n, std::string(lastSegment(name.empty() ? text(fn) : name)), collapseSpace(config), "<<<>>>",
                args);
      return;
    }
    if (ft == "field_expression") {
      TSNode member = field(fn, "field");
      const std::string_view m = ts_node_is_null(member) ? std::string_view() : text(member);
      if (m == "is_cuda") use(kRuntime, n, ".is_cuda()");
      onBindingCall(fn, m, args);
      return;
    }
    if (name.empty()) return;
    const std::string_view last = lastSegment(name);
    if (isLaunchApi(last)) {
      // cudaLaunchKernel((void*)k, …): the first argument; cudaLaunchKernelEx(&cfg, k, …): the second.
      std::string kernel = "?";
      const uint32_t index = endsWith(last, "Ex") || endsWith(last, "ExC") ? 1 : 0;
      if (!ts_node_is_null(args) && ts_node_named_child_count(args) > index) {
        // `(void*)&ns::kernel<T>`, `reinterpret_cast<void*>(kernel)`: drop casts and template
        // arguments, then the last identifier is the kernel.
        static const std::regex kCast(R"(\w+_cast\s*<[^>]*>)");
        std::string a = std::regex_replace(std::string(text(ts_node_named_child(args, index))), kCast, " ");
        a = a.substr(0, a.find('<'));
        static const std::regex kIdent(R"([A-Za-z_]\w*)");
        for (auto it = std::sregex_iterator(a.begin(), a.end(), kIdent); it != std::sregex_iterator(); ++it)
          if (it->str() != "void" && it->str() != "const") kernel = it->str();
      }
      addLaunch(n, kernel, "", std::string(last), args);
      return;
    }
    if (ft == "identifier") addCallee(name);
    if (startsWith(last, "atomic")) addFeature("atomics");
    if (last == "__syncthreads") addFeature("block_sync");
    if (const char* rule = classifyName(name, NameKind::Call)) use(rule, fn, name);
  }

  void onBindingCall(TSNode fn, std::string_view method, TSNode args) {
    for (auto it = functions_.rbegin(); it != functions_.rend(); ++it) {
      if (it->binding < 0) continue;
      TSNode recv = field(fn, "argument");
      if (ts_node_is_null(recv) || text(recv) != it->binding_var) return;
      if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0) return;
      Binding& b = repo_.bindings[it->binding];
      std::string first(text(ts_node_named_child(args, 0)));
      if (first.size() >= 2 && first.front() == '"') first = first.substr(1, first.size() - 2);
      // "rms_norm(Tensor x) -> Tensor": the op name only
      first = first.substr(0, first.find('('));
      if (method == "def") {
        b.functions.push_back(first);
        if (ts_node_named_child_count(args) > 1) {
          std::string target(text(ts_node_named_child(args, 1)));
          target.erase(
              std::remove_if(target.begin(), target.end(), [](char c) { return c == '&' || c == ' '; }),
              target.end());
          b.targets.emplace_back(lastSegment(target));
        }
      } else if (method == "impl" && text(args).find("CUDA") != std::string_view::npos)
        b.cuda_impls.push_back(first);
      else if (method == "impl" && b.params.size() >= 3 && b.params[1].find("CUDA") != std::string::npos)
        b.cuda_impls.push_back(first);
      return;
    }
  }

  /// `auto kernel = &selective_scan_fwd_kernel<Traits>; kernel<<<…>>>(…)`: the function a local
  /// launch variable was assigned from, searched in the enclosing function before the launch.
  std::string launchTarget(TSNode call, const std::string& name) const {
    if (functions_.empty() || name.empty()) return name;
    const uint32_t from = ts_node_start_byte(functions_.back().node);
    const uint32_t to = ts_node_start_byte(call);
    if (to <= from) return name;
    const std::string before = masked_.substr(from, to - from);
    const std::regex assign("\\b" + name + R"(\s*=\s*&?\s*(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)\s*[<;])");
    std::string target;
    for (auto it = std::sregex_iterator(before.begin(), before.end(), assign); it != std::sregex_iterator();
         ++it)
      target = (*it)[1].str();
    return target.empty() ? name : target;
  }

  void addLaunch(TSNode call, std::string kernel, std::string config, std::string via, TSNode args) {
    Launch l;
    l.written = kernel;
    if (kernel.size() < 64 &&
        kernel.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
            std::string::npos)
      kernel = launchTarget(call, kernel);
    l.file = path_;
    l.range = range(call);
    l.kernel = std::move(kernel);
    l.config = std::move(config);
    l.via = std::move(via);
    for (auto it = functions_.rbegin(); it != functions_.rend(); ++it)
      if (!it->name.empty()) {
        l.function = it->name;
        break;
      }
    l.arguments = ts_node_is_null(args) ? 0 : static_cast<int>(ts_node_named_child_count(args));
    repo_.cuda_functions.insert(l.function);
    repo_.launches.push_back(std::move(l));
    repo_.cuda_evidence_files.insert(path_);
  }

  void onQualified(TSNode n) {
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

  void onName(TSNode n, NameKind kind) {
    TSNode parent = ts_node_parent(n);
    if (!ts_node_is_null(parent) && type(parent) == "qualified_identifier") return;
    const std::string_view s = text(n);
    if (const char* rule = classifyName(s, kind))
      use(rule, n, std::string(s), kind != NameKind::Type || !weakPosition(n));
  }

  // -- uses, aggregated per function

  /// Template libraries are used throughout a file: one finding per file, not per function.
  static bool perFile(const char* rule) { return rule == kThrust || rule == kCutlass; }

  /// A type name in a parameter list or a template argument list (`cudaStream_t stream`,
  /// `run<cutlass::half_t>`): it alone does not make a finding (generated instantiation files
  /// are full of them); calls and other uses do.
  bool weakPosition(TSNode n) const {
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

  void use(const char* rule, TSNode n, std::string api, bool strong = true) {
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

  void useAt(const char* rule, const sdk::SourceRange& r, std::string api, const std::string& scope,
             uint32_t key, bool strong = true) {
    const bool per_file = perFile(rule);
    auto [it, fresh] = use_index_.try_emplace({rule, per_file ? 0u : key}, uses_.size());
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

  void flushUses() {
    for (auto& u : uses_)
      if (u.strong) repo_.uses.push_back(std::move(u));
    uses_.clear();
  }

  // -- kernels the tree missed (macros before the definition confuse the parser)

  void recoverKernels() {
    std::size_t at = 0;
    while ((at = masked_.find("__global__", at)) != std::string::npos) {
      const std::size_t here = at;
      at += 10;
      if (here > 0 &&
          (std::isalnum(static_cast<unsigned char>(masked_[here - 1])) || masked_[here - 1] == '_'))
        continue;
      if (here + 10 < masked_.size() &&
          (std::isalnum(static_cast<unsigned char>(masked_[here + 10])) || masked_[here + 10] == '_'))
        continue;
      bool inside = false;
      for (const auto& [b, e] : kernel_spans_)
        if (here >= b && here < e) inside = true;
      if (inside || inMacroLine(here)) continue;
      const auto [name, open] = kernelHeadIn(masked_, here);
      if (name.empty() || name == "__global__") continue;
      // The parameter list, then a body (a prototype ends with ';').
      const std::size_t close = matchingIn(masked_, open, '(', ')');
      if (close == std::string::npos) continue;
      std::size_t next = masked_.find_first_not_of(" \t\r\n", close + 1);
      if (next == std::string::npos || masked_[next] != '{') continue;
      const std::size_t body_end = matchingIn(masked_, next, '{', '}');
      Kernel k;
      k.file = path_;
      k.name = name;
      k.qualified = name;
      k.signature = collapseSpace(std::string_view(text_).substr(open, close + 1 - open));
      const auto name_at = static_cast<uint32_t>(here + masked_.substr(here, open - here).rfind(name));
      k.range = lines_.range(name_at, name_at + static_cast<uint32_t>(name.size()));
      k.first_line = k.range.line;
      k.last_line =
          lines_.position(static_cast<uint32_t>(body_end == std::string::npos ? close : body_end)).first;
      k.recovered = true;
      const std::string body = masked_.substr(next, body_end == std::string::npos ? 0 : body_end - next);
      if (body.find("__shared__") != std::string::npos) k.features.insert("shared_memory");
      if (body.find("__shfl") != std::string::npos || body.find("__ballot") != std::string::npos)
        k.features.insert("warp_intrinsics");
      if (body.find("asm") != std::string::npos) k.features.insert("inline_ptx");
      if (body.find("atomic") != std::string::npos) k.features.insert("atomics");
      if (body.find("wmma") != std::string::npos || body.find("mma.sync") != std::string::npos)
        k.features.insert("tensor_cores");
      kernel_spans_.push_back({here, body_end == std::string::npos ? close : body_end});
      repo_.kernels.push_back(std::move(k));
      repo_.cuda_evidence_files.insert(path_);
      // launches inside text the tree could not read are left to the tree (rare)
    }
  }

  bool inMacroLine(std::size_t pos) const {
    // Walk back over continued lines to the start of the logical line.
    std::size_t b = masked_.rfind('\n', pos);
    while (b != std::string::npos && b > 0 && masked_[b - 1] == '\\') b = masked_.rfind('\n', b - 1);
    const std::size_t start = b == std::string::npos ? 0 : b + 1;
    const std::size_t first = masked_.find_first_not_of(" \t", start);
    return first != std::string::npos && masked_[first] == '#';
  }

  const std::string& path_;
  const std::string& text_;
  std::string masked_;
  sdk::LineIndex lines_;
  Repo& repo_;
  std::vector<Function> functions_;
  std::vector<std::string> namespaces_;
  std::vector<std::pair<std::size_t, std::size_t>> kernel_spans_;
  std::vector<Use> uses_;
  std::map<std::pair<std::string, uint32_t>, std::size_t> use_index_;
  bool cuda_file_ = false;
};

/// Files worth parsing: CUDA always; C/C++ only when the text mentions something of this domain.
bool worthParsing(const sdk::FileEntry& f, const std::string& text) {
  if (f.language == sdk::Language::Cuda) return true;
  static const char* const kHints[] = {"cuda",          "CUDA",   "__global__", "PYBIND11_MODULE",
                                       "TORCH_LIBRARY", "cublas", "cudnn",      "curand",
                                       "nccl",          "thrust", "cub::",      "cub/",
                                       "cutlass",       "cute",   "asm",        "__shfl"};
  for (const char* h : kHints)
    if (text.find(h) != std::string::npos) return true;
  return false;
}

// ---- reporting ----------------------------------------------------------------------------------

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

void reportUses(const Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
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
      std::vector<std::string> mapped;
      for (const auto& a : u.apis)
        if (const std::string to = runtimeCounterpart(a); !to.empty()) mapped.push_back(a + " -> " + to);
      if (!mapped.empty()) f->details["counterparts"] = join(mapped, "; ");
    }
    sink.report(std::move(*f));
  }
}

void reportHeaders(const Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
  for (const Header& h : repo.headers) {
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
      else
        f->details["counterpart"] = "acl/acl.h (ACL runtime) or nothing (fp16/bf16 types come with Ascend C)";
    }
    sink.report(std::move(*f));
  }
}

std::string siteOf(const std::string& file, std::uint32_t line) {
  return file + ":" + std::to_string(line);
}

/// Kernels inherit the features of the __device__ helpers they call (by name, repository-wide).
void propagateFeatures(Repo& repo) {
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (auto& [name, df] : repo.device_functions)
      for (const auto& callee : df.callees) {
        auto it = repo.device_functions.find(callee);
        if (it == repo.device_functions.end() || &it->second == &df) continue;
        for (const auto& feat : it->second.features) changed |= df.features.insert(feat).second;
      }
    if (!changed) break;
  }
  for (Kernel& k : repo.kernels)
    for (const auto& callee : k.callees)
      if (auto it = repo.device_functions.find(callee); it != repo.device_functions.end())
        k.features.insert(it->second.features.begin(), it->second.features.end());
}

void reportKernelsAndLaunches(Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
  std::multimap<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < repo.kernels.size(); ++i) by_name.emplace(repo.kernels[i].name, i);
  for (Launch& l : repo.launches)
    if (by_name.count(l.written) || !by_name.count(l.kernel)) l.kernel = l.written;
  for (const Launch& l : repo.launches) {
    auto [b, e] = by_name.equal_range(l.kernel);
    bool same_file = false;
    for (auto it = b; it != e; ++it) same_file |= repo.kernels[it->second].file == l.file;
    for (auto it = b; it != e; ++it)
      if (!same_file || repo.kernels[it->second].file == l.file)
        repo.kernels[it->second].launch_sites.push_back(siteOf(l.file, l.range.line));
  }
  propagateFeatures(repo);
  for (const Kernel& k : repo.kernels) {
    const KernelAdvice a = adviseCudaKernel(k.name, k.features);
    std::string description =
        !k.description.empty() ? k.description : describeName(k.name) + " (derived from the name)";
    while (!description.empty() && (description.back() == '.' || description.back() == ' '))
      description.pop_back();
    auto f = rules.make(kKernel, k.file, k.range, k.name, {},
                        {{"kernel", k.name},
                         {"description", description},
                         {"path", a.replacement_path},
                         {"npu", a.replacement_path},
                         {"effort", effortLabel(a.effort_days)}});
    if (!f) continue;
    f->effort_days = a.effort_days;
    f->difficulty = a.effort_days <= 1   ? sdk::Level::Low
                    : a.effort_days <= 3 ? sdk::Level::Medium
                                         : sdk::Level::High;
    if (k.recovered) f->confidence = sdk::Level::Medium;
    std::vector<std::string> features(k.features.begin(), k.features.end());
    f->details = {{"kernel", k.name},
                  {"qualified_name", k.qualified},
                  {"signature", k.signature},
                  {"template", k.template_params},
                  {"launches", std::to_string(k.launch_sites.size())},
                  {"launch_sites", join(k.launch_sites, ", ")},
                  {"description", description},
                  {"category", a.category},
                  {"replacement_kind", a.kind},
                  {"replacement_path", a.replacement_path},
                  {"effort", effortLabel(a.effort_days)},
                  {"effort_days", formatDays(a.effort_days)},
                  {"features", join(features, ", ")},
                  {"source", k.file + ":" + std::to_string(k.first_line) + "-" + std::to_string(k.last_line)},
                  {"language", "cuda"}};
    sink.report(std::move(*f));
  }
  for (const Launch& l : repo.launches) {
    std::string defined;
    auto [b, e] = by_name.equal_range(l.kernel);
    for (auto it = b; it != e; ++it) {
      const Kernel& k = repo.kernels[it->second];
      if (!defined.empty()) defined += ", ";
      defined += siteOf(k.file, k.range.line);
    }
    const std::string how = l.via == "<<<>>>" ? "<<<" + l.config + ">>>" : l.via + "(…)";
    auto f = rules.make(kLaunch, l.file, l.range, l.kernel, {},
                        {{"kernel", l.kernel}, {"value", how}, {"config", l.config}, {"via", l.via}});
    if (!f) continue;
    std::vector<std::string> parts;
    {
      int depth = 0;
      std::string cur;
      for (char c : l.config) {
        if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
        if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
        if (c == ',' && depth == 0) {
          parts.push_back(collapseSpace(cur));
          cur.clear();
        } else {
          cur += c;
        }
      }
      if (!cur.empty()) parts.push_back(collapseSpace(cur));
    }
    f->details = {{"kernel", l.kernel},
                  {"via", l.via},
                  {"config", l.config},
                  {"grid", parts.size() > 0 ? parts[0] : ""},
                  {"block", parts.size() > 1 ? parts[1] : ""},
                  {"shared_mem", parts.size() > 2 ? parts[2] : ""},
                  {"stream", parts.size() > 3 ? parts[3] : ""},
                  {"arguments", std::to_string(l.arguments)},
                  {"function", l.function},
                  {"kernel_defined_at", defined}};
    sink.report(std::move(*f));
  }
}

bool under(const std::string& path, const std::string& dir) {
  return dir.empty() || (startsWith(path, dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

void reportBindings(const Repo& repo, const Rules& rules, sdk::FindingSink& sink) {
  for (const Binding& b : repo.bindings) {
    if (b.macro == "PYBIND11_MODULE") {
      // A pybind module matters when it binds CUDA code: the file uses CUDA, or a bound function
      // is defined in a CUDA source or uses CUDA (a CPU-only module, e.g. a CPU Adam, does not).
      bool cuda = repo.cuda_evidence_files.count(b.file) > 0;
      for (const auto& t : b.targets)
        cuda |= repo.cuda_functions.count(t) > 0 || lower(t).find("cuda") != std::string::npos;
      if (!cuda) continue;
      const std::string module = b.params.empty() ? std::string() : b.params.front();
      auto f =
          rules.make(kPybind, b.file, b.range, b.macro, {},
                     {{"value", module}, {"module", module}, {"count", std::to_string(b.functions.size())}});
      if (!f) continue;
      f->details = {{"module", module},
                    {"functions", join(b.functions, ", ")},
                    {"bound", std::to_string(b.functions.size())}};
      sink.report(std::move(*f));
      continue;
    }
    // TORCH_LIBRARY_IMPL(ns, CUDA, m) or TORCH_LIBRARY*(ns, m) { m.impl("op", torch::kCUDA, …) }
    const bool impl_macro = b.macro == "TORCH_LIBRARY_IMPL" && b.params.size() >= 3;
    const std::string key = impl_macro ? b.params[1] : std::string("CUDA");
    if (impl_macro && key.find("CUDA") == std::string::npos) continue;
    if (!impl_macro && b.cuda_impls.empty()) continue;
    const std::string ns = b.params.empty() ? std::string() : b.params.front();
    const std::vector<std::string>& ops = impl_macro && b.cuda_impls.empty() ? b.functions : b.cuda_impls;
    std::string npu_key = key;
    if (const auto at = npu_key.find("CUDA"); at != std::string::npos) npu_key.replace(at, 4, "PrivateUse1");
    auto f = rules.make(kTorchLibrary, b.file, b.range, b.macro, {},
                        {{"value", ns}, {"key", key}, {"npu_key", npu_key}});
    if (!f) continue;
    f->details = {{"namespace", ns},
                  {"dispatch_key", key},
                  {"npu_dispatch_key", npu_key},
                  {"ops", join(ops, ", ")},
                  {"count", std::to_string(ops.size())}};
    sink.report(std::move(*f));
  }
}

bool isOpsDirName(std::string_view d) {
  return d == "csrc" || d == "kernels" || d == "kernel" || d == "ops" || d == "cuda_kernels" ||
         d == "cuda_ops" || d == "custom_ops";
}

void reportDirectories(const Repo& repo, const std::vector<std::string>& cuda_files, const Rules& rules,
                       sdk::FindingSink& sink) {
  std::set<std::string> files(cuda_files.begin(), cuda_files.end());
  files.insert(repo.cuda_evidence_files.begin(), repo.cuda_evidence_files.end());
  struct Dir {
    std::string first;
    int cuda = 0;
    int cpp = 0;
    int kernels = 0;
  };
  std::map<std::string, Dir> dirs;
  for (const auto& f : files) {
    std::size_t b = 0;
    std::string root;
    for (std::size_t i = 0; i < f.size(); ++i)
      if (f[i] == '/') {
        if (isOpsDirName(std::string_view(f).substr(b, i - b))) {
          root = f.substr(0, i);
          break;
        }
        b = i + 1;
      }
    if (root.empty()) continue;
    Dir& d = dirs[root];
    if (d.first.empty() || f < d.first) d.first = f;
    (endsWith(f, ".cu") || endsWith(f, ".cuh") ? d.cuda : d.cpp)++;
  }
  for (const Kernel& k : repo.kernels)
    for (auto& [root, d] : dirs)
      if (under(k.file, root)) ++d.kernels;
  for (const auto& [root, d] : dirs) {
    sdk::SourceRange r;
    r.line = r.column = r.end_line = r.end_column = 1;
    auto f = rules.make(kSourceDir, d.first, r, root + "/", {},
                        {{"value", root + "/"},
                         {"cuda_files", std::to_string(d.cuda)},
                         {"cpp_files", std::to_string(d.cpp)},
                         {"kernels", std::to_string(d.kernels)}});
    if (!f) continue;
    f->details = {{"directory", root + "/"},
                  {"cuda_files", std::to_string(d.cuda)},
                  {"cpp_files", std::to_string(d.cpp)},
                  {"kernels", std::to_string(d.kernels)}};
    sink.report(std::move(*f));
  }
}

}  // namespace

void analyzeNativeSources(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink) {
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  if (!ts_parser_set_language(parser.get(), tree_sitter_cuda())) {
    sink.diagnose(
        {sdk::Severity::Error, "grammar-mismatch", "", 0,
         "custom_ops: the tree-sitter cuda grammar does not match the runtime; CUDA sources not analysed"});
    return;
  }
  ts_parser_set_timeout_micros(parser.get(), kParseTimeoutMicros);
  Repo repo;
  // Macros that define kernels, repository-wide (they live in headers included elsewhere).
  for (const sdk::FileEntry& f : workspace.files()) {
    if ((f.language != sdk::Language::Cuda && f.language != sdk::Language::Cpp) ||
        inSkippedDir(f.path, options.skip_dirs))
      continue;
    const auto text = workspace.read(f.path);
    if (text && text->find("__global__") != std::string::npos && text->find("#define") != std::string::npos)
      collectKernelMacros(maskCommentsAndStrings(*text), repo.kernel_macros);
  }
  std::vector<std::string> cuda_files;
  for (const sdk::FileEntry& f : workspace.files()) {
    if (f.language != sdk::Language::Cuda && f.language != sdk::Language::Cpp &&
        f.language != sdk::Language::C)
      continue;
    if (inSkippedDir(f.path, options.skip_dirs) || inOtherAcceleratorDir(f.path)) continue;
    if (f.language == sdk::Language::Cuda) cuda_files.push_back(f.path);
    const auto text = workspace.read(f.path);
    if (!text || !worthParsing(f, *text)) continue;
    FileScanner(f.path, *text, f.language == sdk::Language::Cuda, repo).scan(parser.get());
  }
  reportKernelsAndLaunches(repo, rules, sink);
  reportUses(repo, rules, sink);
  reportHeaders(repo, rules, sink);
  reportBindings(repo, rules, sink);
  reportDirectories(repo, cuda_files, rules, sink);
}

}  // namespace custom_ops

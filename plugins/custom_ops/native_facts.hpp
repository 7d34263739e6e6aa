#pragma once
/// What the native scan gathers across a repository's CUDA/C++ files, the name classification the
/// scanner shares, and the reports over the gathered facts (internal to native_scan*.cpp).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "migrate/sdk/workspace.hpp"

namespace custom_ops::native {

// Rule ids compared by address across files (`rule == kPtx`): arrays, so there is one object.
inline constexpr char kPtx[] = "OPS-003";
inline constexpr char kRuntime[] = "OPS-012";

struct HeaderInfo {
  const char* rule;
  const char* library;
};

enum class NameKind { Call, Qualified, Type, Identifier };

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

// ---- name classification (library_uses.cpp) ----------------------------------------------------

/// The last `::` segment without template arguments.
std::string_view lastSegment(std::string_view s);
/// The rule a C++ name belongs to, or nullptr.
const char* classifyName(std::string_view name, NameKind kind);

/// Function-like macros that define kernels: `#define DEFINE_KERNEL(name, ...) template <…>
/// __global__ void name(…)` → {"DEFINE_KERNEL", index of `name` among the parameters}
/// (kernel_definitions.cpp).
void collectKernelMacros(const std::string& masked, std::map<std::string, int>& out);

// ---- reports over the repository's facts --------------------------------------------------------

/// Kernels (with the features of the __device__ helpers they call) and their launches
/// (kernel_launches.cpp).
void reportKernelsAndLaunches(Repo& repo, const Rules& rules, sdk::FindingSink& sink);
/// Library, PTX, warp and runtime uses, and CUDA headers (library_uses.cpp).
void reportUses(const Repo& repo, const Rules& rules, sdk::FindingSink& sink);
/// A third-party CUDA library's headers are skipped where the workspace holds them (its own code).
void reportHeaders(const Repo& repo, const sdk::WorkspaceView& workspace, const Rules& rules,
                   sdk::FindingSink& sink);
/// pybind11 modules and TORCH_LIBRARY registrations of CUDA code (bindings.cpp).
void reportBindings(const Repo& repo, const Rules& rules, sdk::FindingSink& sink);

}  // namespace custom_ops::native

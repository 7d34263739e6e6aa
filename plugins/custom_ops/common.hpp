#pragma once
/// Shared pieces of the custom_ops plugin: the rule table, the options, and small text helpers.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/plugin.hpp"

namespace custom_ops {

namespace sdk = migrate::sdk;

/// The data of the plugin's rules, looked up once in `configure`.
class Rules {
 public:
  void load(const sdk::PluginContext& context);
  /// nullptr when the rule is not in the catalog (the finding is then not reported).
  const sdk::RuleInfo* get(std::string_view id) const;

  /// A finding of rule `id`, or nothing when the rule is unknown.
  std::optional<sdk::Finding> make(std::string_view id, const std::string& file,
                                   const sdk::SourceRange& range, std::string api, std::string resolved = {},
                                   std::map<std::string, std::string> vars = {}) const;

 private:
  std::map<std::string, const sdk::RuleInfo*, std::less<>> rules_;
};

/// Options of the plugin (see README.md).
struct Options {
  /// Directory names whose files are vendored code and not analysed (e.g. third_party).
  std::vector<std::string> skip_dirs;
  /// Also report kernels in files that already target the NPU (a path segment naming ascend/npu).
  bool include_npu_paths = false;
};

/// True when a path segment (a directory) equals one of `dirs`.
bool inSkippedDir(std::string_view path, const std::vector<std::string>& dirs);
/// True when a directory of the path names the NPU (`ascend`, `_ascend`, `npu`, `npu_ops`, …):
/// code there is already the NPU port.
bool inNpuDir(std::string_view path);
/// True when the file's own name names the NPU as a word (`ascend_ub_manager.py`, `npu_utils.py`).
bool npuSpecificFile(std::string_view path);
/// True under a directory named for another accelerator backend (xpu, mlu, mps, hpu, musa,
/// sycl) or for the NPU: native sources there are not CUDA code.
bool inOtherAcceleratorDir(std::string_view path);
/// True under `backend(s)/<vendor>/` for a vendor other than Ascend (`_nvidia`, `_cambricon`, `_metax`,
/// …): per-vendor variants of kernels that an NPU build does not use.
bool inOtherVendorBackend(std::string_view path);

/// Collapses runs of whitespace (newlines included) into one space and trims.
std::string collapseSpace(std::string_view s);
/// Joins with a separator.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
/// Lowercase copy.
std::string lower(std::string_view s);
/// Formats a number of person-days without trailing zeros ("0.5", "3").
std::string formatDays(double days);
/// "low" / "medium" / "high" from an effort in person-days.
std::string effortLabel(double days);

/// The difficulty that goes with an effort: up to 1 day low, up to 3 days medium, more high.
inline migrate::sdk::Level difficultyOf(double effort_days) {
  return effort_days <= 1   ? migrate::sdk::Level::Low
         : effort_days <= 3 ? migrate::sdk::Level::Medium
                            : migrate::sdk::Level::High;
}
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
/// A module path whose segments name kernels (kernels, triton, csrc, _C, cuda, *_kernels, ...).
bool kernelishModule(const std::string& module);
/// A module of a third-party CUDA kernel library (flash_attn, xformers, stk, grouped_gemm, …):
/// its imported functions run kernels (autograd_functions.cpp, extension_glue.cpp).
bool kernelLibrary(const std::string& module);
/// Whether a function of an extension module is a dual build's CPU kernel (`forward_cpu`,
/// `cpu_forward`), which is not reported.
bool dualBuildCpuKernel(std::string_view name);
/// Whether a name is an enum member or constant's (`HYPER_CUBE` of `RegionType.HYPER_CUBE`): read
/// from an extension, a value, not a kernel.
bool constantName(std::string_view name);
/// A class named for plain data, `Config`, `LayerConfig`, `MoeOptions`, `KernelParams`: an
/// extension exports it to carry settings, and building one runs no kernel.
bool dataTypeName(std::string_view name);
/// Truncates to `max` characters (UTF-8 safe), adding "…" when cut.
std::string clip(std::string_view s, std::size_t max);

}  // namespace custom_ops

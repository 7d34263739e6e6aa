// DIST-040: accelerate's DistributedType.MULTI_GPU tested where MULTI_NPU is not (see
// distributed_checks.hpp).

#include <string>
#include <string_view>

#include "distributed_checks.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/definitions.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

/// `accelerate.utils.DistributedType.MULTI_GPU` and the other modules that export the enum.
bool isMultiGpu(const std::string& resolved) {
  static constexpr std::string_view kSuffix = ".DistributedType.MULTI_GPU";
  if (resolved.rfind("accelerate.", 0) != 0 || resolved.size() <= kSuffix.size()) return false;
  return resolved.compare(resolved.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

}  // namespace

void checkAccelerateDistributedTypes(const Module& module, const RuleTable& rules, FindingSink& sink) {
  const std::string_view src = module.source();
  if (src.find("MULTI_GPU") == std::string_view::npos) return;
  const LineIndex lines(src);
  for (const ReferenceFact& r : module.references()) {
    if (!isMultiGpu(r.resolved)) continue;
    // The function around it (the module at top level) names the NPU type too: a per-device choice.
    const std::string_view around = plugin_support::functionTextAround(module, r.range);
    if (around.find("MULTI_NPU") != std::string_view::npos) continue;
    sink.report(findingFrom(*rules.accelerate_multi_gpu, std::string(module.path()),
                            lines.range(r.range.start_byte, r.range.end_byte), r.written, r.resolved));
  }
}

}  // namespace distributed

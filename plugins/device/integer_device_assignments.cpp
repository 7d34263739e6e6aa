// DEV-076: rank-like integers stored as the device (see the header).

#include "integer_device_assignments.hpp"

#include <algorithm>
#include <string>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

/// Whether `offset` lies inside a string literal of the module (a docstring's example, a message).
bool inString(const Module& module, std::uint32_t offset) {
  return std::any_of(module.strings().begin(), module.strings().end(), [&](const StringFact& s) {
    return s.range.start_byte <= offset && offset < s.range.end_byte;
  });
}

}  // namespace

void checkIntegerDeviceAssignments(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  const std::string_view src = module.source();
  if (src.find("device") == std::string_view::npos) return;
  // One statement per line: a target named device (through any chain, with an optional
  // annotation), then a rank-like name or chain, or int() of the launcher's rank variables.
  static const RE2 kAssignment(
      R"((?m)^[ \t]*(?:[A-Za-z_]\w*\.)*device[ \t]*(?::[ \t]*[\w.\[\], ]+)?=[ \t]*)"  // the target
      R"(()"                                                                          // the value:
      R"((?:[A-Za-z_]\w*\.)*(?:local_rank|rank|device_id|gpu_id|local_gpu_id|gpu_index|gpu_rank|local_device_id))"
      R"(|int\([ \t]*os\.(?:environ\.get|getenv)\([ \t]*['"](?:LOCAL_RANK|RANK)['"][^)\n]*\)[ \t]*\))"
      R"(|int\([ \t]*os\.environ\[[ \t]*['"](?:LOCAL_RANK|RANK)['"][ \t]*\][ \t]*\))"
      R"())"
      R"([ \t]*(?:#[^\n]*)?\r?$)",
      plugin_support::bytePattern());
  const LineIndex index(src);
  re2::StringPiece rest(src.data(), src.size());
  re2::StringPiece value;
  while (RE2::FindAndConsume(&rest, kAssignment, &value)) {
    const auto begin = static_cast<std::uint32_t>(value.data() - src.data());
    const auto end = static_cast<std::uint32_t>(begin + value.size());
    if (inString(module, begin)) continue;
    const std::string text(value.data(), value.size());
    sink.report(
        findingFrom(rule, std::string(module.path()), index.range(begin, end), text, {}, {{"value", text}}));
  }
}

}  // namespace device

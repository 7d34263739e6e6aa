// DEV-076: rank-like integers stored as the device (see the header).

#include "integer_device_assignments.hpp"

#include <algorithm>
#include <string>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/definitions.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

/// Whether `offset` lies inside a string literal of the module (a docstring's example, a message).
bool inString(const Module& module, std::uint32_t offset) {
  return std::any_of(module.strings().begin(), module.strings().end(), [&](const StringFact& s) {
    return s.range.start_byte <= offset && offset < s.range.end_byte;
  });
}

/// The byte where the innermost function holding `offset` ends (the module's end at top level).
std::uint32_t scopeEnd(const Module& module, std::uint32_t offset) {
  const DefinitionFact* fn = plugin_support::innermostFunction(module, offset);
  return fn ? fn->range.end_byte : static_cast<std::uint32_t>(module.source().size());
}

/// Whether a plain variable only reaches `set_device(name)` in the rest of its function:
/// `device = args.local_rank` then `torch.cuda.set_device(device)` selects the card by index,
/// which torch_npu's set_device accepts the same way, and no tensor is given the integer as its
/// device. Any other read (`.to(device)`, `device=device`, `return device`) keeps the finding, and
/// so does a variable that is not read again here.
bool onlySelectsTheCard(const Module& module, const std::string& name, std::uint32_t from) {
  const std::string_view src = module.source();
  const std::uint32_t to = scopeEnd(module, from);
  if (from >= to) return false;
  const std::string word = "\\b" + RE2::QuoteMeta(name) + "\\b";
  const RE2 read(word, plugin_support::bytePattern());
  const RE2 selected("set_device\\([ \\t]*" + RE2::QuoteMeta(name) + "[ \\t]*\\)",
                     plugin_support::bytePattern());
  const RE2 reassigned("^[ \\t]*" + RE2::QuoteMeta(name) + "[ \\t]*=[^=]", plugin_support::bytePattern());
  int selects = 0;
  std::size_t start = from;
  while (start < to) {
    std::size_t stop = src.find('\n', start);
    if (stop == std::string_view::npos || stop > to) stop = to;
    std::string line(src.substr(start, stop - start));
    start = stop + 1;
    if (const auto first = line.find_first_not_of(" \t"); first != std::string::npos && line[first] == '#')
      continue;
    if (!RE2::PartialMatch(line, read)) continue;
    selects += RE2::GlobalReplace(&line, selected, "");
    RE2::Replace(&line, reassigned, "");
    if (RE2::PartialMatch(line, read)) return false;
  }
  return selects > 0;
}

}  // namespace

void checkIntegerDeviceAssignments(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  const std::string_view src = module.source();
  if (src.find("device") == std::string_view::npos) return;
  // One statement per line: a target named device (through any chain, with an optional
  // annotation, or a "device" key: `kwargs["device"] = …`), then a rank-like name or chain, or
  // int() of the launcher's rank variables.
  static const RE2 kAssignment(
      R"((?m)^[ \t]*((?:[A-Za-z_]\w*\.)*device|[A-Za-z_][\w.]*\[[ \t]*['"]device['"][ \t]*\]))"  // the target
      R"([ \t]*(?::[ \t]*[\w.\[\], ]+)?=[ \t]*)"
      R"(()"  // the value:
      R"((?:[A-Za-z_]\w*\.)*(?:local_rank|rank|device_id|gpu_id|local_gpu_id|gpu_index|gpu_rank|local_device_id))"
      R"(|int\([ \t]*os\.(?:environ\.get|getenv)\([ \t]*['"](?:LOCAL_RANK|RANK)['"][^)\n]*\)[ \t]*\))"
      R"(|int\([ \t]*os\.environ\[[ \t]*['"](?:LOCAL_RANK|RANK)['"][ \t]*\][ \t]*\))"
      R"(|(?:[A-Za-z_]\w*\.)*get_(?:local_|node_local_)?rank\(\))"
      R"())"
      R"([ \t]*(?:#[^\n]*)?\r?$)",
      plugin_support::bytePattern());
  const LineIndex index(src);
  re2::StringPiece rest(src.data(), src.size());
  re2::StringPiece target;
  re2::StringPiece value;
  while (RE2::FindAndConsume(&rest, kAssignment, &target, &value)) {
    const auto begin = static_cast<std::uint32_t>(value.data() - src.data());
    const auto end = static_cast<std::uint32_t>(begin + value.size());
    if (inString(module, begin)) continue;
    const std::string name(target.data(), target.size());
    if (name.find_first_of(".[") == std::string::npos && onlySelectsTheCard(module, name, end)) continue;
    const std::string text(value.data(), value.size());
    sink.report(
        findingFrom(rule, std::string(module.path()), index.range(begin, end), text, {}, {{"value", text}}));
  }
}

}  // namespace device

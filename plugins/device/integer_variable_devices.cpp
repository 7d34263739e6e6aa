// DEV-097: variables that only hold integers, used as a device (see the header).

#include "integer_variable_devices.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "device_uses.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/definitions.hpp"
#include "plugin_support/python_text.hpp"

namespace device {
namespace {

using namespace migrate::sdk;

/// Whether `name` is a parameter of the function `scope` (its whole parameter list, annotations
/// and defaults included: a bare word of the list is enough to leave the name alone).
bool isParameter(const Module& module, const DefinitionFact& scope, const std::string& name) {
  const RE2 word("\\b" + RE2::QuoteMeta(name) + "\\b", plugin_support::bytePattern());
  return RE2::PartialMatch(plugin_support::parameterList(module.text(scope.range)), word);
}

/// The first binding that makes a variable an integer: where its line starts, and for
/// `v = t.get_device()` the call's text and range (the place to fix: `t.device` is the device).
struct Origin {
  std::uint32_t line_start = 0;
  std::string get_device;  ///< `ref_image.get_device()`, empty for the other bindings
  std::uint32_t begin = 0, end = 0;
};

/// The first binding that makes `name` an integer in `scope` (the function around the use;
/// nullptr: the module's top level), or nullopt when some binding there may give another value,
/// `name` is a parameter, or only arithmetic binds it.
std::optional<Origin> integerBinding(const Module& module, const DefinitionFact* scope,
                                     const std::string& name) {
  if (scope && isParameter(module, *scope, name)) return std::nullopt;
  const std::string_view src = module.source();
  const std::string word = RE2::QuoteMeta(name);
  // `name = value` or `name += value` alone on its line, the value as written.
  const RE2 assigned(
      "^[ \\t]*" + word + "[ \\t]*(?::[ \\t]*int[ \\t]*)?[-+*/%]?=[ \\t]*([^=\\n#][^\\n#]*?)[ \\t]*(?:#.*)?$",
      plugin_support::bytePattern());
  const RE2 loop("^[ \\t]*for[ \\t]+" + word +
                     "(?:[ \\t]+in[ \\t]+range|[ \\t]*,[ \\t]*\\w+[ \\t]+in[ \\t]+enumerate)\\(",
                 plugin_support::bytePattern());
  // Any other binding: another loop, a with or tuple target, global, del.
  const RE2 other("(?:^[ \\t]*(?:for|with|global|nonlocal|del)\\b.*\\b" + word + "\\b)|(?:\\bas[ \\t]+" +
                      word + "\\b)|(?:^[ \\t]*[\\w., \\t]*\\b" + word + "\\b[\\w., \\t]*=[^=])",
                  plugin_support::bytePattern());
  static const RE2 kLiteral(R"(^-?\d+$)", plugin_support::bytePattern());
  static const RE2 kGetDevice(R"(^[\w.]+\.get_device\(\)$)", plugin_support::bytePattern());
  static const RE2 kArithmetic(R"(^[\w\s()]*[-+*/%][\w\s()+\-*/%]*$)", plugin_support::bytePattern());
  std::optional<Origin> origin;
  const std::size_t to = scope ? scope->range.end_byte : src.size();
  for (std::size_t start = scope ? scope->range.start_byte : 0; start < to;) {
    std::size_t stop = src.find('\n', start);
    if (stop == std::string_view::npos || stop > to) stop = to;
    const std::string_view line = src.substr(start, stop - start);
    const auto at = static_cast<std::uint32_t>(start);
    start = stop + 1;
    if (line.find(name) == std::string_view::npos) continue;
    if (!scope && plugin_support::innermostFunction(module, at)) continue;  // another scope's name
    std::string value;
    re2::StringPiece piece;
    if (RE2::PartialMatch(line, loop)) {
      if (!origin) origin = Origin{at};
    } else if (RE2::PartialMatch(line, assigned, &piece)) {
      value.assign(piece.data(), piece.size());
      if (RE2::FullMatch(value, kLiteral)) {
        if (!origin) origin = Origin{at};
      } else if (RE2::FullMatch(value, kGetDevice)) {
        const auto begin = static_cast<std::uint32_t>(piece.data() - src.data());
        if (!origin) origin = Origin{at, value, begin, static_cast<std::uint32_t>(begin + piece.size())};
      } else if (!RE2::FullMatch(value, kArithmetic)) {
        return std::nullopt;  // another value, or an alias of a name of unknown type
      }
    } else if (RE2::PartialMatch(line, other)) {
      return std::nullopt;
    }
  }
  return origin;
}

}  // namespace

void checkIntegerVariableDevices(const Module& module, const RuleInfo& rule, FindingSink& sink) {
  const std::string_view src = module.source();
  if (src.find(".to(") == std::string_view::npos && src.find("device") == std::string_view::npos) return;
  std::map<std::pair<const DefinitionFact*, std::string>, std::optional<Origin>> known;
  std::set<std::uint32_t> reported_bindings;
  const LineIndex lines(src);
  for (const CallFact& c : module.calls()) {
    for (const ArgumentFact& a : c.args) {
      if (a.kind != ValueKind::Name || a.text.find('.') != std::string::npos) continue;
      // torch.cuda's own calls take the index (`memory_reserved(device=i)`), as torch_npu's do.
      if (c.callee_resolved.rfind("torch.cuda.", 0) == 0) continue;
      const std::string shown = deviceUse(module, c, a, a.text);
      if (shown.empty()) continue;
      const DefinitionFact* scope =
          plugin_support::innermostDefinition(module, c.range, DefinitionFact::Kind::Function);
      auto [it, fresh] = known.try_emplace({scope, a.text});
      if (fresh) it->second = integerBinding(module, scope, a.text);
      if (!it->second) continue;
      const Origin& origin = *it->second;
      const std::string bound_line = std::to_string(lines.range(origin.line_start, origin.line_start).line);
      // `device = t.get_device()`: one finding on the call, where `t.device` fixes every use.
      if (!origin.get_device.empty()) {
        if (!reported_bindings.insert(origin.begin).second) continue;
        auto f = findingFrom(rule, std::string(module.path()), lines.range(origin.begin, origin.end),
                             origin.get_device, {},
                             {{"value", a.text + " = " + origin.get_device + ", then " + shown},
                              {"name", a.text},
                              {"line", bound_line}});
        f.details = {{"variable", a.text}, {"bound_at_line", bound_line}};
        sink.report(std::move(f));
        continue;
      }
      auto f = findingFrom(rule, std::string(module.path()),
                           lines.range(a.range.start_byte, a.range.end_byte), c.callee_written,
                           c.callee_resolved, {{"value", shown}, {"name", a.text}, {"line", bound_line}});
      f.details = {{"variable", a.text}, {"bound_at_line", bound_line}};
      sink.report(std::move(f));
    }
  }
}

}  // namespace device

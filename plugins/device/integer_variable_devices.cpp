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
  /// A module constant or class attribute, read by the function: one finding, on the binding.
  bool module_level = false;
};

/// How `name` is bound in a scope: `bound` when any line binds it (or it is a parameter);
/// `integer`, the first binding that makes it an integer, when every binding gives one and at
/// least one is not arithmetic.
struct Bindings {
  bool bound = false;
  std::optional<Origin> integer;
};

/// How `name` is bound in `scope` (the function around the use; nullptr: the module's top level).
Bindings bindingsOf(const Module& module, const DefinitionFact* scope, const std::string& name) {
  if (scope && isParameter(module, *scope, name)) return {true, std::nullopt};
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
  bool bound = false;
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
      bound = true;
      if (!origin) origin = Origin{at};
    } else if (RE2::PartialMatch(line, assigned, &piece)) {
      bound = true;
      value.assign(piece.data(), piece.size());
      if (RE2::FullMatch(value, kLiteral)) {
        if (!origin) origin = Origin{at};
      } else if (RE2::FullMatch(value, kGetDevice)) {
        const auto begin = static_cast<std::uint32_t>(piece.data() - src.data());
        if (!origin) origin = Origin{at, value, begin, static_cast<std::uint32_t>(begin + piece.size())};
      } else if (!RE2::FullMatch(value, kArithmetic)) {
        return {true, std::nullopt};  // another value, or an alias of a name of unknown type
      }
    } else if (RE2::PartialMatch(line, other)) {
      return {true, std::nullopt};
    }
  }
  return {bound, origin};
}

/// The first binding that makes `name` an integer where `scope` reads it: in `scope` itself, or,
/// when the function binds it nowhere, at the module's top level (a constant, `MAIN_CARD = 0`).
/// Nullopt when some binding may give another value or a `global` statement rebinds it.
std::optional<Origin> integerBinding(const Module& module, const DefinitionFact* scope,
                                     const std::string& name) {
  const Bindings local = bindingsOf(module, scope, name);
  if (local.bound || !scope) return local.integer;
  const RE2 declared("(?m)^[ \\t]*global\\b.*\\b" + RE2::QuoteMeta(name) + "\\b",
                     plugin_support::bytePattern());
  if (RE2::PartialMatch(module.source(), declared)) return std::nullopt;  // a function rebinds it
  std::optional<Origin> global = bindingsOf(module, nullptr, name).integer;
  if (global) global->module_level = true;
  return global;
}

/// `self.X` / `cls.X` read in a method of a class whose body binds `X = <integer literal>` and
/// no `self.X =` / `cls.X =` rebinds it anywhere in the module: that binding, or nullopt.
std::optional<Origin> classAttributeBinding(const Module& module, const CallFact& call,
                                            const std::string& text) {
  static const RE2 kOwn(R"(^(?:self|cls)\.(\w+)$)", plugin_support::bytePattern());
  std::string attribute;
  if (!RE2::FullMatch(text, kOwn, &attribute)) return std::nullopt;
  const DefinitionFact* owner =
      plugin_support::innermostDefinition(module, call.range, DefinitionFact::Kind::Class);
  if (!owner) return std::nullopt;
  const std::string_view src = module.source();
  const RE2 rebound("\\b(?:self|cls)\\." + RE2::QuoteMeta(attribute) + "[ \\t]*(?::[^=\\n]*)?[-+*/%]?=[^=]",
                    plugin_support::bytePattern());
  if (RE2::PartialMatch(src, rebound)) return std::nullopt;
  const RE2 literal(
      "^[ \\t]+" + RE2::QuoteMeta(attribute) + "[ \\t]*(?::[ \\t]*int[ \\t]*)?=[ \\t]*-?\\d+[ \\t]*(?:#.*)?$",
      plugin_support::bytePattern());
  std::optional<Origin> origin;
  for (std::size_t start = owner->range.start_byte; start < owner->range.end_byte;) {
    std::size_t stop = src.find('\n', start);
    if (stop == std::string_view::npos || stop > owner->range.end_byte) stop = owner->range.end_byte;
    const std::string_view line = src.substr(start, stop - start);
    const auto at = static_cast<std::uint32_t>(start);
    start = stop + 1;
    if (line.find(attribute) == std::string_view::npos || !RE2::PartialMatch(line, literal)) continue;
    // The class body itself, not a method's local of the same name.
    const DefinitionFact* fn = plugin_support::innermostFunction(module, at);
    if (fn && fn->range.start_byte > owner->range.start_byte) continue;
    if (origin) return std::nullopt;  // bound twice in the body: leave it
    origin = Origin{at};
    origin->module_level = true;
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
      if (a.kind != ValueKind::Name) continue;
      const bool attribute = a.text.find('.') != std::string::npos;
      // torch.cuda's own calls take the index (`memory_reserved(device=i)`), as torch_npu's do.
      if (c.callee_resolved.rfind("torch.cuda.", 0) == 0) continue;
      const std::string shown = deviceUse(module, c, a, a.text);
      if (shown.empty()) continue;
      const DefinitionFact* scope = plugin_support::innermostDefinition(
          module, c.range, attribute ? DefinitionFact::Kind::Class : DefinitionFact::Kind::Function);
      auto [it, fresh] = known.try_emplace({scope, a.text});
      if (fresh)
        it->second =
            attribute ? classAttributeBinding(module, c, a.text) : integerBinding(module, scope, a.text);
      if (!it->second) continue;
      const Origin& origin = *it->second;
      const std::string bound_line = std::to_string(lines.range(origin.line_start, origin.line_start).line);
      // `device = t.get_device()`: one finding on the call, where `t.device` fixes every use; a
      // module constant or class attribute: one finding on its binding.
      if (!origin.get_device.empty() || origin.module_level) {
        std::uint32_t begin = origin.begin, end = origin.end;
        std::string written = origin.get_device;
        if (origin.module_level) {
          std::size_t eol = src.find('\n', origin.line_start);
          if (eol == std::string_view::npos) eol = src.size();
          const std::string_view line = src.substr(origin.line_start, eol - origin.line_start);
          const std::size_t first = line.find_first_not_of(" \t");
          const std::string_view text = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
          begin = static_cast<std::uint32_t>(text.data() - src.data());
          end = static_cast<std::uint32_t>(begin + text.size());
          written = std::string(text);
        }
        if (!reported_bindings.insert(begin).second) continue;
        const std::string value = origin.module_level ? written : a.text + " = " + written;
        auto f = findingFrom(rule, std::string(module.path()), lines.range(begin, end), written, {},
                             {{"value", value + ", then " + shown}, {"name", a.text}, {"line", bound_line}});
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

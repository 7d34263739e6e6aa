// Extension objects handed in by parameter (see PythonFile::annotatedExtensionObjects).

#include <cctype>
#include <string>

#include "byte_regex.hpp"
#include "plugin_support/definitions.hpp"
#include "plugin_support/python_text.hpp"
#include "python_file.hpp"

namespace custom_ops::python {

PythonFile::ExtensionObjects PythonFile::annotatedExtensionObjects() const {
  ExtensionObjects out;
  if (extension_functions_.empty() && extension_names_.empty()) return out;
  // `name: Type`, `name: Optional[Type]`, `name: "Type"`, `name: _C.Type` in a parameter list.
  static const RE2 kAnnotated(R"((?:^|[(,])\s*(\w+)\s*:\s*(?:Optional\[\s*)?['"]?(\w+(?:\.\w+)*))",
                              bytePattern());
  for (const DefinitionFact& d : m_.definitions()) {
    if (d.kind != DefinitionFact::Kind::Function) continue;
    const std::string_view text = m_.text(d.range);
    const std::size_t def = text.find("def ");
    const std::size_t open = def == std::string_view::npos ? def : text.find('(', def);
    if (open == std::string_view::npos) continue;
    const std::size_t close = plugin_support::closingBracket(text, open);
    if (close >= text.size()) continue;
    re2::StringPiece header(text.data() + open, close - open);
    std::string param, type;
    while (RE2::FindAndConsume(&header, kAnnotated, &param, &type)) {
      // A class of the extension: imported from it by name, or reached through its module.
      const std::string cls = lastPart(type);
      if (cls.empty() || !std::isupper(static_cast<unsigned char>(cls[0])) || dataTypeName(cls)) continue;
      std::string module;
      if (const auto f = extension_functions_.find(type); f != extension_functions_.end())
        module = f->second;
      else if (const std::size_t dot = type.find('.');
               dot != std::string::npos && extension_names_.count(type.substr(0, dot)))
        module = type.substr(0, dot);
      if (module.empty()) continue;
      out.parameters[{&d, param}] = module;
      // `self.m = m`: the object kept for the class's other methods.
      const RE2 stored("(?m)^[ \\t]*self\\.(\\w+)[ \\t]*(?::[^=\\n]+)?=[ \\t]*" + RE2::QuoteMeta(param) +
                           "[ \\t]*(?:#[^\\n]*)?$",
                       bytePattern());
      re2::StringPiece body(text.data() + close, text.size() - close);
      std::string attribute;
      const DefinitionFact* owner =
          plugin_support::innermostDefinition(m_, d.range, DefinitionFact::Kind::Class);
      while (owner && RE2::FindAndConsume(&body, stored, &attribute))
        out.attributes[{owner, attribute}] = module;
    }
  }
  return out;
}

void PythonFile::factoryExtensionObjects() {
  if (extension_names_.empty()) return;
  // Methods returning a call into the extension: `return _C.create_network(…)`.
  static const RE2 kReturn(R"((?m)^[ \t]*return[ \t]+(\w+)\.\w+[ \t]*\()", bytePattern());
  std::map<std::string, std::string> factories;  // method name → module
  for (const DefinitionFact& d : m_.definitions()) {
    if (d.kind != DefinitionFact::Kind::Function) continue;
    re2::StringPiece body(m_.text(d.range).data(), m_.text(d.range).size());
    std::string module;
    while (RE2::FindAndConsume(&body, kReturn, &module))
      if (extension_names_.count(module)) {
        factories.emplace(d.name, module);
        break;
      }
  }
  if (factories.empty()) return;
  // `self.native_tcnn_module = self._native_tcnn_module()`.
  static const RE2 kStored(R"((?m)^[ \t]*self\.(\w+)[ \t]*=[ \t]*self\.(\w+)\(\)[ \t]*(?:#.*)?$)",
                           bytePattern());
  re2::StringPiece text(m_.source().data(), m_.source().size());
  std::string attribute, method;
  while (RE2::FindAndConsume(&text, kStored, &attribute, &method))
    if (const auto f = factories.find(method); f != factories.end())
      factory_attributes_.emplace(attribute, f->second);
  if (factory_attributes_.empty()) return;
  // `Fn.apply(self.native_tcnn_module, x, …)` with Fn an autograd Function of the file: the
  // forward's parameter at that position (after ctx).
  for (const CallFact& c : m_.calls()) {
    const std::string& w = c.callee_written;
    if (w.size() <= 6 || w.compare(w.size() - 6, 6, ".apply") != 0 || c.splat) continue;
    const std::string cls = w.substr(0, w.size() - 6);
    for (const sdk::ArgumentFact& a : c.args) {
      if (a.index < 0 || a.kind != sdk::ValueKind::Name || !startsWith(a.text, "self.")) continue;
      const auto held = factory_attributes_.find(a.text.substr(5));
      if (held == factory_attributes_.end()) continue;
      for (const DefinitionFact& d : m_.definitions()) {
        if (d.kind != DefinitionFact::Kind::Function || d.name != "forward") continue;
        const DefinitionFact* owner =
            plugin_support::innermostDefinition(m_, d.range, DefinitionFact::Kind::Class);
        if (!owner || owner->name != cls) continue;
        const std::vector<std::string> params =
            plugin_support::topLevelParts(plugin_support::parameterList(m_.text(d.range)));
        const auto at = static_cast<std::size_t>(a.index) + 1;  // past ctx
        if (at >= params.size()) continue;
        const std::string name = params[at].substr(0, params[at].find_first_of(":= \t"));
        if (!name.empty() && name[0] != '*') handed_parameters_[{&d, name}] = held->second;
      }
    }
  }
}

std::string PythonFile::factoryObjectCall(const CallFact& c) const {
  const std::string& w = c.callee_written;
  const std::size_t last = w.rfind('.');
  if (last == std::string::npos || last == 0) return {};
  const std::string receiver = w.substr(0, last);
  // `self.native_tcnn_module.fwd`, `ctx.ctx_fwd.native_tcnn_module.bwd`: through the attribute.
  const std::size_t prev = receiver.rfind('.');
  if (prev != std::string::npos)
    if (const auto held = factory_attributes_.find(receiver.substr(prev + 1));
        held != factory_attributes_.end())
      return held->second;
  // `native_tcnn_module.fwd` in the forward it was handed to.
  if (prev == std::string::npos && !handed_parameters_.empty())
    if (const auto held = handed_parameters_.find(
            {plugin_support::innermostDefinition(m_, c.range, DefinitionFact::Kind::Function), receiver});
        held != handed_parameters_.end())
      return held->second;
  return {};
}

}  // namespace custom_ops::python

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

}  // namespace custom_ops::python

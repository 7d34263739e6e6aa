#include <yaml-cpp/yaml.h>

#include "migrate/engine/plugin_host.hpp"
#include "yaml/yaml_reader.hpp"

namespace migrate {
namespace {

using Type = sdk::OptionSpec::Type;

const char* typeName(Type t) {
  switch (t) {
    case Type::Bool:
      return "true or false";
    case Type::Int:
      return "an integer";
    case Type::Number:
      return "a number";
    case Type::String:
      return "a string";
    case Type::StringList:
      return "a list of strings";
  }
  return "a value";
}

bool scalarFits(Type t, const std::string& s) {
  try {
    std::size_t used = 0;
    switch (t) {
      case Type::Bool:
        return s == "true" || s == "false";
      case Type::Int:
        (void)std::stoll(s, &used);
        return used == s.size();
      case Type::Number:
        (void)std::stod(s, &used);
        return used == s.size();
      case Type::String:
        return true;
      case Type::StringList:
        return false;
    }
  } catch (const std::exception&) {
  }
  return false;
}

sdk::OptionValue fromDefault(const sdk::OptionSpec& spec) {
  sdk::OptionValue v;
  if (spec.type == Type::StringList) {
    const YAML::Node n = YAML::Load(spec.default_value.empty() ? "[]" : spec.default_value);
    for (const auto& item : n) v.list.push_back(item.Scalar());
  } else {
    v.scalar = spec.default_value;
  }
  return v;
}

}  // namespace

Result<std::map<std::string, sdk::OptionValue>> resolveOptions(const PluginSelection& selection,
                                                               const sdk::PluginInfo& info) {
  std::map<std::string, sdk::OptionValue> out;
  std::vector<std::string> names;
  for (const auto& spec : info.options) {
    names.push_back(spec.name);
    out[spec.name] = fromDefault(spec);
  }
  for (const auto& [name, input] : selection.options) {
    const sdk::OptionSpec* spec = nullptr;
    for (const auto& s : info.options)
      if (s.name == name) spec = &s;
    if (!spec) {
      std::string hint = yaml::closest(name, names);
      std::string allowed;
      for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
      return makeError(input.location + ": plugin " + info.name + " has no option '" + name + "'" +
                       (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                       (allowed.empty() ? " (it takes no options)" : " (options: " + allowed + ")"));
    }
    sdk::OptionValue v;
    if (spec->type == Type::StringList) {
      if (!input.is_list && input.scalar.empty())
        return makeError(input.location + ": option " + name + " must be " + typeName(spec->type));
      v.list = input.is_list ? input.items : std::vector<std::string>{input.scalar};
    } else {
      if (input.is_list || !scalarFits(spec->type, input.scalar))
        return makeError(input.location + ": option " + name + " of plugin " + info.name + " must be " +
                         typeName(spec->type));
      v.scalar = input.scalar;
    }
    out[name] = std::move(v);
  }
  return out;
}

}  // namespace migrate

#include "plan/code_structure.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analyze/module_summary.hpp"
#include "plan/entry_points.hpp"

namespace migrate {
namespace {

constexpr std::size_t kCoreModules = 20;

std::string languageName(sdk::Language l) {
  switch (l) {
    case sdk::Language::Python:
      return "Python";
    case sdk::Language::Cuda:
      return "CUDA";
    case sdk::Language::Cpp:
    case sdk::Language::C:
      return "C/C++";
    default:
      return "other";
  }
}

std::string normalizedPackage(std::string s) {
  for (char& c : s)
    c = (c == '-' || c == '.') ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

std::string lastComponent(const std::string& dotted) {
  return dotted.substr(dotted.rfind('.') + 1);
}

std::vector<LibraryUse> librariesOf(const std::vector<sdk::ModuleNode>& graph,
                                    const std::vector<sdk::Finding>& findings,
                                    const std::vector<sdk::Finding>& dependencies) {
  std::map<std::string, LibraryUse> libs;
  for (const auto& node : graph)
    for (const auto& name : node.libraries) {
      LibraryUse& lib = libs[normalizedPackage(name)];
      lib.name = name;
      ++lib.modules;
    }
  // The deps findings and the dependency rows, in the findings' order (file, line, column, rule).
  std::vector<const sdk::Finding*> declared;
  for (const auto* list : {&findings, &dependencies})
    for (const auto& f : *list)
      if (f.domain == "deps") declared.push_back(&f);
  std::stable_sort(declared.begin(), declared.end(), [](const sdk::Finding* a, const sdk::Finding* b) {
    return std::tie(a->file, a->range.line, a->range.column, a->rule_id) <
           std::tie(b->file, b->range.line, b->range.column, b->rule_id);
  });
  for (const sdk::Finding* fp : declared) {
    const sdk::Finding& f = *fp;
    auto pkg = f.details.find("package");
    if (pkg == f.details.end()) continue;
    const auto name = f.details.count("name") ? f.details.at("name") : pkg->second;
    std::string key = normalizedPackage(name);
    if (!libs.count(key)) key = normalizedPackage(pkg->second);
    LibraryUse& lib = libs[key];
    if (lib.name.empty()) lib.name = pkg->second;
    // Declared where the dependency files say it, before images and scripts that install it.
    const auto source = f.details.count("source") ? f.details.at("source") : std::string();
    const bool from_install = source == "dockerfile" || source == "script" || source.empty();
    if (lib.declared.empty() || (lib.declared_by_install && !from_install)) {
      const auto spec = f.details.count("spec") ? f.details.at("spec") : std::string();
      lib.declared = pkg->second + spec + " (" + f.file + ")";
      lib.declared_by_install = from_install;
    }
    if (lib.verdict.empty() && f.details.count("verdict")) lib.verdict = f.details.at("verdict");
  }
  std::vector<LibraryUse> out;
  for (auto& [key, lib] : libs) out.push_back(std::move(lib));
  std::sort(out.begin(), out.end(), [](const LibraryUse& a, const LibraryUse& b) {
    return std::make_tuple(-static_cast<long>(a.modules), a.declared.empty(), a.name) <
           std::make_tuple(-static_cast<long>(b.modules), b.declared.empty(), b.name);
  });
  return out;
}

std::string describeModule(const ModuleSummary& m) {
  if (!m.docstring.empty()) return m.docstring;
  for (const auto& def : m.top_level)
    if (!def.docstring.empty()) return def.name + ": " + def.docstring;
  if (m.top_level.empty()) return m.main_block ? "script" : "no top-level definitions";
  std::string names;
  for (std::size_t i = 0; i < m.top_level.size() && i < 4; ++i)
    names += (i ? ", " : "") + m.top_level[i].name;
  if (m.top_level.size() > 4) names += ", …";
  return "defines " + names;
}

std::vector<CoreModule> coreModulesOf(const std::vector<ModuleSummary>& modules,
                                      const std::vector<sdk::ModuleNode>& graph) {
  std::vector<std::size_t> importers(graph.size(), 0);
  for (const auto& node : graph)
    for (std::size_t j : node.imports) ++importers[j];
  std::vector<CoreModule> out;
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const ModuleSummary& m = modules[i];
    if (isTestPath(m.path) || (m.top_level.empty() && m.lines < 5)) continue;
    out.push_back({m.path, describeModule(m), importers[i], m.lines});
  }
  std::sort(out.begin(), out.end(), [](const CoreModule& a, const CoreModule& b) {
    return std::make_tuple(-static_cast<long>(a.importers), -static_cast<long long>(a.lines), a.path) <
           std::make_tuple(-static_cast<long>(b.importers), -static_cast<long long>(b.lines), b.path);
  });
  if (out.size() > kCoreModules) out.resize(kCoreModules);
  return out;
}

/// Project classes by qualified name ("pkg.mod.Class") with their module.
struct ClassRef {
  const ModuleSummary* module;
  const ClassSummary* cls;
};

bool isTorchModuleBase(const std::string& base) {
  if (base == "torch.nn.Module" || base == "torch.nn.modules.module.Module") return true;
  if (base.rfind("torch.nn.", 0) != 0) return false;
  const std::string last = lastComponent(base);
  return !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) && last != "Parameter";
}

std::vector<ModelClass> modelsOf(const std::vector<ModuleSummary>& modules,
                                 const std::vector<sdk::Finding>& findings) {
  std::unordered_map<std::string, ClassRef> by_name;
  for (const auto& m : modules)
    for (const auto& c : m.classes) by_name.emplace(m.dotted_name + "." + c.qualified_name, ClassRef{&m, &c});
  auto lookup = [&](const ModuleSummary& from, const std::string& name) -> const ClassRef* {
    if (auto it = by_name.find(name); it != by_name.end()) return &it->second;
    if (auto it = by_name.find(from.dotted_name + "." + name); it != by_name.end()) return &it->second;
    return nullptr;
  };
  // nn.Module subclasses, through project base classes too (to a fixpoint).
  std::set<const ClassSummary*> is_module;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, ref] : by_name) {
      if (is_module.count(ref.cls)) continue;
      for (const auto& base : ref.cls->bases) {
        const ClassRef* b = lookup(*ref.module, base);
        if (isTorchModuleBase(base) || (b && is_module.count(b->cls))) {
          is_module.insert(ref.cls);
          changed = true;
          break;
        }
      }
    }
  }
  // Attention and custom-op findings per file; calls into modules having them count as custom ops.
  std::unordered_map<std::string, std::vector<const sdk::Finding*>> special_by_file;
  for (const auto& f : findings)
    if (f.domain == "attention" || f.domain == "custom_ops") special_by_file[f.file].push_back(&f);
  std::unordered_set<std::string> special_modules;
  for (const auto& m : modules)
    if (special_by_file.count(m.path)) special_modules.insert(m.dotted_name);
  std::vector<ModelClass> out;
  for (const auto& m : modules)
    for (const auto& c : m.classes) {
      if (!is_module.count(&c)) continue;
      ModelClass model{c.qualified_name, m.path, c.line, c.docstring, {}, {}, {}};
      std::map<std::string, std::map<std::string, int>> layers;
      std::set<std::string> submodules;
      std::set<std::string> custom;
      for (const auto& [callee, count] : c.calls) {
        if (const ClassRef* ref = lookup(m, callee); ref && is_module.count(ref->cls)) {
          submodules.insert(ref->cls->qualified_name);
          if (contains(ref->cls->name, "Attention") || contains(ref->cls->name, "Attn"))
            layers["attention"][ref->cls->name] += count;
          continue;
        }
        if (const std::string cat = layerCategory(callee); !cat.empty()) {
          layers[cat][lastComponent(callee)] += count;
          continue;
        }
        // A call of a top-level definition of this module that has such findings in its body.
        if (auto it = special_by_file.find(m.path); it != special_by_file.end()) {
          const std::string head = callee.substr(0, callee.find('.'));
          for (const auto& def : m.top_level)
            if (def.name == head &&
                std::any_of(it->second.begin(), it->second.end(), [&](const sdk::Finding* f) {
                  return f->range.line >= def.line && f->range.line <= def.end_line;
                }))
              custom.insert(m.dotted_name + "." + callee);
        }
        // A call into another project module with such findings (e.g. gpt.ops.fused_op).
        for (auto dot = callee.rfind('.'); dot != std::string::npos && dot > 0;
             dot = callee.rfind('.', dot - 1))
          if (special_modules.count(callee.substr(0, dot))) {
            custom.insert(callee);
            break;
          }
      }
      if (auto it = special_by_file.find(m.path); it != special_by_file.end())
        for (const sdk::Finding* f : it->second)
          if (f->range.line >= c.line && f->range.line <= c.end_line)
            custom.insert((f->resolved_api.empty() ? f->api : f->resolved_api) + " (" + f->rule_id + ")");
      for (const auto& [cat, types] : layers)
        for (const auto& [type, n] : types)
          model.layers[cat].push_back(n > 1 ? type + "×" + std::to_string(n) : type);
      model.submodules.assign(submodules.begin(), submodules.end());
      model.custom_ops.assign(custom.begin(), custom.end());
      out.push_back(std::move(model));
    }
  return out;
}

}  // namespace

std::string layerCategory(const std::string& callee) {
  static const std::set<std::string> activations{"relu",      "gelu",        "silu",       "tanh", "sigmoid",
                                                 "softmax",   "mish",        "leaky_relu", "elu",  "selu",
                                                 "hardswish", "log_softmax", "glu"};
  const std::string last = lastComponent(callee);
  const bool nn_class = callee.rfind("torch.nn.", 0) == 0 && callee.rfind("torch.nn.functional.", 0) != 0 &&
                        callee.rfind("torch.nn.init.", 0) != 0 && !last.empty() &&
                        std::isupper(static_cast<unsigned char>(last[0]));
  const bool functional =
      callee.rfind("torch.nn.functional.", 0) == 0 ||
      (callee.rfind("torch.", 0) == 0 && std::count(callee.begin(), callee.end(), '.') == 1);
  if (functional && callee.ends_with("scaled_dot_product_attention")) return "attention";
  if (functional && activations.count(last)) return "activation";
  if (callee.rfind("flash_attn.", 0) == 0 || callee.rfind("xformers.ops.", 0) == 0) return "attention";
  if (!nn_class) return {};
  if (last == "Parameter" || last == "ParameterList" || last == "ParameterDict") return {};
  if (contains(last, "Linear")) return "linear";
  if (last.rfind("Conv", 0) == 0 || last.rfind("LazyConv", 0) == 0) return "conv";
  if (contains(last, "Attention")) return "attention";
  if (contains(last, "Norm")) return "norm";
  if (contains(last, "Embedding")) return "embedding";
  if (contains(last, "Dropout")) return "dropout";
  if (contains(last, "Pool")) return "pooling";
  if (last == "LSTM" || last == "GRU" || last == "RNN" || contains(last, "Cell")) return "recurrent";
  if (last == "ModuleList" || last == "ModuleDict" || last == "Sequential") return "container";
  static const std::set<std::string> activation_classes{
      "ReLU", "ReLU6", "GELU", "SiLU",      "Tanh",        "Sigmoid", "Softmax",  "LogSoftmax", "LeakyReLU",
      "Mish", "ELU",   "SELU", "Hardswish", "Hardsigmoid", "PReLU",   "Softplus", "GLU",        "Identity"};
  if (activation_classes.count(last)) return last == "Identity" ? "other" : "activation";
  if (contains(last, "Transformer")) return "attention";
  return "other";
}

CodeStructure describeCode(const std::vector<ModuleSummary>& modules,
                           const std::vector<sdk::ModuleNode>& graph,
                           std::vector<sdk::EntryPoint> entry_points,
                           const std::vector<sdk::Finding>& findings, const sdk::WorkspaceView& workspace,
                           const std::vector<sdk::Finding>& dependencies) {
  CodeStructure s;
  std::unordered_map<std::string, std::uint64_t> python_lines;
  for (const auto& m : modules) python_lines.emplace(m.path, m.lines);
  std::map<std::string, LanguageStats> langs;
  for (const std::string name : {"Python", "CUDA", "C/C++", "other"}) langs[name].language = name;
  for (const auto& f : workspace.files()) {
    LanguageStats& l = langs[languageName(f.language)];
    ++l.files;
    if (auto it = python_lines.find(f.path); it != python_lines.end()) {
      l.lines += it->second;
    } else if (auto text = workspace.read(f.path)) {
      l.lines += countLines(*text);
    }
  }
  for (const std::string name : {"Python", "CUDA", "C/C++", "other"}) {
    s.files += langs[name].files;
    s.lines += langs[name].lines;
    s.languages.push_back(langs[name]);
  }
  s.libraries = librariesOf(graph, findings, dependencies);
  s.core_modules = coreModulesOf(modules, graph);
  s.entry_points = std::move(entry_points);
  s.models = modelsOf(modules, findings);
  return s;
}

}  // namespace migrate

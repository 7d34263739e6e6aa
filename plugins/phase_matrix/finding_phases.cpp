// Step 3: the phases of each finding. A finding belongs to the phases whose entry points reach
// the code it is about: the modules that import a dependency, the modules that use a compiled
// extension, the module itself, the launch script's entry points, or, for files every phase runs
// with (Dockerfile, CMake, pyproject), every active phase.

#include "finding_phases.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace phase_matrix {

using namespace migrate::sdk;

namespace {

/// Per phase (index into PlanContext::phases()): whether the finding belongs to it.
using PhaseMask = std::vector<bool>;

/// A compiled extension a finding declares (CUDAExtension in setup.py, load() in a module).
struct Extension {
  std::string sources;             ///< the `sources` text the finding recorded
  std::vector<std::size_t> users;  ///< modules importing it, and the module declaring it
};

/// The value of `key` in the finding's details, or nullptr when absent.
const std::string* detail(const Finding& f, const char* key) {
  const auto it = f.details.find(key);
  return it == f.details.end() ? nullptr : &it->second;
}

std::string lastDottedComponent(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

bool isFileNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

/// Answers "which phases" for one finding at a time; built once per plan pass.
class PhaseResolver {
 public:
  PhaseResolver(const PlanContext& context, const Reach& reach)
      : context_(context), reach_(reach), phase_count_(context.phases().size()) {
    const auto& modules = context.modules();
    for (std::size_t m = 0; m < modules.size(); ++m) {
      module_by_path_.emplace(modules[m].path, m);
      for (const std::string& library : modules[m].libraries) users_by_library_[library].push_back(m);
    }
    for (const Finding& f : context.findings()) {
      const std::string* name = detail(f, "extension");
      if (name && !name->empty()) extensions_.push_back(extensionOf(f, *name));
    }
  }

  std::vector<std::size_t> phasesOf(const Finding& f) const {
    PhaseMask mask(phase_count_, false);
    if (const std::string* package = detail(f, "package")) {
      // (a) a dependency: the modules importing it under one of its names.
      const std::string* name = detail(f, "name");
      for (const std::string* candidate : {name, package})
        if (candidate && !candidate->empty()) addUsers(mask, usersOf(importName(*candidate)), f.domain);
    } else if (const std::string* extension = detail(f, "extension")) {
      // (b) a compiled extension: the modules using it.
      addUsers(mask, extensionOf(f, *extension).users, f.domain);
    } else if (isBuildScript(f.file)) {
      // (f) setup.py builds and installs the project: the environment every phase runs in.
      for (std::size_t p : reach_.active) mask[p] = true;
    } else if (const auto module = module_by_path_.find(f.file); module != module_by_path_.end()) {
      // (c) a Python module of the graph.
      addModule(mask, module->second, f.domain);
    } else if (isNativeSource(f.file)) {
      // (d) C/C++/CUDA: the users of the extensions compiling it, else of every extension.
      const std::size_t slash = f.file.rfind('/');
      const std::string base = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
      bool listed = false;
      for (const Extension& e : extensions_)
        if (mentionsFileName(e.sources, base)) {
          listed = true;
          addUsers(mask, e.users, f.domain);
        }
      if (!listed)
        for (const Extension& e : extensions_) addUsers(mask, e.users, f.domain);
    } else if (!addEntryPointFile(mask, f)) {
      // (f) the environment every phase runs in.
      for (std::size_t p : reach_.active) mask[p] = true;
    }
    std::vector<std::size_t> out;
    for (std::size_t p = 0; p < mask.size(); ++p)
      if (mask[p]) out.push_back(p);
    return out;
  }

 private:
  /// (e) the file declares entry points (a launch script, pyproject.toml): their phases, plus the
  /// phases of the finding's domain when one of them reaches a module. False when it declares none.
  bool addEntryPointFile(PhaseMask& mask, const Finding& f) const {
    const auto& entry_points = context_.entryPoints();
    bool declares = false;
    bool reached = false;
    for (std::size_t e = 0; e < entry_points.size(); ++e) {
      if (entry_points[e].file != f.file || e >= reach_.entry_phases.size()) continue;
      declares = true;
      for (std::size_t p : reach_.entry_phases[e]) mask[p] = true;
      for (std::size_t m : entry_points[e].modules) reached = reached || reach_.isReached(m);
    }
    if (reached)
      for (std::size_t p = 0; p < phase_count_; ++p) mask[p] = mask[p] || inDomains(p, f.domain);
    return declares;
  }

  Extension extensionOf(const Finding& f, const std::string& name) const {
    Extension e;
    if (const std::string* sources = detail(f, "sources")) e.sources = *sources;
    if (!name.empty()) e.users = usersOf(lastDottedComponent(name));
    // The module that builds or loads it (load() in a model file) uses it too; setup.py, which
    // no entry point reaches, adds nothing.
    if (const auto module = module_by_path_.find(f.file); module != module_by_path_.end())
      e.users.push_back(module->second);
    return e;
  }

  std::vector<std::size_t> usersOf(const std::string& library) const {
    const auto it = users_by_library_.find(library);
    return it == users_by_library_.end() ? std::vector<std::size_t>{} : it->second;
  }

  bool inDomains(std::size_t phase, const std::string& domain) const {
    const auto& domains = context_.phases()[phase].domains;
    return !domain.empty() && std::find(domains.begin(), domains.end(), domain) != domains.end();
  }

  /// phasesOfModule: the phases reaching `module`, and those of the finding's domain when any
  /// entry point reaches it.
  void addModule(PhaseMask& mask, std::size_t module, const std::string& domain) const {
    for (std::size_t p = 0; p < phase_count_; ++p)
      if (reach_.phaseReaches(p, module) || (reach_.isReached(module) && inDomains(p, domain)))
        mask[p] = true;
  }

  void addUsers(PhaseMask& mask, const std::vector<std::size_t>& users, const std::string& domain) const {
    for (std::size_t m : users) addModule(mask, m, domain);
  }

  const PlanContext& context_;
  const Reach& reach_;
  std::size_t phase_count_;
  std::map<std::string, std::size_t> module_by_path_;
  std::map<std::string, std::vector<std::size_t>> users_by_library_;
  std::vector<Extension> extensions_;
};

}  // namespace

std::string importName(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    c = (c == '-' || c == '.') ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool isNativeSource(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  const std::size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return false;
  const std::string_view ext = path.substr(dot);
  for (const char* native : {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx"})
    if (ext == native) return true;
  return false;
}

bool mentionsFileName(std::string_view text, std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t pos = text.find(name); pos != std::string_view::npos; pos = text.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    if ((pos == 0 || !isFileNameChar(text[pos - 1])) && (end == text.size() || !isFileNameChar(text[end])))
      return true;
  }
  return false;
}

std::vector<std::string> phaseNames(const std::vector<std::size_t>& indices,
                                    const std::vector<PhaseSpec>& phases) {
  std::vector<std::string> names;
  for (std::size_t p : indices)
    if (p < phases.size() && std::find(names.begin(), names.end(), phases[p].name) == names.end())
      names.push_back(phases[p].name);
  return names;
}

FindingPhases findingPhases(const PlanContext& context, const Reach& reach) {
  const PhaseResolver resolver(context, reach);
  FindingPhases out;
  out.reserve(context.findings().size());
  for (const Finding& f : context.findings()) out.push_back(resolver.phasesOf(f));
  return out;
}

bool isBuildScript(const std::string& path) {
  return path == "setup.py" || path.ends_with("/setup.py");
}

}  // namespace phase_matrix

// CUDA extension builds in the repository's shell scripts, installation guides and CI workflows
// (their shell steps) (OPS-044):
// `cd networks/correlation_package && python setup.py install`, `pip install -e .` in a folder
// whose setup.py has a CUDAExtension, or an install that names CUDA work (`--cuda_ext`). A
// script's `cd` holds for the lines after it, as the shell runs them. A script's own nvcc
// compile is one too, so is a CMake configure of a folder whose CMakeLists.txt compiles CUDA
// (`cd build && cmake ..`), and Python that loads the shared library it writes (or a CUDA CMake build's)
// through ctypes is OPS-045.
// The same walk over a shell script's lines reports its GPU architecture lists and CUDA compiler
// (OPS-046, script_settings.cpp).

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "extension_declarations.hpp"
#include "local_installs.hpp"
#include "migrate/sdk/ci_workflow.hpp"
#include "migrate/sdk/container_recipe.hpp"
#include "migrate/sdk/install_guide.hpp"
#include "migrate/sdk/text_position.hpp"
#include "repository_scripts.hpp"

namespace custom_ops {

namespace {

constexpr const char* kScriptBuild = "OPS-044";
constexpr const char* kBuiltLibraryLoad = "OPS-045";
constexpr const char* kScriptSetting = "OPS-046";
constexpr std::size_t kKept = 4096;  // bytes of the folder and of a continued command kept

/// A shell script by its extension, or by its shebang (the inventory's Language::Shell: an
/// extensionless `bin/install-apex`, a Slurm job script).
bool isShellScript(const sdk::FileEntry& file) {
  const std::string l = lower(file.path);
  return file.language == sdk::Language::Shell || endsWith(l, ".sh") || endsWith(l, ".bash") ||
         endsWith(l, ".zsh");
}

/// What the project in `dir` builds: the setup.py of the repository's folder of that name, or the
/// root's (or the script's own folder's) where the script starts; unknown (a clone, a folder
/// outside the repository) otherwise.
std::optional<SetupProjects::Builds> projectIn(const SetupProjects& projects, const std::string& dir,
                                               const std::string& script_dir) {
  if (dir.empty()) {
    if (projects.root()) return projects.root();
    return script_dir.empty() ? std::nullopt : projects.folder(baseName(script_dir));
  }
  if (baseName(dir) == "..") return std::nullopt;
  return projects.folder(baseName(dir));
}

/// The repository's folder a CMake configure step names (`source`, after the script's `cd`s), when
/// its CMakeLists.txt compiles CUDA: resolved from the script's own folder, then from the root
/// (where scripts are run from). Not a folder outside the repository or behind a variable.
std::optional<std::string> cudaCMakeProject(const std::string& source, const std::string& script_dir,
                                            const std::set<std::string>& cuda_cmake_directories) {
  if (!source.empty() && (source[0] == '$' || source[0] == '/' || source[0] == '~')) return std::nullopt;
  for (const std::string& base : {script_dir, std::string()}) {
    const std::string project = changeDirectory(base, source);
    if (project.rfind("..", 0) != 0 && cuda_cmake_directories.count(project)) return project;
  }
  return std::nullopt;
}

/// Reports the extension builds of one script (an installation guide's shell blocks, with the
/// guide's line numbers), and adds the shared libraries its nvcc commands write to `built_libraries`.
void scanScript(const std::string& path, std::string_view script, const SetupProjects& projects,
                const RepositoryScripts& repository_scripts, const Rules& rules, bool shell_script,
                const std::set<std::string>& cuda_cmake_directories, std::set<std::string>& built_libraries,
                sdk::FindingSink& sink) {
  const sdk::LineIndex lines(script);
  const auto slash = path.rfind('/');
  const std::string script_dir = slash == std::string::npos ? "" : path.substr(0, slash);
  std::string cwd;   // where the script is, relative to where it started
  std::string step;  // the command so far, with the lines it continues
  bool pip_open = false;
  std::size_t pos = 0;
  while (pos < script.size()) {
    std::size_t nl = script.find('\n', pos);
    if (nl == std::string_view::npos) nl = script.size();
    const std::string_view line = script.substr(pos, nl - pos);
    const std::size_t first = line.find_first_not_of(" \t");
    const bool comment = first == std::string_view::npos || line[first] == '#';
    if (!comment) {
      // A shell script's GPU architecture list or CUDA compiler (OPS-046; not a guide's blocks).
      if (const auto setting = shell_script ? scriptSetting(line.substr(first)) : std::nullopt) {
        const std::string shown = setting->variable + "=" + setting->value;
        const auto start = static_cast<std::uint32_t>(pos + first);
        if (auto f = rules.make(kScriptSetting, path, lines.range(start, static_cast<std::uint32_t>(nl)),
                                setting->variable, {}, {{"value", shown}})) {
          f->details = {{"variable", setting->variable}, {"value", setting->value}};
          sink.report(std::move(*f));
        }
      }
      step += std::string(line) + "\n";
      // Where the install on this line happens: after the `cd`s before it on the line.
      std::string what, dir;
      const auto cds = cdCommands(line);
      auto cwdAt = [&](std::size_t at) {
        std::string d = cwd;
        for (const auto& [where, target] : cds)
          if (where < at) d = changeDirectory(d, target);
        return d;
      };
      // `MINFERENCE_FORCE_BUILD=TRUE $python setup.py $3`: a verb the script's caller picks is a
      // build when the step forces one (the same line's sdist under `…_SKIP_CUDA_BUILD` is not).
      static const RE2 kVariableVerb(R"(\bsetup\.py[[:space:]]+("?\$\{?\w+\}?"?))", bytePattern());
      std::string variable_verb;
      if (const std::string verb = setupPyVerb(line); !verb.empty()) {
        dir = cwdAt(line.find("setup.py"));
        what = "setup.py " + verb;
      } else if (RE2::PartialMatch(line, kVariableVerb, &variable_verb) && switchesBuildOn(step)) {
        dir = cwdAt(line.find("setup.py"));
        what = "setup.py " + variable_verb;
      } else {
        for (const LocalInstall& in : pipLocalTargets(line, pip_open)) {
          if (in.vcs) continue;
          dir =
              in.target.front() == '/' ? in.target : changeDirectory(cwdAt(line.find("install")), in.target);
          what = "pip install " + in.target + (in.extras.empty() ? "" : "[" + in.extras + "]");
          break;
        }
      }
      // `nvcc … kernels.cu -o libkernels.so`: the script compiles CUDA itself (not `nvcc --version`).
      static const RE2 kNvcc(R"((?:^|[;&|(`]|\$\()[[:space:]]*(?:\S*/)?nvcc[[:space:]](.*))", bytePattern());
      static const RE2 kCuSource(R"((?:^|[[:space:]])\S+\.cu(?:[[:space:]]|$))", bytePattern());
      static const RE2 kOutput(R"((?:^|[[:space:]])-o[[:space:]]*(\S+))", bytePattern());
      bool nvcc_build = false;
      if (std::string args; what.empty() && RE2::PartialMatch(line, kNvcc, &args) &&
                            (RE2::PartialMatch(args, kCuSource) || RE2::PartialMatch(args, kOutput))) {
        std::string output;
        RE2::PartialMatch(args, kOutput, &output);
        if (endsWith(output, ".so") || output.find(".so.") != std::string::npos)
          built_libraries.insert(baseName(output));
        what = output.empty() ? "nvcc" : "nvcc -o " + output;
        nvcc_build = true;
      }
      // `cd build && cmake ..`: a configure step of a CMake project of the repository that compiles
      // CUDA (its CMakeLists.txt enables it). The folder is resolved from the script's own folder
      // and from the root, where scripts are run from.
      bool cmake_build = false;
      if (const auto configure = what.empty() ? cmakeConfigure(line) : std::nullopt)
        if (const auto project = cudaCMakeProject(changeDirectory(cwdAt(configure->at), configure->source),
                                                  script_dir, cuda_cmake_directories)) {
          what = "cmake";
          dir = project->empty() ? "." : *project;
          cmake_build = true;
        }
      // `./build.sh --arch 80 --nvshmem`: a script of the repository that builds CUDA code itself.
      bool script_build = false;
      if (const std::string run = what.empty() ? repository_scripts.runBy(line) : std::string();
          !run.empty() && run != path && repository_scripts.buildsCuda(run)) {
        what = run;
        script_build = true;
      }
      if (!what.empty() && !nvcc_build && !cmake_build && switchesCudaOff(step))
        what.clear();  // `FORCE_ONLY_CPU=1 python setup.py …`
      if (!what.empty()) {
        const auto builds = projectIn(projects, dir, script_dir);
        const bool cuda = nvcc_build || script_build || cmake_build ||
                          (builds ? *builds == SetupProjects::Builds::Cuda : namesCudaWork(step));
        // A build switch (`FORCE_CUDA=1`) counts unless the project is known to build no extension
        // at all (Captum's `BUILD_INSIGHTS=1 python setup.py develop`).
        const bool can_build = !builds || *builds != SetupProjects::Builds::Nothing;
        if (cuda || (can_build && switchesBuildOn(step))) {
          const std::string where = dir.empty() ? what : what + " in " + dir;
          const auto start = static_cast<std::uint32_t>(pos + first);
          if (auto f = rules.make(kScriptBuild, path, lines.range(start, static_cast<std::uint32_t>(nl)),
                                  where, {}, {{"value", where}})) {
            f->details = {{"command", what}, {"directory", dir}};
            sink.report(std::move(*f));
          }
        }
      }
      for (const auto& [where, target] : cds) cwd = changeDirectory(cwd, target);
      const std::size_t last = line.find_last_not_of(" \t\r");
      if (last == std::string_view::npos || line[last] != '\\') step.clear();
      // A hostile script (a million `cd a` lines, or continued lines) must not make each line cost
      // the whole script: only the last folders and the command's last part are kept.
      if (cwd.size() > kKept) cwd.erase(0, cwd.size() - kKept);
      if (step.size() > kKept) step.erase(0, step.size() - kKept);
    }
    pos = nl + 1;
  }
}

/// The functions of a Python file that load a library through ctypes themselves
/// (`def _preload_libs(libname): … ctypes.CDLL(libname)`): a call of one loads its argument.
std::vector<std::string> loaderFunctions(std::string_view text, const RE2& load) {
  static const RE2 kDef(R"(^([ \t]*)(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\()", bytePattern());
  std::vector<std::string> loaders;
  std::vector<std::pair<std::size_t, std::string>> open;  // enclosing defs: indent, name
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    while (!open.empty() && first <= open.back().first) open.pop_back();
    std::string indent, name;
    if (RE2::PartialMatch(line, kDef, &indent, &name)) {
      open.emplace_back(indent.size(), name);
      continue;
    }
    if (!open.empty() && RE2::PartialMatch(line, load) &&
        std::find(loaders.begin(), loaders.end(), open.back().second) == loaders.end())
      loaders.push_back(open.back().second);
  }
  return loaders;
}

/// Reports the lines of Python files that load one of the libraries with ctypes
/// (`ctypes.CDLL('bitnet_kernels/libbitnet.so')`), directly or through a loader function of the
/// file (`_preload_libs("libflux_cuda.so")`).
void reportLibraryLoads(const sdk::WorkspaceView& workspace, const std::set<std::string>& libraries,
                        const Rules& rules, sdk::FindingSink& sink) {
  static const RE2 kLoad(R"(\b(?:CDLL|PyDLL|LoadLibrary)[[:space:]]*\()", bytePattern());
  for (const auto& file : workspace.files()) {
    if (!endsWith(file.path, ".py")) continue;
    const auto text = workspace.read(file.path);
    if (!text || (text->find("CDLL") == std::string::npos && text->find("LoadLibrary") == std::string::npos &&
                  text->find("PyDLL") == std::string::npos))
      continue;
    // Calls of the file's own loader functions (`_preload_libs(…)`), not their def lines.
    std::string calls;
    for (const std::string& name : loaderFunctions(*text, kLoad)) calls += (calls.empty() ? "" : "|") + name;
    std::optional<RE2> loader_call;
    if (!calls.empty())
      loader_call.emplace(R"((?:^|[^\w.]|\bself\.)(?:)" + calls + R"()[[:space:]]*\()", bytePattern());
    static const RE2 kDefLine(R"(^[ \t]*(?:async[ \t]+)?def[ \t])", bytePattern());
    const sdk::LineIndex lines(*text);
    std::size_t pos = 0;
    while (pos < text->size()) {
      std::size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      const std::string_view line = std::string_view(*text).substr(pos, nl - pos);
      const std::size_t first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos && line[first] != '#' &&
          (RE2::PartialMatch(line, kLoad) ||
           (loader_call && RE2::PartialMatch(line, *loader_call) && !RE2::PartialMatch(line, kDefLine))))
        for (const std::string& library : libraries) {
          const std::size_t at = line.find(library);
          // The library's file name, whole: after a quote or a '/', before a quote.
          if (at == std::string_view::npos || at == 0 || line.find_first_of("'\"/", at - 1) != at - 1 ||
              (at + library.size() < line.size() && line[at + library.size()] != '\'' &&
               line[at + library.size()] != '"'))
            continue;
          const auto start = static_cast<std::uint32_t>(pos + first);
          if (auto f =
                  rules.make(kBuiltLibraryLoad, file.path, lines.range(start, static_cast<std::uint32_t>(nl)),
                             library, {}, {{"value", library}})) {
            f->details = {{"library", library}};
            sink.report(std::move(*f));
          }
          break;
        }
      pos = nl + 1;
    }
  }
}

}  // namespace

void analyzeScriptBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                         sdk::FindingSink& sink) {
  std::vector<const sdk::FileEntry*> scripts;
  for (const auto& file : workspace.files())
    if (isShellScript(file) || sdk::mayBeInstallGuide(file.path) || sdk::isCiWorkflow(file.path) ||
        sdk::isContainerRecipePath(file.path))
      scripts.push_back(&file);
  // The shared libraries the repository compiles with CUDA: those of a CMake build that enables
  // CUDA, and those nvcc commands of the scripts write.
  const CudaCMake cuda_cmake = readCudaCMake(workspace, options.skip_dirs);
  std::set<std::string> built_libraries = cuda_cmake.shared_libraries;
  if (!scripts.empty()) {
    const SetupProjects projects(workspace);
    const RepositoryScripts repository_scripts(workspace);
    for (const sdk::FileEntry* file : scripts) {
      const auto text = workspace.read(file->path);
      if (!text) continue;
      if (isShellScript(*file))
        scanScript(file->path, *text, projects, repository_scripts, rules, true, cuda_cmake.directories,
                   built_libraries, sink);
      else if (sdk::isCiWorkflow(file->path))  // a workflow's shell steps are shell script
        scanScript(file->path, sdk::ciWorkflowScript(*text), projects, repository_scripts, rules, true,
                   cuda_cmake.directories, built_libraries, sink);
      else if (sdk::isContainerRecipePath(file->path)) {  // so are a Singularity recipe's sections
        if (sdk::isContainerRecipe(file->path, *text))
          scanScript(file->path, sdk::containerRecipeScript(*text), projects, repository_scripts, rules, true,
                     cuda_cmake.directories, built_libraries, sink);
      } else if (sdk::isInstallGuide(file->path, *text))
        scanScript(file->path, sdk::installGuideScript(*text), projects, repository_scripts, rules, false,
                   cuda_cmake.directories, built_libraries, sink);
    }
  }
  if (!built_libraries.empty()) reportLibraryLoads(workspace, built_libraries, rules, sink);
}

}  // namespace custom_ops

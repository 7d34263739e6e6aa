// Repository-level build machinery outside Python: CUDA library submodules in .gitmodules
// (OPS-037) and Dockerfile steps that build CUDA extensions or kernels (OPS-039).

#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "local_installs.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/shell_text.hpp"
#include "repository_scripts.hpp"

namespace custom_ops {

namespace {

constexpr const char* kCudaSubmodule = "OPS-037";
constexpr const char* kDockerBuild = "OPS-039";

using plugin_support::isDockerfile;

/// An extra whose name says it builds kernels (`.[compile]`, `.[cuda_ext]`, `.[kernels]`).
bool buildExtra(const std::string& extras) {
  static const RE2 kBuild(
      R"((?i)(^|[,_-])(compile|kernels?|ext|extensions?|cuda|cuda_ext|flash\w*)($|[,_-]))", bytePattern());
  return RE2::PartialMatch(extras, kBuild);
}

/// What a repository script builds: its first `setup.py install/build…` or local `pip install`.
std::string scriptBuild(const sdk::WorkspaceView& workspace, const std::string& script) {
  const auto text = workspace.read(script);
  if (!text) return {};
  std::size_t pos = 0;
  while (pos < text->size()) {
    std::size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    const std::string_view line = std::string_view(*text).substr(pos, nl - pos);
    pos = nl + 1;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    if (const std::string verb = setupPyVerb(line); !verb.empty()) return "setup.py " + verb;
    bool open = false;
    for (const LocalInstall& in : pipLocalTargets(line, open))
      if (!in.vcs) return "pip install " + in.target;
  }
  return {};
}

/// The CUDA-only library a submodule's name, path or url names, or "".
std::string cudaLibraryOf(const std::string& text) {
  static const std::pair<const char*, const char*> kLibraries[] = {{"cutlass", "CUTLASS"},
                                                                   {"cccl", "CCCL (CUB, Thrust)"},
                                                                   {"cub", "CUB"},
                                                                   {"thrust", "Thrust"},
                                                                   {"nccl", "NCCL"},
                                                                   {"flash-attention", "flash-attention"},
                                                                   {"fastertransformer", "FasterTransformer"},
                                                                   {"tensorrt", "TensorRT"}};
  // Each key between characters other than [a-z0-9] (the regex `(^|[^a-z0-9])KEY($|[^a-z0-9])`).
  const auto other = [](char c) { return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')); };
  const std::string l = lower(text);
  for (const auto& [key, name] : kLibraries) {
    const std::string_view k(key);
    for (std::size_t i = l.find(k); i != std::string::npos; i = l.find(k, i + 1))
      if ((i == 0 || other(l[i - 1])) && (i + k.size() == l.size() || other(l[i + k.size()]))) return name;
  }
  return {};
}

}  // namespace

void analyzeGitmodules(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink) {
  for (const auto& file : workspace.files()) {
    const auto slash = file.path.rfind('/');
    if (file.path.substr(slash == std::string::npos ? 0 : slash + 1) != ".gitmodules") continue;
    const auto text = workspace.read(file.path);
    if (!text) continue;
    const sdk::LineIndex lines(*text);
    // One [submodule "name"] section at a time: its header's range and its keys' values.
    struct Section {
      std::uint32_t start = 0, end = 0;
      std::string name, path, url;
    };
    std::vector<Section> sections;
    // RE2: a line of megabytes cannot overflow the stack (std::regex recursed once per character).
    static const RE2 kHeader(R"re(^\s*\[submodule\s+"([^"]*)"\s*\])re", bytePattern());
    static const RE2 kKey(R"(^\s*(path|url)\s*=\s*(\S+))", bytePattern());
    std::size_t pos = 0;
    while (pos <= text->size()) {
      std::size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      const std::string line = text->substr(pos, nl - pos);
      std::string name, key, value;
      if (RE2::PartialMatch(line, kHeader, &name)) {
        sections.push_back(
            {static_cast<std::uint32_t>(pos + line.find('[')), static_cast<std::uint32_t>(nl), name, "", ""});
      } else if (!sections.empty() && RE2::PartialMatch(line, kKey, &key, &value)) {
        (key == "path" ? sections.back().path : sections.back().url) = value;
      }
      pos = nl + 1;
    }
    for (const Section& s : sections) {
      std::string library = cudaLibraryOf(s.path);
      if (library.empty()) library = cudaLibraryOf(s.url);
      if (library.empty()) library = cudaLibraryOf(s.name);
      if (library.empty()) continue;
      const std::string where = s.path.empty() ? s.name : s.path;
      auto f = rules.make(kCudaSubmodule, file.path, lines.range(s.start, s.end), where, {},
                          {{"value", where}, {"library", library}});
      if (!f) continue;
      f->details = {{"submodule", s.name}, {"path", s.path}, {"url", s.url}, {"library", library}};
      sink.report(std::move(*f));
    }
  }
}

void analyzeDockerBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink) {
  using Builds = SetupProjects::Builds;
  std::vector<const sdk::FileEntry*> dockerfiles;
  for (const auto& file : workspace.files())
    if (isDockerfile(file.path)) dockerfiles.push_back(&file);
  if (dockerfiles.empty()) return;
  const SetupProjects projects(workspace);
  const RepositoryScripts repository_scripts(workspace);
  const bool cuda_extension = projects.cudaExtension();
  const std::optional<Builds>& root = projects.root();
  // What the project a local install (`pip install .`, `setup.py install`) builds: the setup.py
  // of the folder the step last `cd`s into, or the WORKDIR names, when a setup.py of the
  // repository sits in a folder of that name; else the root's; else, with no setup.py at all, an
  // unknown project (nullopt); else a CUDA build when any setup.py of the repository has one.
  auto installed = [&](const std::string& step_text, const std::string& workdir) -> std::optional<Builds> {
    const auto cds = cdCommands(step_text);
    std::string dir = cds.empty() ? std::string() : cds.back().second;
    if (dir.empty() || dir.find('$') != std::string::npos) dir = workdir;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    if (const auto in_folder = projects.folder(baseName(dir)); !dir.empty() && in_folder) return in_folder;
    if (root) return root;
    if (!projects.anyFolder()) return std::nullopt;
    return cuda_extension ? Builds::Cuda : Builds::Nothing;
  };
  // A kernel build: the project builds a CUDA extension, or in a CUDA toolkit stage it builds
  // native code or is not the repository's own.
  auto kernelBuild = [&](std::optional<Builds> b, bool cuda_stage) {
    return b ? *b == Builds::Cuda || (cuda_stage && *b == Builds::Native) : cuda_stage;
  };
  // RE2: a line of megabytes cannot overflow the stack (std::regex recursed once per character).
  static const RE2 kInstruction(R"(^[[:space:]]*([A-Za-z]+)[[:space:]])", bytePattern());
  // A stage of a CUDA toolkit image (`FROM nvidia/cuda:12.4-devel… AS builder`, or a stage built
  // on one): what it compiles is CUDA code, whatever the repository's own setup.py says.
  static const RE2 kFrom(
      R"(^[[:space:]]*(?i:FROM)[[:space:]]+(?:--\S+[[:space:]]+)*(\S+)(?:[[:space:]]+(?i:AS)[[:space:]]+(\S+))?)",
      bytePattern());
  static const RE2 kCudaDevelImage(
      R"((?i)nvidia/cuda:\S*devel|nvcr\.io/nvidia/(pytorch|cuda)|pytorch/pytorch:\S*devel)", bytePattern());
  static const RE2 kCompile(
      R"((^|[[:space:];&|])(make|cmake[[:space:]]+--build|ninja|\./build\w*\.sh)([[:space:]]|$))",
      bytePattern());
  // …and of CUDA work (namesCudaWork): a toolkit image also builds MPI, UCX and the like, which the
  // NPU image needs too.
  // …and of a stage's own switch (`ENV FORCE_CUDA_EXTENSION=1`, `ARG BUILD_EXT=1`): a setting named
  // for forcing or building, and for CUDA or an extension.
  static const RE2 kStageSwitch(
      R"((?:^|[[:space:]])([A-Z0-9_]*(?:FORCE|BUILD)[A-Z0-9_]*)=(?:"?)(?:1|true|TRUE|True|ON|yes)(?:"?)(?:[[:space:]]|$))",
      bytePattern());
  static const RE2 kSwitchedBuild(R"(CUDA|EXT|KERNEL|OPS)", bytePattern());
  static const RE2 kInstallScript(
      R"((?:^|[[:space:];&|])(?:(?:ba)?sh[[:space:]]+)?((?:\.?/)?[\w./-]*install[\w.-]*\.sh)\b)",
      bytePattern());
  for (const sdk::FileEntry* file : dockerfiles) {
    const auto text = workspace.read(file->path);
    if (!text) continue;
    const sdk::LineIndex lines(*text);
    std::string instruction;
    std::set<std::string> cuda_stages;  // names of the stages built on a CUDA toolkit image
    bool cuda_stage = false;
    std::string stage_names;    // the current stage's name and the stage it is built on
    bool stage_switch = false;  // an ENV/ARG of the stage switched an extension build on
    bool pip_open = false;      // a `pip install … \` whose packages follow on the next lines
    std::string workdir;        // the last WORKDIR
    std::string step;           // the text of the current instruction so far
    std::vector<std::pair<std::size_t, std::size_t>> step_lines;  // [begin, end) of its lines
    bool continued = false;
    std::size_t pos = 0;
    while (pos < text->size()) {
      std::size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      std::string line = text->substr(pos, nl - pos);
      const std::size_t first = line.find_first_not_of(" \t");
      const bool comment = first != std::string::npos && line[first] == '#';
      std::string group;
      if (!continued && !comment && RE2::PartialMatch(line, kInstruction, &group)) {
        instruction = group;
        step.clear();
        step_lines.clear();
      }
      if (!comment) {
        step += line;
        step_lines.emplace_back(pos, nl);
      }
      std::string image, stage;
      if (!continued && !comment && RE2::PartialMatch(line, kFrom, &image, &stage)) {
        cuda_stage = RE2::PartialMatch(image, kCudaDevelImage) || cuda_stages.count(image) != 0;
        if (cuda_stage && !stage.empty()) cuda_stages.insert(stage);
        stage_names = stage + (cuda_stages.count(image) != 0 ? " " + image : std::string());
        stage_switch = false;
      }
      static const RE2 kWorkdir(R"(^[[:space:]]*(?i:WORKDIR)[[:space:]]+["']?([^[:space:]"']+))",
                                bytePattern());
      if (std::string w; !continued && !comment && RE2::PartialMatch(line, kWorkdir, &w)) workdir = w;
      // `ENV FORCE_CUDA_EXTENSION=1`: the stage switches extension builds on for what follows.
      if (std::string name; !comment && (instruction == "ENV" || instruction == "ARG") &&
                            RE2::PartialMatch(line, kStageSwitch, &name) &&
                            RE2::PartialMatch(name, kSwitchedBuild))
        stage_switch = true;
      // `BUILD_EXT=1 pip install .`, `DS_BUILD_OPS=1 …`: the command switches its extension build on.
      const bool build_switch = switchesBuildOn(line);
      // `cd third_party/flash-attention/csrc/rotary && pip install .`: the step builds in a folder
      // the repository does not hold (a submodule, a clone) whose path names CUDA work.
      std::string cwd = workdir;
      for (const auto& [where, target] : cdCommands(step)) cwd = changeDirectory(cwd, target);
      const bool foreign_cuda_dir = namesCudaWork(cwd) && !projects.folder(baseName(cwd));
      // `RUN ./build.sh --arch "80;90"`: a script of the repository that builds CUDA code itself.
      const std::string script = comment ? std::string() : repository_scripts.runBy(line);
      const bool cuda_script = !script.empty() && repository_scripts.buildsCuda(script);
      if (!comment &&
          (cuda_extension || cuda_stage || build_switch || stage_switch || foreign_cuda_dir || cuda_script ||
           namesCudaWork(line)) &&
          (instruction == "RUN" || instruction == "run")) {
        std::string what;
        std::size_t at = pos, end = nl;  // the line reported
        if (group = setupPyVerb(line); !group.empty()) {
          // `git clone …/cocoapi && cd cocoapi/PythonAPI && python setup.py build_ext install`: the
          // setup.py of another project, which needs no nvcc unless the step asks for CUDA.
          static const RE2 kClone(R"((^|[[:space:];&|])git[[:space:]]+clone[[:space:]])", bytePattern());
          // The repository's own project (a stage named for CUDA work, `kernel-builder`, builds
          // kernels whatever it installs).
          const bool own =
              !RE2::PartialMatch(step, kClone) && (kernelBuild(installed(step, workdir), cuda_stage) ||
                                                   (cuda_stage && namesCudaWork(stage_names)));
          if (own || build_switch || stage_switch || namesCudaWork(line) || foreign_cuda_dir)
            what = "setup.py " + group;
        } else if (auto installs = pipLocalTargets(line, pip_open); !installs.empty()) {
          // A local install builds the repository's CUDA extension, or says it builds CUDA code
          // (`--cuda_ext`), or asks a CUDA toolkit stage for an extra named for a kernel build
          // (`.[compile]`); a CUDA image alone does not make a pure-Python package a kernel build.
          // A source checkout is a build when the step or its stage switched extension builds on.
          // With extras the project is the one at the root (a clone's `pip install -e ".[x]"` is
          // no build of the repository's own extension).
          for (const LocalInstall& in : installs)
            if (in.vcs ? build_switch || stage_switch
                       : (in.extras.empty()
                              ? installed(
                                    in.target == "." || in.target == "./" ? step : step + " cd " + in.target,
                                    workdir) == Builds::Cuda
                              : root == Builds::Cuda) ||
                             build_switch || namesCudaWork(line) || (cuda_stage && buildExtra(in.extras)) ||
                             (foreign_cuda_dir && (in.target == "." || in.target == "./"))) {
              what = "pip install " + in.target + (in.extras.empty() ? "" : "[" + in.extras + "]");
              break;
            }
        } else if (std::string head, tool; cuda_stage && RE2::PartialMatch(line, kCompile, &head, &tool) &&
                                           (namesCudaWork(step) || namesCudaWork(stage_names))) {
          what = tool + " in a CUDA toolkit image";
          // On the step's configure line that asks for CUDA (`cmake -DCMAKE_CUDA_ARCHITECTURES=…`),
          // the place to change, when there is one; else on the compile command.
          static const RE2 kConfigure(R"((^|[[:space:];&|])(cmake|\./configure)([[:space:]]|$))",
                                      bytePattern());
          for (const auto& [b, e] : step_lines)
            if (const std::string_view l = std::string_view(*text).substr(b, e - b);
                RE2::PartialMatch(l, kConfigure) && namesCudaWork(l)) {
              at = b;
              end = e;
              break;
            }
        } else if (std::string installer;
                   build_switch && RE2::PartialMatch(line, kInstallScript, &installer)) {
          what = installer + " with its extension build switched on";  // `DS_BUILD_OPS=1 ./install.sh`
        } else if (!script.empty()) {
          // `RUN bash scripts/install_ext.sh`: a script of the repository that builds its extensions,
          // or CUDA code of its own (a CMake-driven build).
          if (const std::string built = cuda_extension ? scriptBuild(workspace, script) : std::string();
              !built.empty())
            what = script + " (" + built + ")";
          else if (cuda_script)
            what = script + " (builds CUDA code)";
        }
        if (!what.empty()) {
          const std::string_view shown = std::string_view(*text).substr(at, end - at);
          const std::size_t indent = shown.find_first_not_of(" \t");
          const auto start = static_cast<std::uint32_t>(at + (indent == std::string_view::npos ? 0 : indent));
          auto f = rules.make(kDockerBuild, file->path, lines.range(start, static_cast<std::uint32_t>(end)),
                              what, {}, {{"value", what}, {"instruction", "RUN"}});
          if (f) {
            f->details = {{"command", what}};
            sink.report(std::move(*f));
          }
        }
      }
      if (!comment) {
        std::size_t end = line.find_last_not_of(" \t\r");
        continued = end != std::string::npos && line[end] == '\\';
      }
      pos = nl + 1;
    }
  }
}

}  // namespace custom_ops

// cog.yaml (Replicate's Cog): `build.gpu: true` builds the image on an nvidia/cuda base,
// `build.cuda` picks that base's CUDA version, `build.python_packages` are pip requirements,
// `build.python_requirements` names a requirements file and `build.run` holds shell build steps.

#include "yaml_manifest.hpp"

namespace deps {
namespace {

/// `build.run`: each step, a string or `{command: …}`, is a shell line of the image build (pip
/// installs from CUDA wheel indexes, NVIDIA apt steps). Steps written on one line are read; a
/// block scalar spanning lines is left to a human.
void readBuildSteps(const std::string& path, const YamlText& file, const YAML::Node& steps, Manifests& out) {
  if (!steps || !steps.IsSequence()) return;
  for (const auto& item : steps) {
    const YAML::Node command = item.IsMap() ? item["command"] : item;
    if (!command || !command.IsScalar()) continue;
    auto [b, e] = file.scalarExtent(command.Mark());
    if (e - b >= 2 && (file.text[b] == '"' || file.text[b] == '\'') && file.text[e - 1] == file.text[b]) {
      ++b;
      --e;
    }
    if (b >= e || file.text.substr(b, e - b).find('\n') != std::string_view::npos) continue;
    LogicalLine line;
    line.text = std::string(file.text.substr(b, e - b));
    for (std::uint32_t o = b; o <= e; ++o) line.offsets.push_back(o);
    line.line = static_cast<std::uint32_t>(command.Mark().line + 1);
    readInstallCommands(path, line, 0, file.index, "shell", {}, out);
    readNvidiaAptSteps(path, line, 0, file.index, out);
  }
}

}  // namespace

void readCogConfig(const std::string& path, std::string_view text, Manifests& out) {
  const std::optional<YAML::Node> loaded =
      loadYamlManifest(path, text, "cog-config-unreadable", "a Cog configuration", out);
  if (!loaded) return;
  const YAML::Node& root = *loaded;
  if (!root.IsMap()) {
    // yaml-cpp reads a file that opens with a stray scalar (a Python docstring) as that scalar
    // alone; Cog refuses such a file.
    if (root.IsDefined() && !root.IsNull())
      out.diagnostics.push_back({migrate::sdk::Severity::Warning, "cog-config-unreadable", path,
                                 static_cast<std::uint32_t>(root.Mark().line + 1),
                                 "not read as a Cog configuration: the document is not a mapping"});
    return;
  }
  const YAML::Node build = root["build"];
  if (!build || !build.IsMap()) return;
  const YamlText file(text);
  const YAML::Node gpu = build["gpu"];
  const bool gpu_build = gpu && gpu.IsScalar() && (gpu.Scalar() == "true" || gpu.Scalar() == "True");
  // Cog's GPU images are nvidia/cuda images; `cuda:` names the version of that base.
  if (gpu_build)
    out.images.push_back({path, file.scalarRange(gpu), "gpu: true", "nvidia/cuda (Cog's GPU build)", "cog"});
  if (const YAML::Node cuda = build["cuda"]; gpu_build && cuda && cuda.IsScalar())
    out.images.push_back({path, file.scalarRange(cuda), "cuda: " + cuda.Scalar(),
                          "nvidia/cuda:" + cuda.Scalar() + " (Cog's base image)", "cog"});
  readPipList(path, file, build["python_packages"], "cog", "python_packages", out);
  if (const YAML::Node reqs = build["python_requirements"]; reqs && reqs.IsScalar())
    out.includes.push_back({path, static_cast<std::uint32_t>(reqs.Mark().line + 1), reqs.Scalar(), false});
  readBuildSteps(path, file, build["run"], out);
}

}  // namespace deps

// cog.yaml (Replicate's Cog): `build.gpu: true` builds the image on an nvidia/cuda base,
// `build.cuda` picks that base's CUDA version, `build.python_packages` are pip requirements and
// `build.python_requirements` names a requirements file.

#include "yaml_manifest.hpp"

namespace deps {

void readCogConfig(const std::string& path, std::string_view text, Manifests& out) {
  const std::optional<YAML::Node> loaded =
      loadYamlManifest(path, text, "cog-config-unreadable", "a Cog configuration", out);
  if (!loaded) return;
  const YAML::Node& root = *loaded;
  const YAML::Node build = root.IsMap() ? root["build"] : YAML::Node();
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
}

}  // namespace deps

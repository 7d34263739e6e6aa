// Container images named in YAML specs that are not conda environments: a training platform's job
// file (`image: mosaicml/pytorch_vision:1.13.1_cu117-…`), a Kubernetes manifest or a Compose file.
// Each value of an `image` key (`image`, `base_image`, `docker_image`) is read as the FROM of a
// Dockerfile, so DEP-010 judges it as it judges a Dockerfile's; a Compose service's NVIDIA GPU
// reservation, runtime or mapped NVIDIA device node is a container started on NVIDIA GPUs (DEP-030). Files
// under hidden folders (tool settings) are not the project's images, except CI workflows: a job's
// container (`container: image: nvidia/cuda:…`, `docker-image:`) is the image the CI runs on.

#include <re2/re2.h>

#include <optional>
#include <string>
#include <string_view>

#include "manifest.hpp"
#include "migrate/sdk/ci_workflow.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/config_values.hpp"

namespace deps {

void readYamlImages(const std::string& path, std::string_view text, Manifests& out) {
  const bool workflow = migrate::sdk::isCiWorkflow(path);
  if ((path.front() == '.' || path.find("/.") != std::string::npos) && !workflow) return;
  // Larger than a spec is written by hand: data, not a manifest.
  if (text.size() > (1u << 20)) return;
  // Parsing is most of this reader's time, and most YAML files of a model zoo are configs that
  // name images only in other words (`image_size:`, `imagenet`): a file is parsed only when some
  // key may end in "image" (the text "image", a quote perhaps, a colon), or it names NVIDIA.
  static const RE2 kImageKeyText(R"((?i)image["']?[ \t]*:)", plugin_support::bytePattern());
  if (text.find("nvidia") == std::string_view::npos && text.find("--gpus") == std::string_view::npos &&
      !RE2::PartialMatch(text, kImageKeyText))
    return;
  static const RE2 kImageKey(R"((?i)(\w*[_-])?image)", plugin_support::bytePattern());
  static const RE2 kGpuOption(R"((?:^|\s)--(?:gpus|runtime[= ]+nvidia)\b)", plugin_support::bytePattern());
  std::string error;
  const auto values = plugin_support::configValues(text, error);
  if (!error.empty()) return;  // not this reader's to diagnose: the file is no manifest it knows
  std::optional<migrate::sdk::LineIndex> index;
  for (const auto& v : values) {
    // A Compose file's GPU reservation (`deploy.resources.reservations.devices: - driver: nvidia`)
    // or NVIDIA runtime (`runtime: nvidia`): the container starts on NVIDIA GPUs, as `docker run
    // --gpus` does (DEP-030).
    // An NVIDIA device node mapped in by hand (`devices: - /dev/nvidia0:/dev/nvidia0`) does too.
    const bool in_devices = v.key == "devices" || v.parents.find("devices") != std::string::npos;
    // A CI job's container given the runner's GPUs (`container: options: --gpus all`).
    const bool gpu_options = workflow && v.key == "options" && RE2::PartialMatch(v.value, kGpuOption);
    if ((v.key == "driver" && v.value == "nvidia" && in_devices) ||
        (v.key == "runtime" && v.value == "nvidia") || (in_devices && v.value.rfind("/dev/nvidia", 0) == 0) ||
        gpu_options) {
      if (!index) index.emplace(text);
      out.gpu_containers.push_back({path, index->range(v.begin, v.end), v.key + ": " + v.value});
      continue;
    }
    if (v.value.empty() || !RE2::FullMatch(v.key, kImageKey)) continue;
    if (!index) index.emplace(text);
    BaseImageUse img{path, index->range(v.begin, v.end), v.value, v.value};
    img.source = "yaml";
    out.images.push_back(std::move(img));
  }
}

}  // namespace deps

// The deps plugin's cog.yaml reader (the GPU build, its CUDA version, python_packages).

#include "fuzz_deps.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readCogConfig("cog.yaml", migrate::fuzz::text(data, size), manifests);
  migrate::fuzz::followDependencies(manifests);
  return 0;
}

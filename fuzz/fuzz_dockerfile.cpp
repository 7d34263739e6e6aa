// The deps plugin's Dockerfile reader (FROM, ENV, ARG, installs in RUN).

#include "fuzz_deps.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readDockerfile("Dockerfile", migrate::fuzz::text(data, size), manifests);
  migrate::fuzz::followDependencies(manifests);
  return 0;
}

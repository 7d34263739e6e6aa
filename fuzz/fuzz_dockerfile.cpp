// The deps plugin's Dockerfile reader (FROM, ENV, ARG, installs in RUN).

#include "fuzz_support.hpp"
#include "manifest.hpp"
#include "requirement.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readDockerfile("Dockerfile", migrate::fuzz::text(data, size), manifests);
  // What the plugin asks of each dependency next: pins, CUDA tags, version checks.
  for (const deps::DependencyUse& d : manifests.dependencies) {
    (void)deps::exactPin(d.req.spec, d.dialect);
    (void)deps::cudaTag(d.written);
    (void)deps::specAllows(d.req.spec, {2, 1, 0}, d.dialect);
  }
  for (const deps::IndexUse& i : manifests.indexes) (void)deps::isCudaIndex(i.url);
  return 0;
}

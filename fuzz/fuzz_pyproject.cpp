// The deps plugin's pyproject.toml reader (its TOML subset and the dependency tables).

#include "fuzz_support.hpp"
#include "manifest.hpp"
#include "requirement.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readPyproject("pyproject.toml", migrate::fuzz::text(data, size), manifests);
  // What the plugin asks of each dependency next: pins, CUDA tags, version checks.
  for (const deps::DependencyUse& d : manifests.dependencies) {
    (void)deps::exactPin(d.req.spec, d.dialect);
    (void)deps::cudaTag(d.written);
    (void)deps::specAllows(d.req.spec, {2, 1, 0}, d.dialect);
  }
  for (const deps::IndexUse& i : manifests.indexes) (void)deps::isCudaIndex(i.url);
  return 0;
}

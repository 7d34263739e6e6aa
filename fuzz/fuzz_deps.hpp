#pragma once
// What the deps plugin does with the dependencies a manifest reader found, for the fuzz targets
// of the readers: each target reads one format, then follows its findings as the plugin does.

#include "manifest.hpp"
#include "requirement.hpp"

namespace migrate::fuzz {

/// Pins, CUDA tags and version checks of every dependency, and the CUDA check of every index.
inline void followDependencies(const deps::Manifests& manifests) {
  for (const deps::DependencyUse& d : manifests.dependencies) {
    (void)deps::exactPin(d.req.spec, d.dialect);
    (void)deps::cudaTag(d.written);
    (void)deps::specAllows(d.req.spec, {2, 1, 0}, d.dialect);
  }
  for (const deps::IndexUse& i : manifests.indexes) (void)deps::isCudaIndex(i.url);
}

}  // namespace migrate::fuzz

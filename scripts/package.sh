#!/usr/bin/env bash
# Builds the Debian packages into dist/ (docs/packaging.md):
#   migrate-pipeline_VERSION-N_ARCH.deb      the tool, its plugins, pipelines, examples, docs
#   migrate-pipeline-dev_VERSION-N_ARCH.deb  the plugin SDK (headers, CMake package)
# from a release build (CMake preset "package": build-package/, -O3, hardened, prefix /usr, no
# tests), then checks them with lintian: an error fails the script, warnings are listed.
# Idempotent and incremental: a second call rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-packaging
echo "== build (preset package)"
scripts/build.sh package
echo "== cpack"
rm -rf build-package/cpack dist
cpack --config build-package/CPackConfig.cmake -B build-package/cpack >build-package/cpack.log ||
  { cat build-package/cpack.log; exit 1; }
mkdir -p dist
mv build-package/cpack/*.deb dist/
for deb in dist/*.deb; do
  echo "-- $deb ($(du -h "$deb" | cut -f1), $(dpkg-deb --field "$deb" Installed-Size) KiB installed)"
  dpkg-deb --field "$deb" Package Version Architecture Depends Recommends Suggests | sed 's/^/   /'
done
echo "== lintian"
# --fail-on error: warnings and informational tags are listed, only errors fail.
lintian --fail-on error --display-info --tag-display-limit 0 dist/*.deb | tee build-package/lintian.log
echo "lintian: $(grep -c '^E:' build-package/lintian.log || true) errors," \
  "$(grep -c '^W:' build-package/lintian.log || true) warnings (build-package/lintian.log; docs/packaging.md explains them)"

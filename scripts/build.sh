#!/usr/bin/env bash
# Configures and builds one CMake preset (default: "default"). Incremental: a second call only
# rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"

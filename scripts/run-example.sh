#!/usr/bin/env bash
# Sets up everything (Debian packages, grammar sources, build) and runs the main job:
# migrate-pipeline on the bundled example project with pipelines/full.yaml.
# Extra arguments go to `migrate-pipeline run`, e.g. --source PATH|GIT_URL --output DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-tests   # the verification runs Python with torch and shellcheck
scripts/build.sh default
exec build/bin/migrate-pipeline run pipelines/full.yaml "$@"

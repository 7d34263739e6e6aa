#!/usr/bin/env bash
# Installs everything migrate-pipeline needs to build, run and test on Debian 12 (--with-tests),
# and to make and test its Debian packages (--with-packaging).
# Idempotent: when every package is already installed it only checks and returns.
set -euo pipefail

build_packages=(
  cmake g++ ninja-build pkg-config git ca-certificates clang-format
  libboost1.81-dev libboost-filesystem1.81-dev
  libgit2-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libcsv-dev
  libxxhash-dev libre2-dev libjemalloc-dev libcbor-dev
)
# Used by the test suite and by the generated verification scripts.
test_packages=(
  python3 python3-torch python3-numpy python3-pyflakes python3-jsonschema python3-packaging
  python3-pytest  # the verification runs repositories' pytest suites test by test
  python3-yaml  # tests/schemas: shipped YAML files read for the JSON Schemas
  shellcheck openssh-server openssh-client
  libicu72  # the SARIF validator (a .NET program) run by hand; the tests run it culture-invariant
  chromium  # headless, loads the fleet dashboard in the tests
  slurmctld slurmd slurm-client munge  # a one-node Slurm cluster on loopback for the fleet tests
  clang libclang-rt-14-dev  # the fuzz targets (cmake --preset fuzz): clang 14 and its libFuzzer
)
# Used by scripts/package.sh (CPack's shlibdeps needs dpkg-shlibdeps and file; lintian checks the
# packages) and scripts/package-test.sh (a fresh Debian 12 root to install them in).
packaging_packages=(dpkg-dev file lintian debootstrap)
# Microsoft's SARIF validator from npm, for the SARIF tests: pinned, into a git-ignored prefix of
# this checkout, where cmake/MigrateSarifValidator.cmake looks for it.
sarif_version=5.7.0
sarif_prefix="$(cd "$(dirname "$0")/.." && pwd)/.tools/sarif-multitool"

install_sarif_validator() {
  local package="$sarif_prefix/node_modules/@microsoft"
  local installed=""
  if [[ -f "$package/sarif-multitool-linux/package.json" && -x "$package/sarif-multitool-linux/Sarif.Multitool" ]]; then
    installed=$(node -p "require('$package/sarif-multitool-linux/package.json').version" 2>/dev/null || true)
  fi
  if [[ "$installed" == "$sarif_version" ]]; then
    echo "setup: sarif-multitool $sarif_version present"
    return
  fi
  echo "setup: installing @microsoft/sarif-multitool@$sarif_version into $sarif_prefix"
  mkdir -p "$sarif_prefix"
  # The platform package named explicitly, so the wrapper's "^5.7.0" cannot pull a newer binary.
  npm install --prefix "$sarif_prefix" --no-audit --no-fund --loglevel=error \
    "@microsoft/sarif-multitool@$sarif_version" "@microsoft/sarif-multitool-linux@$sarif_version"
  # Its postinstall only sets this bit; npm may be configured not to run install scripts.
  chmod u+x "$package/sarif-multitool-linux/Sarif.Multitool"
}

with_tests=0 with_packaging=0
for arg in "$@"; do
  case "$arg" in
    --with-tests) with_tests=1 ;;
    --with-packaging) with_packaging=1 ;;
    *) echo "usage: scripts/setup.sh [--with-tests] [--with-packaging]" >&2; exit 2 ;;
  esac
done

want=("${build_packages[@]}")
# npm fetches the tree-sitter grammar sources; Debian's package only when no npm is installed
# (a Node.js from elsewhere conflicts with it).
command -v npm >/dev/null 2>&1 || want+=(npm)
if ((with_tests)); then
  want+=("${test_packages[@]}")
fi
if ((with_packaging)); then
  want+=("${packaging_packages[@]}")
fi

missing=()
for p in "${want[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#want[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ((with_tests)); then
  install_sarif_validator
fi

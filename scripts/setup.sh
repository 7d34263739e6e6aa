#!/usr/bin/env bash
# Installs everything migrate-pipeline needs to build, run and test on Debian 12.
# Idempotent: when every package is already installed it only checks and returns.
set -euo pipefail

build_packages=(
  cmake g++ ninja-build pkg-config git ca-certificates clang-format
  libboost1.81-dev libboost-filesystem1.81-dev
  libgit2-dev libyaml-cpp-dev libtree-sitter-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev
)
# Used by the test suite and by the generated verification scripts.
test_packages=(
  python3 python3-torch python3-numpy python3-pyflakes python3-jsonschema python3-packaging
  shellcheck openssh-server openssh-client
)

want=("${build_packages[@]}")
# npm fetches the tree-sitter grammar sources; Debian's package only when no npm is installed
# (a Node.js from elsewhere conflicts with it).
command -v npm >/dev/null 2>&1 || want+=(npm)
if [[ "${1:-}" == "--with-tests" ]]; then
  want+=("${test_packages[@]}")
fi

missing=()
for p in "${want[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#want[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

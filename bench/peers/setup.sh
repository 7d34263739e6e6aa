#!/usr/bin/env bash
# Installs the peers that bench/peers.sh measures against, outside the repository; idempotent:
#   - ripgrep from the distribution (apt-get), only when `rg` is missing; sudo when not root;
#   - ast-grep, the npm package @ast-grep/cli at a pinned version, into
#     ${XDG_CACHE_HOME:-~/.cache}/migrate-pipeline-bench (PEERS_PREFIX moves it), skipped when
#     that version is already there.
# Prints where each tool is. bench/peers.sh finds ast-grep in the same place.
#   bench/peers/setup.sh
set -euo pipefail
ast_grep_version="0.51.1"
prefix="${PEERS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/migrate-pipeline-bench}"

die() { echo "peers setup: $*" >&2; exit 1; }
[[ $# -eq 0 ]] || { sed -n '8p' "$0" | sed 's/^# *//' >&2; exit 2; }

if ! command -v rg >/dev/null; then
  sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null || die "ripgrep is missing and installing it needs root (or sudo)"
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null || die "ripgrep is missing and there is no apt-get: install ripgrep by hand"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq ripgrep >/dev/null
fi

installed=""
if [[ -f "$prefix/node_modules/@ast-grep/cli/package.json" ]]; then
  installed="$(node -p 'require(process.argv[1]).version' "$prefix/node_modules/@ast-grep/cli/package.json")"
fi
if [[ "$installed" != "$ast_grep_version" ]]; then
  command -v npm >/dev/null || die "npm is missing: install Node.js and npm first"
  mkdir -p "$prefix"
  [[ -f "$prefix/package.json" ]] || echo '{"private": true}' >"$prefix/package.json"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error --save-exact \
    "@ast-grep/cli@$ast_grep_version" >/dev/null
fi
sg_bin="$prefix/node_modules/.bin/ast-grep"
[[ -x "$sg_bin" ]] || die "no ast-grep at $sg_bin after npm install"

echo "ripgrep: $(command -v rg) ($(rg --version | head -n 1))"
echo "ast-grep: $sg_bin ($("$sg_bin" --version))"

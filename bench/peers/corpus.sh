#!/usr/bin/env bash
# Checks out the public PyTorch repositories listed in bench/peers/corpus.csv (name,url,sha; each
# pinned by its full commit) into DIR/<name>, one shallow fetch of the pinned commit each, no
# submodules. Idempotent: a repository already at its pinned commit is left as it is; anything
# else in DIR/<name> is replaced. The corpus is a scratch tree for bench/peers.sh: never commit it.
#   bench/peers/corpus.sh DIR
# CORPUS_MIRROR, when set, is where to read each repository from instead of its url: a template in
# which {owner} and {name} are replaced by the url's owner and repository name, naming a local bare
# git directory. Its files are then written without a .git directory, and a mirror that keeps its
# largest files absent is tolerated: they are listed as skipped (the benchmark reads source files).
# DIR/.<name>.commit records the commit each checkout is at.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
csv="$here/corpus.csv"

die() { echo "corpus: $*" >&2; exit 1; }
[[ $# -eq 1 && "$1" != -* ]] || { sed -n '6p' "$0" | sed 's/^# *//' >&2; exit 2; }
dir="$1"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# Plain git, isolated from this machine's configuration.
g() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c advice.detachedHead=false "$@"; }

source_of() {   # source_of URL: where to fetch that repository from
  local url="$1" path owner name src
  [[ -n "${CORPUS_MIRROR:-}" ]] || { echo "$url"; return; }
  path="${url#*://*/}"
  path="${path%.git}"
  owner="${path%%/*}"
  name="${path#*/}"
  src="${CORPUS_MIRROR//\{owner\}/$owner}"
  echo "${src//\{name\}/$name}"
}

# From a local bare mirror: the commit's files, written through a scratch index; files the mirror
# lacks are skipped and named.
from_mirror() {   # from_mirror SRC SHA DEST
  local src="$1" sha="$2" dest="$3" index absent
  g --git-dir="$src" cat-file -e "$sha^{commit}" 2>/dev/null || die "$src has no commit $sha"
  index="$(mktemp)"
  rm -f "$index"
  mkdir -p "$dest"
  GIT_INDEX_FILE="$index" g --git-dir="$src" read-tree "$sha"
  GIT_INDEX_FILE="$index" g --git-dir="$src" --work-tree="$dest" checkout-index -a -f 2>/dev/null || true
  rm -f "$index"
  absent="$(g --git-dir="$src" ls-tree -r "$sha" | awk '$2 == "blob" {print $3}' |
    g --git-dir="$src" cat-file --batch-check | awk '$2 == "missing" {print $1}')"
  if [[ -n "$absent" ]]; then
    echo "corpus:   absent from the mirror, skipped: $(g --git-dir="$src" ls-tree -r "$sha" |
      grep -F -f <(echo "$absent") | cut -f2 | paste -sd' ')"
  fi
}

# From the repository's url: a shallow fetch of the pinned commit (a full fetch where the server
# refuses a bare commit), then a detached checkout.
from_url() {   # from_url URL SHA DEST
  local url="$1" sha="$2" dest="$3"
  g init -q "$dest"
  if ! g -C "$dest" fetch -q --depth 1 "$url" "$sha" 2>/dev/null; then
    g -C "$dest" fetch -q "$url" || die "cannot fetch $url"
  fi
  g -C "$dest" checkout -q --detach "$sha" || die "$url has no commit $sha"
}

fetched=0 kept=0
while IFS=, read -r name url sha; do
  [[ "$name" == name || -z "$name" ]] && continue
  [[ "$sha" =~ ^[0-9a-f]{40}$ ]] || die "$name: pin a full 40-hex commit, not '$sha'"
  dest="$dir/$name"
  stamp="$dir/.$name.commit"
  if [[ -d "$dest" && -f "$stamp" && "$(cat "$stamp")" == "$sha" ]]; then
    kept=$((kept + 1))
    continue
  fi
  rm -rf "$dest" "$stamp"
  src="$(source_of "$url")"
  echo "corpus: $name at ${sha:0:12} from $src"
  if [[ -n "${CORPUS_MIRROR:-}" ]]; then from_mirror "$src" "$sha" "$dest"; else from_url "$src" "$sha" "$dest"; fi
  echo "$sha" >"$stamp"
  fetched=$((fetched + 1))
done <"$csv"

python_files="$(find "$dir" -name .git -prune -o -type f -name '*.py' -print | wc -l)"
all_files="$(find "$dir" -name .git -prune -o -type f -print | wc -l)"
python_bytes="$(find "$dir" -name .git -prune -o -type f -name '*.py' -print0 | du -cb --files0-from=- | tail -n 1 | cut -f1)"
echo "corpus: $fetched fetched, $kept already at their commit; $all_files files, $python_files Python files" \
  "($(awk -v b="$python_bytes" 'BEGIN {printf "%.1f", b / 1048576}') MB) in $dir"

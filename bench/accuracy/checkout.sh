#!/usr/bin/env bash
# Check out every repository of bench/accuracy/repos.csv at its pinned commit into DIR/<name>.
#
#   bench/accuracy/checkout.sh DIR
#
# Idempotent: a checkout whose HEAD is already the pinned SHA is left alone; an existing
# checkout at another commit is fetched and moved to the pinned SHA; anything else is cloned.
# Only the pinned commit is fetched (shallow) when the server allows it, the whole history
# otherwise.
#
# ACCURACY_MIRROR: optional template of a local mirror to clone from instead of the URL, with
# {owner} and {name} replaced from the URL, e.g. ACCURACY_MIRROR=/srv/mirrors/{owner}+{name}/repo
set -euo pipefail

if [[ $# -ne 1 || $1 == -h || $1 == --help ]]; then
    echo "usage: $0 DIR   (checks out every repository of repos.csv at its pinned SHA into DIR/<name>)" >&2
    exit 2
fi
dest=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$dest"

# repos.csv read with python's csv module: one "name url sha" line per repository
rows=$(python3 - "$here/repos.csv" <<'EOF'
import csv, sys
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        print(row["name"], row["url"], row["sha"])
EOF
)

failed=0
while read -r name url sha; do
    target="$dest/$name"
    source=$url
    if [[ -n ${ACCURACY_MIRROR:-} ]]; then
        path=${url#https://github.com/}
        owner=${path%%/*}
        repo=${path#*/}
        source=${ACCURACY_MIRROR//\{owner\}/$owner}
        source=${source//\{name\}/$repo}
    fi
    if [[ -d $target/.git ]] && [[ $(git -C "$target" rev-parse HEAD 2>/dev/null) == "$sha" ]]; then
        echo "$name: already at ${sha:0:12}"
        continue
    fi
    echo "$name: checking out ${sha:0:12} from $source"
    if [[ ! -d $target/.git ]]; then
        git init -q "$target"
        git -C "$target" remote add origin "$source"
    fi
    if ! git -C "$target" fetch -q --depth 1 origin "$sha" 2>/dev/null; then
        git -C "$target" fetch -q origin || { echo "$name: fetch failed" >&2; failed=1; continue; }
    fi
    if ! git -C "$target" -c advice.detachedHead=false checkout -q --force "$sha"; then
        echo "$name: checkout of $sha failed" >&2
        failed=1
    fi
done <<< "$rows"
exit $failed

#!/usr/bin/env python3
"""Proves the test suite leaves the project's source tree as it found it.

  source_tree_digest.py save SRC STATE    records the SHA-256 of every file under SRC in STATE
  source_tree_digest.py check SRC STATE   compares SRC with STATE; lists every file added,
                                          removed or changed and exits 1 when there is one

CTest runs `save` before the first test and `check` after the last (a fixture). The tests run the
tool on the bundled example and fixtures in this tree, so this also proves that the source
repository of a run is never modified. Left out: .git, the build directories (build*), .tools
(installed tools) and the outputs of `scripts/run-example.sh` at the top (out/,
CodeReview_Results_*.md), which are not sources.
"""
import hashlib
import json
import os
import sys


def skipped_at_top(name):
    return (name in (".git", ".tools", "out") or name.startswith("build")
            or (name.startswith("CodeReview_Results_") and name.endswith(".md")))


def digest(root):
    files = {}
    for here, dirs, names in os.walk(root):
        rel_here = os.path.relpath(here, root)
        if rel_here == ".":
            dirs[:] = [d for d in dirs if not skipped_at_top(d)]
            names = [n for n in names if not skipped_at_top(n)]
        for name in names + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            path = os.path.join(here, name)
            rel = os.path.normpath(os.path.join(rel_here, name))
            if os.path.islink(path):
                files[rel] = "link:" + os.readlink(path)
                continue
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            files[rel] = h.hexdigest()
        dirs.sort()
    return files


def main(argv):
    if len(argv) != 4 or argv[1] not in ("save", "check"):
        sys.stderr.write(__doc__)
        return 2
    mode, root, state = argv[1:]
    now = digest(root)
    if mode == "save":
        with open(state, "w", encoding="utf-8") as f:
            json.dump(now, f, indent=0, sort_keys=True)
        print(f"source tree: {len(now)} files recorded")
        return 0
    try:
        with open(state, encoding="utf-8") as f:
            before = json.load(f)
    except OSError as e:
        print(f"source tree: no record to compare with ({e}); run the suite through ctest")
        return 1
    changes = [f"added    {p}" for p in sorted(now.keys() - before.keys())]
    changes += [f"removed  {p}" for p in sorted(before.keys() - now.keys())]
    changes += [f"changed  {p}" for p in sorted(now.keys() & before.keys()) if now[p] != before[p]]
    if changes:
        print(f"source tree: {len(changes)} files differ after the tests:")
        print("\n".join(changes))
        return 1
    print(f"source tree: {len(now)} files, byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

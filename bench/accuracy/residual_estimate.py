#!/usr/bin/env python3
"""What a residual pass would add (issue 30, mechanism 4), measured before building it.

The residual pass would report, as a low-confidence "check this" finding, every code token naming
a CUDA/NVIDIA technology (an identifier, or a string passed as an argument or assigned) on a line
no rule reported. This script counts such lines in the labelled Python files by label, from the
findings of an earlier scoring run, so the trade is visible: must lines it would add to recall
against trap and unlisted lines it would add as noise.

Usage:
    bench/accuracy/residual_estimate.py CHECKOUTS_DIR FINDINGS_DIR [--split dev|holdout]

FINDINGS_DIR is the --keep directory of score.py (FINDINGS_DIR/<repo>/findings.json).
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import re
import tokenize
from pathlib import Path

HERE = Path(__file__).resolve().parent
TECH = re.compile(r"(?i)(cuda|cudnn|cublas|nccl|nvidia|nvml|nvtx|nvcc|cutlass|cupy|tensorrt|nvfuser)")


def candidate_lines(source: str) -> set[int]:
    """Lines holding an identifier naming a CUDA technology, or such a string right after `(`, `,`
    or `=` (an argument or an assigned value; docstrings and comments are not)."""
    lines: set[int] = set()
    prev = None
    try:
        for t in tokenize.generate_tokens(io.StringIO(source).readline):
            if t.type == tokenize.NAME and TECH.search(t.string):
                lines.add(t.start[0])
            elif t.type == tokenize.STRING and TECH.search(t.string) and prev is not None and prev.string in "(,=":
                lines.add(t.start[0])
            if t.type not in (tokenize.NL, tokenize.COMMENT):
                prev = t
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", type=Path)
    ap.add_argument("findings", type=Path)
    ap.add_argument("--split", choices=("dev", "holdout"))
    args = ap.parse_args()
    split = {r["name"]: r["split"] for r in csv.DictReader(open(HERE / "repos.csv", newline=""))}
    labels: dict[tuple[str, str], dict[int, str]] = collections.defaultdict(dict)
    for label_file in sorted((HERE / "labels").glob("*.csv")):
        for lab in csv.DictReader(open(label_file, newline="")):
            labels[(lab["repo"], lab["path"])][int(lab["line"])] = lab["label"]
    counts: collections.Counter[str] = collections.Counter()
    for f in csv.DictReader(open(HERE / "files.csv", newline="")):
        repo, path = f["repo"], f["path"]
        if (args.split and split.get(repo) != args.split) or not path.endswith(".py"):
            continue
        found = args.findings / repo / "findings.json"
        if not found.is_file():
            continue
        covered: set[int] = set()
        for finding in json.loads(found.read_text(encoding="utf-8"))["findings"]:
            if finding["file"] == path:
                covered.update(range(finding["line"], finding.get("end_line", finding["line"]) + 1))
        source = (args.checkouts / repo / path).read_text(encoding="utf-8", errors="replace")
        for line in candidate_lines(source) - covered:
            counts[labels[(repo, path)].get(line, "unlisted")] += 1
    noise = counts["trap"] + counts["unlisted"]
    print(f"lines a residual pass would add ({args.split or 'all'}): must {counts['must']}, "
          f"neutral {counts['neutral']}, trap {counts['trap']}, unlisted {counts['unlisted']} "
          f"(noise {noise})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

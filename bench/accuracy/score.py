#!/usr/bin/env python3
"""Score migrate-pipeline's analysis against the labelled lines of bench/accuracy/.

Usage:
    bench/accuracy/score.py CHECKOUTS_DIR [--cli PATH] [--pipeline PATH] [--keep OUT]
                            [--findings-dir DIR] [--repo NAME ...] [--jobs N] [--json FILE]

CHECKOUTS_DIR holds one checkout per row of repos.csv, named by its `name` column
(bench/accuracy/checkout.sh DIR makes them). The tool is run on each whole checkout; its
findings are mapped to the labels of labels/*.csv (see README.md for the rules) and recall and
precision are printed overall and per domain, followed by the misses and false positives.

Python 3 standard library only. Exit status: 0 whenever a score was printed (misses, false
positives, drifted labels and failed tool runs are reported, not fatal); 2 when the input is
broken (missing or malformed CSV files, no checkout directory, no usable CLI).
"""

from __future__ import annotations

import argparse
import collections
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
DOMAINS = ("deps", "device", "attention", "custom_ops", "distributed", "precision")
LABELS = ("must", "trap", "neutral")


def line_hash(text: str) -> str:
    """First 12 hex digits of sha1 of the line with surrounding whitespace stripped."""
    return hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:12]


def fail(message: str) -> None:
    print(f"score.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    if not path.is_file():
        fail(f"{path} not found")
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            fail(f"{path}: missing column(s) {', '.join(missing)}")
        rows = list(reader)
    return rows


SPLITS = ("dev", "holdout")


def read_labels() -> tuple[list[dict[str, str]], list[str]]:
    """The labelled lines, one file per repository (labels/NAME.csv, NAME in repos.csv), and where
    each row stands (`labels/NAME.csv:LINE`) for the messages."""
    labels: list[dict[str, str]] = []
    where: list[str] = []
    paths = sorted((HERE / "labels").glob("*.csv"))
    if not paths:
        fail(f"{HERE / 'labels'}: no label files")
    for path in paths:
        rows = read_csv(path, ("repo", "path", "line", "label", "domain", "line_sha1", "note"))
        for i, row in enumerate(rows, start=2):
            if row["repo"] != path.stem:
                fail(f"labels/{path.name}:{i}: repository {row['repo']!r} belongs in labels/{row['repo']}.csv")
            labels.append(row)
            where.append(f"labels/{path.name}:{i}")
    return labels, where


def load_inputs(repo_filter: list[str] | None, split_filter: str | None):
    repos = read_csv(HERE / "repos.csv", ("name", "url", "sha", "split"))
    labels, where_of = read_labels()
    files = read_csv(HERE / "files.csv", ("repo", "path"))
    names = {r["name"] for r in repos}
    for i, row in enumerate(repos, start=2):
        if row["split"] not in SPLITS:
            fail(f"repos.csv:{i}: split {row['split']!r} is not one of {', '.join(SPLITS)}")
    for i, row in enumerate(files, start=2):
        if row["repo"] not in names:
            fail(f"files.csv:{i}: repository {row['repo']!r} is not in repos.csv")
    whole_files = {(f["repo"], f["path"]) for f in files}
    seen = set()
    for row, where in zip(labels, where_of):
        if row["repo"] not in names:
            fail(f"{where}: repository {row['repo']!r} is not in repos.csv")
        if row["label"] not in LABELS:
            fail(f"{where}: label {row['label']!r} is not one of {', '.join(LABELS)}")
        if row["domain"] not in DOMAINS:
            fail(f"{where}: domain {row['domain']!r} is not one of {', '.join(DOMAINS)}")
        try:
            row["line"] = int(row["line"])
        except ValueError:
            fail(f"{where}: line {row['line']!r} is not a number")
        if (row["repo"], row["path"]) not in whole_files:
            fail(f"{where}: {row['repo']}:{row['path']} is not listed in files.csv (label whole files)")
        key = (row["repo"], row["path"], row["line"])
        if key in seen:
            fail(f"{where}: {row['repo']}:{row['path']}:{row['line']} is labelled twice")
        seen.add(key)
    if repo_filter:
        unknown = set(repo_filter) - names
        if unknown:
            fail(f"--repo: unknown repository {', '.join(sorted(unknown))}")
        repos = [r for r in repos if r["name"] in repo_filter]
    if split_filter:
        repos = [r for r in repos if r["split"] == split_filter]
    kept = {r["name"] for r in repos}
    split_of = {r["name"]: r["split"] for r in repos}
    labels = [l for l in labels if l["repo"] in kept]
    for l in labels:
        l["split"] = split_of[l["repo"]]
    whole_files = {f for f in whole_files if f[0] in kept}
    return repos, labels, whole_files


def git_head(path: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"],
                             capture_output=True, text=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def check_drift(checkouts: Path, repos, labels):
    """Returns (scorable labels, drift messages, repos whose checkout is missing)."""
    problems = []
    missing_repos = set()
    for r in repos:
        path = checkouts / r["name"]
        if not path.is_dir():
            missing_repos.add(r["name"])
            problems.append(f"{r['name']}: no checkout at {path} (run checkout.sh)")
            continue
        head = git_head(path)
        if head is not None and head != r["sha"]:
            problems.append(f"{r['name']}: checkout is at {head[:12]}, labels are for "
                            f"{r['sha'][:12]} (line hashes decide which labels still apply)")
    file_cache: dict[tuple[str, str], list[str] | None] = {}
    ok = []
    for lab in labels:
        if lab["repo"] in missing_repos:
            continue
        key = (lab["repo"], lab["path"])
        if key not in file_cache:
            p = checkouts / lab["repo"] / lab["path"]
            try:
                file_cache[key] = p.read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                file_cache[key] = None
        lines = file_cache[key]
        where = f"{lab['repo']}:{lab['path']}:{lab['line']}"
        if lines is None:
            problems.append(f"DRIFT {where}: file missing")
            continue
        n = lab["line"]
        actual = line_hash(lines[n - 1]) if 1 <= n <= len(lines) else None
        if actual == lab["line_sha1"]:
            ok.append(lab)
            continue
        moved = [i + 1 for i, t in enumerate(lines) if line_hash(t) == lab["line_sha1"]]
        hint = f"; the labelled text is now at line(s) {', '.join(map(str, moved[:5]))}" if moved else ""
        problems.append(f"DRIFT {where}: line hash {actual} != labelled {lab['line_sha1']} "
                        f"({lab['label']}, {lab['note']}){hint}")
    return ok, problems


def run_tool(cli: str, pipeline: str, source: Path, out: Path, jobs: int | None):
    if out.exists():
        shutil.rmtree(out)
    cmd = [cli, "run", pipeline, "--source", str(source), "--output", str(out), "-q"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="accuracy-cwd-") as cwd:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    return proc, seconds


def load_findings(path: Path):
    with path.open(encoding="utf-8") as f:
        data = json.load(f)
    return data.get("findings", [])


def pct(num: int, den: int) -> str:
    return f"{100.0 * num / den:6.1f}%" if den else "     -"


def score(labels, whole_files, findings_by_repo):
    """Maps findings to labels. Returns a dict with per-line outcomes."""
    by_file = {f: {} for f in whole_files}
    for lab in labels:
        by_file[(lab["repo"], lab["path"])][lab["line"]] = lab
    must_hits = collections.defaultdict(set)   # (repo, path, line) -> {(domain, rule)}
    fp_lines = collections.defaultdict(set)    # (repo, path, line) -> {(domain, rule)}
    neutral_hits = collections.defaultdict(set)
    for repo, findings in findings_by_repo.items():
        for f in findings:
            key = (repo, f.get("file", ""))
            file_labels = by_file.get(key)
            if file_labels is None:
                continue  # not a labelled file
            start = int(f.get("line") or 0)
            end = int(f.get("end_line") or start)
            if end < start:
                end = start
            tag = (f.get("domain", "?"), f.get("rule_id", "?"))
            covered = [file_labels.get(n) for n in range(start, end + 1)]
            musts = [l for l in covered if l is not None and l["label"] == "must"]
            if musts:
                for l in musts:
                    must_hits[(repo, l["path"], l["line"])].add(tag)
            elif any(l is not None and l["label"] == "neutral" for l in covered):
                for l in covered:
                    if l is not None and l["label"] == "neutral":
                        neutral_hits[(repo, l["path"], l["line"])].add(tag)
                        break
            else:
                fp_lines[(repo, f.get("file", ""), start)].add(tag)
    return by_file, must_hits, fp_lines, neutral_hits


def domain_table(musts, must_hits, fp_lines):
    """One row per domain and a last row "all": must, found, recall, hit and noise lines, precision."""
    rows = []
    for dom in DOMAINS + ("all",):
        dm = [l for l in musts if dom == "all" or l["domain"] == dom]
        found = [l for l in dm if (l["repo"], l["path"], l["line"]) in must_hits]
        if dom == "all":
            tp, fp = len(must_hits), len(fp_lines)
        else:
            tp = sum(1 for tags in must_hits.values() if any(d == dom for d, _ in tags))
            fp = sum(1 for tags in fp_lines.values() if any(d == dom for d, _ in tags))
        rows.append(dict(domain=dom, must=len(dm), found=len(found), tp_lines=tp, fp_lines=fp,
                         recall=(len(found) / len(dm)) if dm else None,
                         precision=(tp / (tp + fp)) if tp + fp else None))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkouts", type=Path, help="directory with one checkout per repos.csv row")
    ap.add_argument("--cli", default=os.environ.get("MIGRATE_CLI",
                                                    str(REPO_ROOT / "build/bin/migrate-pipeline")),
                    help="migrate-pipeline binary (default: $MIGRATE_CLI, as for run_bench.sh, "
                         "or build/bin/migrate-pipeline)")
    ap.add_argument("--pipeline", default=str(REPO_ROOT / "pipelines/analyze-only.yaml"),
                    help="pipeline file (default: pipelines/analyze-only.yaml)")
    ap.add_argument("--keep", type=Path, help="keep each run's output in KEEP/<name>/")
    ap.add_argument("--findings-dir", type=Path,
                    help="do not run the tool; read DIR/<name>/findings.json from an earlier --keep")
    ap.add_argument("--repo", action="append", help="score only this repository (repeatable)")
    ap.add_argument("--split", choices=SPLITS, help="score only the dev or the holdout repositories")
    ap.add_argument("--jobs", type=int, help="passed to the tool as --jobs")
    ap.add_argument("--json", type=Path, help="also write the figures and lists as JSON here")
    ap.add_argument("--max-list", type=int, default=0,
                    help="print at most N misses and N false positives (default: all)")
    args = ap.parse_args()

    if not args.checkouts.is_dir():
        fail(f"{args.checkouts} is not a directory")
    repos, labels, whole_files = load_inputs(args.repo, args.split)
    if not args.findings_dir:
        if not (shutil.which(args.cli) or os.access(args.cli, os.X_OK)):
            fail(f"no executable migrate-pipeline at {args.cli} (use --cli PATH)")
        if os.sep in args.cli:  # the tool runs in other directories: a relative path would not hold
            args.cli = os.path.abspath(args.cli)
        if not Path(args.pipeline).is_file():
            fail(f"pipeline {args.pipeline} not found (use --pipeline PATH)")

    scorable, drift = check_drift(args.checkouts, repos, labels)
    labelled_repos = {l["repo"] for l in labels}

    findings_by_repo = {}
    failed = []
    timings = []
    tmp_root = None
    out_root = args.keep
    if not args.findings_dir and out_root is None:
        tmp_root = tempfile.mkdtemp(prefix="accuracy-out-")
        out_root = Path(tmp_root)
    try:
        for r in repos:
            name = r["name"]
            src = args.checkouts / name
            if not src.is_dir() or name not in labelled_repos:
                continue
            if args.findings_dir:
                fj = args.findings_dir / name / "findings.json"
                if not fj.is_file():
                    failed.append(f"{name}: {fj} not found")
                    continue
            else:
                out = out_root / name
                proc, seconds = run_tool(args.cli, args.pipeline, src, out, args.jobs)
                timings.append((name, seconds))
                fj = out / "findings.json"
                if proc.returncode != 0 or not fj.is_file():
                    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
                    failed.append(f"{name}: exit {proc.returncode}: {' | '.join(tail)}")
                    continue
            try:
                findings_by_repo[name] = load_findings(fj)
            except (OSError, ValueError) as e:
                failed.append(f"{name}: cannot read {fj}: {e}")
    finally:
        if tmp_root:
            shutil.rmtree(tmp_root, ignore_errors=True)

    scored = [l for l in scorable if l["repo"] in findings_by_repo]
    scored_files = {f for f in whole_files if f[0] in findings_by_repo}
    by_file, must_hits, fp_lines, neutral_hits = score(scored, scored_files, findings_by_repo)
    split_of = {r["name"]: r["split"] for r in repos}
    musts = [l for l in scored if l["label"] == "must"]

    n_files = len(by_file)
    print(f"labelled set: {len(labels)} labels in {len(whole_files)} whole files "
          f"of {len({r['name'] for r in repos})} repositories; scored {len(scored)} labels "
          f"({len(musts)} must, {sum(l['label'] == 'trap' for l in scored)} trap, "
          f"{sum(l['label'] == 'neutral' for l in scored)} neutral) in {n_files} files")
    if timings:
        total = sum(s for _, s in timings)
        print(f"tool runs: {len(timings)} in {total:.1f} s ("
              + ", ".join(f"{n} {s:.1f}s" for n, s in timings) + ")")
    print()
    print("recall = must lines covered by a finding of any domain / must lines (per label domain)")
    print("precision = must lines hit / (must lines hit + trap-or-unlisted lines hit), counted in lines "
          "(per finding domain)")
    tables = {}
    for split in SPLITS + ("all",):
        in_split = [r for r in repos if split == "all" or r["split"] == split]
        if not in_split or (split == "all" and len({r["split"] for r in repos}) < 2):
            continue
        names = {r["name"] for r in in_split}
        files = sum(1 for f in by_file if f[0] in names)
        rows = domain_table([l for l in musts if l["repo"] in names],
                            {k: v for k, v in must_hits.items() if k[0] in names},
                            {k: v for k, v in fp_lines.items() if k[0] in names})
        tables[split] = rows
        print()
        print(f"{split.upper()}: {len(names)} repositories, {files} files")
        print(f"{'domain':<12} {'must':>5} {'found':>6} {'recall':>8}   {'hit':>5} {'noise':>6} {'precision':>9}")
        for row in rows:
            rec = pct(row["found"], row["must"])
            prec = pct(row["tp_lines"], row["tp_lines"] + row["fp_lines"])
            print(f"{row['domain']:<12} {row['must']:>5} {row['found']:>6} {rec:>8}   "
                  f"{row['tp_lines']:>5} {row['fp_lines']:>6} {prec:>9}")

    def limit(items):
        return items if not args.max_list else items[: args.max_list]

    misses = [l for l in musts if (l["repo"], l["path"], l["line"]) not in must_hits]
    cross = [l for l in musts if (l["repo"], l["path"], l["line"]) in must_hits
             and all(d != l["domain"] for d, _ in must_hits[(l["repo"], l["path"], l["line"])])]
    print()
    print(f"MISSES ({len(misses)} must lines without a finding)")
    for l in limit(sorted(misses, key=lambda l: (l["split"], l["domain"], l["repo"], l["path"], l["line"]))):
        print(f"  {l['split']:<7} [{l['domain']}] {l['repo']}:{l['path']}:{l['line']}  {l['note']}")
    if cross:
        print()
        print(f"found only by another domain's finding ({len(cross)}; counted as found)")
        for l in limit(cross):
            doms = ",".join(sorted({f'{d}/{r}' for d, r in must_hits[(l['repo'], l['path'], l['line'])]}))
            print(f"  [{l['domain']}] {l['repo']}:{l['path']}:{l['line']}  by {doms}")

    fps = []
    for (repo, path, line), tags in sorted(fp_lines.items()):
        lab = by_file[(repo, path)].get(line)
        fps.append(dict(repo=repo, path=path, line=line,
                        rules=sorted(f"{r}({d})" for d, r in tags),
                        label=lab["label"] if lab else "unlisted",
                        note=lab["note"] if lab else ""))
    print()
    print(f"FALSE POSITIVES ({len(fps)} trap or unlisted lines with a finding)")
    for fp in limit(fps):
        text = ""
        try:
            src_lines = (args.checkouts / fp["repo"] / fp["path"]).read_text(
                encoding="utf-8", errors="replace").split("\n")
            text = src_lines[fp["line"] - 1].strip()[:80]
        except (OSError, IndexError):
            pass
        desc = fp["note"] if fp["label"] == "trap" else text
        print(f"  {split_of[fp['repo']]:<7} {fp['repo']}:{fp['path']}:{fp['line']}  "
              f"{' '.join(fp['rules'])}  [{fp['label']}] {desc}")
    by_rule = collections.Counter(r for fp in fps for r in fp["rules"])
    if by_rule:
        print()
        print("false positives by rule: " + ", ".join(f"{r} {n}" for r, n in by_rule.most_common()))
    print(f"findings on neutral lines (not scored): {len(neutral_hits)} lines")

    if drift or failed:
        print()
        print(f"PROBLEMS ({len(drift)} drift, {len(failed)} failed runs): these labels were not scored")
        for p in drift + failed:
            print(f"  {p}")

    if args.json:
        args.json.write_text(json.dumps(dict(
            splits={k: dict(domains=v[:-1], total=v[-1]) for k, v in tables.items()},
            misses=[{k: l[k] for k in ("repo", "path", "line", "domain", "note")} for l in misses],
            false_positives=fps, drift=drift, failed_runs=failed,
            timings=dict(timings)), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

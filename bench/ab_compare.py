"""`python -m bench.ab_compare --base REV [--rounds 5]`: the critical path of this tree against REV's,
measured alternately in one run, so a busy machine's load falls on both alike.

REV is checked out into a temporary git worktree. Each round runs one child process per tree (the
order alternates between rounds); a child warms up, then runs every case once and prints its
figures as JSON. The report is the median over rounds of new / old, per case: the wall time, the
measured / ideal ratio, each phase's overhead, and the CPU seconds the child spent on the run
(steadier than the wall time on a loaded machine). A ratio below 1 means this tree is faster.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import REPO_ROOT, clean_environ, log, median

CASES = ("111", "333")
# The child: what one tree measures, one run per case (the code of that tree's bench).
_CHILD = """
import json, sys, time
from bench.harness import isolate_environment, BenchContext
isolate_environment()
from bench.critical_path import critical_path
from bench.loopback import LoopbackWorld
from bench.phases import phase_costs, phase_cpu
model, search = float(sys.argv[1]), float(sys.argv[2])
ctx = BenchContext(quick=True)
out = {}
try:
    with LoopbackWorld(ctx.scratch("ab"), ctx.log_dir, model, search) as world:
        world.run("111", max_iterations=0)
        for allocation in sys.argv[3:]:
            cap = 9 if allocation == "333" else 3
            cpu = time.process_time()
            run = world.run(allocation, max_iterations=1, max_researchers=cap)
            cpu = time.process_time() - cpu
            path = critical_path(run.events, model, search)
            case = {"wall": run.wall_seconds, "ideal": path.seconds, "status": run.status, "cpu": cpu}
            rows = phase_costs(run.events, run.started_at, run.ended_at, [r["researchers"] for r in path.rounds], model)
            case["phases"] = {r.phase: r.overhead for r in rows}
            case["phase_cpu"] = phase_cpu(run.events, run.cpu_at, run.cpu_started, run.cpu_ended)
            out[allocation] = case
finally:
    ctx.cleanup()
print(json.dumps(out))
"""


def run_child(tree: Path, code: str, args: list[str], timeout: float) -> Any:
    """Runs `code` with `tree`'s packages first on the path and returns the JSON its last line prints."""
    env = clean_environ()
    env["PYTHONPATH"] = str(tree)
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _child(tree: Path, model: float, search: float, cases: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = run_child(tree, _CHILD, [str(model), str(search), *cases], timeout=600)
    return result


def _ratios(old: list[dict[str, Any]], new: list[dict[str, Any]], case: str) -> dict[str, Any]:
    pairs = list(zip(old, new, strict=True))
    out: dict[str, Any] = {
        "old_wall_s": round(median([o[case]["wall"] for o in old]), 3),
        "new_wall_s": round(median([n[case]["wall"] for n in new]), 3),
        "wall_new_over_old": round(median([n[case]["wall"] / o[case]["wall"] for o, n in pairs]), 3),
        "old_ratio": round(median([o[case]["wall"] / o[case]["ideal"] for o in old]), 3),
        "new_ratio": round(median([n[case]["wall"] / n[case]["ideal"] for n in new]), 3),
        "ideal_old_s": round(median([o[case]["ideal"] for o in old]), 3),
        "ideal_new_s": round(median([n[case]["ideal"] for n in new]), 3),
    }
    if all("cpu" in r[case] for r in old + new):  # the process's CPU seconds over the run: steadier under load
        out["old_cpu_s"] = round(median([o[case]["cpu"] for o in old]), 3)
        out["new_cpu_s"] = round(median([n[case]["cpu"] for n in new]), 3)
        out["cpu_new_over_old"] = round(median([n[case]["cpu"] / o[case]["cpu"] for o, n in pairs]), 3)
    phases = [p for p in new[0][case].get("phases", {}) if all(p in r[case].get("phases", {}) for r in old + new)]
    out["phase_overhead_s"] = {
        p: {
            "old": round(median([o[case]["phases"][p] for o in old]), 3),
            "new": round(median([n[case]["phases"][p] for n in new]), 3),
        }
        for p in phases
    }
    if all("phase_cpu" in r[case] for r in old + new):  # CPU seconds by phase (bench/phases.py phase_cpu)
        cpu_phases = [p for p in new[0][case]["phase_cpu"] if all(p in r[case]["phase_cpu"] for r in old + new)]
        out["phase_cpu_s"] = {
            p: {
                "old": round(median([o[case]["phase_cpu"][p] for o in old]), 3),
                "new": round(median([n[case]["phase_cpu"][p] for n in new]), 3),
                "new_over_old": round(
                    median(
                        [n[case]["phase_cpu"][p] / o[case]["phase_cpu"][p] for o, n in pairs if o[case]["phase_cpu"][p]]
                        or [0.0]
                    ),
                    3,
                ),
            }
            for p in cpu_phases
        }
    return out


def _checkout(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "add", "--quiet", "--detach", str(where), rev], check=True)
    return where


def compare(
    base: str, rounds: int, model: float, search: float, cases: tuple[str, ...], new_rev: str | None = None
) -> dict[str, Any]:
    """`new_rev` None: this working tree as it is (uncommitted edits included)."""
    scratch = Path(tempfile.mkdtemp(prefix="research-ab-"))
    old_tree = _checkout(base, scratch / "base")
    new_tree = _checkout(new_rev, scratch / "new") if new_rev else REPO_ROOT
    try:
        # Both trees measure with this tree's harness (the loopback world, its servers' transport and
        # the phase accounting), so only the desk's code differs between them.
        for name in ("phases.py", "loopback.py", "critical_path.py", "gil_profile.py", "harness.py", "collector.py"):
            shutil.copy(REPO_ROOT / "bench" / name, old_tree / "bench" / name)
        transport = Path("tests") / "fakes" / "loopback_http.py"
        shutil.copy(REPO_ROOT / transport, old_tree / transport)
        old: list[dict[str, Any]] = []
        new: list[dict[str, Any]] = []
        for i in range(rounds):
            order = [("old", old_tree, old), ("new", new_tree, new)]
            for label, tree, into in order if i % 2 == 0 else order[::-1]:
                into.append(_child(tree, model, search, cases))
                log(f"round {i + 1} {label}: " + ", ".join(f"{c} {into[-1][c]['wall']:.2f} s" for c in cases))
        return {
            "base": base,
            "new": new_rev or "working tree",
            "rounds": rounds,
            "model_latency_s": model,
            "search_latency_s": search,
            "cases": {c: _ratios(old, new, c) for c in cases},
        }
    finally:
        for tree in (old_tree, new_tree):
            if tree != REPO_ROOT:
                subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(scratch, ignore_errors=True)


def markdown_table(result: dict[str, Any]) -> str:
    """Per phase, each case's overhead before → after (seconds), then the wall and ratio lines."""
    cases = list(result["cases"])
    phases = list(result["cases"][cases[0]]["phase_overhead_s"])
    lines = [
        "| phase | " + " | ".join(f"{c} before | {c} after" for c in cases) + " |",
        "| --- |" + " --- | --- |" * len(cases),
    ]
    for phase in phases:
        cells = []
        for c in cases:
            row = result["cases"][c]["phase_overhead_s"].get(phase, {})
            cells += [f"{row.get('old', 0):+.2f}", f"{row.get('new', 0):+.2f}"]
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    totals = [
        ("wall time, s (median)", "old_wall_s", "new_wall_s"),
        ("measured / ideal (median)", "old_ratio", "new_ratio"),
    ]
    if all("old_cpu_s" in result["cases"][c] for c in cases):
        totals.append(("CPU of the run, s (median; the fakes' included)", "old_cpu_s", "new_cpu_s"))
    if all("phase_cpu_s" in result["cases"][c] for c in cases):
        for phase in result["cases"][cases[0]]["phase_cpu_s"]:
            cells = []
            for c in cases:
                row = result["cases"][c]["phase_cpu_s"].get(phase, {})
                cells += [f"{row.get('old', 0):.3f}", f"{row.get('new', 0):.3f}"]
            lines.append(f"| CPU s, {phase} (median) | " + " | ".join(cells) + " |")
    for label, old, new in totals:
        cells = [f"{result['cases'][c][k]:.2f}" for c in cases for k in (old, new)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    shares = [cell for c in cases for cell in ("", f"{result['cases'][c]['wall_new_over_old']:.2f}")]
    lines.append("| new / old wall time (median of rounds) | " + " | ".join(shares) + " |")
    if all("cpu_new_over_old" in result["cases"][c] for c in cases):
        cpu = [cell for c in cases for cell in ("", f"{result['cases'][c]['cpu_new_over_old']:.2f}")]
        lines.append("| new / old CPU (median of rounds) | " + " | ".join(cpu) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ab_compare", description=__doc__)
    parser.add_argument("--base", required=True, help="the git revision to compare against (e.g. main)")
    parser.add_argument("--new", help="the revision to measure against it (default: this working tree)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--model-latency", type=float, default=0.2)
    parser.add_argument("--search-latency", type=float, default=0.3)
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    parser.add_argument("--out", type=Path, help="also write the result here as JSON")
    args = parser.parse_args(argv)
    result = compare(args.base, args.rounds, args.model_latency, args.search_latency, tuple(args.cases), args.new)
    text = json.dumps(result, indent=2)
    print(text)
    print(markdown_table(result))
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

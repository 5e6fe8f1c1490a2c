"""`python -m bench.writer_cpu --base REV [--rounds 4] [--runs 3] [--cold]`: the CPU the writer phase
costs at allocation 333, this tree against REV's, alternately in one run (as bench/ab_compare.py).

CPU time, not wall time, so a loaded machine can still compare trees: per run, each node's own
thread CPU (`time.thread_time` around the writer, the claim check and the reviewer: the work on the
critical path, since nothing else runs while they compute), the writer's passage choice on that
thread (`select_passages`), the process CPU of the writer phase's window (every thread, work moved
beside a model call included) and of the whole run (`bench/phases.py` windows). `--cold` empties the
text memos before each run (a first run on new documents); otherwise the process has run the case
once already. The report is the median over all runs of each figure, old and new.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

from bench.ab_compare import _checkout, run_child
from bench.harness import REPO_ROOT, log

_CHILD = """
import collections, functools, json, sys, time
from bench.harness import isolate_environment, BenchContext
isolate_environment()
from bench.loopback import LoopbackWorld
from research.text import memo
import research.graph.builder as builder
import research.brains.llm.grounded_writer as grounded_writer
spent = collections.defaultdict(float)
def timed(module, name, label):
    fn = getattr(module, name)
    @functools.wraps(fn)  # LangGraph reads a node's signature
    def wrapped(*args, **kwargs):
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - start
    setattr(module, name, wrapped)
timed(builder, "writer", "writer_thread")
timed(builder, "claim_check", "claim_check_thread")
timed(builder, "reviewer", "reviewer_thread")
timed(grounded_writer, "select_passages", "passage_choice_on_writer_thread")
cold, runs = sys.argv[1] == "cold", int(sys.argv[2])
ctx = BenchContext(quick=True)
out = []
try:
    with LoopbackWorld(ctx.scratch("writer-cpu"), ctx.log_dir, 0.2, 0.3) as world:
        world.run("111", max_iterations=0)
        world.run("333", max_iterations=1, max_researchers=9)
        for _ in range(runs):
            if cold:
                memo.clear()
            spent.clear()
            run = world.run("333", max_iterations=1, max_researchers=9)
            assert run.status == "finished", run.status
            stamped = list(zip(run.events, run.cpu_at))
            begin = next(c for e, c in stamped if e.type == "phase" and e.data.phase == "writer")
            end = next(c for e, c in stamped if e.type == "draft_ready")
            out.append({**spent, "writer_phase_process": end - begin, "run_process": run.cpu_ended - run.cpu_started})
finally:
    ctx.cleanup()
print(json.dumps(out))
"""


def _child(tree: Path, cold: bool, runs: int) -> list[dict[str, float]]:
    rows: list[dict[str, float]] = run_child(tree, _CHILD, ["cold" if cold else "warm", str(runs)], timeout=900)
    return rows


def compare(base: str, rounds: int, runs: int, cold: bool) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="research-writer-cpu-"))
    old_tree = _checkout(base, scratch / "base")
    try:
        for name in ("phases.py", "loopback.py", "harness.py"):  # this tree's accounting in both
            shutil.copy(REPO_ROOT / "bench" / name, old_tree / "bench" / name)
        old: list[dict[str, float]] = []
        new: list[dict[str, float]] = []
        for i in range(rounds):
            order = [("old", old_tree, old), ("new", REPO_ROOT, new)]
            for label, tree, into in order if i % 2 == 0 else order[::-1]:
                into.extend(_child(tree, cold, runs))
                log(f"round {i + 1} {label}: writer thread {into[-1]['writer_thread'] * 1000:.1f} ms CPU")
        figures = {
            key: {
                "old_ms": round(median(r[key] for r in old) * 1000, 1),
                "new_ms": round(median(r[key] for r in new) * 1000, 1),
            }
            for key in new[0]
        }
        for row in figures.values():
            row["new_over_old"] = round(row["new_ms"] / row["old_ms"], 2) if row["old_ms"] else 0.0
        return {"base": base, "rounds": rounds, "runs_per_child": runs, "cold": cold, "runs": len(new), **figures}
    finally:
        subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(old_tree)], check=False)
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.writer_cpu", description=__doc__)
    parser.add_argument("--base", required=True, help="the git revision to compare against")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3, help="measured runs per child process")
    parser.add_argument("--cold", action="store_true", help="empty the text memos before each run")
    args = parser.parse_args(argv)
    result = compare(args.base, args.rounds, args.runs, args.cold)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

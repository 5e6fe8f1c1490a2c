"""Figure 7: memory and storage. Peak RSS of a 9-researcher offline run (its own process, measured
by the kernel: wait4's ru_maxrss), checkpoint bytes per run, and proof that page text stays out of
checkpoints: a 100 KB document of uniquely numbered marker sentences is put in the library where
the run's web researchers find it; afterwards its full text must be in the run's source store and
(almost) none of its markers in any checkpoint blob (a snippet or a quoted sentence may carry a few).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.harness import BenchContext, clean_environ, log, rounded
from research.sources.library.library_store import Library
from tests.streamlit_server import offline_env

TOPIC = "How do mRNA vaccines work?"
MARKER_BYTES = 100_000
_MARKER = re.compile(rb"qzmark(\d{5})")
# The marker text may show up only as snippets and quotes: this share of its markers at most.
MAX_MARKER_SHARE = 0.05


def marker_text(size: int = MARKER_BYTES) -> tuple[str, int]:
    """~`size` characters about mRNA vaccines, each sentence carrying a unique marker qzmarkNNNNN."""
    sentences = []
    n = 0
    total = 0
    while total < size:
        sentence = (
            f"mRNA vaccines deliver messenger RNA in lipid nanoparticles, note qzmark{n:05d} "
            f"on how mRNA vaccines work in cells."
        )
        sentences.append(sentence)
        total += len(sentence) + 1
        n += 1
    return " ".join(sentences), n


# Runs the CLI in this interpreter and, at exit, records the process's peak RSS. VmHWM (from
# /proc) starts afresh at exec; wait4's ru_maxrss would also count the parent's pages at fork.
_PEAK_RSS_WRAPPER = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def record():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            open(out, 'w').write(line.split()[1])
atexit.register(record)
sys.argv[0] = 'research'
runpy.run_module('research', run_name='__main__', alter_sys=True)
"""


def peak_rss_mb(args: list[str], env: dict[str, str], cwd: Path, stdout: Any = subprocess.DEVNULL) -> tuple[int, float]:
    """(exit code, peak RSS in MB) of `python -m research ARGS` in its own process."""
    rss_path = cwd / f"peak-rss-{os.getpid()}.txt"
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS_WRAPPER, str(rss_path), *args],
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=subprocess.DEVNULL,
    )
    kib = int(rss_path.read_text() or 0) if rss_path.exists() else 0
    rss_path.unlink(missing_ok=True)
    return proc.returncode, kib / 1024


def run_in_subprocess(data_dir: Path, log_dir: Path, allocation: str, max_researchers: int) -> dict[str, Any]:
    """One CLI run in its own process; returns its JSON result and its peak RSS (MB)."""
    env = offline_env(
        data_dir,
        base=clean_environ(dead_proxies=True),
        RESEARCH_LOG_DIR=str(log_dir),
        RESEARCH_MAX_RESEARCHERS=str(max_researchers),
    )
    out_path = data_dir.parent / f"run-{allocation}.json"
    with open(out_path, "w") as out:
        code, rss = peak_rss_mb([TOPIC, "--allocation", allocation, "--json", "--quiet"], env, data_dir.parent, out)
    if code != 0:
        raise RuntimeError(f"offline run {allocation} failed with exit {code}")
    return {"result": json.loads(out_path.read_text()), "peak_rss_mb": rss}


def checkpoint_blobs(db_path: Path, run_id: str) -> list[bytes]:
    """Everything the run's checkpoints hold: the rows, the tasks' writes and the channel values
    (stored apart, once per version: research/runs/blob_saver.py)."""
    with sqlite3.connect(db_path) as db:
        rows = db.execute("SELECT checkpoint, metadata FROM checkpoints WHERE thread_id = ?", (run_id,)).fetchall()
        writes = db.execute("SELECT value FROM writes WHERE thread_id = ?", (run_id,)).fetchall()
        values = db.execute("SELECT blob FROM checkpoint_blobs WHERE thread_id = ?", (run_id,)).fetchall()
    return [blob for row in rows for blob in row if blob] + [row[0] for row in (*writes, *values) if row[0]]


def checkpoint_count(db_path: Path, run_id: str) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?", (run_id,)).fetchone()[0])


def stored_text_length(runs_db: Path, run_id: str, marker: bytes) -> int:
    """Length of the longest source text of the run that contains `marker` (0: not retrieved)."""
    with sqlite3.connect(runs_db) as db:
        rows = db.execute("SELECT text FROM source_texts WHERE run_id = ?", (run_id,)).fetchall()
    return max((len(text) for (text,) in rows if marker.decode() in text), default=0)


def cli_baseline_rss(cwd: Path) -> float:
    """Peak RSS of the CLI answering --help (interpreter and argument parsing, no engine import)."""
    return peak_rss_mb(["--help"], clean_environ(dead_proxies=True), cwd)[1]


def measure(ctx: BenchContext) -> dict[str, Any]:
    root = ctx.scratch("memory")
    data_dir = root / "data"
    library = Library(data_dir / "library.sqlite")
    library.ensure_sample()
    text, markers = marker_text()
    library.add_document(
        title="How mRNA vaccines work: a long field guide",
        text=text,
        kind="web",
        url="https://bench.example.org/mrna-field-guide",
    )
    library.close()

    nine = run_in_subprocess(data_dir, root / "logs", "333", 9)
    run_id = nine["result"]["run_id"]
    blobs = checkpoint_blobs(data_dir / "checkpoints.sqlite", run_id)
    found = {m for blob in blobs for m in _MARKER.findall(blob)}
    stored = stored_text_length(data_dir / "runs.sqlite", run_id, b"qzmark00000")
    # A default-sized run for the per-run checkpoint figure.
    default = run_in_subprocess(data_dir, root / "logs", "111", 3)
    default_id = default["result"]["run_id"]
    default_bytes = sum(len(b) for b in checkpoint_blobs(data_dir / "checkpoints.sqlite", default_id))
    nine_bytes = sum(len(b) for b in blobs)
    proof = {
        "marker_text_chars": len(text),
        "markers_in_text": markers,
        "markers_in_checkpoints": len(found),
        "text_in_source_store_chars": stored,
        "largest_checkpoint_blob_bytes": max((len(b) for b in blobs), default=0),
        "proven": stored >= len(text) and len(found) <= MAX_MARKER_SHARE * markers,
    }
    log(
        f"memory: peak RSS {nine['peak_rss_mb']:.0f} MB (9 researchers); checkpoints {default_bytes:,} B per "
        f"default run; markers in checkpoints {len(found)}/{markers}, text in store {stored:,} chars"
    )
    return {
        "memory": {
            "peak_rss_mb": rounded(nine["peak_rss_mb"], 1),
            "checkpoint_bytes_per_run": default_bytes,
        },
        "memory_details": {
            "peak_rss_run": "offline, allocation 333 (RESEARCH_MAX_RESEARCHERS=9), sample library + marker doc",
            "cli_help_peak_rss_mb": rounded(cli_baseline_rss(root), 1),
            "checkpoint_bytes_default_run": default_bytes,
            "checkpoints_default_run": checkpoint_count(data_dir / "checkpoints.sqlite", default_id),
            "checkpoint_bytes_9_researchers": nine_bytes,
            "checkpoints_9_researchers": checkpoint_count(data_dir / "checkpoints.sqlite", run_id),
            "sources_9_researchers": len(nine["result"].get("sources", [])),
            "page_text_not_in_checkpoints": proof,
        },
    }

"""`python -m bench.eval.local_model` (`make eval-local-model`): the eval on a real model.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) on llama-cpp-python's own server (bench/llama_server.py;
built by scripts/local_model_setup.sh), the LLM brain end to end with library sources on a small
topic set: covered topics, a topic the library does not cover, and near misses (words shared with
the library, subject not). Allocation 110 (`--allocation`), no research or review rounds, one request at a time,
the context the server was started with. Writes bench/eval_local_model.{json,md} and the README
block between `<!-- eval-local-model:start -->` and `<!-- eval-local-model:end -->`.

A 1.5B coder model on two shared cores, not a frontier model: the figures say what the desk
makes of a small model's writing (grounding, refusals, fallbacks), not what a good model writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.eval.local_model_figures import draft_figures
from bench.eval.local_model_report import TARGETS, summarise, write_outputs
from bench.eval.metrics import figures
from bench.llama_server import llama_cpp_version
from research.brains.llm.relevance_judge import MODEL_DROP

ROOT = Path(__file__).resolve().parents[2]
N_CTX = 4096
# Reply caps for a 1.5B model at a few tokens/s on shared cores: enough for each structured reply.
CAPS = {"queries": 160, "plan": 520, "notes": 320, "judge": 640, "writer": 420}


@dataclass(frozen=True)
class Topic:
    topic: str
    group: str  # covered | uncovered | near-miss
    library_topic: str | None


# One of each group first: on a busy machine a run cut short (`--topics N`) still covers each.
TOPICS = [
    Topic("How do mRNA vaccines work?", "covered", "mrna-vaccines"),
    Topic("How do you prevent rust on old cars?", "near-miss", None),
    Topic("How are bagpipes made?", "uncovered", None),
    Topic("Causes of the 1929 stock market crash", "near-miss", None),
    Topic("What was the impact of the printing press?", "covered", "printing-press"),
]
ALLOCATION = "110"
# llama.cpp's DRY sampler on the writer's calls (bench/llama_server_dry.py; `--dry-multiplier`): a
# run copied from the prompt longer than DRY_ALLOWED_LENGTH tokens is penalised more with each token.
# Off: on Qwen2.5-Coder-1.5B it turned copies into copies with slips (names misspelt, facts cut), not
# writing (README, "Models"); 0.8 is the setting measured there.
DRY_MULTIPLIER = 0.0
DRY_ALLOWED_LENGTH = 4


def run_topic(
    server: Any, item: Topic, root: Path, allocation: str = ALLOCATION, dry_multiplier: float = DRY_MULTIPLIER
) -> dict[str, Any]:
    from bench.llama_server import lane_settings
    from research.runs.runner import ResearchRunner
    from research.runs.view import fold
    from research.schemas.state_shapes import ResearchRequest

    settings = lane_settings(
        server,
        root,
        review_rounds=0,
        # A busy machine serves about a token a second (a plan reply took longer than 300 s): the
        # deadlines must not cut what is only slow.
        llm_timeout=1800,
        llm_reply_seconds=1800,
        relevance_judge="model",
        writer_restate_copies=True,  # a 1.5B model copies its passages whole unless asked to restate them
        writer_dry_multiplier=dry_multiplier,
        writer_dry_allowed_length=DRY_ALLOWED_LENGTH,
        **{f"reply_tokens_{role}": cap for role, cap in CAPS.items()},
    )
    runner = ResearchRunner(settings)
    started = time.perf_counter()
    run_id = runner.run(ResearchRequest(topic=item.topic, allocation=allocation, max_iterations=0))
    seconds = time.perf_counter() - started
    view = fold(runner.store.events(run_id))
    texts = {sid: runner.store.get_text(run_id, sid) or "" for sid in view.sources}
    row = figures(view, library_topic=item.library_topic, uncovered=item.group != "covered", imported=False)
    warnings = [w.message for w in view.warnings]
    return {
        "topic": item.topic,
        "group": item.group,
        "seconds": round(seconds, 1),
        "calls": view.usage.calls,
        "failed_calls": view.usage.failed_calls,
        "prompt_tokens": view.usage.prompt_tokens,
        "completion_tokens": view.usage.completion_tokens,
        "claim_check_method": view.claims.method if view.claims else None,
        "writer": _writer_of(view, warnings),
        "steps_degraded": [w for w in warnings if "used the offline brain" in w],
        "queries": [q for r in view.researchers.values() for q in r.queries],
        "verdicts": [c.status for c in view.critiques],
        "model_relevance_drops": sum(
            1 for r in view.researchers.values() for d in r.dropped if d.reason.startswith(MODEL_DROP)
        ),
        **row,
        **draft_figures(view.draft or "", view.citations, texts),
        "draft": view.draft,
    }


def _writer_of(view: Any, warnings: list[str]) -> str:
    if view.evidence == "none":
        return "none (nothing relevant: the desk's empty draft)"
    if any("write failed" in w or "cited none of the" in w for w in warnings):
        return "offline (the model's draft failed)"
    return "model"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval.local_model", description=__doc__)
    parser.add_argument("--no-readme", action="store_true", help="do not update README.md")
    parser.add_argument("--topics", type=int, default=len(TOPICS), help="run only the first N topics")
    parser.add_argument("--allocation", default=ALLOCATION, help="researchers per kind (web, academic, book)")
    parser.add_argument(
        "--dry-multiplier",
        type=float,
        default=DRY_MULTIPLIER,
        help="the writer's DRY multiplier (0: off, the model copies as it likes)",
    )
    parser.add_argument(
        "--threads", type=int, default=None, help="the server's threads (default: the cores free at the start)"
    )
    args = parser.parse_args(argv)
    from bench.llama_server import QWEN_ALIAS, LlamaServer, qwen_model_path

    model = qwen_model_path()
    if model is None:
        print("Qwen2.5-Coder-1.5B is not set up: run scripts/local_model_setup.sh", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    asked = TOPICS[: args.topics]
    load_at_start = round(os.getloadavg()[0], 1)
    with tempfile.TemporaryDirectory(prefix="eval-qwen-") as tmp:
        threads = {"threads": args.threads} if args.threads else {}
        server = LlamaServer(Path(tmp) / "server.log", model=model, alias=QWEN_ALIAS, n_ctx=N_CTX, **threads)
        with server:
            print(f"[eval-local-model] llama-cpp server on {server.threads} thread(s)", file=sys.stderr, flush=True)
            for i, item in enumerate(asked):
                print(f"[eval-local-model] {item.topic}", file=sys.stderr, flush=True)
                rows.append(run_topic(server, item, Path(tmp) / f"run{i}", args.allocation, args.dry_multiplier))
                print(json.dumps({k: v for k, v in rows[-1].items() if k != "draft"}), file=sys.stderr, flush=True)
                # Written after every topic: a run stopped on a busy machine keeps what it measured.
                results = _results(rows, len(asked), server.threads, args, load_at_start)
                write_outputs(results, ROOT, readme=not args.no_readme)
    print(json.dumps(results["summary"], indent=2))
    return 0


def _results(
    rows: list[dict[str, Any]], asked: int, threads: int, args: argparse.Namespace, load_at_start: float
) -> dict[str, Any]:
    return {
        "generated_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "model": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (a 1.5B coder model, not a frontier model)",
        "server": f"llama-cpp-python {llama_cpp_version()}, n_ctx {N_CTX}, {threads} thread(s)",
        "settings": {
            "allocation": args.allocation,
            "max_iterations": 0,
            "review_rounds": 0,
            "llm_concurrency": 1,
            "context_tokens": N_CTX,
            "reply_caps": CAPS,
            "temperature": 0.0,
            "relevance_judge": "model",
            "writer_restate_copies": True,
            "writer_dry": {"multiplier": args.dry_multiplier, "allowed_length": DRY_ALLOWED_LENGTH},
            "load_average": round(os.getloadavg()[0], 1),
            "load_average_at_start": load_at_start,
            "topics_measured": f"{len(rows)} of {asked}",
        },
        "targets": TARGETS,
        "summary": summarise(rows),
        "topics": rows,
    }


if __name__ == "__main__":
    sys.exit(main())

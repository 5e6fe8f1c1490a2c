"""`python -m bench.eval [--llm-smoke]` (`make eval`): the research-quality benchmark.

Runs every topic of bench/eval/topics.py end to end (library sources, offline brain, a fresh data
dir each), measures what a reader would check, and writes bench/eval_results.json and .md. With a
model configured (OPENAI_BASE_URL), the same figures for the LLM brain; `--llm-smoke` runs the LLM
brain against the loopback fake model (tests/fakes/openai_server.py), which only proves the wiring.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.eval.metrics import figures
from bench.eval.near_miss import NEAR_MISS, NO_ANSWER_GROUPS, agrees
from bench.eval.prose import prose_figures
from bench.eval.report import TARGETS, aggregate, write_results
from bench.eval.topics import TOPICS, EvalTopic

ROOT = Path(__file__).resolve().parents[2]


def run_topic(item: EvalTopic, llm: str, extra: dict[str, Any]) -> dict[str, Any]:
    from research.runs.runner import ResearchRunner
    from research.runs.view import fold
    from research.schemas.state_shapes import ResearchRequest
    from research.settings import Settings
    from research.sources.library.importer import import_bytes

    with tempfile.TemporaryDirectory(prefix="eval-") as tmp:
        settings = Settings(
            _env_file=None, data_dir=Path(tmp) / "data", log_dir=Path(tmp) / "logs", sources="library", llm=llm, **extra
        )
        runner = ResearchRunner(settings)
        for name, text in item.imported:
            report = import_bytes(runner.library, name, text.encode("utf-8"), None)
            if report.skipped:
                raise RuntimeError(f"import of {name} failed: {report.summary()}")
        t0 = time.perf_counter()
        run_id = runner.run(ResearchRequest(topic=item.topic))
        seconds = time.perf_counter() - t0
        view = fold(runner.store.events(run_id))
        from bench.eval.sensitivity import miscited_flagged

        flagged, miscited = miscited_flagged(
            view.draft or "",
            {int(n): sid for n, sid in view.citations.items()},
            lambda sid: runner.store.get_text(run_id, sid),
        )
    row = figures(
        view,
        library_topic=item.library_topic,
        uncovered=item.group in NO_ANSWER_GROUPS,
        imported=item.group == "imported",
    )
    row["agrees"] = agrees(view)
    row["prose"] = prose_figures(view.draft or "")
    return {
        "topic": item.topic,
        "group": item.group,
        "seconds": round(seconds, 2),
        **row,
        "miscited_flagged": flagged,
        "miscited_checked": miscited,
    }


def run_brain(label: str, llm: str, extra: dict[str, Any]) -> dict[str, Any]:
    rows = []
    for item in TOPICS + NEAR_MISS:
        print(f"[eval {label}] {item.topic}", file=sys.stderr, flush=True)
        rows.append(run_topic(item, llm, extra))
    return {"brain": label, "topics": rows, "summary": aggregate(rows, prose_target=label == "offline")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval", description=__doc__)
    parser.add_argument("--llm-smoke", action="store_true", help="also run the LLM brain on the loopback fake model")
    parser.add_argument("--no-readme", action="store_true", help="do not update README.md")
    args = parser.parse_args(argv)
    brains = [run_brain("offline", "offline", {})]
    if os.environ.get("OPENAI_BASE_URL"):
        brains.append(run_brain("llm", "openai", {}))
    if args.llm_smoke:
        sys.path.insert(0, str(ROOT))
        from tests.fakes.openai_server import FakeOpenAIServer

        with FakeOpenAIServer() as fake:
            smoke = run_brain(
                "llm-smoke (loopback fake model)",
                "openai",
                {
                    "openai_base_url": fake.base_url,
                    "openai_api_key": "not-needed",
                    "model": "fake-model",
                },
            )
        smoke["note"] = "A scripted fake model: proves the LLM path runs, its figures say nothing about quality."
        brains.append(smoke)
    from bench.eval.relevance import measure as relevance_sweep

    results = {
        "generated_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "targets": TARGETS,
        "brains": brains,
        "relevance": relevance_sweep(),
    }
    write_results(results, ROOT, readme=not args.no_readme)
    offline = brains[0]["summary"]
    print(json.dumps(offline, indent=2))
    return 0 if offline["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""`python -m bench.eval.local_model_writer [TOPIC ...]`: the writer step alone on the real model.

A whole run on Qwen2.5-Coder-1.5B takes tens of minutes when two cores are shared with a busy
team (about 1.3 tokens/s measured at load 13). This measures the part that decides whether the
draft is grounded: the offline brain plans and researches the topic on the library (seconds), and
the LLM brain's grounded writer then writes the draft from those sources on the real model. The
draft goes through the writer node's guard and numbering, and gets the same figures as the whole
eval (bench/eval/local_model_figures.py). Results: bench/eval_local_model_writer.json.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.eval.local_model import CAPS, N_CTX, TOPICS
from bench.eval.local_model_figures import draft_figures

ROOT = Path(__file__).resolve().parents[2]


def write_one(
    server: Any, topic: str, root: Path, questions: int | None = None, restate: bool = True
) -> dict[str, Any]:
    from bench.llama_server import lane_settings
    from research.brains.base import NumberedSource, WriteRequest
    from research.brains.llm.llm_brain import LLMBrain
    from research.drafts.citations import finalize_citations
    from research.drafts.guard import repair_draft
    from research.graph.nodes.writer import writing_order
    from research.runs.runner import ResearchRunner
    from research.runs.view import fold
    from research.schemas.state_shapes import ResearchRequest, Source
    from research.settings import Settings

    offline = Settings(_env_file=None, data_dir=root / "data", log_dir=root / "logs", sources="library", llm="offline")
    runner = ResearchRunner(offline)
    run_id = runner.run(ResearchRequest(topic=topic, allocation="110", max_iterations=0))
    view = fold(runner.store.events(run_id))
    sources = writing_order([Source.model_validate(s) for s in view.sources.values()])
    numbered = [NumberedSource(n=i, source=s) for i, s in enumerate(sources, 1)]

    def text_of(source_id: str) -> str:
        return runner.store.get_text(run_id, source_id) or ""

    caps = {f"reply_tokens_{role}": cap for role, cap in CAPS.items()}
    # A busy machine serves about a token a second: no deadline shorter than the reply can take.
    settings = lane_settings(
        server, root / "llm", llm_timeout=1800, llm_reply_seconds=1800, writer_restate_copies=restate, **caps
    )
    brain = LLMBrain(settings)
    writer_lines = _WriterLines()
    logging.getLogger("research.agents").addHandler(writer_lines)
    logging.getLogger("research.agents").setLevel(logging.INFO)
    started = time.perf_counter()
    error = None
    try:
        asked = view.research_questions[:questions] if questions else view.research_questions
        body = brain.write(WriteRequest(topic, asked, numbered, text_of, []))
    except Exception as exc:  # noqa: BLE001 - a failed step is a figure too
        body, error = "", f"{type(exc).__name__}: {exc}"
    seconds = round(time.perf_counter() - started, 1)
    logging.getLogger("research.agents").removeHandler(writer_lines)
    usage = brain.take_usage()
    repair = repair_draft(body, {ns.n for ns in numbered}, {ns.source.url for ns in numbered})
    cited = finalize_citations(repair.text, {ns.n: ns.source for ns in numbered})
    texts = {ns.source.id: text_of(ns.source.id) for ns in numbered}
    known = {str(n): sid for n, sid in cited.citations.items()}
    return {
        "topic": topic,
        "questions": view.research_questions,
        "sources_given": len(numbered),
        "error": error,
        "seconds": seconds,
        "calls": usage.calls,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "citations": len(cited.citations),
        "invented_citations": len(cited.dropped) + len(repair.citations.removed),
        **draft_figures(cited.markdown, known, texts),
        "writer_log": writer_lines.lines,
        "draft": cited.markdown,
    }


class _WriterLines(logging.Handler):
    """The writer's own log lines (drops, restatements) for the row: why a figure is what it is."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "rite" in message[:40]:  # "Writer: ..." and "write: ..." warnings
            self.lines.append(message[:400])


def main(argv: list[str] | None = None) -> int:
    from bench.llama_server import QWEN_ALIAS, LlamaServer, qwen_model_path

    args = list(argv if argv is not None else sys.argv[1:])
    questions = int(args.pop(args.index("--questions") + 1)) if "--questions" in args else None
    if "--questions" in args:
        args.remove("--questions")
    restate = "--no-restate" not in args
    if not restate:
        args.remove("--no-restate")
    threads = int(args.pop(args.index("--threads") + 1)) if "--threads" in args else 1
    if "--threads" in args:
        args.remove("--threads")
    topics = args or [t.topic for t in TOPICS if t.group == "covered"][:1]
    model = qwen_model_path()
    if model is None:
        print("Qwen2.5-Coder-1.5B is not set up: run scripts/local_model_setup.sh", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="eval-qwen-writer-") as tmp:
        server = LlamaServer(Path(tmp) / "server.log", model=model, alias=QWEN_ALIAS, n_ctx=N_CTX, threads=threads)
        with server:
            for i, topic in enumerate(topics):
                print(f"[eval-local-model-writer] {topic}", file=sys.stderr, flush=True)
                rows.append(write_one(server, topic, Path(tmp) / f"t{i}", questions, restate))
                print(json.dumps({k: v for k, v in rows[-1].items() if k != "draft"}), file=sys.stderr, flush=True)
    out = {
        "generated_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "threads": threads,
        "writer_restate_copies": restate,
        "load_average": round(os.getloadavg()[0], 1),
        "rows": rows,
    }
    (ROOT / "bench" / "eval_local_model_writer.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

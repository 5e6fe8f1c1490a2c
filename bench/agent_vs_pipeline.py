"""Figure 8: agent mode beside pipeline mode, on the same topics and allocations, against the
loopback world (the real ChatOpenAI and the real providers against fakes with fixed latencies).

The scripted agent calls each of its kind's search tools once with the directive's topic and
question, then closes; the pipeline writes its scripted queries and runs each on every provider.
Reported per case and mode: wall time, model calls, tokens, sources found, tool calls, and the
research-quality figures the runs produce (distinct providers, sources cited in the draft, mean
relevance of the sources, the analyst's final verdict).
"""

from __future__ import annotations

import re
from statistics import mean
from typing import Any

from bench.harness import BenchContext, log
from bench.loopback import LoopbackRun, LoopbackWorld
from research.runs.view import fold
from tests.fakes.openai_server import ChatReply
from tests.fakes.tool_agent_model import ToolAgentModel, directive_topic, tool_names

TOPICS = ("How do heat pumps work?", "The impact of the printing press")
ALLOCATIONS = ("111", "222")
SKIP = frozenset({"scrape_page", "fetch_page", "search_library"})
_QUESTION = re.compile(r'to research "([^"]+)"')


def bench_script(request: dict[str, Any], step: int) -> ChatReply:
    """Each search tool once (topic + the question's first words), then a closing note."""
    searches = [n for n in tool_names(request) if n not in SKIP] or ["search_library"]
    if step < len(searches):
        text = " ".join(str(m.get("content") or "") for m in request.get("messages") or [])
        question = (_QUESTION.search(text) or [None, ""])[1]
        query = " ".join(f"{directive_topic(request)} {' '.join(question.split()[:4])}".split())[:200]
        return ChatReply(tool_calls=[(searches[step], {"query": query, "limit": 5})])
    return ChatReply(content="- The sources answer the question.\n- They agree on the main points.")


def _figures(run: LoopbackRun) -> dict[str, Any]:
    view = fold(run.events)
    relevance = [s.relevance for s in view.sources.values() if s.relevance is not None]
    return {
        "wall_seconds": round(run.wall_seconds, 3),
        "model_calls": run.calls,
        "total_tokens": run.prompt_tokens + run.completion_tokens,
        "sources": len(view.sources),
        "tool_calls": sum(len(r.tool_calls) for r in view.researchers.values()),
        "search_requests": run.search_requests,
        "providers": len({s.provider for s in view.sources.values()}),
        "cited_sources": len(view.cited_source_ids),
        "mean_relevance": round(mean(relevance), 3) if relevance else None,
        "final_verdict": view.critiques[-1].status if view.critiques else None,
        "status": run.status,
    }


def measure(ctx: BenchContext) -> dict[str, Any]:
    topics = TOPICS[:1] if ctx.quick else TOPICS
    cases: dict[str, dict[str, dict[str, Any]]] = {}
    with LoopbackWorld(ctx.scratch("agent_vs_pipeline"), ctx.log_dir, model_latency=0.05, search_latency=0.1) as world:
        world.script_model(approve_from_round=2)
        world.wrap_model(lambda inner: ToolAgentModel(bench_script, inner=inner))
        for topic in topics:
            for allocation in ALLOCATIONS:
                name = f"{allocation}:{topic}"
                cases[name] = {
                    mode: _figures(
                        world.run(
                            allocation,
                            max_iterations=1,
                            max_researchers=6,
                            topic=topic,
                            researcher_mode=mode,
                        )
                    )
                    for mode in ("pipeline", "agent")
                }
                p, a = cases[name]["pipeline"], cases[name]["agent"]
                log(
                    f"{name}: pipeline {p['wall_seconds']} s / {p['model_calls']} calls / {p['total_tokens']:,} tok / "
                    f"{p['sources']} sources; agent {a['wall_seconds']} s / {a['model_calls']} calls / "
                    f"{a['total_tokens']:,} tok / {a['sources']} sources"
                )
    return {
        "agent_vs_pipeline": cases,
        "agent_vs_pipeline_details": {
            "model_latency_s": 0.05,
            "search_latency_s": 0.1,
            "max_iterations": 1,
            "agent_script": "each search tool of the kind once, then close (tests/fakes/tool_agent_model.py)",
        },
    }

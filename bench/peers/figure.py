"""Figure 9: the desk beside open_deep_research and gpt-researcher (`python -m bench --only peers`).

Same world (bench/peers/world.py), same model behind one metering proxy (bench/peers/meter.py),
same reader of the reports (bench/peers/score.py), on covered, uncovered and near-miss topics, in
up to three model settings: the scripted fake, then SmolLM2-135M and Qwen2.5-Coder-1.5B on
llama-cpp-python (one server at a time) when the local-model setup has them. `PEERS_MODELS`
(comma-separated: scripted, smollm2, qwen), `PEERS_GROUPS` (covered, near-miss, uncovered) and
`PEERS_TOPICS` (how many topics of each group) narrow it; a narrowed run replaces only the rows it
measured. Every run, the desk's too, is a process cut at its ceiling (bench/peers/budget.py).

Comparable sizes: one researcher each, one research round, two searches of five results, reply caps
from the desk's local-model lane for every system (see SIZES, recorded in the results).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import BenchContext, FigureSkipped, clean_environ, log, machine_info
from bench.peers.budget import RunBudget
from bench.peers.desk import DESK_ALLOCATION, DESK_ITERATIONS, desk_values
from bench.peers.score import Expectation, score_report
from bench.peers.setting import ADAPTERS_ON_LLAMA_CPP, N_CTX, ModelSetting, model_setting
from bench.peers.venvs import (
    GPT_RESEARCHER,
    OPEN_DEEP_RESEARCH,
    PEERS,
    DriverRun,
    PeerSpec,
    PeerUnavailable,
    ensure_venv,
    installed_version,
    peer_environ,
    run_driver,
    run_process,
)
from bench.peers.world import PeerWorld
from tests.fakes import lift_rate_limits


@dataclass(frozen=True)
class PeerTopic:
    topic: str
    group: str  # covered | uncovered | near-miss
    library_topic: str | None


TOPICS = (
    PeerTopic("How do mRNA vaccines work?", "covered", "mrna-vaccines"),
    PeerTopic("How do you prevent rust on old cars?", "near-miss", None),
    PeerTopic("How are bagpipes made?", "uncovered", None),
    PeerTopic("What was the impact of the printing press?", "covered", "printing-press"),
)
CAPS = {"research": 480, "notes": 400, "writer": 600}
SIZES = {
    "desk": {"allocation": DESK_ALLOCATION, "max_iterations": DESK_ITERATIONS, "review_rounds": 0,
             "queries_per_researcher": "2 (its planner's)", "results_per_query": 5},
    "open_deep_research": {"allow_clarification": False, "max_concurrent_research_units": 1,
                           "max_researcher_iterations": 2, "max_react_tool_calls": 2,
                           "search_api": "tavily", "results_per_query": 5},
    "gpt-researcher": {"report_type": "research_report", "MAX_ITERATIONS": 2, "MAX_SEARCH_RESULTS_PER_QUERY": 5,
                       "TOTAL_WORDS": 500, "RETRIEVER": "custom", "CURATE_SOURCES": False,
                       "CONTEXT_FILTER": "keyword", "KEYWORD_MAX_RESULTS": 5,
                       "LLM_KWARGS": json.dumps({"max_tokens": CAPS["writer"]})},
}  # fmt: skip
WHY_SIZES = (
    "one researcher each (the desk's allocation 100, open_deep_research's one research unit, gpt-researcher's "
    "one research report), one research round (open_deep_research counts the supervisor's closing turn as its "
    "second iteration), two searches of five results (the desk's planner writes two queries, the peers' scripts "
    "and settings ask two), no clarifying question (nobody is there to answer it), and the same reply caps; "
    "gpt-researcher's report prompt holds up to 25 chunks of 1,000 characters per sub-query (three sub-queries: "
    "about 11k tokens, over the 8,192-token context, so llama-cpp cut every report stream and the package retried "
    "ten times), so KEYWORD_MAX_RESULTS=5 keeps it near 4k tokens of context (5 chunks a sub-query, as the "
    "desk's and open_deep_research's five results a query); and its LLM_KWARGS caps every request's reply at "
    "the report's 600 tokens: its agent-choice call asks for 4,000 (the package's default, no setting changes it) "
    "and its sub-query call for no limit at all, which llama-cpp reads as the whole context"
)
TIMEOUT = {"scripted": 600.0, "smollm2": 900.0, "qwen": 1800.0}


def _odr_config(setting: ModelSetting, world: PeerWorld, topic: str) -> dict[str, Any]:
    caps = {"research": CAPS["research"], "summarization": CAPS["notes"], "compression": CAPS["notes"],
            "final_report": CAPS["writer"]}  # fmt: skip
    sizes = {k: v for k, v in SIZES["open_deep_research"].items() if k != "results_per_query"}
    return {"topic": topic, "model": setting.model, "tavily_url": world.tavily_url, "max_tokens": caps, "sizes": sizes}


def _gptr_config(setting: ModelSetting, world: PeerWorld, topic: str) -> dict[str, Any]:
    model = f"openai:{setting.model}"
    sizes = {k: str(v) for k, v in SIZES["gpt-researcher"].items() if k != "report_type"}
    env = {
        **sizes,
        "RETRIEVER_ENDPOINT": world.retriever_url,
        "FAST_LLM": model,
        "SMART_LLM": model,
        "STRATEGIC_LLM": model,
        "EMBEDDING": "openai:bench-embedding",
        "FAST_TOKEN_LIMIT": str(CAPS["research"]),
        "SMART_TOKEN_LIMIT": str(CAPS["writer"]),
        "STRATEGIC_TOKEN_LIMIT": str(CAPS["research"]),
        "SUMMARY_TOKEN_LIMIT": str(CAPS["notes"]),
        "TEMPERATURE": "0",
        "LANGUAGE": "english",
    }
    return {"topic": topic, "env": env, "report_type": SIZES["gpt-researcher"]["report_type"]}


def _peer_run(
    spec: PeerSpec, python: Path, setting: ModelSetting, world: PeerWorld, topic: str, root: Path, ceiling: float
) -> dict[str, Any]:
    config = (_odr_config if spec is OPEN_DEEP_RESEARCH else _gptr_config)(setting, world, topic)
    env = peer_environ({"OPENAI_API_KEY": "sk-bench-key", "OPENAI_BASE_URL": setting.proxy.base_url,
                        "OPENAI_API_BASE": setting.proxy.base_url, "TAVILY_API_KEY": "tvly-bench-key"})  # fmt: skip
    return _outcome(run_driver(python, spec, config, root, env, ceiling))


def _outcome(run: DriverRun) -> dict[str, Any]:
    return {"finished": run.error is None and bool(run.report.strip()), "error": run.error, "report": run.report,
            "seconds": run.seconds, "process_seconds": run.process_seconds, "timed_out": run.timed_out}  # fmt: skip


def _desk_run(setting: ModelSetting, world: PeerWorld, topic: str, root: Path, ceiling: float) -> dict[str, Any]:
    """The desk in a process of its own (bench/peers/desk_process.py), cut at the same ceiling as a peer."""
    local: dict[str, Any] = {}
    if setting.local:
        local = dict(
            llm_concurrency=1,
            context_tokens=N_CTX,
            llm_timeout=1800,
            llm_reply_seconds=1800,
            llm_temperature=0.0,
            review_rounds=0,
            reply_tokens_queries=CAPS["notes"] // 2,
            reply_tokens_plan=CAPS["research"],
            reply_tokens_notes=CAPS["notes"],
            reply_tokens_judge=CAPS["research"],
            reply_tokens_writer=CAPS["writer"],
        )
    values = desk_values(world, setting.proxy.base_url, setting.model, root, local=local)
    command = [sys.executable, "-m", "bench.peers.desk_process"]
    return _outcome(run_process(command, {"settings": values, "topic": topic}, root, clean_environ(), ceiling))


def _row(system: str, item: PeerTopic, run: dict[str, Any], setting: ModelSetting, world: PeerWorld) -> dict[str, Any]:
    meter = setting.proxy.meter()
    score = score_report(run["report"], world, Expectation(item.library_topic))
    if not run["finished"]:  # cut at its ceiling or failed: it wrote no answer, honest or not
        score.update(cites_nothing=None, says_nothing_found=None)
    return {
        "system": system,
        "topic": item.topic,
        "group": item.group,
        "finished": run["finished"],
        "seconds": run["seconds"],
        **meter.as_dict(),
        **world.searches(),
        **score,
        "error": run.get("error"),
        "ceiling_seconds": run.get("ceiling"),
        "report_head": run["report"][:400],
    }


def _timeout(setting: str) -> float:
    """A peer run's ceiling: TIMEOUT, or `PEERS_TIMEOUT` seconds (a shorter session on a busy machine)."""
    wanted = os.environ.get("PEERS_TIMEOUT", "").strip()
    return float(wanted) if wanted.isdigit() else TIMEOUT[setting]


def _settings_wanted(quick: bool) -> list[str]:
    wanted = os.environ.get("PEERS_MODELS")
    if wanted:
        return [w.strip() for w in wanted.split(",") if w.strip()]
    return ["scripted"] if quick else ["scripted", "smollm2", "qwen"]


def _topics_for(setting: str, quick: bool) -> list[PeerTopic]:
    """The first `PEERS_TOPICS` topics of each group of `PEERS_GROUPS` (default: every group; with
    `--quick`, one covered and one near miss), in TOPICS order: a count for every setting, or per
    setting ("scripted:2,qwen:1")."""
    groups = {g.strip() for g in os.environ.get("PEERS_GROUPS", "").split(",") if g.strip()}
    if not groups and quick:
        groups = {"covered", "near-miss"}
    wanted = os.environ.get("PEERS_TOPICS", "").strip()
    counts = dict(part.split(":", 1) for part in wanted.split(",") if ":" in part)
    count = wanted if wanted.isdigit() else counts.get(setting, "")
    each = int(count) if count.isdigit() else 1 if quick else len(TOPICS)
    taken: dict[str, int] = {}
    topics = []
    for topic in TOPICS:
        if (not groups or topic.group in groups) and taken.get(topic.group, 0) < each:
            taken[topic.group] = taken.get(topic.group, 0) + 1
            topics.append(topic)
    return topics


def _systems_wanted(peers: list[str]) -> list[str]:
    """`PEERS_SYSTEMS` (desk, open_deep_research, gpt-researcher) narrows the systems run."""
    wanted = [w.strip() for w in os.environ.get("PEERS_SYSTEMS", "").split(",") if w.strip()]
    return [s for s in ("desk", *peers) if not wanted or s in wanted]


def _row_key(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    return row.get("setting"), row.get("system"), row.get("topic")


def merged_rows(previous: list[Any], measured: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last results' rows with the runs measured now in their place: a run narrowed to some
    settings, systems or topics replaces those rows only (each row keeps its own date and load)."""
    new = {_row_key(r): r for r in measured}
    rows: list[dict[str, Any]] = []
    for old in previous:
        if isinstance(old, dict):
            rows.append(new.pop(_row_key(old), old))
    return rows + list(new.values())


def _previous_rows() -> list[Any]:
    from bench.report import RESULTS_JSON

    try:
        previous = json.loads(RESULTS_JSON.read_text()).get("peers") or []
    except (OSError, ValueError):
        return []
    return previous if isinstance(previous, list) else []


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def measure(ctx: BenchContext) -> dict[str, Any]:
    root = ctx.scratch("peers")
    pythons: dict[str, Path] = {}
    unavailable: dict[str, str] = {}
    for spec in PEERS:
        try:
            log(f"peers: {spec.requirement} venv")
            pythons[spec.name] = ensure_venv(spec)
        except PeerUnavailable as exc:
            unavailable[spec.name] = str(exc)
            log(f"peers: {spec.name} unavailable: {exc}")
    if not pythons:
        raise FigureSkipped("no peer could be installed: " + "; ".join(f"{k}: {v}" for k, v in unavailable.items()))
    lift_rate_limits("tavily", concurrency=64)
    rows: list[dict[str, Any]] = []
    skipped_settings: dict[str, str] = {}
    settings = _settings_wanted(ctx.quick)
    systems = _systems_wanted(list(pythons))
    budget = RunBudget.from_environ(sum(len(_topics_for(name, ctx.quick)) for name in settings) * len(systems))
    not_run: list[str] = []
    with PeerWorld(root) as world:
        for name in settings:
            try:
                with model_setting(name, root) as setting:
                    for i, item in enumerate(_topics_for(name, ctx.quick)):
                        rows += _topic_rows(setting, world, item, pythons, root / f"{name}-{i}", budget, not_run)
            except PeerUnavailable as exc:
                skipped_settings[name] = str(exc)
                log(f"peers: setting {name} skipped: {exc}")
    return {
        "peers": merged_rows(_previous_rows(), rows),
        "peers_details": {
            "machine": machine_info(),  # the other figures' machine line may be another run's
            "versions": {
                spec.name: installed_version(pythons[spec.name], spec.package) for spec in PEERS if spec.name in pythons
            },  # fmt: skip
            "unavailable": unavailable,
            "settings_skipped": skipped_settings,
            "not_run": not_run,
            "deadline_utc": os.environ.get("PEERS_DEADLINE") or None,
            "sizes": SIZES,
            "why_these_sizes": WHY_SIZES,
            "reply_caps": CAPS,
            "n_ctx": N_CTX,
            "adapters_on_llama_cpp": ADAPTERS_ON_LLAMA_CPP.names(),
            "tokens": "counted by the metering proxy over the wire text: the GGUF vocabulary on llama-cpp "
            "(/extras/tokenize/count), the fake's 4 characters a token on the scripted fake",
        },
    }


def _topic_rows(
    setting: ModelSetting,
    world: PeerWorld,
    item: PeerTopic,
    pythons: dict[str, Path],
    root: Path,
    budget: RunBudget,
    not_run: list[str],
) -> list[dict[str, Any]]:
    rows = []
    for system in _systems_wanted(list(pythons)):
        ceiling = budget.ceiling(_timeout(setting.name))
        if ceiling is None:
            not_run.append(f"{setting.name} / {system} / {item.topic}: too little time left before PEERS_DEADLINE")
            log(f"peers: {setting.name} / {system} / {item.topic} not run (PEERS_DEADLINE)")
            continue
        setting.proxy.reset()
        world.clear_log()
        if setting.scripted is not None:
            setting.scripted.topic = item.topic
        log(f"peers: {setting.name} / {system} / {item.topic} (ceiling {ceiling:g} s)")
        scratch = root / system
        started_at, load_before, log_from = (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            _load(),
            setting.log_offset(),
        )
        if system == "desk":
            run = _desk_run(setting, world, item.topic, scratch, ceiling)
        else:
            spec = GPT_RESEARCHER if system == GPT_RESEARCHER.name else OPEN_DEEP_RESEARCH
            run = _peer_run(spec, pythons[system], setting, world, item.topic, scratch, ceiling)
        run["ceiling"] = ceiling
        load_after, errors = _load(), setting.server_errors(log_from)
        if run["timed_out"] and setting.restart is not None:  # before the meter asks the server for its counts
            log(f"peers: {setting.name} server started again (a request of the cut run may still be running)")
            setting.restart()
        row = {"setting": setting.name, **_row(system, item, run, setting, world), "measured_at": started_at,
               "load_average_1m": [load_before, load_after], "server_errors": errors}  # fmt: skip
        log(
            f"peers: {'finished' if row['finished'] else 'FAILED'} in {row['seconds']} s, {row['requests']} requests "
            f"({row['failed_requests']} failed), {row['prompt_tokens']:,}+{row['completion_tokens']:,} tokens, "
            f"{row['searches']} searches, {row['sources_cited']} cited, {row['invented_citations']} invented"
            + (f"; {row['error']}" if row["error"] else "")
        )
        rows.append(row)
    return rows

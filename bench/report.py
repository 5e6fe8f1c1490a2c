"""Writes the results: bench/results.json (every figure, the machine, the changes made), a
markdown table (bench/results.md), and the README's Performance section between
`<!-- bench:start -->` and `<!-- bench:end -->` (appended at the end of README.md if absent;
nothing else in the README is touched)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from bench.changes import CHANGES
from bench.critical_path import TARGET as CRITICAL_PATH_TARGET
from bench.harness import BENCH_DIR, REPO_ROOT, Results
from bench.peers import report as peers_report
from bench.phases import phase_table

RESULTS_JSON = BENCH_DIR / "results.json"
RESULTS_MD = BENCH_DIR / "results.md"
README = REPO_ROOT / "README.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
# The keys every results file has (bench/results.json is tracked over time).
REQUIRED_KEYS = (
    "machine",
    "critical_path_efficiency",
    "fanout_ratio",
    "tokens_per_run",
    "offline_graph_seconds",
    "library",
    "dashboard",
    "memory",
)


HEADER_KEYS = ("machine", "mode", "measured_at")
# Keyed by figure name: a partial run replaces the entries of the figures it ran, keeps the others.
PER_FIGURE_KEYS = ("skipped", "errors", "bench_seconds", "sections")


def results_document(results: Results, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document: figures measured now, over those of `previous` (a partial run keeps the
    other figures of the last full one), with the changes log.

    A partial run (`previous` given) keeps the header (machine, mode, measured_at) of the run that
    wrote it; the time, mode and load of the figures it measured go to their own "sections" entry."""
    now = results.as_dict()
    document = dict(previous or {})
    if previous is not None and all(previous.get(key) for key in HEADER_KEYS):
        for key in HEADER_KEYS:
            now.pop(key)
    ran = set(results.seconds) | set(results.sections) | set(results.skipped) | set(results.errors)
    for key in PER_FIGURE_KEYS:
        kept = document.get(key) if isinstance(document.get(key), dict) else {}
        document[key] = {name: value for name, value in kept.items() if name not in ran} | now.pop(key)
    document.update(now)
    for key in REQUIRED_KEYS:  # the full shape even when a figure was skipped (see "skipped")
        document.setdefault(key, {})
    document["changes"] = CHANGES
    return document


def measured_apart(doc: dict[str, Any]) -> list[str]:
    """The figures measured by another run than the one in the header, with their own time and load."""
    out = []
    for name, section in (doc.get("sections") or {}).items():
        if isinstance(section, dict) and section.get("run_started") != doc.get("measured_at"):
            out.append(
                f"{name} {section.get('measured_at', '?')} ({section.get('mode', '?')} mode, load "
                f"{section.get('load_average_1m', '?')})"
            )
    return out


def _ok(value: float | None, target: float, *, below: bool = True) -> str:
    if value is None:
        return "–"
    return "yes" if (value <= target if below else value >= target) else "**no**"


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.3g}{unit}" if abs(value) < 100 else f"{value:,.0f}{unit}"
    if isinstance(value, int):
        return f"{value:,}{unit}"
    return f"{value}{unit}"


class Row(NamedTuple):
    """One line of the results table; a measure without a target leaves the last two cells empty."""

    figure: str
    measure: str
    result: str
    target: str = ""
    met: str = ""


def figure_rows(doc: dict[str, Any]) -> list[Row]:
    """The rows for every figure present in `doc`."""
    rows: list[Row] = []
    for allocation, ratio in (doc.get("critical_path_efficiency") or {}).items():
        rows.append(
            Row(
                "1 critical path",
                f"measured / ideal, allocation {allocation}",
                f"{ratio:.3f}",
                f"≤ {CRITICAL_PATH_TARGET:.2f}",
                _ok(ratio, CRITICAL_PATH_TARGET),
            )
        )
    for allocation, ratio in (doc.get("critical_path_without_search_cache") or {}).items():
        rows.append(
            Row(
                "1 critical path",
                f"the same, allocation {allocation}, search cache off (repeated queries sent again)",
                f"{ratio:.3f}",
            )
        )
    for allocation, ratio in (doc.get("critical_path_realistic") or {}).items():
        rows.append(
            Row(
                "1 critical path",
                f"the same, allocation {allocation}, realistic latencies (model 1.0 s, search 0.5 s)",
                f"{ratio:.3f}",
            )
        )
    targets = {"3": 1.15, "9": 1.3}
    teams = ((doc.get("fanout_details") or {}).get("teams")) or {}
    for size, ratio in (doc.get("fanout_ratio") or {}).items():
        if size == "1":  # the baseline itself
            continue
        target = targets.get(size)
        team = teams.get(size, {}).get("allocation", "")
        rows.append(
            Row(
                "2 fan-out",
                f"wall time, {size} researchers ({team}) / 1 researcher",
                f"{ratio:.3f}",
                f"≤ {target}" if target else "",
                _ok(ratio, target) if target else "",
            )
        )
    for case, cost in (doc.get("tokens_per_run") or {}).items():
        total = cost["prompt_tokens"] + cost["completion_tokens"]
        default = case == (doc.get("tokens_details") or {}).get("default_case")
        rows.append(
            Row(
                "3 cost",
                f"{case}: {cost['calls']} calls, {cost['prompt_tokens']:,} + {cost['completion_tokens']:,} tokens",
                f"{total:,} tokens",
                "< 60,000" if default else "",
                _ok(total, 59_999) if default else "",
            )
        )
    for case, modes in (doc.get("agent_vs_pipeline") or {}).items():
        p, a = modes.get("pipeline") or {}, modes.get("agent") or {}
        if p and a:
            rows.append(
                Row(
                    "8 agent vs pipeline",
                    f"{case}: wall {_fmt(a['wall_seconds'], ' s')} vs "
                    f"{_fmt(p['wall_seconds'], ' s')}, calls {a['model_calls']} vs {p['model_calls']}, sources "
                    f"{a['sources']} vs {p['sources']}, cited {a['cited_sources']} vs {p['cited_sources']}, "
                    f"{a['tool_calls']} tool calls",
                    f"tokens {a['total_tokens']:,} vs {p['total_tokens']:,}",
                )
            )
    for allocation, seconds in (doc.get("offline_graph_seconds") or {}).items():
        rows.append(
            Row(
                "4 offline",
                f"graph wall time, allocation {allocation}",
                _fmt(seconds, " s"),
                "< 1 s",
                _ok(seconds, 1.0),
            )
        )
    cli = ((doc.get("offline_details") or {}).get("cli")) or {}
    if cli:
        python_start = _fmt(cli.get("python_start_seconds"), " s")
        rows.append(
            Row(
                "4 offline",
                f"CLI: process start to first event (python itself: {python_start})",
                _fmt(cli.get("first_event_seconds"), " s"),
            )
        )
    for docs, lib in (doc.get("library") or {}).items():
        at_scale = docs == "100000"
        rows.append(
            Row(
                "5 library",
                f"{int(docs):,} docs: import {_fmt(lib['import_seconds'], ' s')}, p95 "
                f"{_fmt(lib['query_p95_ms'], ' ms')}",
                f"p50 {_fmt(lib['query_p50_ms'], ' ms')}",
                "p50 < 10 ms" if at_scale else "",
                _ok(lib["query_p50_ms"], 10.0) if at_scale else "",
            )
        )
    local = doc.get("local_model_run") or {}
    if local:
        server = (doc.get("local_model_details") or {}).get("server", "a local server")
        rows.append(
            Row(
                "8 local model",
                f"whole run on {server}: "
                f"{local['calls']} calls ({local['failed_calls']} failed), {local['prompt_tokens']:,} + "
                f"{local['completion_tokens']:,} tokens, {local['steps_degraded']} steps degraded",
                _fmt(local["seconds"], " s"),
            )
        )
    dash = doc.get("dashboard") or {}
    if dash:
        rows.append(
            Row(
                "6 dashboard",
                "click → first researcher card",
                _fmt(dash.get("first_card_seconds"), " s"),
                "≤ 1 s",
                _ok(dash.get("first_card_seconds"), 1.0),
            )
        )
        rows.append(Row("6 dashboard", "click → final draft", _fmt(dash.get("draft_seconds"), " s")))
        rows.append(Row("6 dashboard", "open a run → 500-row sources table", _fmt(dash.get("table_500_seconds"), " s")))
    memory = doc.get("memory") or {}
    if memory:
        details = doc.get("memory_details") or {}
        proof = details.get("page_text_not_in_checkpoints") or {}
        rows.append(Row("7 memory", "peak RSS, 9-researcher offline run", _fmt(memory.get("peak_rss_mb"), " MB")))
        rows.append(
            Row(
                "7 memory",
                f"checkpoint bytes per default run ({details.get('checkpoints_default_run', '?')} checkpoints)",
                _fmt(memory.get("checkpoint_bytes_per_run"), " B"),
            )
        )
        if proof:
            rows.append(
                Row(
                    "7 memory",
                    f"100 KB page text in checkpoints: {proof['markers_in_checkpoints']} of "
                    f"{proof['markers_in_text']} marker sentences (snippets)",
                    "not copied" if proof["proven"] else "**copied**",
                    "not copied",
                    "yes" if proof["proven"] else "**no**",
                )
            )
    for piece, lib in (doc.get("libraries") or {}).items():  # bench/libraries.py: library time / own time
        if "ratio" in lib:
            rows.append(
                Row(
                    "8 libraries",
                    f"{piece}: library time / own time; code uses {lib['decision']}",
                    f"{lib['ratio']:.3g}",
                )
            )
    hostile = doc.get("hostile_inputs") or {}
    if hostile:  # peak RSS importing the worst bundle and the worst document
        for case, d in (doc.get("hostile_inputs_details") or {}).items():
            rows.append(
                Row(
                    "8 hostile inputs",
                    f"{case.replace('_', ' ')} ({d['file_bytes'] // 1024} KB file): peak RSS",
                    _fmt(d["peak_rss_mb"], " MB"),
                    f"< {hostile['bound_mb']} MB",
                    _ok(d["peak_rss_mb"], hostile["bound_mb"]),
                )
            )
    remote = doc.get("remote_mode") or {}
    if remote:
        rows.append(
            Row(
                "8 remote mode",
                f"default offline run via langgraph dev on loopback "
                f"({_fmt(remote.get('remote_seconds'), ' s')}) / in-process "
                f"({_fmt(remote.get('in_process_seconds'), ' s')})",
                f"{remote.get('ratio', 0):.2f}x",
            )
        )
        rows.append(
            Row(
                "8 remote mode",
                "call → first event (run_started): remote / in-process",
                f"{_fmt(remote.get('remote_first_event_seconds'), ' s')} / "
                f"{_fmt(remote.get('in_process_first_event_seconds'), ' s')}",
            )
        )
    return rows


def markdown(doc: dict[str, Any]) -> str:
    machine = doc.get("machine") or {}
    lines = [
        f"Measured {doc.get('measured_at', '?')} ({doc.get('mode', '?')} mode) on {machine.get('cores', '?')} cores, "
        f"{machine.get('memory_gb', '?')} GB, Python {machine.get('python', '?')} ({machine.get('cpu', '?')}; "
        f"1-minute load average {machine.get('load_average_1m', '?')} at the start).",
    ]
    apart = measured_apart(doc)
    if apart:
        lines += ["", f"Measured by later partial runs (`--only`), each at its own time and load: {'; '.join(apart)}."]
    lines += [
        "",
        "| figure | measure | result | target | met |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [f"| {' | '.join(row)} |" for row in figure_rows(doc)]
    for name, reason in (doc.get("skipped") or {}).items():
        lines.append(f"| {name} | skipped: {reason} | | | |")
    for name, error in (doc.get("errors") or {}).items():
        lines.append(f"| {name} | failed: {error} | | | |")
    lines += [
        "",
        "Figures 1-3 run the real graph, LLM brain (`ChatOpenAI`) and providers against loopback fakes with "
        "fixed latencies (model 200 ms per call, search 300 ms per request); the ideal is the run's own "
        "longest chain of dependent calls. Tokens are counted by the fake server (4 characters per token).",
    ]
    lines += phase_table(doc)
    if doc.get("changes"):
        lines += ["", "Changes made because of these figures (before → after; details in bench/results.json):", ""]
        lines += [f"- {c['what']} (`{c['file']}`): {_change(c['before'], c['after'])}" for c in doc["changes"]]
    return "\n".join(lines) + "\n"


def _change(before: Any, after: Any) -> str:
    if not isinstance(before, dict):
        return f"{before} → {after}"
    parts = []
    for figure in ("critical_path_efficiency", "fanout_ratio"):
        pairs = [f"{k}: {v} → {after[figure][k]}" for k, v in before.get(figure, {}).items() if k != "1"]
        parts.append(f"{figure} " + ", ".join(pairs))
    return "; ".join(parts)


def update_readme(section: str, readme: Path = README) -> None:
    """Replace the text between the bench markers; append a Performance section if there is none."""
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    block = f"{START}\n{section.rstrip()}\n{END}"
    if START in text and END in text and text.index(START) < text.index(END):
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1]
        text = before + block + after
    else:
        intro = (
            "`make bench` measures these figures (about three minutes on 2 cores; `make bench-quick` about "
            "90 s). Code and method: `bench/`; every figure, the machine and the changes made: "
            "`bench/results.json`."
        )
        text = text.rstrip("\n") + f"\n\n## Performance\n\n{intro}\n\n{block}\n"
    readme.write_text(text, encoding="utf-8")


def write(
    results: Results,
    *,
    merge: bool = False,
    json_path: Path = RESULTS_JSON,
    md_path: Path = RESULTS_MD,
    readme: Path | None = README,
) -> dict[str, Any]:
    previous = None
    if merge and json_path.exists():
        try:
            previous = json.loads(json_path.read_text())
        except ValueError:
            previous = None
    doc = results_document(results, previous)
    peers_report.keep_last(doc, json_path)
    json_path.write_text(json.dumps(doc, indent=2) + "\n")
    _write_tables(doc, md_path, readme)
    return doc


def render(*, json_path: Path = RESULTS_JSON, md_path: Path = RESULTS_MD, readme: Path | None = README) -> None:
    """The tables again from the stored results (nothing measured)."""
    _write_tables(json.loads(json_path.read_text()), md_path, readme)


def _write_tables(doc: dict[str, Any], md_path: Path, readme: Path | None) -> None:
    table = markdown(doc)
    md_path.write_text("# Benchmark results\n\n" + table + peers_report.results_md(doc))
    if readme is not None:
        update_readme(table, readme)
        peers_report.update_readme(doc, readme)

"""The peers figure as Markdown: one summary row per model setting and system (README "Peers",
between `<!-- peers:start -->` and `<!-- peers:end -->`), and every run's row (bench/results.md)."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import median
from typing import Any

START, END = "<!-- peers:start -->", "<!-- peers:end -->"
NO_ANSWER = ("uncovered", "near-miss")
SETTING_NAMES = {
    "scripted": "scripted fake",
    "smollm2": "SmolLM2-135M (llama-cpp)",
    "qwen": "Qwen2.5-Coder-1.5B (llama-cpp)",
}
SYSTEM_ORDER = ("desk", "open_deep_research", "gpt-researcher")


def _groups(rows: list[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    out = []
    for setting in SETTING_NAMES:
        for system in SYSTEM_ORDER:
            mine = [r for r in rows if r.get("setting") == setting and r.get("system") == system]
            if mine:
                out.append((setting, system, mine))
    return out


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):,.0f}" if values else "–"


def summary_row(setting: str, system: str, rows: list[dict[str, Any]]) -> str:
    finished = sum(bool(r["finished"]) for r in rows)
    seconds = [float(r["seconds"]) for r in rows]
    cited = sum(int(r["cited_sentences"]) for r in rows)
    supported = sum(int(r["supported_sentences"]) for r in rows)
    # What a report cites or says is read from finished runs only: a run cut at its ceiling wrote
    # nothing, which is "did not finish", never "cites nothing" on a no-answer topic.
    done = [r for r in rows if r["finished"]]
    no_answer = [r for r in done if r["group"] in NO_ANSWER]
    cells = [
        SETTING_NAMES[setting],
        system,
        f"{finished} of {len(rows)}",
        f"{median(seconds):,.1f} ({min(seconds):,.1f}-{max(seconds):,.1f})",
        f"{_mean([r['requests'] for r in rows])} ({sum(r['failed_requests'] for r in rows)})",
        f"{_mean([r['prompt_tokens'] for r in rows])} / {_mean([r['completion_tokens'] for r in rows])}",
        _mean([r["searches"] for r in rows]),
        _mean([r["sources_cited"] for r in done if r["group"] not in NO_ANSWER]),
        str(sum(int(r["invented_citations"]) for r in rows)),
        str(sum(int(r["off_subject_citations"]) for r in rows)),
        f"{supported / cited:.2f} ({cited})" if cited else "–",
        f"{sum(bool(r['cites_nothing']) for r in no_answer)} of {len(no_answer)}" if no_answer else "–",
        _says_so(no_answer),
        _resolving(rows),
        _mean([r["report_words"] for r in done]),
    ]
    return f"| {' | '.join(cells)} |"


def _says_so(no_answer: list[dict[str, Any]]) -> str:
    """No-answer runs whose report says it found nothing (rows measured before this was read: not counted)."""
    read = [r for r in no_answer if "says_nothing_found" in r]
    return f"{sum(bool(r['says_nothing_found']) for r in read)} of {len(read)}" if read else "–"


def _resolving(rows: list[dict[str, Any]]) -> str:
    """Distinct citations (pages, URLs and [n] markers) that lead to a page the world served, over all runs."""
    served = sum(int(r["sources_cited"]) for r in rows)
    total = served + sum(int(r["invented_citations"]) for r in rows)
    return f"{served} of {total}" if total else "–"


HEADER = [
    "| model | system | finished | wall s, median (range) | requests a run (failed, all runs) | "
    "prompt / completion tokens a run | searches a run | sources cited (covered, finished) | invented citations | "
    "off-subject citations | supported share (cited sentences) | no-answer topics citing nothing (finished) | "
    "no-answer topics saying nothing was found (finished) | citations that resolve | words (finished) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
]


def _failures(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, list[str]] = {}
    for r in rows:
        problems = [r["error"]] if r.get("error") else []
        problems += [e for e in r.get("request_errors") or [] if e]
        problems += [f"the server logged {e}" for e in r.get("server_errors") or [] if e]
        for problem in problems:
            key = f"{SETTING_NAMES.get(r['setting'], r['setting'])}, {r['system']}: {str(problem)[:220]}"
            seen.setdefault(key, []).append(r["topic"])
    return [f"- {key} ({len(topics)} of the runs)" for key, topics in seen.items()]


def section(doc: dict[str, Any]) -> str:
    rows = [r for r in doc.get("peers") or [] if isinstance(r, dict)]
    details = doc.get("peers_details") or {}
    machine = details.get("machine") or doc.get("machine") or {}
    if not rows:
        reason = (doc.get("skipped") or {}).get("peers") or (doc.get("errors") or {}).get("peers") or "not measured"
        return f"Not measured: {reason}.\n"
    dates = sorted({r.get("measured_at", "?") for r in rows})
    versions = ", ".join(f"{k} {v}" for k, v in (details.get("versions") or {}).items())
    loads = [float(x) for r in rows for x in r.get("load_average_1m") or []]
    load = (
        f"1-minute load average {min(loads):.1f}-{max(loads):.1f} over the runs that recorded it"
        if loads
        else f"1-minute load average {machine.get('load_average_1m', '?')} at the start"
    )
    lines = [
        f"Measured {dates[0]}{' to ' + dates[-1] if len(dates) > 1 else ''} on {machine.get('cores', '?')} shared "
        f"cores ({machine.get('cpu', '?')}, Python {machine.get('python', '?')}, {load}); peers: {versions}. Topics: "
        "covered, near miss and uncovered (bench/peers/figure.py); every number from the metering proxy, the "
        "world's request log and one reader of the reports, none from a system's own account.",
        "",
        *HEADER,
        *[summary_row(setting, system, mine) for setting, system, mine in _groups(rows)],
    ]
    for name, reason in (details.get("unavailable") or {}).items():
        lines.append(f"| | {name} | not run: {reason} | | | | | | | | | | | | |")
    for name, reason in (details.get("settings_skipped") or {}).items():
        lines.append(f"| {SETTING_NAMES.get(name, name)} | all | not run: {reason} | | | | | | | | | | | | |")
    failures = _failures(rows)
    if failures:
        lines += ["", "What failed:", "", *failures]
    not_run = [str(item) for item in details.get("not_run") or []]
    if not_run:
        lines += ["", "Not run (the last run's deadline left them too little time):", "", *[f"- {n}" for n in not_run]]
    return "\n".join(lines) + "\n"


def run_rows(doc: dict[str, Any]) -> str:
    """Every run, for bench/results.md."""
    rows = [r for r in doc.get("peers") or [] if isinstance(r, dict)]
    if not rows:
        return ""
    lines = [
        "## Peers, every run",
        "",
        "| model | system | topic (group) | finished | wall s | requests (failed) | tokens | searches | cited | "
        "invented | off-subject | supported | words | measured (load before-after) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        share = f"{r['supported_sentences']} of {r['cited_sentences']}"
        cells = [
            SETTING_NAMES.get(r["setting"], r["setting"]),
            r["system"],
            f"{r['topic']} ({r['group']})",
            "yes" if r["finished"] else "**no**",
            f"{r['seconds']:,}",
            f"{r['requests']} ({r['failed_requests']})",
            f"{r['prompt_tokens']:,} + {r['completion_tokens']:,}",
            str(r["searches"]),
            str(r["sources_cited"]),
            str(r["invented_citations"]),
            str(r["off_subject_citations"]),
            share,
            str(r["report_words"]),
            f"{r.get('measured_at', '?')} ({'-'.join(str(x) for x in r.get('load_average_1m') or []) or '?'})",
        ]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def keep_last(doc: dict[str, Any], json_path: Path) -> None:
    """Peers are measured only when asked for: a run without them keeps the last peers figures."""
    if doc.get("peers") or not json_path.exists():
        return
    try:
        last = json.loads(json_path.read_text())
    except ValueError:
        return
    for key in ("peers", "peers_details"):
        if last.get(key):
            doc[key] = last[key]


def results_md(doc: dict[str, Any]) -> str:
    """The peers part of bench/results.md: the summary and every run (empty when not measured)."""
    if not doc.get("peers"):
        return ""
    return f"\n## Peers (`python -m bench --only peers`)\n\n{section(doc)}\n{run_rows(doc)}"


def update_readme(doc: dict[str, Any], readme: Path) -> None:
    """Replace the text between the peers markers (a README without them is left alone)."""
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if START not in text or END not in text or text.index(START) > text.index(END):
        return
    before, rest = text.split(START, 1)
    readme.write_text(f"{before}{START}\n{section(doc).rstrip()}\n{END}{rest.split(END, 1)[1]}", encoding="utf-8")

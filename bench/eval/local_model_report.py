"""The real-model eval's summary, targets and outputs (bench/eval_local_model.{json,md}, README)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

TARGETS = {
    "invented_citations": "0",
    "factual_cited_share": ">= 0.9 (model-written drafts)",
    "cited_supported_share": ">= 0.8 (offline claim check of the model's cited sentences)",
    "off_subject_cited_uncovered_and_near_miss": "0",
    "uncovered_and_near_miss_say_so": "all",
    "copied_verbatim_share": "< 0.5 of cited sentences",
}
START, END = "<!-- eval-local-model:start -->", "<!-- eval-local-model:end -->"


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    model_rows = [r for r in rows if r["writer"] == "model"]
    covered = [r for r in rows if r["group"] == "covered"]
    empty = [r for r in rows if r["group"] != "covered"]
    factual = sum(r["factual_sentences"] for r in model_rows)
    cited = sum(r["cited_sentences"] for r in model_rows)
    summary: dict[str, Any] = {
        "runs": len(rows),
        "covered_runs_written_by_the_model": f"{sum(r['writer'] == 'model' for r in covered)} of {len(covered)}",
        "invented_citations": sum(r["invented_citations"] for r in rows),
        "factual_cited_share": _share(sum(r["factual_cited"] for r in model_rows), factual),
        "factual_cited": sum(r["factual_cited"] for r in model_rows),
        "factual_sentences": factual,
        "cited_supported_share": _share(sum(r["cited_supported_offline"] for r in model_rows), cited),
        "cited_supported": sum(r["cited_supported_offline"] for r in model_rows),
        "cited_sentences": cited,
        "run_claim_check_precision": [r["citation_precision"] for r in covered],
        "off_subject_cited_covered": sum(r["off_topic_cited"] for r in covered),
        "off_subject_cited_uncovered_and_near_miss": sum(r["cited_sources"] for r in empty),
        "uncovered_and_near_miss_say_so": f"{sum(r['says_empty'] for r in empty)} of {len(empty)}",
        "copied_verbatim_share": _share(sum(r["copied_verbatim"] for r in model_rows), cited),
        "copied_verbatim": sum(r["copied_verbatim"] for r in model_rows),
        "condensed": sum(r.get("condensed", 0) for r in model_rows),
        "seconds_per_run": {r["topic"]: r["seconds"] for r in rows},
        "tokens_per_run": {r["topic"]: r["prompt_tokens"] + r["completion_tokens"] for r in rows},
        "steps_degraded": sum(len(r["steps_degraded"]) for r in rows),
    }
    met = {
        "invented_citations": summary["invented_citations"] == 0,
        "factual_cited_share": (summary["factual_cited_share"] or 0) >= 0.9,
        "cited_supported_share": (summary["cited_supported_share"] or 0) >= 0.8,
        # With no such run measured (a run cut short) neither is met: nothing was shown.
        "off_subject_cited_uncovered_and_near_miss": bool(empty)
        and summary["off_subject_cited_uncovered_and_near_miss"] == 0,
        "uncovered_and_near_miss_say_so": bool(empty) and all(r["says_empty"] for r in empty),
        "copied_verbatim_share": summary["copied_verbatim_share"] is not None
        and summary["copied_verbatim_share"] < 0.5,
    }
    summary["targets_met"] = met
    return summary


def counted(part: int, whole: int, share: float | None) -> str:
    """ "14 of 14 (1.0)": the count first, the share it makes after ("none" when there is no whole)."""
    return f"{part} of {whole} ({share})" if whole else "none"


def markdown(results: dict[str, Any]) -> str:
    s = results["summary"]
    met = s["targets_met"]

    def mark(key: str) -> str:
        return "met" if met.get(key) else "**not met**"

    load = results["settings"]
    lines = [
        f"Measured {results['generated_at']} by `make eval-local-model` (bench/eval/local_model.py): "
        f"{results['model']} on {results['server']}, "
        f"load average {load.get('load_average_at_start', '?')} at the start, {load['load_average']} at the end; "
        f"allocation {results['settings'].get('allocation', '110')}, no research or review rounds, library "
        f"sources, greedy decoding, model relevance judgement {results['settings'].get('relevance_judge', 'off')}, "
        f"writer's DRY multiplier {load.get('writer_dry', {}).get('multiplier', 0)} (0: off); "
        f"topics measured: {results['settings'].get('topics_measured', len(results['topics']))}.",
        "",
        "| figure | value | target |",
        "| --- | --- | --- |",
        f"| invented or unresolvable citations | {s['invented_citations']} | 0: {mark('invented_citations')} |",
        f"| factual sentences cited (model-written drafts) | "
        f"{counted(s['factual_cited'], s['factual_sentences'], s['factual_cited_share'])} "
        f"| >= 0.9: {mark('factual_cited_share')} |",
        f"| cited sentences supported by their source (offline check) | "
        f"{counted(s['cited_supported'], s['cited_sentences'], s['cited_supported_share'])} "
        f"| >= 0.8: {mark('cited_supported_share')} |",
        f"| the run's own claim check precision, covered topics | {s['run_claim_check_precision']} | |",
        f"| off-subject sources cited, uncovered and near-miss topics | "
        f"{s['off_subject_cited_uncovered_and_near_miss']} | 0: {mark('off_subject_cited_uncovered_and_near_miss')} |",
        f"| off-subject sources cited, covered topics | {s['off_subject_cited_covered']} | |",
        f"| uncovered and near-miss runs that say nothing relevant was found | {s['uncovered_and_near_miss_say_so']} "
        f"| all: {mark('uncovered_and_near_miss_say_so')} |",
        f"| cited sentences copied verbatim from their source | "
        f"{counted(s['copied_verbatim'], s['cited_sentences'], s['copied_verbatim_share'])} "
        f"| < 0.5: {mark('copied_verbatim_share')} |",
        f"| ... of the others, condensed from one source sentence (its words in its order, phrases left out) | "
        f"{s['condensed']} of {s['cited_sentences'] - s['copied_verbatim']} | |",
        f"| covered drafts written by the model (not the offline fallback) | "
        f"{s['covered_runs_written_by_the_model']} | |",
        f"| model steps degraded to the offline brain | {s['steps_degraded']} | |",
        "",
        "| topic | group | writer | evidence | cited | factual cited | supported | copied | condensed | seconds "
        "| tokens |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results["topics"]:
        lines.append(
            f"| {r['topic']} | {r['group']} | {r['writer']} | {r['evidence']} | {r['cited_sources']} | "
            f"{r['factual_cited']}/{r['factual_sentences']} | {r['cited_supported_offline']}/{r['cited_sentences']} | "
            f"{r['copied_verbatim']} | {r.get('condensed', 0)} | {r['seconds']} | "
            f"{r['prompt_tokens'] + r['completion_tokens']:,} |"
        )
    return "\n".join(lines) + "\n"


def write_outputs(results: dict[str, Any], root: Path, *, readme: bool) -> None:
    (root / "bench" / "eval_local_model.json").write_text(json.dumps(results, indent=1) + "\n")
    table = markdown(results)
    (root / "bench" / "eval_local_model.md").write_text("# Research quality on a real local model\n\n" + table)
    if not readme:
        return
    path = root / "README.md"
    text = path.read_text()
    if START in text and END in text:
        pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
        path.write_text(pattern.sub(lambda _m: f"{START}\n{table}{END}", text, count=1))

"""Aggregate the eval's per-topic figures, check the targets, write bench/eval_results.{json,md}
and the README's eval section (between its markers)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench.eval import near_miss
from bench.eval.prose import aggregate_prose

TARGETS = {
    "invented_citations": "0 invented or unresolvable citations",
    "off_topic_cited_uncovered": "0 off-topic sources cited on uncovered topics",
    "citation_precision": "citation precision >= 0.95 (offline)",
    "empty_runs_say_so": "every empty run says so",
    "near_miss": "near-miss topics cite nothing and say so; evidence agrees with the draft on every topic",
    "prose": "0 quoted sentences in a source's first person, its method or with a referent left out (offline)",
    "covered_precision": "citation precision >= 0.95 on covered topics (offline)",
}
MIN_PRECISION = 0.95
README_START, README_END = "<!-- eval:start -->", "<!-- eval:end -->"


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def aggregate(rows: list[dict[str, Any]], *, prose_target: bool = False) -> dict[str, Any]:
    """`prose_target`: the prose figures count toward the targets (the offline writer's; a model's prose
    is its own and is only reported)."""
    checked = sum(r["checked"] for r in rows)
    supported = sum(r["supported"] for r in rows)
    uncovered = [r for r in rows if r["group"] == "uncovered"]
    answerable = [r for r in rows if r["group"] not in near_miss.NO_ANSWER_GROUPS]
    summary = {
        "topics": len(rows),
        "citation_precision": round(supported / checked, 3) if checked else None,
        "claims_checked": checked,
        "invented_citations": sum(r["invented_citations"] for r in rows),
        "off_topic_cited_uncovered": sum(r["off_topic_cited"] for r in uncovered),
        "off_topic_cited_covered": sum(r["off_topic_cited"] for r in answerable),
        "questions_covered": (
            f"{sum(r['questions_covered'] for r in answerable)} of {sum(r['questions'] for r in answerable)}"
        ),
        "repeated_sentences": sum(r["repeated_sentences"] for r in rows),
        "miscited_claims_flagged": _share(
            sum(r.get("miscited_flagged", 0) for r in rows), sum(r.get("miscited_checked", 0) for r in rows)
        ),
        "orphan_openers": sum(r.get("orphan_openers", 0) for r in rows),
        "empty_runs_say_so": f"{sum(r['says_empty'] for r in uncovered)} of {len(uncovered)}",
        "answerable_runs_with_evidence": f"{sum(r['evidence'] != 'none' for r in answerable)} of {len(answerable)}",
    }
    summary.update(near_miss.summary(rows))
    covered = [r for r in rows if r["group"] in ("covered", "reworded")]
    covered_checked = sum(r["checked"] for r in covered)
    summary["covered_precision"] = (
        round(sum(r["supported"] for r in covered) / covered_checked, 3) if covered_checked else None
    )
    summary["prose"] = aggregate_prose(rows) if all("prose" in r for r in rows) else None
    summary["targets_met"] = near_miss.targets_met(rows) and bool(
        summary["invented_citations"] == 0
        and (summary["covered_precision"] is None or summary["covered_precision"] >= MIN_PRECISION)
        and summary["off_topic_cited_uncovered"] == 0
        and (summary["citation_precision"] or 0) >= MIN_PRECISION
        and all(r["says_empty"] for r in uncovered)
        and not (prose_target and summary["prose"] and summary["prose"]["unfit_sentence_share"] > 0)
    )
    return summary


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"Measured {results['generated_at']} by `make eval` (bench/eval/). Targets: "
        + "; ".join(results["targets"].values())
        + ".",
        "",
    ]
    for brain in results["brains"]:
        s = brain["summary"]
        lines += [f"**{brain['brain']}** (targets met: {'yes' if s['targets_met'] else 'NO'})", ""]
        if brain.get("note"):
            lines += [brain["note"], ""]
        lines += [
            "| figure | value |",
            "| --- | --- |",
            "| citation precision (supported / checked claims) | "
            f"{s['citation_precision']} of {s['claims_checked']} claims |",
            f"| invented or unresolvable citations | {s['invented_citations']} |",
            f"| off-topic sources cited, uncovered topics | {s['off_topic_cited_uncovered']} |",
            f"| off-topic sources cited, covered topics | {s['off_topic_cited_covered']} |",
            f"| questions covered (answerable topics) | {s['questions_covered']} |",
            f"| repeated sentences | {s['repeated_sentences']} |",
            f"| sentences opening on a missing referent | {s['orphan_openers']} |",
            f"| miscited claims the claim check flags (citations rotated) | {s['miscited_claims_flagged']} |",
            f"| empty runs that say so | {s['empty_runs_say_so']} |",
            f"| answerable runs with evidence | {s['answerable_runs_with_evidence']} |",
            *near_miss.markdown_rows(s),
            f"| citation precision, covered and reworded topics | {s.get('covered_precision')} |",
        ]
        prose = s.get("prose")
        if prose:
            lines += [
                f"| quoted sentences not in the desk's voice (share, target 0) | {prose['unfit_sentence_share']} "
                f"of {prose['quoted_sentences']} |",
                f"| ... in a source's first person / its method / a referent left out | {prose['first_person']} / "
                f"{prose['method']} / {prose['dangling']} |",
                f"| question sections not opening with an answer | {prose['off_answer_openers']} |",
            ]
        lines += [
            "",
            "| topic | group | evidence | precision | cited | off-topic | questions | repeats |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| {r['topic']} | {r['group']} | {r['evidence']} | {r['citation_precision']} | {r['cited_sources']} | "
            f"{r['off_topic_cited']} | {r['questions_covered']}/{r['questions']} | {r['repeated_sentences']} |"
            for r in brain["topics"]
        ]
        lines.append("")
    rel = results.get("relevance")
    if rel:
        lines += [
            f"**Relevance threshold** (every sample document against every library and uncovered topic, "
            f"{rel['pairs']} pairs): at MIN_SCORE {rel['min_score']} the ranking keeps "
            f"{rel['own_documents_kept']:.0%} of a topic's own documents and {rel['other_documents_kept']} of "
            "other topics'.",
            "",
            "| threshold | own documents kept | other documents kept |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {t} | {v['own_kept']:.0%} | {v['other_kept']} |" for t, v in rel["sweep"].items()]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_results(results: dict[str, Any], root: Path, *, readme: bool) -> None:
    (root / "bench" / "eval_results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    text = markdown(results)
    (root / "bench" / "eval_results.md").write_text("# Research-quality eval\n\n" + text, encoding="utf-8")
    path = root / "README.md"
    if readme and path.exists():
        current = path.read_text(encoding="utf-8")
        if README_START in current and README_END in current:
            block = f"{README_START}\n{text}{README_END}"
            path.write_text(
                re.sub(
                    re.escape(README_START) + ".*?" + re.escape(README_END), lambda _: block, current, flags=re.DOTALL
                ),
                encoding="utf-8",
            )

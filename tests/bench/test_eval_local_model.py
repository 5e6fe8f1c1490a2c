"""Keeps `make eval-local-model` (bench/eval/local_model.py) from rotting between real-model runs:
one topic through the same code against the loopback model instead of llama-cpp, its row read
from the typed run view, summarised and rendered as the README table. No figure is asserted:
the real model's figures are the eval's, not a test's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.eval.local_model import TOPICS, run_topic
from bench.eval.local_model_report import markdown, summarise
from tests.fakes.openai_server import FakeOpenAIServer


@dataclass
class LoopbackServer:
    """What the eval reads of its llama-cpp server."""

    base_url: str
    alias: str = "fake-model"
    n_ctx: int = 4096


def test_one_topic_runs_through_the_eval_and_renders_its_table(tmp_path: Path) -> None:
    covered = next(t for t in TOPICS if t.group == "covered")
    with FakeOpenAIServer() as fake:
        row = run_topic(LoopbackServer(fake.base_url), covered, tmp_path / "run")
    assert row["writer"] == "model" and row["calls"] > 0 and row["prompt_tokens"] > 0
    assert row["claim_check_method"] == "model" and row["verdicts"]
    assert row["model_relevance_drops"] == 0  # the scripted model finds every kept source relevant
    assert not [w for w in row["steps_degraded"]]
    assert row["factual_sentences"] >= row["factual_cited"] > 0
    summary = summarise([row])
    results = {
        "generated_at": "now",
        "model": "fake",
        "server": "loopback",
        "settings": {"load_average": 0.0},
        "summary": summary,
        "topics": [row],
    }
    table = markdown(results)
    assert covered.topic in table and "| invented or unresolvable citations | 0 |" in table


def _model_row(
    topic: str, factual: int, cited: int, supported: int, copied: int, condensed: int = 0
) -> dict[str, object]:
    return {
        "topic": topic,
        "group": "covered",
        "writer": "model",
        "evidence": "partial",
        "cited_sources": 3,
        "factual_sentences": factual,
        "factual_cited": cited,
        "cited_sentences": cited,
        "cited_supported_offline": supported,
        "copied_verbatim": copied,
        "condensed": condensed,
        "invented_citations": 0,
        "citation_precision": 1.0,
        "off_topic_cited": 0,
        "says_empty": False,
        "seconds": 1.0,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "steps_degraded": [],
    }


def test_the_table_counts_sentences_as_counts_with_their_share_beside() -> None:
    rows = [_model_row("a", 8, 8, 7, 3, condensed=2), _model_row("b", 6, 6, 6, 1, condensed=1)]
    results = {"generated_at": "now", "model": "m", "server": "s", "settings": {"load_average": 0.0}}
    table = markdown({**results, "summary": summarise(rows), "topics": rows})
    assert "| factual sentences cited (model-written drafts) | 14 of 14 (1.0) |" in table
    assert "| cited sentences supported by their source (offline check) | 13 of 14 (0.929) |" in table
    assert "| cited sentences copied verbatim from their source | 4 of 14 (0.286) | < 0.5: met |" in table
    assert (
        "| ... of the others, condensed from one source sentence (its words in its order, phrases left out) | 3 of 10 |"
        in table
    )
    assert "1.0 of 14" not in table


def test_no_uncovered_or_near_miss_run_measured_is_no_target_met() -> None:
    """A run cut short after its covered topic showed nothing about the topics that must cite
    nothing: "0 of 0" is not met."""
    rows = [_model_row("a", 8, 8, 7, 3)]
    results = {"generated_at": "now", "model": "m", "server": "s", "settings": {"load_average": 0.0}}
    table = markdown({**results, "summary": summarise(rows), "topics": rows})
    assert "| uncovered and near-miss runs that say nothing relevant was found | 0 of 0 | all: **not met** |" in table
    empty = {**_model_row("b", 0, 0, 0, 0), "group": "near-miss", "writer": "none", "cited_sources": 0}
    table = markdown({**results, "summary": summarise([*rows, {**empty, "says_empty": True}]), "topics": rows})
    assert "| uncovered and near-miss runs that say nothing relevant was found | 1 of 1 | all: met |" in table

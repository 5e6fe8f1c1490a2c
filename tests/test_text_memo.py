"""The text memos change no result: every cached answer equals the uncached one, callers get their
own lists, hostile input is never kept, and whole runs write the same log with and without them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.loopback import LoopbackWorld
from research.relevance.ranking import judge_source
from research.relevance.terms import _term_key, term_key
from research.text import memo, split_sentences, stem, tokenize, words
from research.text.prose import flaws
from research.text.tokens import STOPWORDS

SAMPLE_LIBRARY = Path(__file__).resolve().parent.parent / "research" / "data" / "sample_library"


def _texts() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_LIBRARY.rglob("*.md"))]
    assert len(texts) >= 40
    hostile = ["", " ", "a", "Dr. Smith et al. said so. Fig. 2 shows it.", "Café naïve ÉCOLE", "x" * 600]
    return texts + hostile + [s for t in texts[:10] for s in split_sentences(t)]


def _plain_tokenize(text: str) -> list[str]:
    """tokenize as written before the memos (the definition the memo must not change)."""
    return [stem(w) for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def test_cached_answers_equal_the_uncached_ones() -> None:
    texts = _texts()
    with memo.uncached():
        tokens = [tokenize(t) for t in texts]
        sentences = [split_sentences(t) for t in texts]
        checked = [flaws(s) for t in texts for s in split_sentences(t)]
    assert tokens == [_plain_tokenize(t) for t in texts]
    assert {f for fs in checked for f in fs} == {"first_person", "method", "dangling"}  # each flaw occurs
    for _ in range(2):  # the first pass fills the memos, the second reads them
        assert [tokenize(t) for t in texts] == tokens
        assert [split_sentences(t) for t in texts] == sentences
        assert [flaws(s) for t in texts for s in split_sentences(t)] == checked
    every_token = {t for ts in tokens for t in ts}
    assert [term_key(t) for t in sorted(every_token)] == [_term_key(t) for t in sorted(every_token)]


def test_a_judged_source_is_judged_the_same_from_the_memo() -> None:
    docs = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_LIBRARY.rglob("*.md"))]
    topics = ["How do mRNA vaccines work?", "Rust vs Go for backend services", "the printing press"]
    calls = [(t, "evidence", d[:80], d[80:300], d) for t in topics for d in docs]
    with memo.uncached():
        expected = [judge_source(*c) for c in calls]
    assert {j.keep for j in expected} == {True, False}  # both verdicts occur
    for _ in range(2):
        assert [judge_source(*c) for c in calls] == expected


def test_each_caller_gets_its_own_list() -> None:
    text = "Heat pumps move heat from outside air into a house."
    mine = tokenize(text)
    mine.append("changed")
    split_sentences(text).clear()
    assert "changed" not in tokenize(text)
    assert split_sentences(text) == [text]


def test_hostile_input_is_never_kept() -> None:
    memo.clear()
    huge = "word " * (memo.LONG[1] // 5 + 10)  # longer than any kept document
    assert tokenize(huge) == _plain_tokenize(huge)
    assert memo.kept() == 1  # the stem of "word"; not the text
    long_word = "a" * 100
    tokenize(long_word)
    assert memo.kept() == 2  # the short text's answer; its 100-letter word is not kept as a stem
    full = memo.WordMemo(_term_key, maxsize=3)
    for w in ("alpha", "betas", "gamma", "deltas", "epsilon"):
        assert full(w) == _term_key(w)
    assert len(full.known) == 3


# --- whole runs -----------------------------------------------------------------------------------

_VOLATILE = {"ts", "seq", "run_id", "seconds"}


def _step_path(task: str) -> str:
    """A step's task path without LangGraph's task ids (new in every run): its node names."""
    return "|".join(part.split(":", 1)[0] for part in task.split("|"))


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        if isinstance(value.get("task"), str) and "attempt" in value:  # an event's step
            value = {**value, "task": _step_path(value["task"])}
        return {k: _stable(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _log(events: list[Any]) -> list[str]:
    """The run's events without clocks and numbering, in a stable order (branches interleave).

    What depends on the order the parallel researchers happened to finish in, with or without the
    memos (two runs of the same tree differ there): the queries listed as searched, which of the
    parallel researchers' reports carries a call's usage (they share the brain's meter), and the
    analyst's prompt size (its reports in finishing order). Those are compared as sets, and usage
    as each node's sum of calls and reply tokens."""
    kept: list[str] = []
    usage: dict[str, list[int]] = {}
    for event in events:
        if event.type == "model_progress":  # paced by the clock
            continue
        if event.type == "usage":
            sums = usage.setdefault(event.data.node, [0, 0])
            sums[0] += event.data.calls
            sums[1] += event.data.completion_tokens
            continue
        dumped = _stable(event.model_dump(mode="json"))
        if event.type == "evidence_assessed":
            dumped["data"]["searched"] = sorted(dumped["data"]["searched"])
        kept.append(json.dumps(dumped, sort_keys=True))
    return sorted(kept) + [json.dumps(usage, sort_keys=True)]


@pytest.mark.parametrize("allocation,max_researchers", [("111", 3), ("333", 9)])
def test_a_run_writes_the_same_log_with_and_without_the_memos(
    tmp_path: Path, allocation: str, max_researchers: int
) -> None:
    """The LLM brain (scripted, loopback) against the live providers' fakes: relevance, coverage,
    the grounded writer, the claim check and the reviewer all read the memoised functions."""
    with LoopbackWorld(tmp_path / "data", tmp_path / "logs", model_latency=0.0, search_latency=0.0) as world:
        with memo.uncached():
            before = world.run(allocation, max_iterations=1, max_researchers=max_researchers)
        after = world.run(allocation, max_iterations=1, max_researchers=max_researchers)
    assert before.status == after.status == "finished"
    drafts = [e.data.markdown for e in after.events if e.type == "draft_ready"]
    assert drafts and "[1]" in drafts[0]  # a real cited draft, not an empty one
    assert _log(after.events) == _log(before.events)

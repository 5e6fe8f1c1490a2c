"""The grounded writer prepares its later sections while the first section's model call waits: the
prose checks and fit rules over every source's sentences need no reply, so they run beside the
call instead of between the calls (the draft itself is compared byte for byte with the recorded
one in tests/integration/test_writer_golden.py)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

import research.brains.llm.grounded_passages as grounded_passages
from research.brains.llm.grounded_schema import SectionSentences
from research.brains.llm.grounded_writer import write_grounded
from research.text import memo, split_sentences
from tests.brains.test_grounded_writer import TEXTS, request

SENTENCES = [s for text in TEXTS.values() for s in split_sentences(text)]


def _grounded_reply(messages: list[BaseMessage]) -> SectionSentences:
    """One sentence copied from the first of the section's passages (so it is kept)."""
    user = str(messages[-1].content)
    shown = [s for s in SENTENCES if s in user]
    return SectionSentences.model_validate({"sentences": [{"passage": 1, "text": shown[0]}] if shown else []})


def test_the_later_sections_are_prepared_while_the_first_sections_call_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    writer_thread = threading.get_ident()
    checked_beside = threading.Event()
    checks = grounded_passages.flaws

    def flaws(text: str) -> list[Any]:
        if threading.get_ident() != writer_thread:
            checked_beside.set()
        return checks(text)

    monkeypatch.setattr(grounded_passages, "flaws", flaws)
    calls: list[bool] = []

    def ask(_schema: type[SectionSentences], messages: list[BaseMessage]) -> SectionSentences:
        if not calls:  # the first section's call: the others' sentences are checked meanwhile
            calls.append(checked_beside.wait(timeout=10))
        else:
            calls.append(True)
        return _grounded_reply(messages)

    with memo.uncached():  # every sentence is checked afresh, none read from an earlier test's memo
        draft = write_grounded(request(), ask, note=lambda _message: None)

    assert len(calls) >= 2 and calls[0], "no sentence was checked off the writer's thread during its first call"
    assert "[1]" in draft or "[2]" in draft or "[3]" in draft


def test_a_write_whose_first_call_fails_leaves_no_preparation_running(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[threading.Thread] = []
    real = grounded_passages.ThreadPoolExecutor

    class Recording(real):  # type: ignore[misc, valid-type]
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            future = super().submit(fn, *args, **kwargs)
            started.extend(self._threads)
            return future

    monkeypatch.setattr(grounded_passages, "ThreadPoolExecutor", Recording)

    def ask(_schema: type[SectionSentences], _messages: list[BaseMessage]) -> SectionSentences:
        raise RuntimeError("the model is down")

    with pytest.raises(RuntimeError, match="the model is down"):
        write_grounded(request(), ask, note=lambda _message: None)
    assert started  # the later sections' preparation had begun
    for thread in set(started):
        thread.join(timeout=10)  # ends once its current section is done: the rest were cancelled
        assert not thread.is_alive()

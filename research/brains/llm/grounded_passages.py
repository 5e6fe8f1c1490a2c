"""Which passages a grounded section is shown: the best sentences of the sources that answer its
question, plain prose that fits it and that the draft has not said yet (grounded_writer.py asks the
model to write from them; grounded_reviser.py shows them again when a section is revised)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from research.brains.base import NumberedSource, TextLookup
from research.brains.llm.grounded_schema import PASSAGE_CHARS
from research.brains.llm.grounded_sentence import repeats
from research.drafts.fit import addresses
from research.text import best_snippet, split_sentences, top_sentences
from research.text.prose import flaws

PASSAGES_PER_SECTION = 4
PASSAGE_SENTENCES = 2
# A section's plan: its question (None: the summary), its fit rule, the sources it may rest on.
SectionPlan = tuple[str | None, Callable[[str], bool], list[NumberedSource]]


@dataclass(frozen=True)
class Passage:
    number: int  # as the model sees it, 1..k
    source_n: int  # the draft's [n]
    text: str


def select_passages(
    query: str,
    sources: list[NumberedSource],
    text_of: TextLookup,
    *,
    fits: Callable[[str], bool] | None = None,
    said: list[str] | None = None,
    count: int = PASSAGES_PER_SECTION,
    fitting: list[list[str]] | None = None,
) -> list[Passage]:
    """The best passage of each source that matches `query` best, one per source, in rank order.
    Only source sentences that `fits` (the section's question, research/drafts/fit.py) and that
    could be read aloud (research/text/prose.py: no method boilerplate, no author's "we", no
    referent left outside) are candidates: a passage that shares only the topic's words with the
    question is not evidence for it, and a small model files whatever it is shown under the
    question it is asked. When no sentence fits, there is nothing to write from. Source sentences
    the draft has already `said` are left out, so a later section gets fresh evidence.
    `fitting`: each source's candidates worked out before (`fitting_sentences` with the same
    `fits`), so only the repeat filter, which needs what was said, is left to do here."""
    if fitting is None:
        fitting = fitting_sentences(sources, text_of, fits)
    texts = [_unsaid(sentences, said or []) for sentences in fitting]
    order = _ranked_sources(query, texts, count)
    if fits is not None:  # a sentence may fit through a related word ("safe": "adverse events") alone
        order += [i for i, text in enumerate(texts) if text and i not in order]
    passages: list[Passage] = []
    for i in order[:count]:
        text = best_snippet(query, texts[i], max_chars=PASSAGE_CHARS, max_sentences=PASSAGE_SENTENCES)
        if text:
            passages.append(Passage(len(passages) + 1, sources[i].n, text))
    return passages


def fitting_sentences(
    sources: list[NumberedSource], text_of: TextLookup, fits: Callable[[str], bool] | None
) -> list[list[str]]:
    """Each source's sentences that a section may quote whatever the draft has said so far: plain
    prose (no `flaws`) that `fits` its question. It needs no model reply, so the writer works it
    out for its later sections while the first section's call waits (`_Prepared`)."""
    return [
        [s for s in split_sentences(source_text(ns, text_of)) if not flaws(s) and (fits is None or fits(s))]
        for ns in sources
    ]


def fits_section(question: str | None, topic: str) -> Callable[[str], bool]:
    """Whether a sentence addresses the section's question (the Summary: the topic), by the rule
    the claim check applies to the draft."""
    heading = question or "Summary"
    return lambda sentence: addresses(sentence, heading, topic)


def _unsaid(sentences: list[str], said: list[str]) -> str:
    return " ".join(sentence for sentence in sentences if not repeats(sentence, said))


def _ranked_sources(query: str, texts: list[str], count: int) -> list[int]:
    order: list[int] = []
    for hit in top_sentences(query, texts, k=count * 10):
        if hit.text_index not in order:
            order.append(hit.text_index)
        if len(order) == count:
            break
    return order


class Prepared:
    """Each section's candidate sentences (`fitting_sentences`), the first section's worked out when
    it is asked for and the others on one thread of their own, in section order, from `start_rest`
    (called as the first section's model call begins): the prose checks and fit rules over every
    source's sentences need no model reply, so they run while the model writes, not between its
    calls. The same lists, whichever thread made them: the repeat filter, which reads the sentences
    kept so far, stays with the section."""

    def __init__(
        self, plans: list[tuple[str | None, Callable[[str], bool], list[NumberedSource]]], text_of: TextLookup
    ):
        self.plans, self.text_of = plans, text_of
        self.futures: list[Future[list[list[str]]]] = []
        self.executor: ThreadPoolExecutor | None = None

    def __enter__(self) -> Prepared:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:  # a write that failed early leaves no work running for nothing
            self.executor.shutdown(wait=False, cancel_futures=True)

    def _work(self, i: int) -> list[list[str]]:
        _question, fits, sources = self.plans[i]
        return fitting_sentences(sources, self.text_of, fits)

    def start_rest(self) -> None:
        if self.executor is not None or len(self.plans) < 2:
            return
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="writer-prepare")
        context = contextvars.copy_context()
        self.futures = [self.executor.submit(context.copy().run, self._work, i) for i in range(1, len(self.plans))]

    def get(self, i: int) -> list[list[str]]:
        if i == 0 or not self.futures:
            return self._work(i)
        return self.futures[i - 1].result()


def source_text(ns: NumberedSource, text_of: TextLookup) -> str:
    """The source's stored text, or its snippet when none is stored (or it cannot be read)."""
    try:
        text = text_of(ns.source.id) if ns.source.id else ""
    except Exception:  # noqa: BLE001 - an unreadable stored text leaves the snippet
        text = ""
    return text or ns.source.snippet

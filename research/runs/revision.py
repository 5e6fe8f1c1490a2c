"""Revise a run's current draft from a user instruction ("Revise with instructions").

    revision = revise_run(store, run_id, "shorten", settings=settings)   # a new draft version

The brain rewrites the draft body with the same numbered sources (`Brain.revise`: the offline
brain restructures deterministically, the LLM brain is the writer again with the instruction).
Then the [n] markers are renumbered by first appearance, the Sources list is rebuilt (entries of
the previous version kept word for word, so a user's edits to them survive), citations are
re-checked with `check_citations`, and the result is saved as a new version. An instruction that
cannot be carried out raises RevisionError and saves nothing. The model calls a revision makes are
a `usage` event in the run's log (node `revision`, `spent_by` the user who asked), so they count in
the run's usage and toward that user's daily cap, which stops a revision before the request past it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from research.brains.base import Brain, BudgetExceeded, NumberedSource, ReviseRequest, TextLookup
from research.brains.offline.offline_brain import OfflineBrain
from research.brains.offline.offline_revise import MAX_INSTRUCTION_CHARS, RevisionError, parse_instruction
from research.drafts.citations import CitationCheck, check_citations, format_source_entry
from research.drafts.guard import repair_draft, split_grouped_citations
from research.drafts.markers import CITATION_MARKER
from research.drafts.numbering import resolve_numbered_sources, source_entries, split_sources_section
from research.events import EventAdapter
from research.events.payloads import UsageReported
from research.runs.daily_cap import revision_allowance
from research.runs.event_effects import log_event
from research.runs.store import RunStore
from research.runs.view import fold
from research.schemas.state_shapes import Source
from research.settings import Settings

if TYPE_CHECKING:
    from research.brains.llm.usage_meter import Allowance

_MARKER = CITATION_MARKER
NOTE_CHARS = 80
USAGE_NODE = "revision"  # the usage event's node: the panel's row for a revision's model calls


@dataclass
class Revision:
    markdown: str
    version: int  # the new draft version's number
    check: CitationCheck
    warnings: list[str] = field(default_factory=list)  # e.g. the model failed and offline was used


def number_sources(
    markdown: str, sources: list[Source], citations: dict[str, str] | None = None
) -> list[NumberedSource]:
    """The draft's own numbering for the sources it cites, then every other run source numbered
    after them (so an expansion may cite more of what the run found)."""
    numbered = resolve_numbered_sources(markdown, sources, citations)
    taken = {s.id for s in numbered.values()}
    out = [NumberedSource(n=n, source=s) for n, s in sorted(numbered.items())]
    next_n = max([*numbered, *source_entries(markdown)], default=0) + 1
    for source in sources:
        if source.id not in taken:
            out.append(NumberedSource(n=next_n, source=source))
            taken.add(source.id)
            next_n += 1
    return out


def renumber(body: str, entries: dict[int, str], numbered: list[NumberedSource]) -> str:
    """[n] renumbered 1, 2, 3 by first appearance; markers that match nothing dropped; the
    Sources list rebuilt from the previous entries (verbatim) or the sources' standard entries."""
    by_n = {ns.n: ns.source for ns in numbered}
    mapping: dict[int, int] = {}

    def replace(match: re.Match[str]) -> str:
        old = int(match.group(1))
        if old not in entries and old not in by_n:
            return ""
        mapping.setdefault(old, len(mapping) + 1)
        return f"[{mapping[old]}]"

    text = _MARKER.sub(replace, split_grouped_citations(body))
    text = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).rstrip()
    lines = []
    for old, new in mapping.items():
        entry = entries.get(old) or format_source_entry(old, by_n[old]).split("] ", 1)[1]
        lines.append(f"[{new}] {entry}")
    return text + "\n\n## Sources\n\n" + ("\n".join(lines) if lines else "No sources were cited.") + "\n"


def revise_draft(
    markdown: str,
    instruction: str,
    sources: list[Source],
    brain: Brain,
    *,
    text_of: TextLookup | None = None,
    citations: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> str:
    """The revised draft (markdown with its Sources list). Raises RevisionError. What the draft
    guard removed from the brain's text (unknown [n], URLs, domains, DOIs) goes to `warnings`."""
    instruction = " ".join((instruction or "").split())
    if not instruction:
        raise RevisionError("The revision instruction is empty: say what to change, e.g. 'shorten'.")
    if len(instruction) > MAX_INSTRUCTION_CHARS:
        raise RevisionError(f"The revision instruction is too long: at most {MAX_INSTRUCTION_CHARS:,} characters.")
    if brain.kind == "offline":
        parse_instruction(instruction)  # fail fast with the clear message, before any work
    body, _ = split_sources_section(markdown)
    numbered = number_sources(markdown, sources, citations)
    revised = brain.revise(ReviseRequest(body.strip() + "\n", instruction, numbered, text_of or (lambda _sid: "")))
    repair = repair_draft(revised, {ns.n for ns in numbered}, {ns.source.url for ns in numbered if ns.source.url})
    if warnings is not None:
        warnings.extend(repair.warnings())
    return renumber(repair.text, source_entries(markdown), numbered)


def revision_brain(
    settings: Settings, llm: str | None, warnings: list[str], allowance: Allowance | None = None
) -> Brain:
    """The run's brain for a revision; a failed model call falls back to offline with a warning.
    `allowance` is asked before each model request (the reviser's daily cap)."""
    kind = settings.brain_kind() if llm in (None, "auto") else llm
    if kind == "offline":
        return OfflineBrain()
    from research.brains.fallback import FallbackBrain
    from research.brains.llm.llm_brain import LLMBrain
    from research.brains.llm.usage_meter import UsageMeter

    meter = UsageMeter(max_calls=settings.max_llm_calls, max_tokens=settings.max_tokens, allowance=allowance)
    return FallbackBrain(
        LLMBrain(settings, meter=meter),
        OfflineBrain(),
        on_warning=lambda _source, message: warnings.append(message),
        secrets=settings.secret_values(),
    )


@contextmanager
def metered(store: RunStore, run_id: str, brain: Brain, settings: Settings, user: str | None) -> Iterator[None]:
    """Log the model usage of what runs inside as the run's `revision` usage event (also when it
    fails); the cap's refusal becomes a RevisionError: nothing is saved."""
    try:
        yield
    except BudgetExceeded as exc:
        raise RevisionError(f"{exc}: the draft was not revised.") from None
    finally:
        usage = brain.take_usage()
        if usage.calls:
            event = EventAdapter(run_id).make(UsageReported(node=USAGE_NODE, spent_by=user, **usage.model_dump()))
            log_event(store, event, settings.secret_values())


def revise_run(
    store: RunStore,
    run_id: str,
    instruction: str,
    *,
    settings: Settings,
    llm: str | None = None,
    brain: Brain | None = None,
    user: str | None = None,
) -> Revision:
    """Revise the run's latest draft version and save the result as a new version. `user`: the
    signed-in user who asked (their daily cap holds the revision's model calls).

    Raises KeyError (no such run) or RevisionError (no draft, not understood, no change, or the cap)."""
    if store.get_run(run_id) is None:
        raise KeyError(f"No run with id {run_id!r}")
    latest = store.latest_draft(run_id)
    if latest is None:
        raise RevisionError(f"Run {run_id} has no draft to revise.")
    view = fold(store.events(run_id))
    sources = [Source.model_validate(s) for s in view.sources.values()]
    warnings: list[str] = []
    brain = brain or revision_brain(settings, llm, warnings, revision_allowance(store, settings, user))
    with metered(store, run_id, brain, settings, user):
        revised = revise_draft(
            latest.markdown,
            instruction,
            sources,
            brain,
            text_of=lambda sid: store.get_text(run_id, sid),
            citations=view.citations,
            warnings=warnings,
        )
    if revised.strip() == latest.markdown.strip():
        raise RevisionError("The revision left the draft unchanged, so no new version was saved.")
    check = check_citations(revised, sources)
    note = " ".join(instruction.split())
    note = note if len(note) <= NOTE_CHARS else note[: NOTE_CHARS - 1] + "…"
    version = store.save_draft_version(run_id, revised, note=f"Revised: {note}")
    return Revision(markdown=revised, version=version, check=check, warnings=warnings)

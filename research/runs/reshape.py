"""A revision into another report shape: the run's report written again from its own sources.

    revision = reshape_run(store, run_id, ReportShape(shape="brief", target_words=150), settings=settings)

A shape is not an edit of the text (a brief cannot be cut from a draft that never held its
best sentence per question, nor a detailed report grown from a standard one), so the brain writes the
report again from the run's topic, questions and sources, held to the shape's layout, and the
result is rendered in the shape like a run's first draft. It is saved as a new version through a
`draft_revised` event that carries the shape, so replays, bundles and the history see it.
"""

from __future__ import annotations

from research.brains.base import NumberedSource, WriteRequest
from research.brains.offline.offline_revise import RevisionError
from research.drafts.citations import check_citations
from research.drafts.evidence import with_known_gaps
from research.drafts.guard import repair_draft
from research.drafts.numbering import resolve_numbered_sources
from research.drafts.report_form import shape_draft
from research.events import EventAdapter
from research.events.payloads_trust import DraftRevisedData
from research.graph.nodes.run_coverage import writing_order
from research.relevance.coverage import question_coverage
from research.report_shape import ReportShape
from research.runs.daily_cap import revision_allowance
from research.runs.event_effects import apply_event
from research.runs.revision import Revision, metered, renumber, revise_draft, revision_brain
from research.runs.store import RunStore
from research.runs.view import fold
from research.schemas.state_shapes import Source
from research.settings import Settings


def reshape_run(
    store: RunStore,
    run_id: str,
    shape: ReportShape,
    *,
    settings: Settings,
    instruction: str = "",
    llm: str | None = None,
    user: str | None = None,
) -> Revision:
    """The run's report in `shape`, saved as a new version (then `instruction`, if any, applied to it).
    `user`: who asked (their daily cap holds its model calls, which are logged like a revision's).

    Raises KeyError (no such run) or RevisionError (no draft or no sources to write from, or the cap)."""
    if store.get_run(run_id) is None:
        raise KeyError(f"No run with id {run_id!r}")
    latest = store.latest_draft(run_id)
    view = fold(store.events(run_id))
    if latest is None or not view.research_questions:
        raise RevisionError(f"Run {run_id} has no draft to write again in another shape.")
    sources = writing_order([Source.model_validate(s) for s in view.sources.values()])
    if not sources:
        raise RevisionError("The run found no sources, so there is nothing to write the report from again.")
    warnings: list[str] = []
    brain = revision_brain(settings, llm, warnings, revision_allowance(store, settings, user))

    def text_of(source_id: str) -> str:
        return store.get_text(run_id, source_id)

    numbered = [NumberedSource(n=i, source=s) for i, s in enumerate(sources, 1)]
    questions = list(view.research_questions)
    layout = shape.layout(len(questions), settings.reply_tokens_writer if brain.kind != "offline" else None)
    coverage = tuple(question_coverage(view.topic, questions, sources, text_of))
    with metered(store, run_id, brain, settings, user):
        body = brain.write(WriteRequest(view.topic, questions, numbered, text_of, view.known_gaps, coverage, layout))
        shaped = shape_draft(with_known_gaps(body, view.known_gaps), shape, layout)
        warnings += [shaped.note] if shaped.note else []
        repair = repair_draft(shaped.markdown, {ns.n for ns in numbered}, {s.url for s in sources if s.url})
        warnings += repair.warnings()
        markdown = renumber(repair.text, {}, numbered)
        reasons = [f"Written again as {shape.label} from the run's {len(sources)} sources."]
        if instruction.strip():
            markdown = revise_draft(markdown, instruction, sources, brain, text_of=text_of, warnings=warnings)
            reasons.append(f"Then revised: {' '.join(instruction.split())[:80]}")
    check = check_citations(markdown, sources)
    version = latest.version + 1
    event = EventAdapter(run_id, start_seq=store.last_seq(run_id)).make(
        DraftRevisedData(
            version=version,
            markdown=markdown,
            citations={str(n): s.id for n, s in resolve_numbered_sources(markdown, sources).items()},
            reasons=reasons,
            report_shape=shape.shape,
            target_words=shape.target_words,
        )
    )
    store.append_event(event)
    apply_event(store, event)  # saves the version, as for the reviewer's
    return Revision(markdown=markdown, version=version, check=check, warnings=warnings)

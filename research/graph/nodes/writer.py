"""Writer: a cited markdown draft. Every [n] resolves to a retrieved source; gaps are named."""

from __future__ import annotations

from dataclasses import replace

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from research.brains.base import BudgetExceeded, NumberedSource, WriteRequest, number_sources
from research.drafts.citations import CitedDraft, finalize_citations
from research.drafts.evidence import assess_coverage, empty_draft, with_known_gaps
from research.drafts.guard import repair_draft
from research.drafts.report_form import ShapedDraft, shape_draft, word_count
from research.events import emit
from research.events.payloads import DraftReady, Phase
from research.graph.nodes import Node
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.nodes.run_coverage import MAX_SOURCES_FOR_WRITER as MAX_SOURCES_FOR_WRITER
from research.graph.nodes.run_coverage import emit_evidence, run_coverage, settle_on_draft, writing_order
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearchState, shape_of
from research.relevance.coverage import QuestionEvidence
from research.relevance.coverage import known_gaps as uncovered
from research.schemas.state_shapes import Draft


def known_gaps(state: ResearchState, coverage: list[QuestionEvidence]) -> list[str]:
    """Every question the coverage leaves uncovered (the same answer the evidence status reads)."""
    gaps = uncovered(coverage)
    if state.get("budget_exhausted"):
        gaps.append("The run's model budget was reached, so research stopped early.")
    return gaps


def _guarded(body: str, numbered: list[NumberedSource]) -> tuple[CitedDraft, list[str]]:
    """The draft with its repairs done and said out loud: what the guard removed, and how the rest
    was renumbered."""
    repair = repair_draft(body, {ns.n for ns in numbered}, {ns.source.url for ns in numbered})
    cited = finalize_citations(repair.text, {ns.n: ns.source for ns in numbered})
    repairs = repair.warnings()
    if cited.dropped:
        repairs.append(f"Removed citations that matched no source: {', '.join(f'[{n}]' for n in cited.dropped)}.")
    if repairs and cited.renumbered:
        moves = ", ".join(f"[{old}]→[{new}]" for old, new in sorted(cited.renumbered.items()))
        repairs.append(f"Renumbered the remaining citations in reading order: {moves}.")
    return cited, repairs


def writer(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    ctx = services_of(runtime)
    emit(Phase(phase="writer"), iteration=state.get("research_iterations", 0))
    numbered = number_sources(writing_order(state.get("sources", [])))
    sources = state.get("sources", [])
    coverage = run_coverage(ctx, state["topic"], state["research_questions"], sources)
    gaps = known_gaps(state, coverage)
    searched = [q for r in state.get("reports", []) for q in r.queries]
    evidence = assess_coverage([c.as_coverage() for c in coverage], len(sources), searched)
    shape = shape_of(state)
    # A model writes within its reply cap per section; the offline writer has none.
    reply_cap = ctx.settings.reply_tokens_writer if ctx.brain.kind != "offline" else None
    layout = shape.layout(len(state["research_questions"]), reply_cap)
    request = WriteRequest(
        state["topic"], state["research_questions"], numbered, ctx.text_of, gaps, tuple(coverage), layout
    )
    if evidence.evidence == "none":  # nothing to write from: say what was searched, claim nothing
        body = empty_draft(state["topic"], state["research_questions"], evidence.searched)
        shaped = ShapedDraft(body, word_count(body), "")
    else:
        try:
            body = ctx.brain.write(request)
        except BudgetExceeded as exc:
            warn("budget", f"{exc}; the offline writer wrote the draft from what was gathered.")
            body = ctx.offline.write(request)
        report_usage(ctx, Node.WRITER)
        body = with_known_gaps(body, gaps)  # the draft's gaps are the coverage's, whichever brain wrote
        shaped = shape_draft(body, shape, layout)  # before the guard, which numbers what stays cited
    cited, repairs = _guarded(shaped.markdown, numbered)
    if not cited.citations and numbered and evidence.evidence != "none" and ctx.brain.kind != "offline":
        # A draft that cites none of the relevant sources it was given is a failed step, not a result.
        offline_shaped = shape_draft(with_known_gaps(ctx.offline.write(request), gaps), shape, layout)
        offline, offline_repairs = _guarded(offline_shaped.markdown, numbered)
        if offline.citations:
            warn(
                "writer",
                f"The model's draft cited none of the {len(numbered)} relevant sources it was given, so it "
                "was not used; the offline writer wrote the draft from the same sources.",
            )
            cited, repairs, shaped = offline, offline_repairs, offline_shaped
        else:
            warn("writer", f"The draft cites none of the {len(numbered)} sources gathered: read it as unsupported.")
    if evidence.evidence != "none":
        # One computation decides, after the writer too: a covered question whose section cites
        # nothing (every sentence written for it failed grounding) is a gap in the draft, its JSON,
        # the evidence status and its notice alike.
        settled = settle_on_draft(coverage, cited.markdown)
        if settled != coverage:
            coverage, gaps = settled, known_gaps(state, settled)
            evidence = assess_coverage([c.as_coverage() for c in coverage], len(sources), searched)
            cited = replace(cited, markdown=with_known_gaps(cited.markdown, gaps))
    emit_evidence(evidence)  # once the draft is settled: what it reports is what the draft shows
    for message in repairs:
        warn("writer", message)
    if shaped.note:
        warn("writer", shaped.note)
    draft = Draft(markdown=cited.markdown, citations=cited.citations, known_gaps=gaps)
    emit(
        DraftReady(
            markdown=draft.markdown,
            citations={str(k): v for k, v in draft.citations.items()},
            known_gaps=gaps,
            words=shaped.words,
            length_note=shaped.note,
        )
    )
    agent_log.info("Writer: draft ready with %d citations", len(draft.citations))
    closing = f"Draft ready: {len(draft.citations)} sources cited" + (f", {len(gaps)} known gaps." if gaps else ".")
    return {
        "draft": draft,
        "evidence": evidence.evidence,
        "route_history": [Node.WRITER.value],
        "messages": [AIMessage(content=closing, name="writer")],
    }

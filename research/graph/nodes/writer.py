"""Writer: a cited markdown draft. Every [n] resolves to a retrieved source; gaps are named."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from research.brains.base import BudgetExceeded, NumberedSource, WriteRequest
from research.drafts.citations import CitedDraft, finalize_citations
from research.drafts.evidence import assess_evidence, empty_draft
from research.drafts.guard import repair_draft
from research.events import emit
from research.events.payloads import DraftReady, EvidenceAssessedData, Phase
from research.graph.context import RunSpec
from research.graph.nodes import Node
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.services import services_of
from research.graph.state import ResearchState
from research.schemas import Draft, Source

MAX_SOURCES_FOR_WRITER = 40


def writing_order(sources: list[Source]) -> list[Source]:
    """The sources the writer gets, most relevant first, then by kind and id: the same draft whatever
    order the parallel researchers happened to finish in (in-process or on a server)."""
    kinds = {"web": 0, "academic": 1, "book": 2}
    ranked = sorted(sources, key=lambda s: (-(s.relevance or 0.0), kinds.get(s.kind, 3), s.id))
    return ranked[:MAX_SOURCES_FOR_WRITER]


def known_gaps(state: ResearchState) -> list[str]:
    critiques = state.get("critiques") or []
    gaps = list(critiques[-1].missing_topics) if critiques and critiques[-1].status != "APPROVED" else []
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


def writer(state: ResearchState, runtime: Runtime[RunSpec]) -> ResearchState:
    ctx = services_of(runtime)
    emit(Phase(phase="writer"), iteration=state.get("research_iterations", 0))
    numbered = [NumberedSource(n=i, source=s) for i, s in enumerate(writing_order(state.get("sources", [])), 1)]
    gaps = known_gaps(state)
    evidence = assess_evidence(
        state["research_questions"],
        len(state.get("sources", [])),
        state.get("critiques") or [],
        [q for r in state.get("reports", []) for q in r.queries],
    )
    emit(
        EvidenceAssessedData(
            evidence=evidence.evidence,
            questions=evidence.questions,
            questions_covered=evidence.questions_covered,
            sources=evidence.sources,
            searched=list(evidence.searched),
            reason=evidence.reason,
        )
    )
    if evidence.warning:
        warn("evidence", evidence.warning)
    request = WriteRequest(state["topic"], state["research_questions"], numbered, ctx.text_of, gaps)
    if evidence.evidence == "none":  # nothing to write from: say what was searched, claim nothing
        body = empty_draft(state["topic"], state["research_questions"], evidence.searched)
    else:
        try:
            body = ctx.brain.write(request)
        except BudgetExceeded as exc:
            warn("budget", f"{exc}; the offline writer wrote the draft from what was gathered.")
            body = ctx.offline.write(request)
        report_usage(ctx, Node.WRITER)
    cited, repairs = _guarded(body, numbered)
    if not cited.citations and numbered and evidence.evidence != "none" and ctx.brain.kind != "offline":
        # A draft that cites none of the relevant sources it was given is a failed step, not a result.
        offline, offline_repairs = _guarded(ctx.offline.write(request), numbered)
        if offline.citations:
            warn(
                "writer",
                f"The model's draft cited none of the {len(numbered)} relevant sources it was given, so it "
                "was not used; the offline writer wrote the draft from the same sources.",
            )
            cited, repairs = offline, offline_repairs
        else:
            warn("writer", f"The draft cites none of the {len(numbered)} sources gathered: read it as unsupported.")
    for message in repairs:
        warn("writer", message)
    draft = Draft(markdown=cited.markdown, citations=cited.citations, known_gaps=gaps)
    emit(
        DraftReady(markdown=draft.markdown, citations={str(k): v for k, v in draft.citations.items()}, known_gaps=gaps)
    )
    agent_log.info("Writer: draft ready with %d citations", len(draft.citations))
    closing = f"Draft ready: {len(draft.citations)} sources cited" + (f", {len(gaps)} known gaps." if gaps else ".")
    return {
        "draft": draft,
        "evidence": evidence.evidence,
        "route_history": [Node.WRITER.value],
        "messages": [AIMessage(content=closing, name="writer")],
    }

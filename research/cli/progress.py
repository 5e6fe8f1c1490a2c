"""One short human line per event, for the CLI's progress output on stderr."""

from __future__ import annotations

from collections import Counter

from research.events import Event
from research.events import payloads as p


def describe(event: Event) -> str | None:
    who = f"[{event.researcher_id}] " if event.researcher_id else ""
    match event.data:
        case p.RunStarted() as d:
            limits = "".join(f"; {part}" for part in d.source_controls.describe())
            return f"Run {event.run_id}: {d.topic!r} (brain: {d.model}, sources: {d.source_mode}{limits})"
        case p.Phase() as d:
            round_ = f" (round {event.iteration})" if event.iteration else ""
            return f"-- {d.phase}{round_}"
        case p.AllocationDecided() as d:
            return (
                f"Allocation {d.allocation.notation} (web/academic/book) from {d.origin}: "
                f"{d.reasoning}\n   Questions: " + " | ".join(d.research_questions)
            )
        case p.ResearcherStarted() as d:
            return f"{who}started: {d.question}"
        case p.QueriesGenerated() as d:
            return f"{who}queries: " + "; ".join(d.queries)
        case p.SourcesFound() as d:
            return f"{who}{len(d.sources)} sources for {d.query!r} via {', '.join(d.providers) or 'none'}"
        case p.ResearcherFinished() as d:
            outcome = "found nothing relevant" if d.status == "empty" else d.status
            return f"{who}{outcome}: {len(d.source_ids)} sources in {d.seconds}s"
        case p.CritiqueIssued() as d:
            gaps = f"; gaps: {', '.join(d.missing_topics)}" if d.missing_topics else ""
            return f"Analyst: {d.status}{gaps}"
        case p.DraftReady() as d:
            return f"Draft ready: {len(d.citations)} sources cited"
        case p.SourcesDroppedData() as d:
            rules = Counter(r.rule.replace("_", " ") for r in d.dropped)
            why = ", ".join(f"{rule}: {n}" for rule, n in rules.items())
            return f"{who}dropped {len(d.dropped)} results for {d.query!r} ({why})"
        case p.EvidenceAssessedData() as d:
            return f"Evidence: {d.evidence} ({d.reason})"
        case p.ClaimsCheckedData() as d:
            precision = "n/a" if d.precision is None else f"{d.precision:.0%}"
            return f"Claim check v{d.version} ({d.method}): {len(d.claims)} claims, citation precision {precision}"
        case p.DraftRevisedData() as d:
            return f"Reviewer: draft v{d.version}, {len(d.reasons)} changes"
        case p.Warning() as d:
            return f"Warning {who}{d.source}: {d.message}"
        case p.RunFinished() as d:
            return f"Finished in {d.seconds}s: {d.counts}"
        case p.PlanReviewRequested() as d:
            return "Paused for plan review: " + " | ".join(d.research_questions)
        case p.PlanApproved() as d:
            return f"Plan {'edited and ' if d.edited else ''}approved: allocation {d.allocation}"
        case p.ToolCalledData() as d:
            error = f" ({d.status}: {d.error[:100]})" if d.error else ""
            return f"{who}tool {d.tool} {d.args} -> {d.result_count} results{error}"
        case p.ResearchStoppedData() as d:  # a stop with gaps left already printed as a warning
            return f"Research done: {d.message}" if d.reason == "approved" else None
        case p.RunCancelled() as d:
            return f"Run cancelled: {d.reason}"
        case p.RunFailed() as d:
            return f"Run failed: {d.error}"
        case p.ModelProgressData() as d:
            state = "done" if d.done else "writing"
            return f"{who}{d.step}: {state}, {d.tokens} tokens ({d.seconds}s)"
    return None

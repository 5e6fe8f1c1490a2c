"""One short human line per event, for the CLI's progress output on stderr."""

from __future__ import annotations

from research.events import Event


def describe(event: Event) -> str | None:
    d = event.data
    who = f"[{event.researcher_id}] " if event.researcher_id else ""
    match event.type:
        case "run_started":
            return f"Run {event.run_id}: {d['topic']!r} (brain: {d['model']}, sources: {d['source_mode']})"
        case "phase":
            round_ = f" (round {event.iteration})" if event.iteration else ""
            return f"-- {d['phase']}{round_}"
        case "allocation_decided":
            a = d["allocation"]
            return (
                f"Allocation {a['web']}{a['academic']}{a['book']} (web/academic/book) from {d['origin']}: "
                f"{d['reasoning']}\n   Questions: " + " | ".join(d["research_questions"])
            )
        case "researcher_started":
            return f"{who}started: {d['question']}"
        case "queries_generated":
            return f"{who}queries: " + "; ".join(d["queries"])
        case "sources_found":
            return (
                f"{who}{len(d['sources'])} sources for {d['query']!r} "
                f"via {', '.join(d.get('providers') or []) or 'none'}"
            )
        case "researcher_finished":
            return f"{who}{d['status']}: {len(d['source_ids'])} sources in {d['seconds']}s"
        case "critique_issued":
            gaps = f"; gaps: {', '.join(d['missing_topics'])}" if d["missing_topics"] else ""
            return f"Analyst: {d['status']}{gaps}"
        case "draft_ready":
            return f"Draft ready: {len(d['citations'])} sources cited"
        case "sources_dropped":
            return f"{who}dropped {len(d['dropped'])} off-topic results for {d['query']!r}"
        case "evidence_assessed":
            return f"Evidence: {d['evidence']} ({d['reason']})"
        case "claims_checked":
            precision = "n/a" if d.get("precision") is None else f"{d['precision']:.0%}"
            return (
                f"Claim check v{d['version']} ({d['method']}): {len(d['claims'])} claims, "
                f"citation precision {precision}"
            )
        case "draft_revised":
            return f"Reviewer: draft v{d['version']}, {len(d['reasons'])} changes"
        case "warning":
            return f"Warning {who}{d['source']}: {d['message']}"
        case "run_finished":
            return f"Finished in {d['seconds']}s: {d['counts']}"
        case "plan_review_requested":
            return "Paused for plan review: " + " | ".join(d["research_questions"])
        case "plan_approved":
            return f"Plan {'edited and ' if d.get('edited') else ''}approved: allocation {d['allocation']}"
        case "tool_called":
            error = f" ({d['status']}: {d['error'][:100]})" if d.get("error") else ""
            return f"{who}tool {d['tool']} {d.get('args')} -> {d.get('result_count', 0)} results{error}"
        case "research_stopped":  # a stop with gaps left already printed as a warning
            return f"Research done: {d['message']}" if d.get("reason") == "approved" else None
        case "run_cancelled":
            return f"Run cancelled: {d.get('reason', '')}"
        case "run_failed":
            return f"Run failed: {d['error']}"
        case "model_progress":
            state = "done" if d.get("done") else "writing"
            return f"{who}{d.get('step', 'model')}: {state}, {d.get('tokens', 0)} tokens ({d.get('seconds', 0)}s)"
    return None

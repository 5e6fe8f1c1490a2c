"""What the router lets through: sources about the run's subject and within its source controls,
each with its relevance and reliability; the rest recorded with the rule that dropped them."""

from __future__ import annotations

from research.relevance.ranking import judge_source
from research.schemas.source_quality import DropRule, SourceControls, in_domain
from research.schemas.state_shapes import DroppedSource, Source
from research.sources.provider_base import Retrieval
from research.sources.reliability import with_reliability

NO_CONTROLS = SourceControls()


def control_drop(source: Source, controls: SourceControls) -> tuple[DropRule, str] | None:
    """The control a source falls outside of, and why in words (None: within all of them)."""
    year = source.year
    if year is not None and controls.year_from is not None and year < controls.year_from:
        return "years", f"published {year}, before {controls.year_from}"
    if year is not None and controls.year_to is not None and year > controls.year_to:
        return "years", f"published {year}, after {controls.year_to}"
    domain = source.domain
    if controls.exclude_domains and in_domain(domain, controls.exclude_domains):
        return "exclude_domains", f"{domain} is an excluded domain"
    if source.kind == "web" and controls.include_domains and not in_domain(domain, controls.include_domains):
        return "include_domains", f"{domain} is not among the included domains"
    if source.kind == "academic" and controls.peer_reviewed_only and source.facts.peer_reviewed is not True:
        status = "a preprint" if source.facts.peer_reviewed is False else "not known to be peer reviewed"
        return "peer_reviewed", f"{status}; the run asks for peer-reviewed academic sources only"
    return None


def screen(result: Retrieval, topic: str | None, query: str = "", controls: SourceControls = NO_CONTROLS) -> Retrieval:
    """Keep the sources about the topic's subject (when there is a topic) and within `controls`."""
    kept = []
    for source in result.sources:
        rule: DropRule | None = None
        if topic:
            verdict = judge_source(topic, query, source.title, source.snippet, result.texts.get(source.id, ""))
            score, reason = verdict.score, verdict.reason
            if not verdict.keep:
                rule = "off_topic"
            elif score < controls.min_relevance:
                rule, reason = (
                    "min_relevance",
                    f"relevance {score:.2f} is below the run's minimum {controls.min_relevance:.2f}",
                )
        else:
            score, reason = source.relevance or 0.0, ""
        if rule is None and (outside := control_drop(source, controls)):
            rule, reason = outside
        if rule is None:
            kept.append(
                with_reliability(source.model_copy(update={"relevance": score}) if topic else source, topic or "")
            )
            continue
        if rule == "off_topic":
            result.off_topic += 1
        result.texts.pop(source.id, None)
        result.dropped.append(
            DroppedSource(title=source.title[:300], url=source.url, reason=reason, score=score, rule=rule)
        )
    result.sources = kept
    return result

"""Every trust event a real run emits matches its typed payload (research/events/payloads_trust.py)."""

from __future__ import annotations

from research.events.payloads_trust import (
    ClaimsCheckedData,
    DraftRevisedData,
    EvidenceAssessedData,
    SourcesDroppedData,
)
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest

MODELS = {
    "sources_dropped": SourcesDroppedData,
    "evidence_assessed": EvidenceAssessedData,
    "claims_checked": ClaimsCheckedData,
    "draft_revised": DraftRevisedData,
}


def test_trust_events_validate_against_their_payload_models(runner: ResearchRunner) -> None:
    seen = set()
    for topic in ("How do mRNA vaccines work?", "How are bagpipes made?"):
        for event in runner.store.events(runner.run(ResearchRequest(topic=topic, allocation="111"))):
            if event.type in MODELS:
                MODELS[event.type].model_validate(event.data)
                seen.add(event.type)
    assert seen >= {"sources_dropped", "evidence_assessed", "claims_checked"}

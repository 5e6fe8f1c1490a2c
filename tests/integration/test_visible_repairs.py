"""A model that cites a source it was never given, or links a page nobody retrieved, is repaired
in the open: the grounded writer drops the sentence that names a passage it was not shown or holds
a link, and says so in a warning; no broken sentence is left. (The guard's repairs of free text,
as revisions get them, are in tests/drafts/test_draft_repairs.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name
from tests.integration.runs import run_once, run_settings
from tests.integration.services import ServiceFakes

INVENTED = [
    {"passage": 42, "text": "Efficacy reached 99 percent in every trial."},
    {"passage": 1, "text": "Vaccines were studied widely, see https://madeup.org/trial for details."},
    {"passage": 1, "text": "See www.madeup.org/page and [the registry](https://registry.example/x) too."},
]


def test_invented_passages_and_links_are_dropped_and_warned_about(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    scripted = ScriptedModel(approve_from_round=1)

    def responder(request: dict[str, Any]) -> Any:
        reply = scripted(request)
        if requested_schema_name(request) == "SectionSentences":
            return {"sentences": reply["sentences"] + INVENTED}
        return reply

    model.responder = responder
    outcome = run_once(run_settings(tmp_path, services, model))

    assert outcome.result["status"] == "finished"
    draft = outcome.result["draft"].split("## Sources")[0]
    assert "addresses this question [" in draft  # the model's grounded sentences stay
    for gone in ("[42]", "99 percent", "madeup.org", "registry.example", "See and", "see for details"):
        assert gone not in draft, gone
    warnings = " ".join(outcome.warnings_from("openai"))
    assert "named a passage the model was not given" in warnings
    assert "held a link or markup" in warnings

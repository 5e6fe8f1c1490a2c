"""A model that cites a source it was never given, or links a page nobody retrieved, is repaired
in the open: the writer's warnings list what was removed, and no broken sentence is left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, message_texts
from tests.integration.runs import run_once, run_settings
from tests.integration.services import ServiceFakes

INVENTED = (
    "\n\nVaccines were studied widely [1], see https://madeup.org/trial for details. "
    "Efficacy reached 99% [42]. See www.madeup.org/page and [the registry](https://registry.example/x) too. "
    "The trial is also doi:10.9999/fake.\n"
)


def test_invented_citations_and_links_are_removed_and_warned_about(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    scripted = ScriptedModel(approve_from_round=1)

    def responder(request: dict[str, Any]) -> Any:
        reply = scripted(request)
        if "Role: writer" in "\n".join(message_texts(request, "system")) or (
            isinstance(reply, str) and reply.startswith("# ")
        ):
            return reply.rstrip() + INVENTED
        return reply

    model.responder = responder
    outcome = run_once(run_settings(tmp_path, services, model))

    assert outcome.result["status"] == "finished"
    draft = outcome.result["draft"].split("## Sources")[0]
    for gone in ("[42]", "madeup.org", "registry.example", "10.9999", "See and", "see for details"):
        assert gone not in draft, gone
    assert "Vaccines were studied widely [" in draft  # the claim kept, its clause with the link dropped
    assert "Efficacy reached 99%." in draft
    warnings = " ".join(outcome.warnings_from("writer"))
    assert "[42]" in warnings and "Efficacy reached 99%" in warnings
    for link in ("https://madeup.org/trial", "www.madeup.org/page", "https://registry.example/x", "doi:10.9999/fake"):
        assert link in warnings, link

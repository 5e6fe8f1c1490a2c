"""Each step reports its own model usage, exactly, while researchers call the model at once.

Two researchers (web, academic) plan their queries in parallel against the loopback model. The
web researcher's first reply is not JSON, so its step makes a second request; the fake holds that
request until the academic researcher has moved on to its notes (so it has reported its queries
step) while the web researcher's first call is already metered. A meter shared by the run would
hand that call to the academic researcher's report. Every usage event must instead carry exactly
the requests and tokens the server answered for that researcher's step."""

from __future__ import annotations

import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from research.events.payloads import UsageReported
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, message_texts, requested_schema_name
from tests.settings_presets import fake_model_settings

TOPIC = "How do mRNA vaccines work?"
HOLD_SECONDS = 120  # a generous ceiling on a busy machine; the hold normally ends in milliseconds
_RESEARCHER = re.compile(r"Role: (web|academic|book) researcher (writing search queries|taking notes)")


def researcher_step(request: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, "queries" | "notes") of a researcher's request, None for any other step's."""
    match = _RESEARCHER.search("\n".join(message_texts(request, "system")))
    if not match:
        return None
    return match.group(1), "queries" if "queries" in match.group(2) else "notes"


class InterleavingModel:
    """The scripted model, with the web researcher's queries step split around the academic
    researcher's report: its first reply invalid, its second held until academic notes are asked."""

    def __init__(self) -> None:
        self.scripted = ScriptedModel(allocation=(1, 1, 0))
        self.academic_reported = threading.Event()
        self.web_queries_seen = 0
        self.held = False
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Any:
        step = researcher_step(request)
        if step == ("academic", "notes"):
            self.academic_reported.set()  # its queries step reported before its notes began
        if step == ("web", "queries") and requested_schema_name(request) is not None:
            with self._lock:
                self.web_queries_seen += 1
                first = self.web_queries_seen == 1
            if first:
                return "these are not the queries you asked for"  # invalid: the step asks again
            self.held = self.academic_reported.wait(HOLD_SECONDS)
        return self.scripted(request)


def test_parallel_researchers_each_report_exactly_their_own_requests_and_tokens(tmp_path: Path) -> None:
    model = InterleavingModel()
    with FakeOpenAIServer(model) as server:
        runner = ResearchRunner(fake_model_settings(server.base_url, tmp_path, llm_concurrency=4))
        run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="110", max_iterations=0))
        replied = list(server.replied)
        events = runner.store.events(run_id)
    assert model.held, "the academic researcher never reached its notes while the web step was held"
    assert model.web_queries_seen == 2

    # What the server answered, per researcher and step: requests and tokens.
    served: Counter[tuple[str, str, str]] = Counter()
    for request, usage in replied:
        step = researcher_step(request)
        if step is None:
            continue
        served[(*step, "calls")] += 1
        served[(*step, "prompt")] += usage["prompt_tokens"]
        served[(*step, "completion")] += usage["completion_tokens"]
    assert served[("web", "queries", "calls")] == 2 and served[("academic", "queries", "calls")] == 1

    # What the run reported, per researcher and step: a researcher's queries step reports before
    # its queries are announced, its notes step after.
    reported: Counter[tuple[str, str, str]] = Counter()
    announced: set[str] = set()
    for event in events:
        if event.type == "queries_generated" and event.researcher_id:
            announced.add(event.researcher_id)
        if not isinstance(event.data, UsageReported) or event.researcher_id is None:
            continue
        assert event.step is not None and event.step.node == "researcher", "made by the researcher's task"
        kind = event.researcher_id.split("-")[0]
        step = "notes" if event.researcher_id in announced else "queries"
        reported[(kind, step, "calls")] += event.data.calls
        reported[(kind, step, "prompt")] += event.data.prompt_tokens
        reported[(kind, step, "completion")] += event.data.completion_tokens
    assert reported == served

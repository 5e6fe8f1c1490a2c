"""The writer, the claim check and the reviewer give the same answers as the recorded ones: byte for
byte, the draft as it streamed (`draft_delta`), the draft (`draft_ready`), every claim's verdict and
passage (`claims_checked`), each revision and its reasons (`draft_revised`), the evidence status,
and every warning from the writer phase on.

The recorded answers (tests/fixtures/writer_golden/, one file per run) were written by the desk before the writer's
work moved off its critical path (memoised prose checks, passages prepared while the model writes):
a change that makes the desk faster must not change what it writes. Four runs cover the writer's
paths: the bench's loopback world at 111 and 333 (the LLM brain's grounded writer, the claim judge
and the model reviser, against generated sources), the same brain on the sample library (real prose:
first-person, method and dangling sentences for the filters to drop), again with a model that adds
words of its own to its sentences (so the claim check finds partial and unsupported claims and the
reviser has work), and the offline brain there.

A deliberate change of output rewrites the record: `WRITER_GOLDEN=write python -m pytest
tests/integration/test_writer_golden.py` (then read the diff of the JSON before committing it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.loopback import LoopbackWorld
from research.events import Event
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name
from tests.settings_presets import library_settings, loopback_llm_settings

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "writer_golden"
CASES = ("loopback-111", "loopback-333", "library-llm", "library-llm-loose", "library-offline")
LIBRARY_TOPIC = "How do mRNA vaccines work?"
# What the writer phase and everything after it say: compared in the order they were emitted.
_RECORDED = {"draft_delta", "draft_ready", "claims_checked", "draft_revised", "evidence_assessed", "warning"}
_VOLATILE = {"ts", "seq", "run_id", "seconds", "task"}


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def record(events: list[Event]) -> list[dict[str, Any]]:
    """The events from the writer's phase on that carry its results, without clocks or numbering (the
    queries an evidence status lists as searched are in the order the parallel researchers finished:
    sorted)."""
    start = next(i for i, e in enumerate(events) if e.type == "phase" and e.data.phase == "writer")
    out = [_stable(e.model_dump(mode="json")) for e in events[start:] if e.type in _RECORDED]
    for event in out:
        if event["type"] == "evidence_assessed":
            event["data"]["searched"] = sorted(event["data"]["searched"])
    return out


def _loopback(root: Path, allocation: str, max_researchers: int) -> list[Event]:
    with LoopbackWorld(root / "data", root / "logs", model_latency=0.0, search_latency=0.0) as world:
        run = world.run(allocation, max_iterations=1, max_researchers=max_researchers)
    assert run.status == "finished"
    return run.events


# Words a loose model adds to its sentences: each added word lowers the share of the sentence its
# passage holds, so its claims read supported, partial or unsupported by how many it got.
_ADDED = ("across", "several", "distant", "regional", "programmes", "lately", "overall")


_JUDGED = ("supported", "partial", "unsupported")


def loose(scripted: ScriptedModel) -> Callable[[dict[str, Any]], Any]:
    """The scripted model, its section sentences each given 0-6 words of its own (by position); as the
    claim judge it answers every other claim (supported, partial, unsupported in turn), so the rest
    keep the offline check's verdicts."""

    def responder(request: dict[str, Any]) -> Any:
        reply = scripted(request)
        if requested_schema_name(request) == "ClaimJudgements":
            judged = [j for j in reply["judgements"] if j["index"] % 2]
            return {"judgements": [{**j, "verdict": _JUDGED[(j["index"] // 2) % 3]} for j in judged]}
        if requested_schema_name(request) != "SectionSentences":
            return reply
        sentences = []
        for i, item in enumerate(reply["sentences"]):
            extra = " ".join(_ADDED[: (i * 3) % 7])
            text = item["text"].rstrip(". ") + (f" {extra}." if extra else ".")
            sentences.append({**item, "text": text})
        return {**reply, "sentences": sentences}

    return responder


def _library(root: Path, llm: str) -> list[Event]:
    request = ResearchRequest(topic=LIBRARY_TOPIC, allocation="111", max_iterations=1)
    if llm == "offline":
        runner = ResearchRunner(library_settings(root / "data", root / "logs", llm="offline"))
        return runner.store.events(runner.run(request))
    scripted = ScriptedModel(approve_from_round=2)
    with FakeOpenAIServer(loose(scripted) if llm == "llm-loose" else scripted) as model:
        settings = loopback_llm_settings(
            model.base_url, data_dir=root / "data", log_dir=root / "logs", model="fake-model"
        )
        runner = ResearchRunner(settings)
        return runner.store.events(runner.run(request))


def run_case(case: str, root: Path) -> list[dict[str, Any]]:
    if case == "loopback-111":
        events = _loopback(root, "111", 3)
    elif case == "loopback-333":
        events = _loopback(root, "333", 9)
    else:
        events = _library(root, case.removeprefix("library-"))
    return record(events)


@pytest.mark.parametrize("case", CASES)
def test_the_writer_phase_says_what_it_said_before(tmp_path: Path, case: str) -> None:
    got = run_case(case, tmp_path)
    types = [e["type"] for e in got]
    assert "draft_ready" in types and "claims_checked" in types  # a real draft and its check
    text = json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    path = GOLDEN / f"{case}.json"
    if os.environ.get("WRITER_GOLDEN") == "write":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")

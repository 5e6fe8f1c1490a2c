"""The real-model lane: a whole research run against llama-cpp-python's own server and a real
GGUF model (SmolLM2-135M-Instruct), nothing faked. Opt-in (`make test-local-model` installs the
server and the model and sets RESEARCH_TEST_LOCAL_MODEL=1): it takes minutes on two shared cores.

What it holds the stack to: every structured step (plan, queries, judge) is served by the model
(no step degraded to the offline brain), every reply stays within its cap, the working method is
found and remembered in the data dir, calls and usage agree, progress streams, and the run ends
with a draft within LANE_LIMIT_SECONDS.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.llama_server import LlamaServer, lane_settings, model_path, run_research
from research.brains.llm.capabilities import FILE_NAME, cache_dir, server_label

LANE_LIMIT_SECONDS = 900
STRUCTURED_STEPS = ("plan", "queries", "judge")

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        os.environ.get("RESEARCH_TEST_LOCAL_MODEL") != "1", reason="real-model lane: run `make test-local-model`"
    ),
]


@pytest.fixture(scope="module")
def lane(tmp_path_factory: pytest.TempPathFactory):
    if model_path() is None:
        pytest.fail("the lane is not installed: scripts/local_model_setup.sh (make test-local-model runs it)")
    root = tmp_path_factory.mktemp("lane")
    with LlamaServer(root / "server.log") as server:
        settings = lane_settings(server, root)
        run = run_research(settings)
        # Read now: the user cache dir is each test's own (tests/conftest.py), and the lane's run
        # learnt its method under the first test's.
        memory = cache_dir() / FILE_NAME
        remembered = json.loads(memory.read_text())["methods"] if memory.exists() else {}
        # This server's own entry: the session's loopback fakes may remember theirs in the same file.
        methods = {k: v for k, v in remembered.items() if k == server_label(server.base_url, server.alias)}
        artifacts = Path("test-artifacts")
        artifacts.mkdir(exist_ok=True)
        (artifacts / "local_model_run.json").write_text(
            json.dumps(
                {
                    "seconds": run.seconds,
                    "threads": server.threads,
                    "usage": run.result["usage"],
                    "calls": run.calls,
                    "warnings": run.result["warnings"],
                },
                indent=1,
            )
        )
        yield settings, run, methods


@pytest.mark.timeout(LANE_LIMIT_SECONDS + 300)
def test_a_whole_run_ends_with_a_draft_in_time(lane) -> None:
    _settings, run, _methods = lane
    assert run.result["status"] == "finished" and run.result["draft"]
    assert run.seconds < LANE_LIMIT_SECONDS


@pytest.mark.timeout(60)
def test_every_structured_step_is_served_by_the_model(lane) -> None:
    settings, run, methods = lane
    degraded = [w["message"] for w in run.result["warnings"] if "used the offline brain" in w["message"]]
    for step in STRUCTURED_STEPS:
        assert not [m for m in degraded if f"{step} failed" in m], degraded
    served = {c["role"] for c in run.calls if c["failed"] == "False"}
    assert {"plan", "queries", "judge", "notes", "writer"} <= served
    assert methods, "the working method was not remembered in the user's cache dir"
    assert set(methods.values()) <= {"json_mode", "json_object", "function_calling"}  # json_schema: HTTP 500


@pytest.mark.timeout(60)
def test_replies_stay_within_their_caps_and_usage_agrees(lane) -> None:
    _settings, run, _methods = lane
    assert run.calls
    for call in run.calls:
        assert int(call["completion_tokens"]) <= int(call["cap"]), call
    usage = run.result["usage"]
    assert usage["calls"] == len(run.calls)
    assert usage["failed_calls"] == sum(c["failed"] == "True" for c in run.calls)
    assert usage["completion_tokens"] >= sum(int(c["completion_tokens"]) for c in run.calls if c["failed"] == "False")


@pytest.mark.timeout(60)
def test_progress_streamed_while_the_model_wrote(lane) -> None:
    _settings, run, _methods = lane
    progress = [e for e in run.events if e.type == "model_progress"]
    assert {e.data.node for e in progress} >= {"supervisor", "researcher", "analyst", "writer"}
    assert any(e.researcher_id and e.data.step == "notes" and e.data.tokens > 0 for e in progress)
    preview = "".join(e.data.text for e in run.events if e.type == "draft_delta")
    assert preview.strip()

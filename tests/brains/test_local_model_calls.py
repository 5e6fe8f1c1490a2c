"""Issue 12 through the real ChatOpenAI against the loopback fake: a llama-cpp-like server's
structured-output rejection is recognised and the working method remembered across processes;
replies are capped per role and cut replies used with a warning; prompts fit the context; calls
are metered with their failed attempts; a per-server slot limit holds; every call streams."""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from research.brains.llm.capabilities import FILE_NAME, CapabilityStore, cache_dir, is_shape_rejection, store_for
from research.brains.llm.context_fit import fit_messages
from research.brains.llm.grammar_schema import grammar_schema
from research.brains.llm.llm_brain import LLMBrain, chat_model
from research.brains.llm.model_stream import Progress
from research.brains.llm.structured import forget_methods, invoke_structured, remembered_method
from research.schemas.llm_shapes import AnalystVerdict, QueryPlan
from research.schemas.state_shapes import ResearcherTask, Source
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer, count_tokens
from tests.settings_presets import model_call_settings

TOPIC = "How do mRNA vaccines work?"
TASK = ResearcherTask(researcher_id="web-1", kind="web", question="How do mRNA vaccines instruct cells?", topic=TOPIC)
VALID_QUERIES = {"queries": ["mrna vaccine mechanism", "lipid nanoparticle delivery"]}


def settings_for(server: FakeOpenAIServer, tmp_path: Path, **overrides: Any) -> Settings:
    return model_call_settings(
        server.base_url, tmp_path / "data", api_key="sk-local-SECRET", model="local-model", **overrides
    )


ONE_SOURCE = Source(id="s1", title="LNP", url="https://example.org/a", kind="web", provider="fake", snippet="x")


def eight_sources(snippet: str) -> list[Source]:
    """Eight web sources of one long snippet each: more than a small context holds."""
    return [
        Source(id=f"s{i}", title=f"Source {i}", url=f"https://e.org/{i}", kind="web", provider="fake", snippet=snippet)
        for i in range(8)
    ]


def llama_like(responder) -> FakeOpenAIServer:
    server = FakeOpenAIServer(responder)
    server.like_llama_cpp = True
    return server


# --- 1. capability detection ------------------------------------------------------------------------


def test_llama_cpp_500_naming_response_format_moves_to_json_mode_with_the_schema(tmp_path: Path) -> None:
    with llama_like(lambda request: VALID_QUERIES) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)  # the SDK would retry the 500

        assert brain.queries(TASK, "web") == VALID_QUERIES["queries"]

        first, second = server.requests
        assert first["response_format"]["type"] == "json_schema"  # answered HTTP 500
        assert second["response_format"]["type"] == "json_object"
        assert second["response_format"]["schema"]["properties"]["queries"]["minItems"] == 1
        saved = json.loads((cache_dir() / FILE_NAME).read_text())  # the user's cache, not the data dir
        assert saved == {"methods": {f"{server.base_url}|local-model": "json_mode"}}
        assert "sk-local" not in (cache_dir() / FILE_NAME).read_text()
        assert not (tmp_path / "data" / FILE_NAME).exists()


def test_the_working_method_is_remembered_across_processes(tmp_path: Path) -> None:
    with llama_like(lambda request: VALID_QUERIES) as server:
        LLMBrain(settings_for(server, tmp_path), max_retries=0).queries(TASK, "web")
        forget_methods()  # a new process: nothing in memory, only the file
        server.reset()

        LLMBrain(settings_for(server, tmp_path), max_retries=0).queries(TASK, "web")

        [only] = server.requests  # no failed json_schema attempt paid again
        assert only["response_format"]["type"] == "json_object"


def test_a_real_server_error_is_still_a_transport_fault(tmp_path: Path) -> None:
    with llama_like(lambda request: VALID_QUERIES) as server:
        server.fail_next("500")  # "The server had an error": names no request feature
        llm = chat_model(settings_for(server, tmp_path), "local-model", max_retries=0)
        with pytest.raises(openai.InternalServerError):
            invoke_structured(llm, QueryPlan, [HumanMessage("x")])
        assert len(server.requests) == 1 and remembered_method(llm) is None


def _status_error(status: int, message: str) -> openai.APIStatusError:
    import httpx

    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(status, request=request, json={"error": {"message": message}})
    return openai.APIStatusError(message, response=response, body={"error": {"message": message}})


@pytest.mark.parametrize(
    ("status", "message", "rejected"),
    [
        (400, "Unsupported param: response_format", True),
        (404, "tools not found", True),
        (422, "Unprocessable: tool_choice", True),
        (500, "Input should be 'text' or 'json_object' (response_format.type)", True),
        (500, "'tools' is not supported with this chat format", True),
        (500, "The server had an error while processing your request.", False),
        (503, "overloaded", False),
        (429, "Rate limit reached", False),
    ],
)
def test_shape_rejections_whatever_the_status(status: int, message: str, rejected: bool) -> None:
    assert is_shape_rejection(_status_error(status, message)) is rejected


def test_a_corrupt_capabilities_file_is_ignored_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_text("{not json")
    store = CapabilityStore(path)
    assert store.get("x|y") is None
    store.put("x|y", "json_mode")
    assert CapabilityStore(path).get("x|y") == "json_mode"


# --- 2. bounded replies -----------------------------------------------------------------------------


def test_each_role_sends_its_cap_as_max_tokens_too(tmp_path: Path) -> None:
    with llama_like(lambda request: VALID_QUERIES) as server:
        brain = LLMBrain(settings_for(server, tmp_path, reply_tokens_queries=77))
        brain.queries(TASK, "web")
        last = server.requests[-1]
        assert last["max_tokens"] == 77  # llama-cpp-python reads only this one
        assert last["max_completion_tokens"] == 77


def test_a_reply_cut_by_its_cap_is_used_and_noted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    long_notes = "Lipid nanoparticles carry mRNA into cells [s1]. " * 200
    with llama_like(lambda request: long_notes) as server:
        brain = LLMBrain(settings_for(server, tmp_path, reply_tokens_notes=40))
        with caplog.at_level(logging.WARNING, logger="research.agents"):
            notes = brain.notes(TASK, [ONE_SOURCE], lambda _id: "")

        assert notes.startswith("Lipid nanoparticles") and count_tokens(notes) <= 41
        assert any(
            "cut at its cap of 40 tokens (RESEARCH_REPLY_TOKENS_NOTES)" in r.getMessage() for r in caplog.records
        )
        [record] = brain.meter.calls
        assert record.finish_reason == "length" and record.cap == 40 and not record.failed


def test_the_writer_stops_before_its_own_reference_list(tmp_path: Path) -> None:
    finding = "Lipid nanoparticles carry the mRNA into cells."
    with FakeOpenAIServer(lambda request: {"sentences": [{"passage": 1, "text": finding}]}) as server:
        brain = LLMBrain(settings_for(server, tmp_path))
        from research.brains.base import NumberedSource, ReviseRequest

        # Every writer call is structured now (the writer's and the reviser's): each still stops there.
        draft = f"# mRNA delivery\n\n## Summary\n\n{finding[:-1]} [1].\n"
        brain.revise(ReviseRequest(draft, "Shorter.", [NumberedSource(1, ONE_SOURCE)], lambda _id: finding))
        assert "\n## Sources" in server.requests[-1]["stop"]


def _sources_prompt(n: int, chars: int = 900) -> list:
    from research import prompts

    blocks = [
        prompts.render_source(
            f'id="s{i}"',
            kind="web",
            title=f"Source {i}",
            url=f"https://e.org/{i}",
            text=("mrna vaccine lipid " if i == 3 else "unrelated gardening ") * (chars // 20),
        )
        for i in range(n)
    ]
    return [
        SystemMessage("Role: notes."),
        HumanMessage(f"Question: mrna vaccine lipid\n{prompts.render_sources(blocks)}"),
    ]


def test_fit_drops_the_least_relevant_sources_first_and_keeps_the_rest_in_order() -> None:
    messages = _sources_prompt(6)
    fitted, dropped = fit_messages(messages, 2500)
    text = fitted[1].content
    assert dropped > 0 and 'id="s3"' in text  # the on-topic source stays
    assert "<<<SOURCES>>>" in text and "<<<END SOURCES>>>" in text and "Question: mrna" in text
    kept = [int(chunk.split('"')[0]) for chunk in text.split('id="s')[1:]]
    assert kept == sorted(kept)
    assert sum(len(m.content) for m in fitted) <= 2500


def test_the_context_setting_trims_sources_up_front(tmp_path: Path) -> None:
    with llama_like(lambda request: "Notes [s3].") as server:
        server.context_tokens = 1200
        brain = LLMBrain(settings_for(server, tmp_path, context_tokens=1200, reply_tokens_notes=100))
        sources = eight_sources("unrelated gardening " * 70)
        brain.notes(TASK, sources, lambda _id: "")
        assert len(server.requests) == 1  # fitted before sending: no overflow


def test_a_context_overflow_trims_and_retries_before_failing(tmp_path: Path) -> None:
    with llama_like(lambda request: "Notes.") as server:
        server.context_tokens = 1500
        brain = LLMBrain(settings_for(server, tmp_path, reply_tokens_notes=100))  # no context setting
        sources = eight_sources("gardening " * 140)
        assert brain.notes(TASK, sources, lambda _id: "") == "Notes."
        first, second = server.requests
        assert count_tokens(json.dumps(second["messages"])) < count_tokens(json.dumps(first["messages"]))
        [failed, ok] = brain.meter.calls
        assert failed.failed and not ok.failed


# --- 3. metering ------------------------------------------------------------------------------------


def test_calls_tokens_and_budget_units_agree_with_failed_attempts_labelled(tmp_path: Path) -> None:
    with llama_like(lambda request: VALID_QUERIES) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.queries(TASK, "web")  # json_schema (HTTP 500, a failed attempt), then json_mode
        server.fail_next("timeout")
        server.timeout_seconds = 3
        brain.caller.settings = brain.settings.model_copy(update={"llm_timeout": 0.3})
        usage = brain.take_usage()

        assert usage.calls == brain.meter.reserved == 2 and usage.failed_calls == 1
        assert usage.total_tokens == server.stats.total_tokens > 0


# --- 4. concurrency ---------------------------------------------------------------------------------


def test_parallel_calls_never_exceed_the_per_server_limit_and_do_not_time_out_waiting(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: VALID_QUERIES, latency=0.25) as server:
        settings = settings_for(server, tmp_path, llm_concurrency=1, llm_timeout=0.6)
        brain = LLMBrain(settings, max_retries=0)
        errors: list[BaseException] = []

        def one() -> None:
            try:
                brain.queries(TASK, "web")
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=one) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        # Four calls of 0.25 s each behind one slot: 1 s in all, more than the 0.6 s timeout,
        # yet none timed out, because each timeout started when its request was sent.
        assert errors == [] and server.stats.max_in_flight == 1 and len(server.requests) == 4


# --- 5. streaming and progress ----------------------------------------------------------------------


def test_every_call_streams(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: VALID_QUERIES) as server:
        LLMBrain(settings_for(server, tmp_path)).queries(TASK, "web")
        assert all(r.get("stream") is True for r in server.requests)


def test_progress_is_throttled_and_hides_reasoning(monkeypatch: pytest.MonkeyPatch) -> None:
    from research.brains.llm import model_stream
    from research.brains.llm.step_context import StepContext

    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(model_stream, "emit", lambda data, **_where: sent.append((data.event_type, data.model_dump())))
    progress = Progress(StepContext("write"), "m", draft=True)
    for piece in ["<think>", "plan it", "</think>", "# Title"] + [" word"] * 200:
        progress.chunk(piece)
    progress.end()

    ticks = [d for t, d in sent if t == "model_progress"]
    assert 2 <= len(ticks) <= 6  # 204 chunks -> one event per 50 tokens, plus the end
    assert ticks[-1]["done"] and ticks[-1]["tokens"] == 204
    text = "".join(d["text"] for t, d in sent if t == "draft_delta")
    assert text.startswith("# Title") and "think" not in text and "plan it" not in text


def test_a_reply_that_never_ends_is_cut_by_the_reply_deadline(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: "word " * 400, stream_chunk_chars=4) as server:
        server.chunk_delay = 0.02  # the whole reply takes 10 s
        brain = LLMBrain(settings_for(server, tmp_path, llm_reply_seconds=1.0))
        started = time.monotonic()
        notes = brain.notes(TASK, [ONE_SOURCE], lambda _id: "")
        assert time.monotonic() - started < 8.0  # cut, not read to its end
        assert 0 < len(notes) < len("word " * 400)
        assert brain.meter.calls[-1].finish_reason == "deadline"


def test_grammar_schema_inlines_refs_and_bounds_lists_and_strings() -> None:
    shape = grammar_schema(AnalystVerdict)
    text = json.dumps(shape)
    assert "$ref" not in text and "$defs" not in text
    coverage = shape["properties"]["coverage"]
    assert coverage["minItems"] == 1 and coverage["items"]["properties"]["question"]["pattern"].startswith(
        "^[A-Za-z0-9]"
    )
    import re

    text_rule = re.compile(shape["properties"]["critique"]["items"]["pattern"])
    assert text_rule.match("Thin on storage (cold chain).") and not text_rule.match('" or ""')
    assert not text_rule.match("x" * 400)  # bounded
    assert shape["properties"]["status"].get("pattern") is None  # enums keep their values


def test_capability_stores_are_one_per_data_dir(tmp_path: Path) -> None:
    assert store_for(tmp_path) is store_for(tmp_path) and store_for(tmp_path) is not store_for(None)


def test_a_structured_reply_cut_at_its_cap_moves_on_and_is_metered_as_failed(tmp_path: Path) -> None:
    many = {"queries": [f"query number {i} about mrna vaccine delivery" for i in range(30)]}
    with llama_like(lambda request: many) as server:
        brain = LLMBrain(settings_for(server, tmp_path, reply_tokens_queries=16), max_retries=0)
        queries = brain.queries(TASK, "web")  # the tool call's arguments are not cut by this fake

        assert queries and [r.finish_reason for r in brain.meter.calls][1:3] == ["length", "length"]
        assert remembered_method(brain._fast, brain.caller.memory) == "json_mode"  # accepted, only cut
        usage = brain.take_usage()
        assert usage.calls == 4 and usage.failed_calls == 3


def test_a_degraded_step_names_the_model_and_server_but_never_the_url(tmp_path: Path) -> None:
    from research.brains.fallback import FallbackBrain
    from research.brains.offline.offline_brain import OfflineBrain

    with FakeOpenAIServer() as server:
        server.fail_next("500", times=3)
        warnings: list[tuple[str, str]] = []
        brain = FallbackBrain(
            LLMBrain(settings_for(server, tmp_path)), OfflineBrain(), lambda s, m: warnings.append((s, m))
        )
        brain.queries(TASK, "web")
        [(_source, message)] = warnings
        assert "on model local-model at the OPENAI_BASE_URL server" in message
        assert server.base_url not in message and "127.0.0.1" not in message


def test_the_cli_prints_a_progress_line_for_a_model_call() -> None:
    from research.cli.progress import describe
    from research.events import Event

    line = describe(
        Event(
            type="model_progress",
            researcher_id="web-1",
            data=dict(node="researcher", step="notes", model="m", tokens=120, seconds=4.5, done=False),
        )
    )
    assert line == "[web-1] notes: writing, 120 tokens (4.5s)"


def test_one_invalid_reply_does_not_move_later_calls_down_the_method_list(tmp_path: Path) -> None:
    replies = iter(["not json at all", VALID_QUERIES, VALID_QUERIES])
    with llama_like(lambda request: next(replies)) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.queries(TASK, "web")  # json_schema 500, json_mode invalid, json_object valid
        assert remembered_method(brain._fast, brain.caller.memory) == "json_mode"
        server.reset()
        brain.queries(TASK, "web")
        [only] = server.requests
        assert "schema" in only["response_format"]  # straight back to JSON mode with the schema


def test_the_temperature_setting_is_sent_and_unset_leaves_the_servers_default(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: VALID_QUERIES) as server:
        LLMBrain(settings_for(server, tmp_path, llm_temperature=0.0)).queries(TASK, "web")
        LLMBrain(settings_for(server, tmp_path)).queries(TASK, "web")
        assert server.requests[0]["temperature"] == 0.0 and "temperature" not in server.requests[-1]

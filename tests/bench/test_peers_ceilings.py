"""Every peers-bench run has a wall-clock ceiling, the desk's as a peer's: the desk runs in a
process of its own and is cut at its ceiling; a run cut there (or failed) is "did not finish",
never "cites nothing" on a no-answer topic; PEERS_DEADLINE shares the time left among the runs left;
PEERS_TOPICS counts topics of each group; gpt-researcher's every reply is capped to fit the context."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.peers import report
from bench.peers.budget import MIN_CEILING, RunBudget, deadline_from
from bench.peers.figure import CAPS, TOPICS, ModelSetting, _desk_run, _gptr_config, _row, _topics_for
from bench.peers.meter import MeteringProxy
from bench.peers.scripted import PeerScriptedModel
from bench.peers.world import PeerWorld
from tests.fakes.openai_server import FakeOpenAIServer

NEAR_MISS = next(t for t in TOPICS if t.group == "near-miss")
GENEROUS = 900.0  # a ceiling no healthy scripted run comes near, even on a busy machine
MIDNIGHT = 1_800_000_000 - 1_800_000_000 % 86400  # some UTC midnight


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PeerWorld]:
    with PeerWorld(Path(tmp_path_factory.mktemp("world"))) as w:
        yield w


def _desk_row(world: PeerWorld, fake: FakeOpenAIServer, root: Path, ceiling: float, name: str = "scripted") -> dict:
    with MeteringProxy(fake.base_url) as proxy:
        script = fake.responder if name == "scripted" else None  # a local setting: the desk's local-model values
        setting = ModelSetting(name, "bench-model", proxy, script)  # type: ignore[arg-type]
        world.clear_log()
        run = _desk_run(setting, world, NEAR_MISS.topic, root, ceiling)
        return {"setting": "scripted", **_row("desk", NEAR_MISS, run, setting, world)}


def test_the_desk_runs_in_its_own_process_and_is_cut_at_its_ceiling(world: PeerWorld, tmp_path: Path) -> None:
    script = PeerScriptedModel()
    script.topic = NEAR_MISS.topic
    with FakeOpenAIServer(script) as fake:
        answered = _desk_row(world, fake, tmp_path / "answered", GENEROUS)
    assert answered["finished"] and answered["error"] is None and answered["requests"] >= 1
    assert answered["cites_nothing"] is True and answered["searches"] >= 1  # the near miss: nothing on its subject

    with FakeOpenAIServer(script, latency=3600) as stalled:  # a model that never answers in time
        cut = _desk_row(world, stalled, tmp_path / "cut", 3)
    assert cut["finished"] is False and cut["error"] == "timed out after 3 s"
    assert cut["cites_nothing"] is None and cut["says_nothing_found"] is None  # no answer to read

    with FakeOpenAIServer(script) as fake:  # the settings a local model gets reach the desk's process too
        local = _desk_row(world, fake, tmp_path / "local", GENEROUS, name="qwen")
        sent = fake.requests
    assert local["finished"] and local["cites_nothing"] is True
    assert sent and all(r.get("temperature") == 0.0 for r in sent)  # llm_temperature=0.0, as set for local models

    table = report.section({"peers": [answered, cut], "peers_details": {}})
    row = next(line for line in table.splitlines() if line.startswith("| scripted fake | desk |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "1 of 2"
    assert cells[11] == "1 of 1"  # citing nothing: the finished run only, not the one cut at its ceiling
    assert "- scripted fake, desk: timed out after 3 s (1 of the runs)" in table


def test_a_run_that_did_not_finish_never_counts_as_citing_nothing() -> None:
    timed_out = dict(setting="qwen", system="gpt-researcher", topic="t", group="near-miss", finished=False,
                     seconds=300.0, requests=2, failed_requests=0, prompt_tokens=10, completion_tokens=1, searches=0,
                     sources_cited=0, invented_citations=0, off_subject_citations=0, cited_sentences=0,
                     supported_sentences=0, cites_nothing=True, says_nothing_found=False, report_words=0,
                     error="timed out after 300 s")  # fmt: skip
    # a row as older runs stored it (cites_nothing True for an empty report): still not counted
    cells = [c.strip() for c in report.summary_row("qwen", "gpt-researcher", [timed_out]).strip("|").split("|")]
    assert cells[2] == "0 of 1" and cells[11] == "–" and cells[12] == "–" and cells[14] == "–"


def test_the_deadline_shares_the_time_left_among_the_runs_left() -> None:
    at = deadline_from("07:05", MIDNIGHT + 6 * 3600)
    assert at == MIDNIGHT + 7 * 3600 + 5 * 60
    assert deadline_from("00:10", MIDNIGHT - 600) == MIDNIGHT + 600  # just before midnight: tomorrow's
    assert deadline_from("23:50", MIDNIGHT + 600) == MIDNIGHT - 600  # just after: yesterday's, passed
    assert deadline_from("7h05", MIDNIGHT) is None and deadline_from("25:00", MIDNIGHT) is None

    now = MIDNIGHT + 6 * 3600 + 50 * 60  # 06:50, 15 minutes before the deadline, six runs to go
    budget = RunBudget(6, at)
    assert budget.ceiling(1800.0, now) == 150  # 900 s / 6
    assert budget.ceiling(1800.0, now + 60) == 168  # the first ended after 60 s: 840 s / 5
    assert budget.ceiling(100.0, now + 60) == 100  # never above the run's own ceiling
    assert budget.ceiling(1800.0, at - 2 * MIN_CEILING + 1) is None  # under a minute each: not started
    assert RunBudget(3).ceiling(1800.0, now) == 1800.0  # no deadline: the run's own ceiling


def test_a_malformed_deadline_is_an_error_not_no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PEERS_DEADLINE", "7.05")
    with pytest.raises(ValueError, match="HH:MM"):
        RunBudget.from_environ(6)
    monkeypatch.setenv("PEERS_DEADLINE", "07:05")
    assert RunBudget.from_environ(6, now=MIDNIGHT + 6 * 3600).deadline == MIDNIGHT + 7 * 3600 + 300


def test_peers_topics_counts_the_topics_of_each_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PEERS_GROUPS", "covered,near-miss")
    monkeypatch.setenv("PEERS_TOPICS", "1")
    assert [(t.group, t.library_topic) for t in _topics_for("qwen", quick=False)] == [
        ("covered", "mrna-vaccines"),
        ("near-miss", None),
    ]
    monkeypatch.setenv("PEERS_TOPICS", "2")
    assert [t.group for t in _topics_for("qwen", quick=False)] == ["covered", "near-miss", "covered"]
    monkeypatch.delenv("PEERS_GROUPS")
    monkeypatch.delenv("PEERS_TOPICS")
    assert [t.group for t in _topics_for("scripted", quick=True)] == ["covered", "near-miss"]
    assert len(_topics_for("scripted", quick=False)) == len(TOPICS)


def test_every_gpt_researcher_reply_is_capped_at_the_reports_cap() -> None:
    from types import SimpleNamespace

    setting = SimpleNamespace(model="qwen2.5-coder-1.5b-instruct")
    world = SimpleNamespace(retriever_url="http://127.0.0.1:1/retrieve")
    env = _gptr_config(setting, world, "How do mRNA vaccines work?")["env"]  # type: ignore[arg-type]
    # its agent-choice call asks 4,000 tokens and its sub-query call sends no cap unless LLM_KWARGS says
    assert json.loads(env["LLM_KWARGS"]) == {"max_tokens": CAPS["writer"]}
    assert int(env["SMART_TOKEN_LIMIT"]) == CAPS["writer"]

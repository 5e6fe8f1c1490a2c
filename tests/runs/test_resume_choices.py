"""A resumed or continued run keeps the choices it was started with (its run_started event): the
model and sources mode of the dashboard's run options, the researcher mode and who started it, not
the process's defaults."""

from __future__ import annotations

from pathlib import Path

from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.settings_presets import library_settings, loopback_llm_settings

TOPIC = "How do mRNA vaccines work?"


def test_a_continued_run_keeps_the_model_it_was_started_with(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        settings = loopback_llm_settings(
            server.base_url, data_dir=tmp_path / "data", log_dir=tmp_path / "logs", model="default-model"
        )
        runner = ResearchRunner(settings)
        run_id = runner.run(
            ResearchRequest(
                topic=TOPIC, allocation="100", review_plan=True, model="chosen-model", fast_model="chosen-fast"
            )
        )
        assert runner.store.get_run(run_id).status == "paused"
        server.reset()

        # A new process (a dashboard restart) continues it: its own default is another model.
        ResearchRunner(settings).continue_plan(run_id)

        models = {request["model"] for request in server.requests}
    assert runner.store.get_run(run_id).status == "finished"
    assert {"chosen-model", "chosen-fast"} <= models and "default-model" not in models


def test_a_resumed_run_keeps_its_researcher_mode_sources_and_starter(tmp_path: Path) -> None:
    settings = library_settings(tmp_path / "data", tmp_path / "logs", llm="offline")
    runner = ResearchRunner(settings)
    run_id = runner.run(
        ResearchRequest(topic=TOPIC, allocation="100", researcher_mode="agent", sources="library", started_by="ada")
    )
    record = runner.store.get_run(run_id)

    request = ResearchRunner(settings.model_copy(update={"sources": "auto"})).stored_request(record)

    assert (request.llm, request.sources, request.researcher_mode, request.started_by) == (
        "offline",
        "library",
        "agent",
        "ada",
    )
    assert request.model is None  # the offline brain has no model to carry over
    assert ResearchRunner(settings).stored_request(record, llm="openai").llm == "openai"  # --llm still wins

"""What a remote run's spec carries to the server: the run's own options (the dashboard's run
options, who started it) and this side's explicit settings, never this side's defaults."""

from __future__ import annotations

from pathlib import Path

from research.runs.remote import RemoteRunManager
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings


def test_the_runs_options_travel_and_defaults_stay_home(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, server_url="http://127.0.0.1:9", max_researchers=5)
    manager = RemoteRunManager(settings, client=object())  # no server is asked for a spec
    request = ResearchRequest(
        topic="How do heat pumps work?", model="chosen-model", sources="live", started_by="ada", researcher_mode="agent"
    )

    spec = manager._spec("r1", request)

    assert spec["model"] == "chosen-model" and spec["sources"] == "live" and spec["started_by"] == "ada"
    assert spec["researcher_mode"] == "agent"
    assert spec["max_researchers"] == 5  # set explicitly on this side
    assert "results_per_query" not in spec and "fast_model" not in spec  # defaults: the server's own
    assert "event_log_store" not in spec  # a SQLite store is this replica's alone


def test_a_capped_users_run_carries_the_cap_and_the_calls_left(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, server_url="http://127.0.0.1:9", user_daily_llm_calls=40)
    manager = RemoteRunManager(settings, client=object())

    spec = manager._spec("r1", ResearchRequest(topic="How do heat pumps work?", started_by="ada"))
    anonymous = manager._spec("r2", ResearchRequest(topic="How do heat pumps work?"))

    assert (spec["user_daily_llm_calls"], spec["user_calls_left"]) == (40, 40)  # ada has spent none yet
    assert "user_daily_llm_calls" not in anonymous and "user_calls_left" not in anonymous

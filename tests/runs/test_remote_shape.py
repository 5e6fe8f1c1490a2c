"""Remote mode: the report shape travels in the server run's input (plain JSON values the graph's
begin node records in run_started), and is absent for the standard shape."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from research.report_shape import ReportShape
from research.runs.remote import RemoteRunManager
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings


class _RecordingClient:
    """langgraph-sdk's client as far as starting a run goes: records what each run is sent."""

    def __init__(self) -> None:
        self.runs_sent: list[dict[str, Any]] = []
        self.threads = SimpleNamespace(create=lambda **_kw: None)
        self.runs = SimpleNamespace(stream=self._stream)

    def _stream(self, *_args: Any, **kwargs: Any) -> Any:
        self.runs_sent.append(kwargs)
        return iter(())


def test_the_shape_is_in_the_server_runs_input(tmp_path: Path) -> None:
    client = _RecordingClient()
    manager = RemoteRunManager(
        Settings(_env_file=None, data_dir=tmp_path, server_url="http://127.0.0.1:9"), client=client
    )
    for shape in (ReportShape(shape="brief", target_words=200), ReportShape()):
        request = ResearchRequest(topic="How do heat pumps work?", report_shape=shape)
        manager._run(manager.ledger.register(request), request, None)  # past the server check: no server here
    brief, standard = (sent["input"] for sent in client.runs_sent)
    assert (brief["report_shape"], brief["target_words"]) == ("brief", 200)
    assert "report_shape" not in standard and "target_words" not in standard

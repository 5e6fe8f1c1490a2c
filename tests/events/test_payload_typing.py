"""An event is one typed object end to end: mypy refuses a misspelt payload field, an event given
as a type name and keywords, and a misspelt read; at run time a log's unknown keys are still kept."""

from __future__ import annotations

from pathlib import Path

from mypy import api

from research.events import EventAdapter, event_type_of
from research.events.payloads import PAYLOADS, QueriesGenerated

ROOT = Path(__file__).resolve().parents[2]

MISTAKES = """
from research.events import emit
from research.events.payloads import QueriesGenerated, RunStarted


def node() -> None:
    emit(QueriesGenerated(querys=["q"]))
    emit("queries_generated", queries=["q"])


def read(data: RunStarted) -> str:
    return str(data.topc)
"""


def test_mypy_refuses_misspelt_fields_and_untyped_events(tmp_path: Path, monkeypatch) -> None:
    module = tmp_path / "mistakes.py"
    module.write_text(MISTAKES, encoding="utf-8")
    monkeypatch.chdir(ROOT)  # mypy finds `research` from the working directory, as `make lint` runs it
    out, _err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), str(module)])
    assert status == 1, out
    assert 'Unexpected keyword argument "querys" for "QueriesGenerated"' in out
    assert 'Argument 1 to "emit" has incompatible type "str"' in out
    assert '"RunStarted" has no attribute "topc"' in out


def test_each_model_names_its_event_type_and_a_logs_unknown_keys_are_kept() -> None:
    assert all(event_type_of(model.model_construct()) == type_ for type_, model in PAYLOADS.items())
    event = EventAdapter("r").make(QueriesGenerated.model_validate({"queries": ["q"], "from_a_newer_version": 1}))
    assert event.type == "queries_generated" and event.data.model_dump() == {
        "queries": ["q"],
        "from_a_newer_version": 1,
    }

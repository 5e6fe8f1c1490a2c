"""Every event type has one payload model; the README's events table names exactly its fields; data
that does not fit a type's model is refused where the event is made or read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from research.events import PAYLOADS, Event, EventType, event_payload
from research.events.payloads import Counts, QueriesGenerated, RunStarted

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_rows() -> dict[str, set[str]]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| type | data |") :].split("\n\n", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        type_ = cells[0].strip("`")
        described = re.sub(r"\([^)]*\)|\{[^}]*\}|\[[^\]]*\]", "", cells[1])  # drop value notes
        rows[type_] = {part.split()[0] for part in described.split(",") if part.split()}
    return rows


def test_every_event_type_has_a_payload_model() -> None:
    assert set(get_args(EventType)) == set(PAYLOADS)


@pytest.mark.parametrize("type_", sorted(PAYLOADS))
def test_the_readme_lists_each_payloads_fields(type_: str) -> None:
    rows = _readme_rows()
    assert type_ in rows, f"README events table has no row for {type_}"
    assert rows[type_] == set(PAYLOADS[type_].model_fields), type_


def test_wrong_typed_data_is_refused_when_made_and_when_read() -> None:
    with pytest.raises(ValidationError):
        event_payload(QueriesGenerated(queries="not a list"))  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Event.model_validate({"type": "sources_found", "data": {"sources": [{"title": 3}]}})
    with pytest.raises(ValidationError):
        Event.model_validate_json('{"type": "run_finished", "data": {"status": "exploded"}}')


def test_data_reads_typed_and_round_trips() -> None:
    event = Event(type="run_started", run_id="r", seq=1, data={"topic": "T", "brain": "offline"})
    assert isinstance(event.data, RunStarted) and event.data.topic == "T" and event.data.brain == "offline"
    again = Event.model_validate_json(event.model_dump_json())
    assert again == event and again.data.topic == "T"
    assert Counts(web=2).model_dump() == {"web": 2, "academic": 0, "book": 0}

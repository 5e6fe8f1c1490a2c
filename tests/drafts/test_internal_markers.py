"""The prompts' internal delimiters never survive into a draft or any model text."""

from __future__ import annotations

import pytest

from research.drafts.guard import repair_draft
from research.drafts.markers import strip_internal_markers


@pytest.mark.parametrize(
    "leaked",
    [
        "<<<DRAFT>>",
        "<<<DRAFT>>>",
        "<<<END DRAFT>>>",
        "<<<SOURCES>>>",
        "<<< END  SOURCES >>>",
        "<<NOTES>>",
        "‹‹‹DRAFT›››",
        '<source n="2" kind="web" title="x" url="y">',
        "</source>",
        "<topic>",
        "</instruction>",
    ],
)
def test_every_internal_marker_form_is_removed(leaked: str) -> None:
    assert strip_internal_markers(f"Lipids carry mRNA {leaked}into cells.") == "Lipids carry mRNA into cells."


def test_ordinary_angle_brackets_and_words_stay() -> None:
    text = "Use <b>bold</b>, compare a < b > c, and read the DRAFT SOURCES notes."
    assert strip_internal_markers(text) == text


def test_the_draft_guard_removes_markers_and_says_so() -> None:
    repair = repair_draft("# T\n\n<<<DRAFT>>>\nLipids carry mRNA [1].\n<<<END DRAFT>>>\n", {1}, set())

    assert "<<<" not in repair.text and "Lipids carry mRNA [1]." in repair.text
    assert repair.markers_removed == 2
    assert "Removed 2 internal prompt marker(s) from the draft." in repair.warnings()


def test_hostile_runs_of_brackets_are_handled_in_one_pass() -> None:
    hostile = "<<<" * 200_000 + "‹" * 200_000 + "<source" + " x" * 100_000
    assert strip_internal_markers(hostile).startswith("<<<")  # nothing to remove, and it returns

"""The Research page inputs: slider <-> notation sync, live validation and the disabled Run."""

from __future__ import annotations

import pytest

from tests.ui.conftest import plain, texts


def _run_button(at):
    return next(b for b in at.button if b.label == "Run research")


def _sliders(at):
    return [at.slider(key=k).value for k in ("alloc_web", "alloc_academic", "alloc_book")]


def test_moving_a_slider_rewrites_the_notation(make_app):
    at = make_app().run()
    assert [s.label for s in at.slider] == ["Web researchers", "Academic researchers", "Book researchers"]
    at.slider(key="alloc_web").set_value(2).run()
    at.slider(key="alloc_book").set_value(0).run()
    assert at.text_input(key="alloc_notation").value == "210"


def test_typing_a_notation_moves_the_sliders(make_app):
    at = make_app().run()
    at.text_input(key="alloc_notation").input("021").run()
    assert _sliders(at) == [0, 2, 1]
    at.text_input(key="alloc_notation").input("300").run()
    assert _sliders(at) == [3, 0, 0]
    assert any("Total 3 of at most 3 researchers" in t for t in texts(at))


def test_total_over_cap_is_shown_live_and_disables_run(make_app):
    at = make_app().run()
    at.text_area(key="topic").input("How do mRNA vaccines work?").run()
    at.slider(key="alloc_web").set_value(3).run()  # 3 + 1 + 1
    assert [plain(e.value) for e in at.error] == ["Total must be 1-3, got 5"]
    assert _run_button(at).disabled
    assert any("Run is disabled: Total must be 1-3, got 5" in t for t in texts(at))


@pytest.mark.parametrize(
    ("notation", "sliders", "error"),
    [
        ("000", [0, 0, 0], "Total must be 1-3, got 0"),  # taken, then refused
        ("5xx", [1, 1, 1], "Expected 3 digits (web, academic, book), got '5xx'"),  # the sliders stay
    ],
    ids=["total-zero", "malformed"],
)
def test_a_refused_notation_is_explained_and_disables_run(make_app, notation, sliders, error):
    at = make_app().run()
    at.text_area(key="topic").input("Impressionism").run()
    at.text_input(key="alloc_notation").input(notation).run()
    assert _sliders(at) == sliders
    assert [plain(e.value) for e in at.error] == [error]
    assert _run_button(at).disabled


def test_empty_or_blank_topic_disables_run_with_a_reason(make_app):
    at = make_app().run()
    assert _run_button(at).disabled
    assert any(t.startswith(":material/info: Run is disabled: Topic is empty") for t in texts(at))
    assert any("Ctrl+Enter, or click outside the box" in t for t in texts(at))  # how typed text applies
    at.text_area(key="topic").input("   \n  ").run()
    assert _run_button(at).disabled
    at.text_area(key="topic").input("A real topic").run()
    assert not _run_button(at).disabled


def test_over_long_topic_is_refused_with_a_message(make_app):
    at = make_app().run()
    at.text_area(key="topic").input("x" * 2001).run()
    assert _run_button(at).disabled
    assert any("Topic is too long: 2,001 characters" in plain(e.value) for e in at.error)


def test_letting_the_model_decide_disables_the_allocation_controls(make_app):
    at = make_app().run()
    at.text_area(key="topic").input("Impressionism").run()
    at.text_input(key="alloc_notation").input("5xx").run()
    assert _run_button(at).disabled
    at.toggle(key="alloc_auto").set_value(True).run()
    assert all(s.disabled for s in at.slider)
    assert at.text_input(key="alloc_notation").disabled
    assert not _run_button(at).disabled  # the broken notation no longer matters
    assert not at.error


def test_inputs_survive_a_trip_to_another_page(make_app):
    at = make_app().run()
    at.text_area(key="topic").input("Kept topic").run()
    at.text_input(key="alloc_notation").input("102").run()
    at.switch_page("pages/library.py").run()
    at.switch_page("pages/research.py").run()
    assert at.text_area(key="topic").value == "Kept topic"
    assert at.text_input(key="alloc_notation").value == "102"
    assert _sliders(at) == [1, 0, 2]

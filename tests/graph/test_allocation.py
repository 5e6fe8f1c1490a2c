"""Allocation: the "210" notation, its rules and messages, the cap setting, and the priority
user > model > default."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research.graph.allocation import (
    DEFAULT_ALLOCATION,
    AllocationError,
    parse_allocation,
    researcher_ids,
    resolve_allocation,
)
from research.runs.runner import ResearchRunner
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings


@pytest.mark.parametrize(
    ("text", "web", "academic", "book"),
    [("210", 2, 1, 0), ("003", 0, 0, 3), ("111", 1, 1, 1), ("300", 3, 0, 0), (" 120 ", 1, 2, 0)],
)
def test_valid_allocations_parse_per_kind(text: str, web: int, academic: int, book: int) -> None:
    allocation = parse_allocation(text)
    assert (allocation.web, allocation.academic, allocation.book) == (web, academic, book)
    assert allocation.notation == text.strip()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("21", "Expected 3 digits (web, academic, book), got '21'"),
        ("2100", "Expected 3 digits (web, academic, book), got '2100'"),
        ("a10", "Expected 3 digits (web, academic, book), got 'a10'"),
        ("2 1", "Expected 3 digits (web, academic, book), got '2 1'"),
        ("-10", "Expected 3 digits (web, academic, book), got '-10'"),
        ("２１０", "Expected 3 digits (web, academic, book), got '２１０'"),  # full-width digits
        ("", "Expected 3 digits (web, academic, book), got nothing"),
        ("   ", "Expected 3 digits (web, academic, book), got nothing"),
        ("410", "Each digit must be 0-3, got '410'"),
        ("090", "Each digit must be 0-3, got '090'"),
        ("000", "Total must be 1-3, got 0"),
        ("333", "Total must be 1-3, got 9"),
        ("220", "Total must be 1-3, got 4"),
    ],
)
def test_invalid_allocations_name_the_rule_and_the_value(text: str, message: str) -> None:
    with pytest.raises(AllocationError) as caught:
        parse_allocation(text)
    assert str(caught.value) == message


def test_allocation_error_is_a_value_error() -> None:
    # Callers that only know ValueError (argparse-style validation) still catch it.
    with pytest.raises(ValueError):
        parse_allocation("9")


def test_the_cap_is_a_parameter_up_to_nine() -> None:
    assert parse_allocation("333", max_total=9).total == 9
    assert parse_allocation("222", max_total=6).total == 6
    with pytest.raises(AllocationError, match=r"^Total must be 1-6, got 9$"):
        parse_allocation("333", max_total=6)
    # The per-kind limit does not move with the cap.
    with pytest.raises(AllocationError, match="Each digit must be 0-3"):
        parse_allocation("400", max_total=9)


def test_max_researchers_setting_defaults_to_3_and_is_capped_at_9() -> None:
    assert Settings(_env_file=None).max_researchers == 3
    assert Settings(_env_file=None, max_researchers=9).max_researchers == 9
    with pytest.raises(ValidationError):
        Settings(_env_file=None, max_researchers=10)
    with pytest.raises(ValidationError):
        Settings(_env_file=None, max_researchers=0)


def test_max_researchers_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_MAX_RESEARCHERS", "9")
    assert Settings(_env_file=None).max_researchers == 9


def test_runner_applies_the_cap_setting(settings: Settings) -> None:
    request = ResearchRequest(topic="Rust vs Go", allocation="333")
    with pytest.raises(AllocationError, match="Total must be 1-3, got 9"):
        ResearchRunner(settings).create(request)
    wide = settings.model_copy(update={"max_researchers": 9})
    assert ResearchRunner(wide).create(request)


def test_priority_user_over_model_over_default() -> None:
    user, model = ResearcherAllocation(web=3), ResearcherAllocation(academic=2, book=1)

    resolved, warning = resolve_allocation(user, model, model_reasoning="model says")
    assert (resolved.allocation, resolved.origin, warning) == (user, "user", None)
    assert "user" in resolved.reasoning and "300" in resolved.reasoning

    resolved, warning = resolve_allocation(None, model, model_reasoning="model says")
    assert (resolved.allocation, resolved.origin, resolved.reasoning, warning) == (model, "llm", "model says", None)

    resolved, warning = resolve_allocation(None, None)
    assert (resolved.allocation, resolved.origin, warning) == (DEFAULT_ALLOCATION, "default", None)
    assert DEFAULT_ALLOCATION.notation == "111"


def test_invalid_model_allocation_falls_back_to_default_with_a_warning() -> None:
    resolved, warning = resolve_allocation(None, ResearcherAllocation(web=3, academic=3, book=3), max_total=3)
    assert resolved.origin == "default"
    assert resolved.allocation == DEFAULT_ALLOCATION
    assert warning is not None and "333" in warning and "Total must be 1-3, got 9" in warning


def test_researcher_ids_are_stable_and_follow_ups_are_suffixed() -> None:
    assert researcher_ids(parse_allocation("210")) == [("web-1", "web"), ("web-2", "web"), ("academic-1", "academic")]
    assert researcher_ids(parse_allocation("012"), iteration=1) == [
        ("academic-1-r1", "academic"),
        ("book-1-r1", "book"),
        ("book-2-r1", "book"),
    ]

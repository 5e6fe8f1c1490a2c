"""SupervisorDecision: the model's output schema, validated strictly."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research.schemas.llm_shapes import SupervisorDecision


def decision(**overrides) -> SupervisorDecision:
    fields = {
        "action": "conduct_research",
        "reasoning": "because",
        "research_questions": ["Q1?"],
        "web_researchers": 1,
        "academic_researchers": 1,
        "book_researchers": 0,
        "allocation_reasoning": "balanced",
        **overrides,
    }
    return SupervisorDecision(**fields)


def test_valid_decision_exposes_its_allocation() -> None:
    d = decision(web_researchers=2, academic_researchers=1)
    assert d.allocation.notation == "210"


def test_extra_fields_are_forbidden() -> None:
    with pytest.raises(ValidationError) as caught:
        decision(confidence=0.9)
    assert caught.value.errors()[0]["type"] == "extra_forbidden"


def test_conduct_research_with_no_researchers_is_rejected() -> None:
    with pytest.raises(ValidationError, match="at least 1 researcher, got 0"):
        decision(web_researchers=0, academic_researchers=0, book_researchers=0)


def test_conduct_research_over_the_cap_is_rejected() -> None:
    with pytest.raises(ValidationError, match="at most 3 researchers, got 4"):
        decision(web_researchers=2, academic_researchers=2)
    # The cap is the caller's setting, not a constant.
    assert decision(web_researchers=2, academic_researchers=2, max_researchers=4).allocation.total == 4
    with pytest.raises(ValidationError, match="at most 4 researchers, got 5"):
        decision(web_researchers=3, academic_researchers=2, max_researchers=4)


@pytest.mark.parametrize("field", ["web_researchers", "academic_researchers", "book_researchers"])
def test_each_kind_is_limited_to_0_3(field: str) -> None:
    with pytest.raises(ValidationError):
        decision(**{field: 4}, max_researchers=9)
    with pytest.raises(ValidationError):
        decision(**{field: -1})


@pytest.mark.parametrize("action", ["research_complete", "refine_draft"])
def test_other_actions_may_have_zero_researchers(action: str) -> None:
    d = decision(action=action, web_researchers=0, academic_researchers=0, book_researchers=0)
    assert d.allocation.total == 0


def test_unknown_action_is_rejected() -> None:
    with pytest.raises(ValidationError):
        decision(action="go_shopping")


def test_the_cap_is_not_part_of_the_model_schema() -> None:
    # The model must not see (or set) the cap: it is excluded from the dump.
    assert "max_researchers" not in decision().model_dump()

"""The model's plan as a SupervisorDecision: validated strictly, repaired once, else the default.

The model is sent SupervisorDecision's own JSON schema. Its reply is read leniently (so a wrong
reply reaches us instead of failing inside the structured-output cascade), then validated as a
SupervisorDecision with the run's researcher cap and the rule that a plan starts research. One
repair turn carries the validation error back; a second invalid reply keeps the questions and
leaves the allocation to the default, with the reason for the warning.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from research.brains.base import Plan
from research.brains.llm.model_output import InvalidModelOutput
from research.schemas.llm_shapes import SupervisorDecision


class SupervisorDecisionReply(BaseModel):
    """What the server is asked for: exactly SupervisorDecision's JSON schema, under its name.

    Parsing accepts anything object-shaped, so the strict check below can name what is wrong."""

    model_config = ConfigDict(extra="allow", title="SupervisorDecision")

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return SupervisorDecision.model_json_schema(*args, **kwargs)


# The structured-output layer names the response format after the class.
SupervisorDecisionReply.__name__ = "SupervisorDecision"


def validate_decision(reply: BaseModel, max_researchers: int) -> tuple[SupervisorDecision | None, str]:
    """(decision, "") when the reply is a valid plan, else (None, what is wrong, for the model)."""
    fields = dict(reply.model_extra or {})
    fields.pop("max_researchers", None)  # the cap is ours, never the model's
    try:
        decision = SupervisorDecision.model_validate({**fields, "max_researchers": max_researchers})
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors()[:5]
        ]
        return None, "; ".join(problems)
    if decision.action != "conduct_research":
        return None, (
            f'action: a new plan must be "conduct_research", got {decision.action!r} '
            f"(give 1-{max_researchers} researchers in web_researchers, academic_researchers, book_researchers)"
        )
    return decision, ""


def plan_from_decision(
    decision: SupervisorDecision | None, reply: BaseModel, problem: str, questions: list[str], wants_allocation: bool
) -> Plan:
    """The Plan the supervisor uses; without a valid decision, the allocation is left to the default."""
    if not questions:
        raise InvalidModelOutput("the plan had no research questions")
    reasoning = str((reply.model_extra or {}).get("reasoning") or "").strip()
    plan = Plan(research_questions=questions, reasoning=reasoning, origin="llm")
    if not wants_allocation:
        return plan
    if decision is None:
        plan.allocation_error = f"the model's plan was invalid after one repair turn ({problem})"
        return plan
    plan.allocation = decision.allocation
    plan.allocation_reasoning = decision.allocation_reasoning.strip()
    return plan


def reply_questions(reply: BaseModel) -> list[str]:
    raw = (reply.model_extra or {}).get("research_questions")
    return [q for q in raw if isinstance(q, str)] if isinstance(raw, list) else []

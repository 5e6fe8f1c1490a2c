"""The model judge of the claim check: one batched structured call over every checked claim.

The offline check has already found each claim's best passage; the model reads claim, passage and
the question of the claim's section, and says supported / partial / unsupported and whether the
claim addresses that question (one that does not is unsupported, whatever its support). A claim the
offline check found to change a number or identifier of its passage stays unsupported: that is
mechanical, not a judgement. Claims it does not answer keep the offline verdict; unverifiable claims
(no stored text) are never sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from langchain_core.messages import HumanMessage, SystemMessage

from research import prompts
from research.drafts.claims import draft_topic
from research.schemas.llm_shapes import ClaimJudgement, ClaimJudgements
from research.schemas.state_shapes import CheckedClaim

if TYPE_CHECKING:
    from research.brains.base import Brain
    from research.brains.llm.llm_brain import LLMBrain

MAX_JUDGED_CLAIMS = 60  # one call stays bounded; the rest keep their offline verdict


def judge_claims(brain: Brain, claims: list[CheckedClaim], markdown: str = "") -> list[CheckedClaim]:
    """`brain` is an LLMBrain, or a FallbackBrain around one (its metered structured call); `markdown`
    the checked draft (its title is the topic a Summary answers). Raises on any failure: the caller
    degrades to the offline verdicts with a warning."""
    model = cast("LLMBrain", getattr(brain, "primary", brain))  # a FallbackBrain wraps the LLM brain
    judged = [i for i, c in enumerate(claims) if c.verdict != "unverifiable"][:MAX_JUDGED_CLAIMS]
    if not judged:
        return claims
    topic = prompts.neutralise(draft_topic(markdown))
    numbered = "\n".join(
        f"{k}. (question: {_question(claims[i].section, topic)}) {prompts.neutralise(claims[i].sentence)}"
        for k, i in enumerate(judged, 1)
    )
    blocks = [
        prompts.render_source(
            f'n="{k}"', kind="passage", title=claims[i].source_id or "", url="", text=claims[i].passage
        )
        for k, i in enumerate(judged, 1)
    ]
    messages = [
        SystemMessage(prompts.CLAIM_JUDGE_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)),
        HumanMessage(prompts.CLAIM_JUDGE_USER.format(claims=numbered, sources=prompts.render_sources(blocks))),
    ]
    reply = model._structured(model._main, ClaimJudgements, messages)  # noqa: SLF001 - the brain's metered call
    out = list(claims)
    for judgement in reply.judgements:
        if 1 <= judgement.index <= len(judged):
            i = judged[judgement.index - 1]
            out[i] = _merged(out[i], judgement)
    return out


def _question(section: str, topic: str) -> str:
    if section.strip().lower() in ("", "summary"):
        return f"the topic itself, {topic}" if topic else "the topic itself"
    return prompts.neutralise(section)


def _merged(claim: CheckedClaim, judgement: ClaimJudgement) -> CheckedClaim:
    if claim.failure == "changed":
        return claim  # a changed number or identifier is a fact about the text, not the model's call
    if not judgement.addresses_question:
        reason = judgement.reason or f'does not address its section\'s question ("{claim.section[:120]}")'
        return claim.model_copy(update={"verdict": "unsupported", "failure": "off_question", "reason": reason})
    supported = judgement.verdict == "supported"
    return claim.model_copy(
        update={
            "verdict": judgement.verdict,
            "failure": "" if supported else "not_stated",
            "reason": "" if supported else (judgement.reason or "the model judge found the passage does not state it"),
        }
    )

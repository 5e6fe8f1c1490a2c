"""The model judge of the claim check: one batched structured call over every checked claim.

The offline check has already found each claim's best passage; the model only reads claim and
passage and says supported / partial / unsupported. Claims it does not answer keep the offline
verdict; unverifiable claims (no stored text) are never sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from langchain_core.messages import HumanMessage, SystemMessage

from research import prompts
from research.schemas import CheckedClaim, ClaimJudgements

if TYPE_CHECKING:
    from research.brains.base import Brain
    from research.brains.llm import LLMBrain

MAX_JUDGED_CLAIMS = 60  # one call stays bounded; the rest keep their offline verdict


def judge_claims(brain: Brain, claims: list[CheckedClaim]) -> list[CheckedClaim]:
    """`brain` is an LLMBrain, or a FallbackBrain around one (its metered structured call). Raises on any failure:
    the caller degrades to the offline verdicts with a warning."""
    model = cast("LLMBrain", getattr(brain, "primary", brain))  # a FallbackBrain wraps the LLM brain
    judged = [i for i, c in enumerate(claims) if c.verdict != "unverifiable"][:MAX_JUDGED_CLAIMS]
    if not judged:
        return claims
    numbered = "\n".join(f"{k}. {prompts.neutralise(claims[i].sentence)}" for k, i in enumerate(judged, 1))
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
            out[i] = out[i].model_copy(update={"verdict": judgement.verdict})
    return out

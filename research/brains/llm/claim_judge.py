"""The model judge of the claim check: batched structured calls over every checked claim.

The offline check has already found each claim's best passage; the model reads claim, passage and
the question of the claim's section, and says supported / partial / unsupported and whether the
claim addresses that question (one that does not is unsupported, whatever its support). A claim the
offline check found to change a number or identifier of its passage stays unsupported, and one that
is a whole sentence of its passage word for word is supported (the model's doubt kept in its
reason) when the model finds it on the question: both are facts about the text, not judgements.
Unverifiable claims (no stored text) are never sent.

The claims go in batches as large as the server's structured replies can hold: at most BATCH, the
grammar's list bound, where the remembered method is llama-cpp's JSON mode or none is known yet (a
reply there holds at most MAX_ITEMS judgements, so one call over twelve claims would judge five);
up to MAX_PER_CALL, within the judge's reply cap, on a server that takes json_schema (no such
bound: twelve claims are one call). Each batch is numbered from 1 and is its own metered call.
When a later batch cannot be made (the run's call cap, a failed call), the claims judged so far
keep the model's verdict and the rest keep the offline one, each marked `judged_by` and said in a
note; a failure before any verdict raises, for the caller to degrade to the offline check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from langchain_core.messages import HumanMessage, SystemMessage

from research import prompts
from research.brains.llm.grammar_schema import MAX_ITEMS
from research.drafts.claims import draft_topic
from research.schemas.llm_shapes import ClaimJudgement, ClaimJudgements, claim_judgements_schema
from research.schemas.state_shapes import CheckedClaim
from research.text.copying import whole_sentence_of

if TYPE_CHECKING:
    from research.brains.base import Brain
    from research.brains.llm.llm_brain import LLMBrain

MAX_JUDGED_CLAIMS = 60  # at most MAX_JUDGED_CLAIMS / BATCH calls; the rest keep their offline verdict
BATCH = MAX_ITEMS  # the grammar's list bound: one judgement per claim of the batch, on llama-cpp
MAX_PER_CALL = 15  # without that bound: 15 claims with their 600-character passages, a bounded prompt
REPLY_TOKENS_PER_JUDGEMENT = 60  # a judgement with a short reason, for the reply cap's share
ROLE = "judge"  # the reply cap the judgements share (RESEARCH_REPLY_TOKENS_JUDGE)


def judge_claims(
    brain: Brain, claims: list[CheckedClaim], markdown: str = "", note: Callable[[str], None] | None = None
) -> list[CheckedClaim]:
    """`brain` is an LLMBrain, or a FallbackBrain around one (its metered structured call); `markdown`
    the checked draft (its title is the topic a Summary answers). Every claim comes back marked
    `judged_by`; `note` hears why some verifiable claims kept their offline verdict. Raises when the
    first call fails: the caller degrades to the offline verdicts with a warning."""
    model = cast("LLMBrain", getattr(brain, "primary", brain))  # a FallbackBrain wraps the LLM brain
    verifiable = [i for i, c in enumerate(claims) if c.verdict != "unverifiable"]
    judged = verifiable[:MAX_JUDGED_CLAIMS]
    out = [c.model_copy(update={"judged_by": "offline"}) for c in claims]
    if not judged:
        return out
    topic = prompts.neutralise(draft_topic(markdown))
    calls, stopped, answered, start, size = 0, "", set(), 0, BATCH
    while start < len(judged):
        # Sized per call: the first call to a server may teach which method it takes.
        size = model.list_room(MAX_PER_CALL, role=ROLE, item_tokens=REPLY_TOKENS_PER_JUDGEMENT)
        batch = judged[start : start + size]
        start += size
        try:
            reply = _judge_batch(model, [claims[i] for i in batch], topic)
        except Exception as exc:
            if not calls:
                raise  # nothing judged: the caller's offline check, with its warning
            stopped = f"{type(exc).__name__}: {exc}"
            break
        calls += 1
        for judgement in reply.judgements:
            if 1 <= judgement.index <= len(batch):
                i = batch[judgement.index - 1]
                answered.add(i)
                out[i] = _merged(out[i], judgement)
    if note is not None:
        offline = len(set(verifiable) - answered)
        if stopped:
            note(
                f"the model judge stopped after {calls} of {calls + 1 + -(-(len(judged) - start) // size)} calls "
                f"({stopped[:300]}); "
                f"{offline} claim(s) keep their offline verdict"
            )
        elif offline:
            note(f"{offline} claim(s) were not judged by the model and keep their offline verdict")
    return out


def _judge_batch(model: LLMBrain, batch: list[CheckedClaim], topic: str) -> ClaimJudgements:
    """One metered call over one batch of claims, numbered 1..len(batch)."""
    numbered = "\n".join(
        f"{k}. (question: {_question(c.section, topic)}) {prompts.neutralise(c.sentence)}"
        for k, c in enumerate(batch, 1)
    )
    blocks = [
        prompts.render_source(f'n="{k}"', kind="passage", title=c.source_id or "", url="", text=c.passage)
        for k, c in enumerate(batch, 1)
    ]
    messages = [
        SystemMessage(prompts.CLAIM_JUDGE_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)),
        HumanMessage(prompts.CLAIM_JUDGE_USER.format(claims=numbered, sources=prompts.render_sources(blocks))),
    ]
    schema = claim_judgements_schema(len(batch))  # the grammar lets it number only the claims shown
    return model._structured(model._main, schema, messages, ROLE)  # noqa: SLF001 - the brain's metered call


def _question(section: str, topic: str) -> str:
    if section.strip().lower() in ("", "summary"):
        return f"the topic itself, {topic}" if topic else "the topic itself"
    return prompts.neutralise(section)


def _merged(claim: CheckedClaim, judgement: ClaimJudgement) -> CheckedClaim:
    if claim.failure == "changed":
        return claim  # a changed number or identifier is a fact about the text, not the model's call
    if not judgement.addresses_question:
        reason = judgement.reason or f'does not address its section\'s question ("{claim.section[:120]}")'
        update = {"verdict": "unsupported", "failure": "off_question", "reason": reason, "judged_by": "model"}
        return claim.model_copy(update=update)
    if judgement.verdict != "supported" and whole_sentence_of(claim.sentence, claim.passage):
        # A whole sentence of the passage, word for word, is stated by it: a fact about the text. The
        # model's doubt is kept in the reason (a small judge doubts its source's own sentences).
        doubt = f"the model judge said {judgement.verdict}" + (f": {judgement.reason}" if judgement.reason else "")
        reason = f"a whole sentence of its passage, word for word ({doubt})"
        return claim.model_copy(update={"judged_by": "model", "verdict": "supported", "failure": "", "reason": reason})
    supported = judgement.verdict == "supported"
    return claim.model_copy(
        update={
            "judged_by": "model",
            "verdict": judgement.verdict,
            "failure": "" if supported else "not_stated",
            "reason": "" if supported else (judgement.reason or "the model judge found the passage does not state it"),
        }
    )

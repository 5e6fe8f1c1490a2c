"""Typed payloads of the model-call events: live progress of a streaming reply."""

from __future__ import annotations

from research.events.payload_base import Payload


class ModelProgressData(Payload):
    """A model reply in progress (emitted each step of its tokens, a share of its cap: at most about
    16 per reply, research/brains/llm/model_stream.py), and its end with the exact total."""

    event_type = "model_progress"

    node: str  # the graph node: supervisor | researcher | analyst | writer
    step: str  # the brain step: plan | queries | notes | judge | write | revise
    model: str
    tokens: int  # completion tokens streamed so far (one per streamed chunk)
    seconds: float  # since the request was sent
    done: bool = False  # the reply has ended (finished, cut by its cap, or failed)


class DraftDeltaData(Payload):
    """The next piece of the writer's draft as it streams (appended in order, `chars` in total)."""

    event_type = "draft_delta"

    text: str
    chars: int  # length of the draft so far, this piece included

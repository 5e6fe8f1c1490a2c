"""Which brain step a model call belongs to, for progress events and warnings.

FallbackBrain sets it around each step (it already knows the step and the researcher); the call
machinery deep below reads it, so no brain method signature has to carry it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class StepContext:
    step: str  # plan | queries | notes | judge | write | revise
    researcher_id: str | None = None


_current: contextvars.ContextVar[StepContext | None] = contextvars.ContextVar("research_step", default=None)


@contextmanager
def in_step(step: str, researcher_id: str | None = None) -> Iterator[None]:
    token = _current.set(StepContext(step, researcher_id))
    try:
        yield
    finally:
        _current.reset(token)


def current_step() -> StepContext | None:
    return _current.get()

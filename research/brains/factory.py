"""Chooses the brain for a run: offline, or the LLM brain backed by the offline one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from research.brains.base import Brain
from research.brains.llm.availability import check_brain
from research.brains.offline.offline_brain import OfflineBrain
from research.settings import Settings

if TYPE_CHECKING:
    from research.brains.llm.usage_meter import Allowance


def make_brain(settings: Settings, choice: str | None = None, *, allowance: Allowance | None = None) -> Brain:
    """`choice` (offline|openai|auto|None) overrides the settings; auto = LLM when configured.
    `allowance` is asked before each model request (a user's daily cap). Raises BrainUnavailable
    when a model brain is asked for and none is configured."""
    check_brain(settings, choice)
    kind = settings.brain_kind() if choice in (None, "auto") else choice
    if kind == "offline":
        return OfflineBrain()
    from research.brains.fallback import FallbackBrain
    from research.brains.llm.llm_brain import LLMBrain
    from research.brains.llm.usage_meter import UsageMeter
    from research.events.agent_log import warn

    meter = UsageMeter(max_calls=settings.max_llm_calls, max_tokens=settings.max_tokens, allowance=allowance)
    return FallbackBrain(
        LLMBrain(settings, meter=meter), OfflineBrain(), on_warning=lambda source, message: warn(source, message)
    )

"""Chooses the brain for a run: offline, or the LLM brain backed by the offline one."""

from __future__ import annotations

from research.brains.base import Brain
from research.brains.llm.availability import check_brain
from research.brains.offline.offline_brain import OfflineBrain
from research.settings import Settings


def make_brain(settings: Settings, choice: str | None = None) -> Brain:
    """`choice` (offline|openai|auto|None) overrides the settings; auto = LLM when configured.
    Raises BrainUnavailable when a model brain is asked for and none is configured."""
    check_brain(settings, choice)
    kind = settings.brain_kind() if choice in (None, "auto") else choice
    if kind == "offline":
        return OfflineBrain()
    from research.brains.fallback import FallbackBrain
    from research.brains.llm.llm_brain import LLMBrain
    from research.events.agent_log import warn

    return FallbackBrain(LLMBrain(settings), OfflineBrain(), on_warning=lambda source, message: warn(source, message))

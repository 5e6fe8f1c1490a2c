"""Whether the brain a run asks for can be had, checked before anything is stored or sent.

Light on purpose (settings only): the CLI checks its input with it before the heavy imports.
"""

from __future__ import annotations

from research.settings import Settings


class BrainUnavailable(ValueError):
    """A model brain was asked for and cannot be had: an input error, not a silent offline run."""


def brain_problem(settings: Settings, choice: str | None = None) -> str | None:
    """Why the brain asked for (`choice`, else RESEARCH_LLM) cannot be had; None when it can.

    `auto` falls back to offline by design; an explicit `openai` with neither a key nor a base URL
    would send every step to api.openai.com without a key and degrade each one to offline."""
    asked = settings.llm if choice in (None, "auto") else choice
    if asked != "openai" or settings.llm_configured:
        return None
    named = "--llm openai" if choice == "openai" else "RESEARCH_LLM=openai"
    return f"{named} needs OPENAI_API_KEY or OPENAI_BASE_URL, and neither is set (use the offline brain, or set one)"


def check_brain(settings: Settings, choice: str | None = None) -> None:
    problem = brain_problem(settings, choice)
    if problem:
        raise BrainUnavailable(problem)

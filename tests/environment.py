"""The environment a test sees: no engine configuration from the developer's shell or .env."""

from __future__ import annotations

import os

CONFIG_PREFIXES = ("RESEARCH_", "OPENAI_")
CONFIG_NAMES = frozenset({"TAVILY_API_KEY", "GITHUB_TOKEN"})


def clean_environ() -> dict[str, str]:
    """os.environ without any engine configuration (RESEARCH_*, OPENAI_*, service keys)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(CONFIG_PREFIXES) and k not in CONFIG_NAMES}

"""The writer's anti-copy sampler: llama.cpp's DRY fields, by llama-server's names, for the section
and restating calls (RESEARCH_WRITER_DRY_MULTIPLIER; off by default). Sent in the request body of a
server other than OpenAI's (model_caller.ModelCaller), which llama-server and the local-model lane's
bench/llama_server_dry.py read; the condensing call copies by design and never asks."""

from __future__ import annotations

from typing import Any

from research.settings import Settings


def anti_copy_sampling(settings: Settings) -> dict[str, Any] | None:
    """The DRY fields to send, or None when the multiplier is 0."""
    if not settings.writer_dry_multiplier:
        return None
    return {
        "dry_multiplier": settings.writer_dry_multiplier,
        "dry_allowed_length": settings.writer_dry_allowed_length,
    }

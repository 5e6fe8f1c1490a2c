"""Settings for a run on the sample library, from the given values alone (no .env file read):
the offline brain, or the LLM brain against a loopback OpenAI-compatible server (the fake, or a
local llama-server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from research.settings import Settings


def library_settings(data_dir: Path, log_dir: Path, *, llm: Literal["offline", "openai"], **values: Any) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, log_dir=log_dir, sources="library", llm=llm, **values)


def loopback_llm_settings(base_url: str, *, data_dir: Path, log_dir: Path, model: str, **values: Any) -> Settings:
    return library_settings(data_dir, log_dir, llm="openai", openai_base_url=base_url, model=model, **values)


def fake_model_settings(base_url: str, root: Path, **values: Any) -> Settings:
    """The LLM brain against the loopback fake, its data and logs under `root`, quick timeouts and
    no review round unless `values` say otherwise."""
    defaults: dict[str, Any] = {"model": "main-model", "llm_timeout": 5, "review_rounds": 0}
    options = defaults | values
    return loopback_llm_settings(base_url, data_dir=root / "data", log_dir=root / "logs", **options)


def model_call_settings(base_url: str, data_dir: Path, *, api_key: str, model: str, **overrides: Any) -> Settings:
    """Settings for calling a loopback model directly, outside a run: its URL, key and model name,
    a 5 s timeout; `overrides` replace any of them."""
    values: dict[str, Any] = dict(
        _env_file=None, openai_base_url=base_url, openai_api_key=api_key, model=model, llm_timeout=5, data_dir=data_dir
    )
    values.update(overrides)
    return Settings(**values)

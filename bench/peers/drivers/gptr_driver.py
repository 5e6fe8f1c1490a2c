"""Runs gpt-researcher once, inside its own venv (never imported by the project).

`python gptr_driver.py CONFIG.json OUT.json`: CONFIG holds the topic and the environment the
package reads its settings from (model, token limits, retriever, sizes); OUT gets {"report",
"error"}. The package's own custom retriever (RETRIEVER=custom, RETRIEVER_ENDPOINT) reads the
world; no code of the package is changed. With no network, tiktoken cannot download its encoding
and the report comes back empty, so TIKTOKEN_CACHE_DIR points at the encodings litellm ships.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from driver_io import drive, ready


def _tiktoken_cache() -> str | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    return str(path) if path.is_dir() else None


async def _research(topic: str, report_type: str) -> str:
    from gpt_researcher import GPTResearcher

    ready()
    researcher = GPTResearcher(query=topic, report_type=report_type, report_source="web", verbose=False)
    await researcher.conduct_research()
    return str(await researcher.write_report() or "")


def research(config: dict[str, Any]) -> str:
    os.environ.update({k: str(v) for k, v in config["env"].items()})
    cache = _tiktoken_cache()
    if cache and config.get("tiktoken_from_litellm", True):
        os.environ["TIKTOKEN_CACHE_DIR"] = cache
    return asyncio.run(_research(config["topic"], config.get("report_type", "research_report")))


if __name__ == "__main__":
    sys.exit(drive(research, "an empty report (exit 0)"))

"""Runs open_deep_research once, inside its own venv (never imported by the project).

`python odr_driver.py CONFIG.json OUT.json`: CONFIG holds the topic, the model (name, caps), the
Tavily base URL and the sizes; OUT gets {"report", "error"}. Its Tavily client takes no base URL,
so the driver hands the package a client bound to the world's. Everything else is the package as
installed: its graph, prompts and structured calls.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from typing import Any

from driver_io import drive, ready


def research(config: dict[str, Any]) -> str:
    import tavily
    from open_deep_research import utils
    from open_deep_research.deep_researcher import deep_researcher

    ready()
    utils.AsyncTavilyClient = functools.partial(tavily.AsyncTavilyClient, api_base_url=config["tavily_url"])
    model = f"openai:{config['model']}"
    caps = config["max_tokens"]
    configurable = {
        "research_model": model,
        "summarization_model": model,
        "compression_model": model,
        "final_report_model": model,
        "research_model_max_tokens": caps["research"],
        "summarization_model_max_tokens": caps["summarization"],
        "compression_model_max_tokens": caps["compression"],
        "final_report_model_max_tokens": caps["final_report"],
        **config["sizes"],
    }
    state = asyncio.run(
        deep_researcher.ainvoke(
            {"messages": [{"role": "user", "content": config["topic"]}]},
            config={"configurable": configurable, "recursion_limit": 100},
        )
    )
    return str(state.get("final_report") or "")


if __name__ == "__main__":
    sys.exit(drive(research, "no final report (the run ended before writing one)"))

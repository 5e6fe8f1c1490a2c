"""Runs open_deep_research once, inside its own venv (never imported by the project).

`python odr_driver.py CONFIG.json OUT.json`: CONFIG holds the topic, the model (name, caps), the
Tavily base URL and the sizes; OUT gets {"report", "error"}. Its Tavily client takes no base URL,
so the driver hands the package a client bound to the world's. Everything else is the package as
installed: its graph, prompts and structured calls.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import traceback
from pathlib import Path


def main(config_path: str, out_path: str) -> int:
    config = json.loads(Path(config_path).read_text(encoding="utf-8"))
    result: dict[str, object] = {"report": "", "error": None}
    try:
        import tavily
        from open_deep_research import utils
        from open_deep_research.deep_researcher import deep_researcher

        print("bench-driver: ready", flush=True)
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
        report = str(state.get("final_report") or "")
        result["report"] = report
        if not report:
            result["error"] = "no final report (the run ended before writing one)"
        elif report.startswith("Error generating final report"):
            result["error"] = report[:300]
    except Exception as exc:  # noqa: BLE001 - the failure is the figure
        result["error"] = f"{type(exc).__name__}: {exc}"[:500]
        traceback.print_exc()
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

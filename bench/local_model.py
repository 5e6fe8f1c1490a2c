"""Figure 8: a whole research run against a real local model server (llama-cpp-python with
SmolLM2-135M-Instruct, see bench/llama_server.py): wall time and tokens for the default
allocation. Runs only when the lane is installed (`make test-local-model` or
scripts/local_model_setup.sh); otherwise the figure is skipped with the reason."""

from __future__ import annotations

from typing import Any

from bench.harness import BenchContext, FigureSkipped, log
from bench.llama_server import LANE_CAPS, LlamaServer, lane_settings, llama_cpp_version, model_path, run_research


def measure(ctx: BenchContext) -> dict[str, Any]:
    if model_path() is None:
        raise FigureSkipped("the local-model lane is not installed (scripts/local_model_setup.sh)")
    root = ctx.scratch("local_model")
    with LlamaServer(root / "server.log") as server:
        log(f"llama-cpp-python server on {server.threads} thread(s)")
        run = run_research(lane_settings(server, root))
    usage = run.result["usage"]
    degraded = [w["message"] for w in run.result["warnings"] if "used the offline brain" in w["message"]]
    return {
        "local_model_run": {
            "seconds": run.seconds,
            "calls": usage["calls"],
            "failed_calls": usage["failed_calls"],
            "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"],
            "status": run.result["status"],
            "steps_degraded": len(degraded),
        },
        "local_model_details": {
            "server": f"llama-cpp-python {llama_cpp_version()}",
            "model": "SmolLM2-135M-Instruct Q4_1",
            "threads": server.threads,
            "reply_caps": LANE_CAPS,
            "allocation": "default (the model's plan)",
            "max_iterations": 0,
        },
    }

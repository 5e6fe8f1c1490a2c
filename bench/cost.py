"""Figure 3: cost per run. Model calls and prompt / completion tokens, as counted by the loopback
model server (about four characters per token), for the default run (the model picks the team,
111, and the analyst asks for one revision round), and how they grow with the number of
researchers and of revision rounds. Latencies are zero: only the counts matter here."""

from __future__ import annotations

from typing import Any

from bench.harness import BenchContext, log
from bench.loopback import LoopbackWorld

TARGET_TOKENS = 60_000
DEFAULT_CASE = "default_111_one_revision"


def measure(ctx: BenchContext) -> dict[str, Any]:
    cases: dict[str, dict[str, int]] = {}
    with LoopbackWorld(ctx.scratch("cost"), ctx.log_dir, model_latency=0.0, search_latency=0.0) as world:
        # The default run: no allocation given (the model decides), default iteration cap (2);
        # the scripted analyst approves on its second review, so one revision round happens.
        world.script_model(approve_from_round=2)
        cases[DEFAULT_CASE] = world.run(None, max_iterations=2).as_cost()
        for allocation in ("100", "111", "222", "333"):
            cases[f"researchers_{allocation}_one_revision"] = world.run(
                allocation, max_iterations=1, max_researchers=9
            ).as_cost()
        world.script_model(approve_from_round=99)  # never satisfied: every allowed round is used
        for rounds in (0, 1, 2, 3):
            cases[f"iterations_111_{rounds}_revisions"] = world.run("111", max_iterations=rounds).as_cost()
    for cost in cases.values():
        cost["total_tokens"] = cost["prompt_tokens"] + cost["completion_tokens"]
    log(f"cost: default run {cases[DEFAULT_CASE]['total_tokens']:,} tokens in {cases[DEFAULT_CASE]['calls']} calls")
    return {
        "tokens_per_run": cases,
        "tokens_details": {
            "target_total_tokens_default": TARGET_TOKENS,
            "default_case": DEFAULT_CASE,
            "tokenizer": "fake server: len(text) // 4",
        },
    }

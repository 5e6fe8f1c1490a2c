"""Counting model calls and tokens for one run, and enforcing its budget.

Researchers call the model from parallel threads, so every update holds a lock. A call slot is
reserved before the request goes out: N threads racing for the last slot cannot overshoot the
call cap. Tokens are only known afterwards, so the token cap stops the *next* call. An
`allowance` (a signed-in user's daily cap, research/runs/daily_cap.py) is asked under the same
lock before each request, so a run stops at that cap exactly too, not after its next report.

What a step reports is its own: usage waits for its report under the graph task that made the
call (LangGraph's checkpoint namespace, which a node's helper threads share through their copied
context), so a researcher never reports the calls of another researcher running at the same time.
Calls outside any graph task (a CLI revision, a test) share one bucket.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable

from research.brains.base import BudgetExceeded
from research.brains.llm.model_stream import CallRecord
from research.brains.llm.pricing import Price, estimate_cost, load_price_table
from research.events.steps import task_namespace
from research.schemas.state_shapes import Usage


def usage_from_message(message: object) -> Usage:
    """One call's usage from a LangChain message's `usage_metadata` (zeros if the server sent none)."""
    meta = getattr(message, "usage_metadata", None) or {}
    return Usage(
        calls=1,
        prompt_tokens=int(meta.get("input_tokens") or 0),
        completion_tokens=int(meta.get("output_tokens") or 0),
    )


# Given the calls this meter has reserved, why one more may not be made (None: it may).
Allowance = Callable[[int], str | None]


class UsageMeter:
    def __init__(
        self,
        *,
        max_calls: int,
        max_tokens: int,
        prices: dict[str, Price] | None = None,
        allowance: Allowance | None = None,
    ) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.allowance = allowance
        self._prices = load_price_table() if prices is None else prices
        self._lock = threading.Lock()
        self._reserved = 0
        self._total = Usage()
        # task namespace (None outside a task) -> model -> usage not reported yet
        self._pending: dict[str | None, defaultdict[str, Usage]] = {}
        self._calls: list[CallRecord] = []

    def reserve_call(self) -> None:
        """Claim one call of the budget, or raise BudgetExceeded when the run has spent it."""
        with self._lock:
            if self._reserved >= self.max_calls:
                raise BudgetExceeded(
                    f"Model budget reached: {self._reserved} of {self.max_calls} calls used (RESEARCH_MAX_LLM_CALLS)",
                    limit="max_llm_calls",
                )
            if self._total.total_tokens >= self.max_tokens:
                raise BudgetExceeded(
                    f"Model budget reached: {self._total.total_tokens:,} tokens used, cap "
                    f"{self.max_tokens:,} (RESEARCH_MAX_TOKENS)",
                    limit="max_tokens",
                )
            refusal = self.allowance(self._reserved) if self.allowance is not None else None
            if refusal is not None:
                raise BudgetExceeded(refusal, limit="user_daily_llm_calls")
            self._reserved += 1

    def record(self, model: str, usage: Usage) -> None:
        task = task_namespace()
        with self._lock:
            self._total = self._total + usage
            pending = self._pending.setdefault(task, defaultdict(Usage))
            pending[model] = pending[model] + usage

    def record_failure(self, model: str) -> None:
        """A reserved call that got no reply: it counts as a call (it used a budget unit), labelled failed."""
        self.record(model, Usage(calls=1, failed_calls=1))

    def log_call(self, record: CallRecord) -> None:
        with self._lock:
            self._calls.append(record)

    @property
    def calls(self) -> list[CallRecord]:
        """Every call made so far (role, cap, completion tokens, finish reason), oldest first."""
        with self._lock:
            return list(self._calls)

    @property
    def reserved(self) -> int:
        with self._lock:
            return self._reserved

    def take(self) -> Usage:
        """The calling task's usage since its last take, with its estimated cost (its pending
        count starts again at zero); other tasks' usage waits for their own take."""
        task = task_namespace()
        with self._lock:
            pending: dict[str, Usage] = self._pending.pop(task, {})
        total = Usage()
        for model, usage in pending.items():
            total = total + usage.model_copy(update={"cost_usd": estimate_cost(model, usage, self._prices)})
        return total

    @property
    def total(self) -> Usage:
        with self._lock:
            return self._total.model_copy()

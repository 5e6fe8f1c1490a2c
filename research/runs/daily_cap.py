"""A signed-in user's daily model-call cap (RESEARCH_USER_DAILY_LLM_CALLS), asked before each request.

The dashboard refuses to start a run at the cap (ui/auth.py); a run started under it is held to
it call by call. Before each model request the run's meter asks its allowance, under the lock its
parallel researchers reserve calls with, which counts the user's calls of the last 24 hours: the
other runs' as their usage events report them, this run's earlier attempts' from its log, and
this run's own from the meter, reported yet or not. So a run stops at the cap exactly; calls that
another run of the same user is making at that moment count once that run reports them. A revision
("Revise with instructions", a new shape) is held to the cap of the user who asked for it the same
way, and its usage event names that user (`spent_by`), so the calls count toward their cap.

On a LangGraph server (remote mode) the run's spec carries the dashboard's cap and the calls the
user had left when it was sent; the worker asks before each request too: over the dashboards'
run store when it shares it (every call of the user's other runs as they report them, as
in-process), else against the calls left at sending.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from research.events.payloads import UsageReported
from research.graph.context import RunSpec
from research.runs import model_calls
from research.runs.store import RunStore
from research.runs.worker_log import client_store
from research.settings import Settings

if TYPE_CHECKING:
    from research.brains.llm.usage_meter import Allowance

DAY = model_calls.WINDOW_SECONDS


@dataclass
class DailyAllowance:
    store: RunStore
    user: str
    cap: int
    run_id: str | None  # the run whose calls the meter counts itself (None: a revision, whose calls are all new)
    earlier: int  # this run's calls logged before this attempt began (a resumed run)
    clock: Callable[[], float] = field(default=time.time)

    def __call__(self, reserved: int) -> str | None:
        """Why one more call may not be made after the `reserved` ones of this attempt (None: it may)."""
        used = self.used(reserved)
        return None if used < self.cap else refusal(used, self.cap)

    def used(self, reserved: int = 0) -> int:
        """The user's calls of the last 24 hours, with the `reserved` ones of this attempt."""
        return self.store.model_calls_by(self.user, self.clock() - DAY, excluding=self.run_id) + self.earlier + reserved


@dataclass
class CallsLeft:
    """A worker that cannot read the user's other runs: the calls they had left when the run was sent."""

    cap: int
    left: int

    def __call__(self, reserved: int) -> str | None:
        return None if reserved < self.left else refusal(self.cap - self.left + reserved, self.cap)


def refusal(used: int, cap: int) -> str:
    return f"Daily model-call cap reached: {used} of {cap} calls in the last 24 hours (RESEARCH_USER_DAILY_LLM_CALLS)"


def daily_allowance(store: RunStore, settings: Settings, run_id: str, user: str | None) -> DailyAllowance | None:
    """The allowance of a run `user` started, or None when no daily cap applies to it."""
    cap = settings.user_daily_llm_calls
    if cap is None or not user:
        return None
    since = time.time() - DAY
    earlier = sum(
        e.data.calls
        for e in store.events(run_id)
        if isinstance(e.data, UsageReported) and e.ts >= since and e.data.spent_by in (None, user)
    )
    return DailyAllowance(store, user, cap, run_id, earlier)


def revision_allowance(store: RunStore, settings: Settings, user: str | None) -> DailyAllowance | None:
    """The allowance of a revision `user` asked for (every call of theirs logged so far counts)."""
    cap = settings.user_daily_llm_calls
    return DailyAllowance(store, user, cap, None, 0) if cap is not None and user else None


def cap_spec(store: RunStore, settings: Settings, run_id: str, user: str | None) -> RunSpec:
    """What a remote run's spec carries of the cap: the cap and the calls `user` has left now."""
    allowance = daily_allowance(store, settings, run_id, user)
    if allowance is None:
        return RunSpec()
    return RunSpec(user_daily_llm_calls=allowance.cap, user_calls_left=max(0, allowance.cap - allowance.used()))


def worker_allowance(spec: RunSpec, settings: Settings) -> Allowance | None:
    """A server worker's allowance for the run of `spec`: the lower of its own cap and the spec's."""
    user, run_id = spec.get("started_by"), str(spec.get("run_id") or "")
    caps = [c for c in (settings.user_daily_llm_calls, spec.get("user_daily_llm_calls")) if c is not None]
    if not user or not caps:
        return None
    store = client_store(spec, settings)
    if store is not None:  # the dashboards' own log: the user's other runs as they report
        return daily_allowance(store, settings.model_copy(update={"user_daily_llm_calls": min(caps)}), run_id, user)
    cap, sent_cap, left = min(caps), spec.get("user_daily_llm_calls"), spec.get("user_calls_left")
    used = sent_cap - left if sent_cap is not None and left is not None else 0  # when the run was sent
    return CallsLeft(cap, max(0, cap - used))

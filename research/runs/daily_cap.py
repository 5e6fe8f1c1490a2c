"""A signed-in user's daily model-call cap (RESEARCH_USER_DAILY_LLM_CALLS), asked before each request.

The dashboard refuses to start a run at the cap (ui/auth.py); a run started under it is held to
it call by call. Before each model request the run's meter asks its allowance, under the lock its
parallel researchers reserve calls with, which counts the user's calls of the last 24 hours: the
other runs' as their usage events report them, this run's earlier attempts' from its log, and
this run's own from the meter, reported yet or not. So a run stops at the cap exactly; calls that
another run of the same user is making at that moment count once that run reports them. A revision
("Revise with instructions", a new shape) is held to the cap of the user who asked for it the same
way, and its usage event names that user (`spent_by`), so the calls count toward their cap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from research.events.payloads import UsageReported
from research.runs.store import RunStore
from research.settings import Settings

DAY = 24 * 3600


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
        others = self.store.model_calls_by(self.user, self.clock() - DAY, excluding=self.run_id)
        used = others + self.earlier + reserved
        if used < self.cap:
            return None
        return (
            f"Daily model-call cap reached: {used} of {self.cap} calls in the last 24 hours "
            "(RESEARCH_USER_DAILY_LLM_CALLS)"
        )


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

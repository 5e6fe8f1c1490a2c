"""Desk work that needs no model reply, done while a node waits for one.

A node's model call spends its time waiting on a socket (the GIL released), so CPU work the reply
does not feed (the analyst's coverage, say) runs beside it instead of after it. The work runs on
its own thread with a copy of the node's context (its stream writer and event sink), and the
node takes its result when it needs it: the same value, in the same order of events.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def beside(work: Callable[[], T]) -> Future[T]:
    """Start `work` on its own thread now; `.result()` gives its value (or raises its error)."""
    context = contextvars.copy_context()
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="beside")
    try:
        return executor.submit(context.run, work)
    finally:
        executor.shutdown(wait=False)  # the thread ends with the work

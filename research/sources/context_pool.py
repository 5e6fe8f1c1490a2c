"""Work on another thread, run in the caller's context.

A new thread starts with an empty `contextvars` context, so a line it logs has lost the run it
belongs to (logging_setup.current_run_id: `run=-`) and the topic the log masks (current_topic: the
raw topic is written). Every thread of the engine's source calls (the router's providers of a kind,
the scraper's pages, Open Library's descriptions, the health check, a library call given a
timeout) runs its work through `in_caller_context`: in a copy of the context of the code that
handed the work over, taken then. One copy per call, because one context cannot be entered by
two threads at once.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def in_caller_context(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn`, bound to a copy of the current context: called on any thread, it runs in that copy."""
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.run(fn, *args, **kwargs)

    return run


class ContextPool(ThreadPoolExecutor):
    """ThreadPoolExecutor whose `submit` (and so `map`) runs each call in the submitter's context."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        return super().submit(in_caller_context(fn), *args, **kwargs)

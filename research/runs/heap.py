"""The process's long-lived heap, kept out of the garbage collector's full collections.

A process that runs research holds about 190,000 objects until it exits: modules, the library,
the compiled graph, the clients. CPython's full (generation 2) collection walks every one of them,
about 130 ms with the GIL held, and it lands inside a run every few runs, stalling all of that
run's threads. By the end of the process's first run the long-lived part is built (what the first
run imports and loads lazily included), so then, once, a full collection clears that run's garbage
and `gc.freeze()` moves the survivors to the permanent generation, which later collections skip.

Frozen objects are still freed by reference counting; only a reference cycle among them would
outlive its use. The collection just before the freeze leaves no garbage behind, and what is frozen
is what the process keeps anyway.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_frozen = False


def freeze_long_lived() -> bool:
    """Once per process: a full collection, then every surviving object frozen. True when this
    call froze the heap, False when an earlier call had."""
    global _frozen
    with _lock:
        if _frozen:
            return False
        _frozen = True
    gc.collect()
    gc.freeze()
    return True

"""How often the interpreter hands the GIL between threads, in a process that runs research graphs.

A run is many threads that mostly wait (researchers' model calls and searches, the checkpoint and
event writers) and a little CPU work each when an answer lands. Python's default switch interval
(5 ms) lets a thread that holds the GIL keep it that long while a thread whose socket has just
answered waits for it: with nine researchers' replies landing at once, those waits queue up on the
critical path (a convoy). A 1 ms interval hands the GIL over sooner; it changes when threads run,
never what they compute. Measured with bench/ab_compare.py (README "Performance").
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.001


def shorten_switch_interval() -> None:
    """Lower the process's switch interval to SWITCH_INTERVAL_S (a host that set a shorter one keeps it)."""
    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)

"""The Compare page's one line per run ("111: most sources, most cited · 12 sources, approved in
round 1, 0 gaps left") and the run to start from next time. Pure, like ui/compare_stats.py."""

from __future__ import annotations

from collections.abc import Callable

from ui.compare_stats import RunStats, unique_sources
from ui.text import plural

# (phrase, value, better, margin): a run "wins" a measure when it alone has the best value and, for
# measures with a margin, beats the runner-up by at least that share (2.2 s vs 2.3 s is no win).
_MEASURES: list[tuple[str, Callable[[RunStats], float | None], str, float]] = [
    ("most sources", lambda s: s.sources, "max", 0.0),
    ("most domains", lambda s: len(s.domains), "max", 0.0),
    ("widest year range", lambda s: s.year_span, "max", 0.0),
    ("most cited", lambda s: s.cited, "max", 0.0),
    ("most sources of its own", lambda s: s.unique, "max", 0.0),
    ("fewest rounds", lambda s: s.rounds, "min", 0.0),
    ("fewest gaps", lambda s: len(s.gaps), "min", 0.0),
    ("fewest tokens", lambda s: s.tokens if s.calls else None, "min", 0.1),
    ("fastest", lambda s: s.seconds, "min", 0.15),
]


def _wins(stats: list[RunStats]) -> dict[str, list[str]]:
    wins: dict[str, list[str]] = {s.run_id: [] for s in stats}
    finished = [s for s in stats if s.status == "finished"]
    for phrase, value, better, margin in _MEASURES:
        known = sorted(
            ((v, s.run_id) for s in finished if (v := value(s)) is not None),
            reverse=better == "max",
        )
        if len(known) < 2 or known[0][0] == known[1][0]:
            continue  # one run, or a tie for the best: nothing to tell apart
        best, second = known[0][0], known[1][0]
        if margin and abs(best - second) < margin * max(abs(best), abs(second)):
            continue
        wins[known[0][1]].append(phrase)
    return wins


def _outcome(s: RunStats) -> str:
    if s.approved_in:
        return f"approved in round {s.approved_in}"
    return f"not approved after {plural(s.rounds, 'round')}" if s.rounds else "no analyst verdict"


def summaries(stats: list[RunStats], unique: dict[str, int] | None = None) -> dict[str, str]:
    """Per run, e.g. "111: most sources, most cited · 12 sources, approved in round 1, 0 gaps"
    (`unique`: the runs' unique_sources, when already counted)."""
    unique = unique_sources(stats) if unique is None else unique
    for s in stats:
        s.unique = unique[s.run_id]
    wins = _wins(stats)
    out = {}
    for s in stats:
        if s.status in ("running", "pending"):
            out[s.run_id] = f"{s.label}: still running ({plural(s.sources, 'source')} so far)"
        elif s.status == "paused":
            out[s.run_id] = f"{s.label}: waiting for plan review"
        elif s.status != "finished":
            out[s.run_id] = f"{s.label}: {s.status}" + (f" ({s.error})" if s.error else "")
        else:
            facts = f"{plural(s.sources, 'source')}, {_outcome(s)}, {plural(len(s.gaps), 'gap')} left"
            lead = ", ".join(wins[s.run_id])
            out[s.run_id] = f"{s.label}: {lead} · {facts}" if lead else f"{s.label}: {facts}"
    return out


def best_pick(stats: list[RunStats]) -> RunStats | None:
    """The run to start from next time: fewest gaps, then fewest rounds, then most sources.
    None when fewer than two runs finished, or when none of them is better on those terms."""
    finished = [s for s in stats if s.status == "finished"]

    def key(s: RunStats) -> tuple[int, int, int]:
        return (len(s.gaps), s.rounds, -s.sources)

    if len(finished) < 2 or len({key(s) for s in finished}) == 1:
        return None
    return min(finished, key=key)

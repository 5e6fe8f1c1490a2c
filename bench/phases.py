"""Where a run's overhead goes: each phase's measured wall time minus its ideal.

A phase's window runs from the event that ends the phase before it to the event that ends it,
read from the run's own log (`Event.ts`, stamped as a node publishes each event):

- supervisor: the run's start to `allocation_decided`;
- round r's researchers: to the `analyst` phase of round r; round r's analyst: to the next phase;
- writer: to `draft_ready`; claim check: to the first `claims_checked`;
- review: the reviewer and the claim check of its revision, to `run_finished`;
- runner: `run_finished` to the return of `ResearchRunner.run` (closing the log and checkpoints).

The windows tile the run, so their measured times add up to its wall time. The ideal of a node
phase is its model calls at the fixed latency; a round's researchers take the critical path's
slowest chain of that round (bench/critical_path.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from research.events import Event


@dataclass(frozen=True)
class PhaseCost:
    phase: str
    measured: float
    ideal: float

    @property
    def overhead(self) -> float:
        return self.measured - self.ideal

    def as_dict(self) -> dict[str, float | str]:
        return {
            "phase": self.phase,
            "measured_s": round(self.measured, 3),
            "ideal_s": round(self.ideal, 3),
            "overhead_s": round(self.overhead, 3),
        }


def _boundaries(events: list[Event]) -> list[tuple[str, int]]:
    """(phase that ends here, index of the event that ends it) in run order."""
    out: list[tuple[str, int]] = []
    current = "supervisor"
    claim_checked = False
    for i, event in enumerate(events):
        if event.type == "allocation_decided" and current == "supervisor":
            out.append((current, i))
            current = "researchers 0"
        elif event.type == "phase" and event.data.phase in ("analyst", "researchers", "writer"):
            if current == "supervisor":
                continue
            out.append((current, i))
            current = "writer" if event.data.phase == "writer" else f"{event.data.phase} {event.iteration or 0}"
        elif event.type == "draft_ready" and current == "writer":
            out.append((current, i))
            current = "claim check"
        elif event.type == "claims_checked" and not claim_checked:
            claim_checked = True
            out.append((current, i))
            current = "review"
        elif event.type in ("run_finished", "run_failed", "run_cancelled"):
            out.append((current, i))
            current = "runner"
    return out


def _node_calls(events: list[Event]) -> int:
    """Model calls the run's nodes (not its researchers) reported among `events`."""
    return sum(e.data.calls for e in events if e.type == "usage" and not e.researcher_id)


def phase_costs(
    events: list[Event],
    started_at: float,
    ended_at: float,
    researcher_rounds: list[float],
    model_latency: float,
) -> list[PhaseCost]:
    """One row per phase, in run order. `researcher_rounds`: each round's ideal researcher chain."""
    rows: list[PhaseCost] = []
    start, first = started_at, 0
    ends = [(phase, i, events[i].ts) for phase, i in _boundaries(events)]
    for phase, last, end in [*ends, ("runner", len(events) - 1, ended_at)]:
        if phase.startswith("researchers "):
            round_ = int(phase.split()[1])
            ideal = researcher_rounds[round_] if round_ < len(researcher_rounds) else 0.0
        elif phase == "runner":
            ideal = 0.0
        else:
            ideal = _node_calls(events[first : last + 1]) * model_latency
        rows.append(PhaseCost(phase, max(0.0, end - start), ideal))
        start, first = end, last + 1
    return rows


def phase_cpu(events: list[Event], cpu_at: list[float], cpu_started: float, cpu_ended: float) -> dict[str, float]:
    """CPU seconds of the process in each phase's window (the same windows as `phase_costs`), from the
    process CPU clock read as each event arrived (`LoopbackRun.cpu_at`). A phase's CPU is every
    thread's, the in-process fakes' included: the work that competes for the one interpreter."""
    out: dict[str, float] = {}
    start = cpu_started
    ends = [(phase, cpu_at[i]) for phase, i in _boundaries(events)]
    for phase, end in [*ends, ("runner", cpu_ended)]:
        out[phase] = out.get(phase, 0.0) + max(0.0, end - start)
        start = end
    return out


def overhead_table(rows: list[PhaseCost]) -> dict[str, dict[str, float | str]]:
    """The rows keyed by phase (for results.json)."""
    return {row.phase: row.as_dict() for row in rows}


def phase_table(doc: dict[str, Any], allocation: str = "333") -> list[str]:
    """Markdown lines: one allocation's overhead by phase, at the fast and the realistic latencies."""
    details = doc.get("critical_path_details") or {}
    fast = ((details.get("cases") or {}).get(allocation) or {}).get("phases") or {}
    if not fast:
        return []
    real = ((((details.get("realistic") or {}).get("cases") or {}).get(allocation)) or {}).get("phases") or {}
    lines = [
        "",
        f"Overhead by phase, allocation {allocation} (measured − ideal, seconds; bench/phases.py):",
        "",
        "| phase | measured | ideal | overhead | overhead, realistic latencies |",
        "| --- | --- | --- | --- | --- |",
    ]
    for phase, row in fast.items():
        other = real.get(phase, {}).get("overhead_s")
        lines.append(
            f"| {phase} | {row['measured_s']:.2f} | {row['ideal_s']:.2f} | {row['overhead_s']:+.2f} | "
            + (f"{other:+.2f} |" if other is not None else "– |")
        )
    profile = details.get("profile") or {}
    if profile.get("groups"):
        top = ", ".join(f"{k} {v:.2f} s" for k, v in list(profile["groups"].items())[:6])
        lines += [
            "",
            f"CPU of the desk's threads in one profiled {profile.get('allocation', allocation)} run "
            f"(bench/gil_profile.py, {profile['cpu_seconds']:.2f} s in all, under the profiler): {top}.",
        ]
    collector = details.get("garbage_collector") or {}
    if collector.get("runs"):
        lines += [
            "",
            f"The garbage collector in the {collector['runs']} runs above (bench/collector.py): "
            f"{collector['ms_per_run']:.1f} ms per run, {collector['full_collections']} full "
            f"collection{'' if collector['full_collections'] == 1 else 's'} "
            f"(the longest {collector['longest_full_ms']:.0f} ms), with {collector['frozen_objects']:,} "
            "long-lived objects frozen after the process's first run (research/runs/heap.py).",
        ]
    return lines

"""One computed comparison: everything the Compare page's panels draw, worked out once per refresh.

ui/compare_view.py gathers each run's figures (ui/compare_stats.run_stats), `compare` computes the
side-by-side results from them (compare_stats for tables and overlap, compare_summary for the one
line per run), and the panels (ui/panels/compare_*.py) only draw a `RunComparison`: a request
passes through each module once. Pure, like the modules it calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import pandas as pd

from ui.compare_stats import (
    RunStats,
    heading_diff,
    heading_matrix,
    label_uniquely,
    metrics_frame,
    overlap_matrix,
    shared_by_all,
    unique_sources,
)
from ui.compare_summary import best_pick, summaries

__all__ = ["RunComparison", "RunStats", "compare"]


@dataclass(frozen=True)
class RunComparison:
    runs: list[RunStats]  # in the comparison's order, each labelled uniquely
    missing: list[str]  # ids of the comparison's runs deleted since it was saved
    summaries: dict[str, str]  # run id -> its one line
    best: RunStats | None  # the run to start from next time
    measures: pd.DataFrame  # rows are measures, columns are runs
    overlap: pd.DataFrame  # Jaccard similarity of the runs' sources
    unique: dict[str, int]  # run id -> sources no other run found
    shared: int  # sources every run found
    with_draft: list[RunStats]  # the runs that have a draft
    sections: pd.DataFrame  # the drafts' section headings, each run's position for each
    diffs: dict[tuple[str, str], str]  # (from run id, to run id) -> their structure diff (a run to itself too)

    @property
    def done(self) -> bool:
        return all(s.done for s in self.runs)


def compare(runs: list[RunStats], missing: list[str] | None = None) -> RunComparison:
    """The comparison of these runs' figures (labels made unique here)."""
    label_uniquely(runs)
    unique = unique_sources(runs)
    for s in runs:
        s.unique = unique[s.run_id]
    with_draft = [s for s in runs if s.draft]
    return RunComparison(
        runs=runs,
        missing=list(missing or []),
        summaries=summaries(runs, unique),
        best=best_pick(runs),
        measures=metrics_frame(runs, unique),
        overlap=overlap_matrix(runs),
        unique=unique,
        shared=shared_by_all(runs),
        with_draft=with_draft,
        sections=heading_matrix(with_draft),
        diffs={(a.run_id, b.run_id): heading_diff(a, b) for a, b in product(with_draft, repeat=2)},
    )

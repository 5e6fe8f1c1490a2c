"""What the Compare page measures for each run, and the tables it lays side by side.

Pure (pandas, no Streamlit): every figure comes from the run's folded event log and its latest
draft version, the same data the Research page shows.
"""

from __future__ import annotations

import difflib
import re
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from research.api import RESEARCHER_KINDS, RunRecord, RunStatus, RunView
from ui.text import duration, plural, source_domain

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@dataclass
class RunStats:
    run_id: str
    label: str  # the allocation ("210"), made unique within a comparison
    topic: str
    status: str
    allocation: str
    origin: str | None
    sources: int
    by_kind: dict[str, int]
    by_provider: dict[str, int]
    domains: set[str]
    years: list[int]
    source_ids: set[str]
    verdicts: list[str]
    gaps: list[str]
    cited: int
    researchers: int
    tokens: int
    calls: int
    cost_usd: float | None  # None: a model of the run has no known price
    seconds: float | None
    headings: list[str]  # "## Summary", level marks kept so the structure diff shows nesting
    draft: str | None
    error: str | None = None
    warnings: int = 0
    kind_provider: Counter[tuple[str, str]] = field(default_factory=Counter)
    unique: int = 0  # sources no other run in the comparison found (set by `summaries`)

    @property
    def rounds(self) -> int:
        return len(self.verdicts)

    @property
    def approved_in(self) -> int | None:
        """The analyst round that approved the research (None: the revision cap ended it)."""
        return next((i for i, v in enumerate(self.verdicts, 1) if v == "APPROVED"), None)

    @property
    def year_span(self) -> int:
        return max(self.years) - min(self.years) if self.years else 0

    @property
    def done(self) -> bool:
        return RunStatus(self.status).terminal


def headings_of(markdown: str | None) -> list[str]:
    """Section headings below the title (the title is the topic, the same in every draft)."""
    out = []
    for line in (markdown or "").splitlines():
        match = _HEADING.match(line.strip())
        if match and len(match.group(1)) > 1:
            out.append(f"{match.group(1)} {match.group(2)}")
    return out


def run_stats(view: RunView, record: RunRecord | None, draft: str | None) -> RunStats:
    sources = list(view.sources.values())
    last = view.critiques[-1] if view.critiques else None
    gaps = list(view.known_gaps) if view.draft else list(last.missing_topics if last else [])
    usage = view.usage
    status = RunStatus.INTERRUPTED if record is not None and record.status == RunStatus.INTERRUPTED else view.status
    allocation = view.allocation_notation or (record.allocation or record.requested_allocation if record else "") or ""
    return RunStats(
        run_id=view.run_id,
        label=allocation or "model",
        topic=view.topic or (record.topic if record else ""),
        status=status,
        allocation=allocation,
        origin=view.allocation_origin,
        sources=len(sources),
        by_kind={kind: sum(s.kind == kind for s in sources) for kind in RESEARCHER_KINDS},
        by_provider=dict(Counter(s.provider for s in sources).most_common()),
        domains={source_domain(s) for s in sources},  # the Sources table's Domain column
        years=sorted(s.year for s in sources if s.year is not None),
        source_ids=set(view.sources),
        verdicts=[str(c.status) for c in view.critiques],
        gaps=gaps,
        cited=len(view.cited_source_ids),
        researchers=len(view.researchers),
        tokens=usage.prompt_tokens + usage.completion_tokens,
        calls=usage.calls,
        cost_usd=usage.cost_usd,
        seconds=view.seconds,
        headings=headings_of(draft or view.draft),
        draft=draft or view.draft,
        error=view.error,
        warnings=len(view.warnings),
        kind_provider=Counter((s.kind, s.provider) for s in sources),
    )


def label_uniquely(stats: list[RunStats]) -> None:
    """Two runs with the same allocation (picked from History) get "210 · 2"."""
    counts = Counter(s.label for s in stats)
    seen: Counter[str] = Counter()
    for s in stats:
        if counts[s.label] > 1:
            seen[s.label] += 1
            s.label = f"{s.label} · {seen[s.label]}"


# --- side by side --------------------------------------------------------------------------------


def overlap_matrix(stats: list[RunStats]) -> pd.DataFrame:
    """Jaccard similarity of the runs' sources (shared / found by either), 1.0 on the diagonal."""
    labels = [s.label for s in stats]
    rows = []
    for a in stats:
        row = []
        for b in stats:
            union = a.source_ids | b.source_ids
            row.append(round(len(a.source_ids & b.source_ids) / len(union), 2) if union else 0.0)
        rows.append(row)
    return pd.DataFrame(rows, index=labels, columns=labels)


def unique_sources(stats: list[RunStats]) -> dict[str, int]:
    """Per run: sources no other run in the comparison found."""
    out = {}
    for s in stats:
        others = set().union(*(o.source_ids for o in stats if o is not s))
        out[s.run_id] = len(s.source_ids - others)
    return out


def shared_by_all(stats: list[RunStats]) -> int:
    return len(set.intersection(*(s.source_ids for s in stats))) if stats else 0


def _verdicts(s: RunStats) -> str:
    short = {"APPROVED": "approved", "NEEDS_IMPROVEMENT": "sent back"}
    return " → ".join(short.get(v, v.lower()) for v in s.verdicts) or "–"


def _years(s: RunStats) -> str:
    if not s.years:
        return "–"
    low, high = s.years[0], s.years[-1]
    return f"{low}–{high} (median {statistics.median(s.years):g})" if low != high else str(low)


def metrics_frame(stats: list[RunStats], unique: dict[str, int] | None = None) -> pd.DataFrame:
    """Rows are measures, columns are runs: the table an analyst reads across (`unique`: the
    runs' unique_sources, when already counted)."""
    unique = unique_sources(stats) if unique is None else unique
    rows: list[tuple[str, Callable[[RunStats], object]]] = [
        ("Status", lambda s: s.status),
        ("Researchers", lambda s: s.researchers),
        ("Sources", lambda s: s.sources),
        *[(f"Sources: {kind}", (lambda k: lambda s: s.by_kind.get(k, 0))(kind)) for kind in RESEARCHER_KINDS],
        ("Providers", lambda s: ", ".join(f"{p} {n}" for p, n in s.by_provider.items()) or "–"),
        ("Unique domains", lambda s: len(s.domains)),
        ("Found only by this run", lambda s: unique[s.run_id]),
        ("Publication years", _years),
        ("Cited in the draft", lambda s: s.cited),
        ("Analyst verdicts", _verdicts),
        ("Rounds to approval", lambda s: s.approved_in or (f"not approved after {s.rounds}" if s.rounds else "–")),
        ("Gaps left", lambda s: len(s.gaps)),
        ("Draft sections", lambda s: len(s.headings)),
        ("Model calls", lambda s: s.calls),
        ("Tokens", lambda s: f"{s.tokens:,}" if s.calls else "– (offline)"),
        ("Time", lambda s: duration(s.seconds)),
    ]
    data = {s.label: [str(fn(s)) for _name, fn in rows] for s in stats}
    return pd.DataFrame(data, index=[name for name, _fn in rows]).rename_axis("Measure").reset_index()


def heading_matrix(stats: list[RunStats]) -> pd.DataFrame:
    """The union of the drafts' section headings (in order of first appearance), with each run's
    position for that heading ("§2") or "–" where its draft has no such section."""
    order: list[str] = []
    for s in stats:
        for heading in s.headings:
            if heading not in order:
                order.append(heading)
    rows = []
    for heading in order:
        level, _, text = heading.partition(" ")
        row = {"Section": ("    " * (len(level) - 2)) + text}
        for s in stats:
            row[s.label] = f"§{s.headings.index(heading) + 1}" if heading in s.headings else "–"
        rows.append(row)
    return pd.DataFrame(rows, columns=["Section", *[s.label for s in stats]])


def heading_diff(a: RunStats, b: RunStats) -> str:
    """A unified diff of two drafts' section structure (shown as text, never rendered)."""
    context = max(len(a.headings), len(b.headings))  # the whole structure, not just the changed lines
    lines = difflib.unified_diff(a.headings, b.headings, fromfile=a.label, tofile=b.label, lineterm="", n=context)
    text = "\n".join(lines)
    return text or f"Same {plural(len(a.headings), 'section')} in the same order."

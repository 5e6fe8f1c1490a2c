"""The Sources table's rows, built from a run view (pure: no Streamlit, easy to test)."""

from __future__ import annotations

import pandas as pd

from research.api import RunView, render_csv
from ui.text import is_web_link, source_domain

COLUMNS = [
    "Source id",
    "Title",
    "Link",
    "Kind",
    "Provider",
    "Domain",
    "Year",
    "Researcher",
    "Relevance",
    "Reliability",
    "Rated",
    "Why",
    "Cited",
    "Snippet",
    "URL",
]
# What the table shows: "Link" is displayed as the title (see ui/panels/sources_table.py). The
# reasons ("Why") sit beside the score: st.dataframe has no per-cell tooltip to carry them on hover.
SHOWN = ["Link", "Cited", "Reliability", "Why", "Kind", "Provider", "Domain", "Year"]
SHOWN += ["Researcher", "Relevance", "Snippet"]
RELIABILITY_LABELS = ("high", "medium", "low", "unrated")  # "unrated": a run recorded before the signal
# How the table can be sorted: the columns, best first.
SORTS = {
    "cited": (["Cited", "Relevance"], [False, False]),
    "reliability": (["Reliability", "Relevance"], [False, False]),
    "relevance": (["Relevance", "Reliability"], [False, False]),
    "newest": (["Year", "Relevance"], [False, False]),
}


def found_by(view: RunView) -> dict[str, list[str]]:
    """Source id -> the researchers that found it (a source can be found by several)."""
    out: dict[str, list[str]] = {}
    for researcher in view.researchers.values():
        for source_id in researcher.source_ids:
            out.setdefault(source_id, []).append(researcher.id)
    return out


def sources_frame(view: RunView) -> pd.DataFrame:
    """One row per source. Relevance is the score relative to the best hit of the same provider
    (providers score on different scales), so 1.0 = that provider's best match."""
    finders = found_by(view)
    best: dict[str, float] = {}
    for source in view.sources.values():
        best[source.provider] = max(best.get(source.provider, 0.0), source.score)
    cited = view.cited_source_ids
    rows = []
    for source_id, s in view.sources.items():
        url, provider = s.url, s.provider
        top = best.get(provider) or 0.0
        rows.append(
            {
                "Source id": source_id,
                "Title": s.title,
                # Every row needs a distinct link value, since the table shows it as the title.
                # Only http(s) is clickable: a javascript: or file: URL from outside never becomes a link.
                "Link": url if is_web_link(url) else f"source:{source_id}",
                "Kind": s.kind,
                "Provider": provider,
                "Domain": source_domain(s),  # a library document: its file or collection
                "Year": s.year,
                "Researcher": ", ".join(finders.get(source_id) or [s.researcher_id or ""]).strip(", "),
                "Relevance": round(s.score / top, 3) if top > 0 else 0.0,
                "Reliability": s.reliability.score if s.reliability else None,
                "Rated": s.reliability.label if s.reliability else "unrated",
                "Why": s.reliability.reasons if s.reliability else "",
                "Cited": source_id in cited,
                "Snippet": s.snippet,
                "URL": url,
            }
        )
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["Year"] = frame["Year"].astype("Int64")
    frame["Reliability"] = frame["Reliability"].astype("Float64")
    return sort_frame(frame, "cited")


def sort_frame(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    """The rows in one of the SORTS orders (a stable sort; unknown values last)."""
    columns, ascending = SORTS[by]
    return frame.sort_values(columns, ascending=ascending, kind="stable", na_position="last").reset_index(drop=True)


def filter_reliability(frame: pd.DataFrame, labels: list[str] | None) -> pd.DataFrame:
    """The rows rated with one of `labels` (none chosen: every row)."""
    return frame[frame["Rated"].isin(labels or RELIABILITY_LABELS)]


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """A table as CSV with every cell through the exports' one escaping function (a title such as
    `=cmd|...` is never run as a formula by a spreadsheet)."""
    return render_csv(list(frame.columns), frame.itertuples(index=False, name=None))


def csv_frame(view: RunView) -> pd.DataFrame:
    """The CSV download: every column but the display-only link (the full URL is kept)."""
    return sources_frame(view).drop(columns=["Link"])

"""What the Compare page measures and the one line per run it prints (pure, from run views)."""

from __future__ import annotations

from research.api import Critique, RunView, Source
from research.events.payloads import Counts
from ui.compare_stats import (
    heading_diff,
    heading_matrix,
    label_uniquely,
    metrics_frame,
    overlap_matrix,
    run_stats,
    unique_sources,
)
from ui.compare_summary import best_pick, summaries
from ui.sources_frame import sources_frame


def source(sid: str, kind: str, year: int | None = 2022, provider: str = "library", url: str = "") -> dict:
    return {
        "id": sid,
        "title": sid,
        "url": url or f"https://{sid}.example.org/a",
        "kind": kind,
        "provider": provider,
        "year": year,
    }


def view(
    run_id: str,
    alloc: dict,
    sources: list[dict],
    verdicts: list[str],
    *,
    gaps=(),
    draft="# T\n\n## Summary\n",
    seconds=2.0,
) -> RunView:
    allocation = Counts(**alloc) if alloc else None
    v = RunView(run_id=run_id, topic="T", status="finished", allocation=allocation, seconds=seconds, draft=draft)
    v.sources = {s["id"]: Source(**s) for s in sources}
    v.critiques = [Critique(status=s, missing_topics=[], iteration=i) for i, s in enumerate(verdicts)]
    v.known_gaps = list(gaps)
    return v


A = view(
    "a",
    {"web": 2, "academic": 1, "book": 0},
    [source("s1", "web", 2019), source("s2", "web", 2024), source("s3", "academic", 2021)],
    ["NEEDS_IMPROVEMENT", "APPROVED"],
    gaps=["cost"],
    draft="# T\n\n## Summary\n\n## Safety\n\n## Sources\n",
)
B = view(
    "b",
    {"web": 0, "academic": 2, "book": 1},
    [source("s3", "academic", 2021), source("s4", "book", None)],
    ["APPROVED"],
    seconds=1.0,
    draft="# T\n\n## Summary\n\n## History\n\n### Early work\n\n## Sources\n",
)


def stats():
    return [run_stats(A, None, A.draft), run_stats(B, None, B.draft)]


def test_per_run_figures_come_from_the_view():
    a, b = stats()
    assert (a.label, a.sources, a.by_kind) == ("210", 3, {"web": 2, "academic": 1, "book": 0})
    assert a.years == [2019, 2021, 2024] and a.year_span == 5 and b.years == [2021]
    assert a.rounds == 2 and a.approved_in == 2 and b.approved_in == 1 and a.gaps == ["cost"]
    assert a.domains == {"s1.example.org", "s2.example.org", "s3.example.org"}
    assert a.headings == ["## Summary", "## Safety", "## Sources"]


def test_unique_domains_count_the_sources_tables_domains_each_library_collection_and_file_its_own():
    library = view(
        "lib",
        {"web": 1, "academic": 0, "book": 2},
        [
            source("m1", "book", url="library://sample/impressionism/monet-series"),
            source("m2", "book", url="library://sample/impressionism/degas-dancers"),
            source("v1", "book", url="library://sample/vaccines/mrna-basics"),
            source("n1", "web", url="library://upload/0a1b2c/my%20notes.pdf"),
            source("w1", "web", provider="wikipedia", url="https://www.Example.org/a"),
        ],
        ["APPROVED"],
    )
    stats = run_stats(library, None, library.draft)
    assert stats.domains == set(sources_frame(library)["Domain"])  # what the Sources table shows
    assert stats.domains == {"sample/impressionism", "sample/vaccines", "my notes.pdf", "example.org"}
    measures = metrics_frame([stats]).set_index("Measure")
    assert measures.loc["Unique domains"].tolist() == ["4"]  # before: 2 ("library" for all four, example.org)


def test_overlap_is_jaccard_of_source_ids_and_unique_counts_what_no_other_run_found():
    a, b = stats()
    matrix = overlap_matrix([a, b])
    assert matrix.loc["210", "021"] == round(1 / 4, 2) and matrix.loc["021", "021"] == 1.0
    assert unique_sources([a, b]) == {"a": 2, "b": 1}


def test_one_line_summaries_name_what_each_run_did_best():
    a, b = stats()
    lines = summaries([a, b])
    assert lines["a"] == (
        "210: most sources, most domains, widest year range, most sources of its own · "
        "3 sources, approved in round 2, 1 gap left"
    )
    assert lines["b"] == "021: fewest rounds, fewest gaps, fastest · 2 sources, approved in round 1, 0 gaps left"


def test_ties_and_small_time_differences_are_not_wins():
    a, b = stats()
    b.seconds = a.seconds * 0.95  # 5% faster is noise, not "fastest"
    b.gaps, b.verdicts = ["x"], ["NEEDS_IMPROVEMENT", "APPROVED"]  # now tied with a
    assert summaries([a, b])["b"] == "021: 2 sources, approved in round 2, 1 gap left"


def test_unfinished_runs_say_so():
    a, b = stats()
    b.status, b.error = "failed", "RuntimeError: boom"
    a.status = "running"
    lines = summaries([a, b])
    assert lines == {"a": "210: still running (3 sources so far)", "b": "021: failed (RuntimeError: boom)"}


def test_section_structure_matrix_and_diff():
    a, b = stats()
    frame = heading_matrix([a, b])
    assert list(frame["Section"]) == ["Summary", "Safety", "Sources", "History", "    Early work"]
    assert list(frame["210"]) == ["§1", "§2", "§3", "–", "–"] and list(frame["021"]) == ["§1", "–", "§4", "§2", "§3"]
    diff = heading_diff(a, b)
    assert "-## Safety" in diff and "+## History" in diff and "+### Early work" in diff
    assert heading_diff(a, a) == "Same 3 sections in the same order."


def test_same_allocation_twice_gets_distinct_labels_and_the_table_has_one_column_per_run():
    a, b = stats()
    b.label = a.label
    label_uniquely([a, b])
    assert (a.label, b.label) == ("210 · 1", "210 · 2")
    frame = metrics_frame([a, b])
    assert list(frame.columns) == ["Measure", "210 · 1", "210 · 2"]
    row = frame.set_index("Measure").loc["Analyst verdicts"]
    assert row.tolist() == ["sent back → approved", "approved"]


def test_a_best_pick_only_when_one_run_is_better():
    a, b = stats()
    assert best_pick([a, b]) is b  # fewer gaps
    b.gaps, b.verdicts, b.source_ids = list(a.gaps), list(a.verdicts), a.source_ids
    b.sources = a.sources
    assert best_pick([a, b]) is None  # equal on gaps, rounds and sources: no recommendation

"""Citations: renumbering, dropping unknown markers, the Sources list, and checks on real drafts."""

from __future__ import annotations

import re

from research.drafts.citations import check_citations, finalize_citations
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest, Source
from tests.helpers import events_of, final_state

S1 = Source(
    title="First source",
    url="https://one.example.org/a",
    kind="web",
    provider="test",
    year=2020,
    authors=["Ada Lovelace"],
)
S2 = Source(title="Second source", url="https://two.example.org/b", kind="academic", provider="test")
S3 = Source(title="Third source", url="https://three.example.org/c", kind="book", provider="test")


def test_finalize_renumbers_by_first_appearance_and_lists_sources() -> None:
    body = "# Title\n\nAlpha [3]. Beta [1]. Gamma [3] and [2].\n"
    cited = finalize_citations(body, {1: S1, 2: S2, 3: S3})
    text, sources_part = cited.markdown.split("## Sources")
    assert "Alpha [1]. Beta [2]. Gamma [1] and [3]." in text
    assert cited.citations == {1: S3.id, 2: S1.id, 3: S2.id}
    entries = [line for line in sources_part.splitlines() if line.startswith("[")]
    assert entries == [
        "[1] Third source. book, test. <https://three.example.org/c>",
        "[2] First source. Ada Lovelace. 2020. web, test. <https://one.example.org/a>",
        "[3] Second source. academic, test. <https://two.example.org/b>",
    ]
    assert cited.dropped == []


def test_finalize_drops_unknown_markers_and_reports_them() -> None:
    cited = finalize_citations("Known [2]. Unknown [7]. Also unknown [9], twice [7].", {2: S2})
    body = cited.markdown.split("## Sources")[0]
    assert "[7]" not in body and "[9]" not in body
    assert "Known [1]. Unknown. Also unknown, twice." in body  # no stray spaces before punctuation
    assert cited.dropped == [7, 9]
    assert cited.citations == {1: S2.id}


def test_finalize_uncited_sources_are_not_listed_and_old_lists_are_replaced() -> None:
    body = "Text [1].\n\n## Sources\n\n[1] Something the model made up <https://made.up/x>\n"
    cited = finalize_citations(body, {1: S1, 2: S2})
    assert "made.up" not in cited.markdown
    assert cited.markdown.count("## Sources") == 1
    assert S2.url not in cited.markdown  # [2] was never cited
    assert finalize_citations("No citations here.", {1: S1}).markdown.endswith("No sources were cited.\n")


def test_finalize_leaves_markdown_links_alone() -> None:
    cited = finalize_citations("See [1](https://one.example.org/a) and [1].", {1: S1})
    assert "[1](https://one.example.org/a)" in cited.markdown
    assert cited.citations == {1: S1.id}


def test_check_flags_unresolved_markers_and_unknown_urls() -> None:
    good = finalize_citations("A [1]. B [2].", {1: S1, 2: S2}).markdown
    assert check_citations(good, [S1, S2]).ok

    edited = good.replace("B [2].", "B [2]. C [5]. See https://evil.example.com/page.")
    check = check_citations(edited, [S1, S2])
    assert check.unresolved == [5]
    assert check.unknown_urls == ["https://evil.example.com/page"]
    assert not check.ok
    assert check.cited == [1, 2, 5] and check.listed == [1, 2]
    # Without the source list, only the markers are checked.
    assert check_citations(edited).unknown_urls == []


def test_real_offline_run_cites_only_retrieved_sources(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="120"))
    state = final_state(runner, run_id)
    draft = state["draft"]
    sources = state["sources"]
    by_id = {s.id: s for s in sources}

    check = check_citations(draft.markdown, sources)
    assert check.ok, check
    assert check.cited, "the draft cites nothing"
    assert check.cited == sorted(draft.citations) == list(range(1, len(draft.citations) + 1))
    assert set(draft.citations.values()) <= set(by_id)

    # Each numbered entry is the source its number maps to, and every URL in the draft
    # (library:// included) belongs to a source the run retrieved.
    for n, source_id in draft.citations.items():
        assert f"[{n}] {by_id[source_id].title}" in draft.markdown
    urls = set(re.findall(r"[a-z]+://[^\s<>()\]`]+", draft.markdown))
    assert urls and urls <= {s.url for s in sources}

    # The event the dashboard renders carries the same draft and mapping.
    ready = events_of(runner, run_id, "draft_ready")[-1].data
    assert ready.markdown == draft.markdown
    assert {int(k): v for k, v in ready.citations.items()} == draft.citations

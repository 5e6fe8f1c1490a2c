"""The draft guards: what they remove is returned (so the writer warns), and no broken prose is left."""

from __future__ import annotations

import re
from pathlib import Path

from research.drafts import citations, guard, markers, numbering
from research.drafts.guard import remove_unknown_citations, remove_unknown_urls, repair_draft

SOURCES = {"https://example.org/lnp", "https://doi.org/10.48550/arXiv.1706.03762", "https://arxiv.org/abs/1706.03762"}


def test_unknown_markers_are_removed_listed_and_their_sentences_named() -> None:
    repair = remove_unknown_citations("Known [2]. Grouped [2, 7]. Only a ghost [9]. Range [1-3].", {1, 2})

    assert repair.removed == [3, 7, 9]
    assert repair.split == ["[2, 7]", "[1-3]"]
    assert repair.uncited == ["Only a ghost."]
    assert repair.text == "Known [2]. Grouped [2]. Only a ghost . Range [1][2]."


def test_a_removed_bare_url_takes_its_sentence_not_leaving_broken_prose() -> None:
    text = "LNPs deliver mRNA [1]. See https://madeup.org/a and [a link](https://madeup.org/b) for more. Next [1].\n"

    repair = remove_unknown_urls(text, SOURCES)

    assert repair.removed == ["https://madeup.org/a", "https://madeup.org/b"]
    assert repair.text == "LNPs deliver mRNA [1]. Next [1].\n"
    assert repair.dropped_sentences == 1
    assert "See and" not in repair.text and "a link and" not in repair.text


def test_bare_domains_and_dois_not_among_the_sources_are_removed() -> None:
    text = (
        "Attention [1], described at www.madeup.org/page, is key.\n"
        "Attention was introduced in 2017 [1], see doi:10.9999/fake.\n"
        "Transformers are fast (see madeup.org/x) [1].\n"
        "- 10.9999/also-fake\n"
        "Node.js and e.g. are not links; arxiv.org/abs/1706.03762 and doi:10.48550/arXiv.1706.03762 are sources.\n"
    )

    repair = remove_unknown_urls(text, SOURCES)

    assert repair.removed == ["www.madeup.org/page", "doi:10.9999/fake", "madeup.org/x", "10.9999/also-fake"]
    assert repair.text.splitlines() == [
        "Attention [1] is key.",
        "Attention was introduced in 2017 [1].",
        "Transformers are fast [1].",
        "Node.js and e.g. are not links; arxiv.org/abs/1706.03762 and doi:10.48550/arXiv.1706.03762 are sources.",
    ]


def test_known_urls_and_links_stay_untouched() -> None:
    text = (
        "See [the LNP page](https://example.org/lnp/) and <https://www.example.org/lnp> or https://example.org/lnp.\n"
    )
    repair = remove_unknown_urls(text, SOURCES)
    assert repair.text == text and repair.removed == []


def test_repair_draft_warnings_list_every_removal() -> None:
    repair = repair_draft("A [1]. B [7]. C, see https://madeup.org/x.\n", {1}, SOURCES)

    assert repair.text == "A [1]. B. C.\n"
    assert repair.warnings() == [
        "Removed citations that matched no source: [7]; now uncited: “B.”.",
        "Removed links not among the sources: https://madeup.org/x.",
    ]
    assert repair_draft("Fine [1].\n", {1}, SOURCES).warnings() == []


def test_one_citation_marker_pattern_for_the_whole_project() -> None:
    assert citations.CITATION is markers.CITATION_MARKER
    root = Path(guard.__file__).resolve().parents[1]
    pattern = re.escape(r"\[(\d{1,3})\](?!\()")
    writers = [p for p in root.rglob("*.py") if re.search(pattern, p.read_text()) and p.name != "markers.py"]
    assert writers == []
    assert numbering.source_entries("Body [1].\n\n## Sources\n\n[1] A. <https://a.example>\n") == {
        1: "A. <https://a.example>"
    }

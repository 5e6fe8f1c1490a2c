"""Search within a run's sources (research/text/find.py): every query word must occur, the passage
around the phrase comes back cut into plain and matched pieces, and long or hostile text is read
in linear time within its bounds."""

from __future__ import annotations

from research.text.find import MAX_TEXT_CHARS, Document, find_in_sources, query_terms

DOCS = [
    Document(
        "lnp",
        "Lipid nanoparticles",
        "How mRNA gets into cells.",
        "Ionizable lipids wrap the fragile mRNA. "
        "After injection, muscle cells take the particles up and release the mRNA into the cytoplasm.",
    ),
    Document(
        "cold",
        "The cold chain",
        "Freezers and vials.",
        "Vials were kept at minus 70 degrees. Later, mRNA vials could be kept in a refrigerator for a month.",
    ),
    Document("trial", "Phase 3 trials", "Efficacy of 95 percent.", ""),
]


def test_every_word_must_occur_and_the_passage_marks_the_phrase() -> None:
    [hit] = find_in_sources("release the MRNA", DOCS)
    assert hit.source_id == "lnp" and hit.field == "text"
    marked = [p.text for p in hit.pieces if p.hit]
    assert marked == ["release the mRNA"]  # the phrase, as the source spells it
    assert hit.passage.startswith("Ionizable lipids") and hit.passage.endswith("into the cytoplasm.")


def test_words_apart_match_each_highlighted_and_more_matches_rank_first() -> None:
    hits = find_in_sources("refrigerator vials", DOCS)
    assert [h.source_id for h in hits] == ["cold"]
    assert [p.text for p in hits[0].pieces if p.hit] == ["Vials", "vials", "refrigerator"]
    ranked = find_in_sources("mrna", DOCS)
    assert [h.source_id for h in ranked] == ["lnp", "cold"] and ranked[0].hits > ranked[1].hits


def test_a_match_inside_a_word_marks_the_whole_word_and_the_passage_keeps_whole_words() -> None:
    text = "word " * 60 + "The lipid nanoparticles carry the mRNA. " + "tail " * 60
    [hit] = find_in_sources("nanoparticle", [Document("d", "D", "", text)])
    assert [p.text for p in hit.pieces if p.hit] == ["nanoparticles"]
    assert hit.passage.startswith("…word ") and hit.passage.endswith(" tail…")


def test_titles_and_snippets_are_searched_too() -> None:
    [hit] = find_in_sources("efficacy", DOCS)
    assert (hit.source_id, hit.field) == ("trial", "snippet")
    assert find_in_sources("cold chain", DOCS)[0].field == "title"
    assert find_in_sources("x", DOCS) == [] and find_in_sources("   ", DOCS) == []  # no word to look for


def test_a_huge_or_hostile_text_is_bounded() -> None:
    hostile = ("a" * 100_000 + "<script>alert(1)</script> ") * 30  # 3 MB of near-matches
    docs = [Document("big", "Big", "", hostile)]
    [hit] = find_in_sources("script alert", docs)
    assert len(hit.passage) < 1_000 and "<script>" in hit.passage  # returned as text; the UI escapes it
    assert hit.hits <= 2 * MAX_TEXT_CHARS  # counted within the bounded prefix only
    phrase, words = query_terms("w " * 500 + "alpha beta")
    assert len(phrase) <= 200 and len(words) <= 8


def test_folding_keeps_places_for_text_that_grows_in_lower_case() -> None:
    docs = [Document("tr", "İstanbul notes", "", "İİİ The Bosphorus bridge opened in 1973.")]
    [hit] = find_in_sources("bosphorus", docs)
    assert [p.text for p in hit.pieces if p.hit] == ["Bosphorus"]

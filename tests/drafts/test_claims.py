"""The claim check: each cited sentence against the stored text of the source it cites."""

from __future__ import annotations

from research.drafts.claims import best_passage, check_claims, cited_sentences, precision

TEXT = (
    "Lipid nanoparticles carry the fragile mRNA into muscle cells. Ribosomes then translate it into the spike "
    "protein. The immune system learns to recognise that protein. Unrelated closing remarks about logistics."
)
DRAFT = """# How do mRNA vaccines work?

## Summary

Lipid nanoparticles carry the fragile mRNA into muscle cells [1]. The vaccine was invented on the moon by penguins [1].

## How it works

- Ribosomes translate the mRNA into the spike protein, which trains antibodies against influenza strains [1].
- Nothing can be read about this one [2]. And this cites a source that does not exist [7].

## Sources

[1] Lipid. web, library. <https://example.org/a>
[2] Gone. web, library. <https://example.org/b>
"""


def test_cited_sentences_keep_their_section_and_markers() -> None:
    cited = cited_sentences(DRAFT)
    assert [c.numbers for c in cited] == [(1,), (1,), (1,), (2,), (7,)]
    assert cited[0].section == "Summary" and cited[2].section == "How it works"
    assert cited[0].claim == "Lipid nanoparticles carry the fragile mRNA into muscle cells."
    assert all("[1]" not in c.claim for c in cited)


def test_each_claim_gets_a_verdict_and_its_passage() -> None:
    def text_of(source_id: str) -> str:
        if source_id == "s2":
            raise OSError("the stored text is unreadable")
        return TEXT

    claims = check_claims(DRAFT, {1: "s1", 2: "s2"}, text_of)
    verdicts = [c.verdict for c in claims]
    assert verdicts == ["supported", "unsupported", "partial", "unverifiable", "unverifiable"]
    assert claims[0].passage == "Lipid nanoparticles carry the fragile mRNA into muscle cells."
    assert claims[0].score == 1.0 and claims[1].score < 0.5
    assert "spike" in claims[2].passage and claims[3].passage == "" and claims[4].source_id is None
    # Supported over checkable: 1 of 3; unverifiable claims are not counted either way.
    assert precision(claims) == 0.333


def test_the_shortest_passage_with_the_best_score_wins() -> None:
    passage, score = best_passage("Ribosomes translate it into the spike protein.", TEXT)
    assert passage == "Ribosomes then translate it into the spike protein." and score == 1.0


def test_nothing_cited_has_no_precision() -> None:
    assert check_claims("# T\n\nNo citations here.\n", {}, lambda _: "") == []
    assert precision([]) is None

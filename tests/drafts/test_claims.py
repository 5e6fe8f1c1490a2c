"""The claim check: each cited sentence against the stored text of the source it cites."""

from __future__ import annotations

import pytest

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


RUST_TEXT = (
    "Rust teams should minimise unsafe code, keep lock scopes explicit and short, and use runtime facilities "
    "such as Tokio's `spawn_blocking` for blocking operations. The p99 latency fell from 120 ms to 45 ms "
    "after the rewrite, and 3.5 times fewer servers were needed."
)


def _draft(section: str, sentence: str, topic: str = "Rust vs Go for backend services") -> str:
    return f"# {topic}\n\n## {section}\n\n{sentence[:-1]} [1].\n"


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        (
            "Rust teams should use runtime facilities such as Tokio's spawnblocking for blocking operations.",
            'it quotes "spawn_blocking" as "spawnblocking"',
        ),
        ("The p99 latency of Rust services fell from 120 ms to 54 ms after the rewrite.", '"54" is not'),
        ("The p99 latency of Rust services fell from 120 s to 45 ms after the rewrite.", '"120 s" is not'),
        ("After the Rust rewrite 35 times fewer servers were needed.", 'it quotes "3.5" as "35"'),
    ],
)
def test_a_quote_that_changes_an_identifier_number_or_unit_fails_and_says_why(sentence: str, reason: str) -> None:
    [claim] = check_claims(_draft("Summary", sentence), {1: "s1"}, lambda _: RUST_TEXT)
    assert claim.verdict == "unsupported" and claim.failure == "changed"
    assert reason in claim.reason


def test_an_exact_quote_and_a_faithful_paraphrase_pass() -> None:
    draft = _draft(
        "Summary",
        "Rust teams should use runtime facilities such as Tokio's spawn\\_blocking for blocking operations [1]. "
        "After the Rust rewrite, latency fell from 120 ms to 45 ms and 3.5 times fewer servers were needed.",
    )
    claims = check_claims(draft, {1: "s1"}, lambda _: RUST_TEXT)
    assert claims[0].sentence.endswith("Tokio's spawn_blocking for blocking operations.")  # escape read back
    assert [c.verdict for c in claims] == ["supported", "supported"] and not any(c.reason for c in claims)


TRIAL_TEXT = (
    "In the randomised phase 2b KEYNOTE-942 trial in patients with resected high-risk melanoma, the "
    "individualised vaccine mRNA-4157 combined with the checkpoint inhibitor pembrolizumab reduced the risk of "
    "recurrence or death by 44% compared with pembrolizumab alone, according to Moderna."
)


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        # What Qwen2.5-Coder-1.5B wrote under a sampler that penalised copying (6 Dec): a name slipped.
        (
            "The vaccine mRNA-4157 with the checkpoint inhibitor pembrolizumbar reduced the risk of recurrence.",
            'it quotes "pembrolizumab" as "pembrolizumbar"',
        ),
        ("According to Modernda, mRNA-4157 reduced the risk of recurrence or death.", 'quotes "Moderna" as "Modernda"'),
        ("In patients with reseced high-risk melanoma, mRNA-4157 reduced the risk.", 'quotes "resected" as "reseced"'),
    ],
)
def test_a_quote_that_misspells_a_word_of_its_passage_fails_and_says_why(sentence: str, reason: str) -> None:
    [claim] = check_claims(_draft("Summary", sentence, "mRNA cancer vaccines"), {1: "s1"}, lambda _: TRIAL_TEXT)
    assert claim.verdict == "unsupported" and claim.failure == "changed"
    assert reason in claim.reason


@pytest.mark.parametrize(
    "sentence",
    [
        # Other forms of the passage's words, and the other side's spelling, are not slips.
        "In a randomized trial of resected melanoma, the individualized vaccine mRNA-4157 reduced recurrence by 44%.",
        "Combining mRNA-4157 with pembrolizumab reduces the risk of recurrence compared with pembrolizumab alone.",
        # A word of the writer's own that is near a passage word but is another word (two edits in a
        # nine-letter word) is paraphrase, not a slip.
        "The vaccine mRNA-4157 lowered recurrence in patients with resected melanoma through pembrolizumab.",
    ],
)
def test_forms_spellings_and_other_words_are_not_misspellings(sentence: str) -> None:
    [claim] = check_claims(_draft("Summary", sentence, "mRNA cancer vaccines"), {1: "s1"}, lambda _: TRIAL_TEXT)
    assert claim.failure != "changed", claim.reason


ART_TEXT = (
    "Dealers such as Durand-Ruel made bulk purchases of stock from Monet and Renoir. "
    "The Wall Street crash of October 1929 wiped out stock market fortunes within days."
)


def test_a_supported_sentence_that_does_not_answer_its_question_fails_as_off_question() -> None:
    topic = "Causes of the 1929 stock market crash"
    off = check_claims(
        _draft(
            "What is the 1929 stock market crash", "Dealers such as Durand-Ruel made bulk purchases of stock.", topic
        ),
        {1: "s1"},
        lambda _: ART_TEXT,
    )
    on = check_claims(
        _draft(
            "What is the 1929 stock market crash", "The crash of October 1929 wiped out stock market fortunes.", topic
        ),
        {1: "s1"},
        lambda _: ART_TEXT,
    )
    assert off[0].score == 1.0 and off[0].verdict == "unsupported" and off[0].failure == "off_question"
    assert "What is the 1929 stock market crash" in off[0].reason
    assert on[0].verdict == "supported" and on[0].failure == ""


def test_a_claim_with_too_few_terms_in_its_passage_says_so() -> None:
    [claim] = check_claims(
        _draft("Summary", "Rust was invented by penguins on the moon."), {1: "s1"}, lambda _: RUST_TEXT
    )
    assert claim.verdict == "unsupported" and claim.failure == "not_stated" and "of its terms" in claim.reason

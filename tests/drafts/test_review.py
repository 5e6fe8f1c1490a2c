"""The reviewer's reading of a whole draft and the offline reviser."""

from __future__ import annotations

from research.drafts.review import find_issues, revise_offline
from research.schemas.state_shapes import CheckedClaim

DRAFT = """# Topic

## Summary

Lipid nanoparticles carry the fragile mRNA into muscle cells [1]. Penguins invented the vaccine on the moon [2].

## How does it work

Ribosomes translate the mRNA into the spike protein of the virus [1]. Lipid nanoparticles carry the fragile mRNA into muscle cells [1].

## Is it safe

## Sources

[1] A. web, library. <https://example.org/a>
[2] B. web, library. <https://example.org/b>
"""
CLAIMS = [
    CheckedClaim(
        n=2, sentence="Penguins invented the vaccine on the moon.", source_id="b", verdict="unsupported", score=0.1
    ),
    CheckedClaim(
        n=1,
        sentence="Lipid nanoparticles carry the fragile mRNA into muscle cells.",
        source_id="a",
        verdict="supported",
        score=1.0,
    ),
]
QUESTIONS = ["How does it work?", "Is it safe?"]


def _off_question(n: int, sentence: str, source_id: str, section: str) -> CheckedClaim:
    """A claim its source supports, failed because it does not answer its section's question."""
    return CheckedClaim(
        n=n,
        sentence=sentence,
        source_id=source_id,
        verdict="unsupported",
        score=1.0,
        section=section,
        failure="off_question",
    )


def test_finds_unsupported_repeated_and_unanswered() -> None:
    issues = find_issues(DRAFT, CLAIMS, QUESTIONS)
    assert issues.unsupported == ["Penguins invented the vaccine on the moon."]
    assert issues.repeated == ["Lipid nanoparticles carry the fragile mRNA into muscle cells [1]."]
    assert issues.unanswered == ["Is it safe?"]
    assert "Penguins" in issues.instruction() and "Is it safe?" in issues.instruction()


def test_the_offline_reviser_drops_and_lists_with_reasons() -> None:
    revised, reasons = revise_offline(DRAFT, find_issues(DRAFT, CLAIMS, QUESTIONS))
    assert "Penguins" not in revised
    assert revised.count("Lipid nanoparticles carry the fragile mRNA") == 1  # the first stays, the repeat goes
    assert revised.index("Lipid nanoparticles") < revised.index("## How does it work")
    assert "Ribosomes translate" in revised
    assert revised.rstrip().endswith("## Known gaps\n\n- Is it safe?")
    assert len(reasons) == 3 and reasons[0].startswith("Removed an unsupported claim")
    assert any(r.startswith("Removed a repeated sentence") for r in reasons)


def test_a_clean_draft_has_no_issues() -> None:
    clean = "# T\n\n## Summary\n\nOne claim here about things [1].\n\n## Q\n\nAnother, different sentence [1].\n"
    assert not find_issues(clean, [], ["Q?"]).any


def test_an_unsupported_claim_is_dropped_only_in_the_section_where_it_failed() -> None:
    draft = "# Vaccines\n\n## Summary\n\nVaccines carry mRNA [1].\n\n## Is it safe\n\nVaccines carry mRNA [1].\n"
    claims = [
        CheckedClaim(
            n=1, sentence="Vaccines carry mRNA.", source_id="a", verdict="supported", score=1.0, section="Summary"
        ),
        _off_question(1, "Vaccines carry mRNA.", "a", "Is it safe"),
    ]
    revised, reasons = revise_offline(draft, find_issues(draft, claims, []))
    assert revised.split("## Is it safe")[0].count("Vaccines carry mRNA [1].") == 1  # it answers the Summary
    assert "Vaccines carry mRNA" not in revised.split("## Is it safe")[1]
    assert reasons == ['Removed an unsupported claim: "Vaccines carry mRNA."']


def test_an_unsupported_claim_takes_its_uncited_lead_in_with_it() -> None:
    draft = (
        "# Painting\n\n## How did painting change\n\n"
        "Monet painted outdoors in changing light [1]. Caillebotte painted a rainy Paris street in 1877. "
        "Together these painters made modern life a subject [2].\n"
    )
    claims = [_off_question(2, "Together these painters made modern life a subject.", "b", "How did painting change")]
    revised, _ = revise_offline(draft, find_issues(draft, claims, []))
    assert "Monet painted outdoors in changing light [1]." in revised
    assert "Caillebotte" not in revised and "Together" not in revised  # no uncited sentence is left behind

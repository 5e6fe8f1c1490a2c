"""A written draft in its report shape: the brief's key points, the outline, the trim to a target
length and the plain note when the evidence falls short; the claim check and the reviewer read a
brief's bullet as an answer to the question in its bold lead."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research.drafts.claims import cited_sentences
from research.drafts.report_form import bullet_lead, shape_draft, word_count
from research.drafts.review import find_issues
from research.report_shape import ReportShape

QUESTIONS = ["How do lipid nanoparticles deliver mRNA", "What adverse events follow vaccination"]
DRAFT = """# How do mRNA vaccines work?

## Summary

Cells read mRNA and make one viral protein [1]. The immune system then remembers that protein [2].

## How do lipid nanoparticles deliver mRNA

Lipid nanoparticles wrap the fragile mRNA in ionizable lipids [1]. Cells near the injection site take the particles up [1]. Inside the cell the lipids release the mRNA [3].

## What adverse events follow vaccination

Myocarditis was reported mostly in young men after the second dose [2]. Most cases resolved with rest [2].

## Known gaps

- Long-term follow-up
"""


def test_standard_with_no_target_leaves_the_draft_as_written() -> None:
    shaped = shape_draft(DRAFT, ReportShape())
    assert shaped.markdown == DRAFT and shaped.note == ""
    assert shaped.words == word_count(DRAFT) == 57  # prose only: no headings, markers or known gaps


def test_brief_is_the_summary_then_one_key_point_per_question() -> None:
    brief = shape_draft(DRAFT, ReportShape(shape="brief")).markdown
    assert "## Key points" in brief and f"## {QUESTIONS[0]}" not in brief
    assert f"- **{QUESTIONS[0]}**: Lipid nanoparticles wrap the fragile mRNA in ionizable lipids [1]." in brief
    assert f"- **{QUESTIONS[1]}**: Myocarditis was reported mostly in young men after the second dose [2]." in brief
    assert "Most cases resolved" not in brief and "Cells read mRNA" in brief
    assert brief.rstrip().endswith("## Known gaps\n\n- Long-term follow-up")
    # Each key point is still a claim about its own question, for the claim check and the reviewer.
    sections = {c.claim: c.section for c in cited_sentences(brief)}
    assert sections["Myocarditis was reported mostly in young men after the second dose."] == QUESTIONS[1]
    assert find_issues(brief, [], QUESTIONS).unanswered == []


def test_a_brief_over_its_target_keeps_a_key_point_per_question() -> None:
    longer = " ".join(["The particles were refined over three decades of laboratory work on lipids [3]."] * 4)
    draft = DRAFT.replace("remembers that protein [2].", f"remembers that protein [2]. {longer}")
    brief = shape_draft(draft, ReportShape(shape="brief", target_words=50)).markdown
    assert word_count(brief) <= 55 and "refined over three decades" not in brief  # the summary gave way
    assert all(f"- **{q}**: " in brief for q in QUESTIONS)  # each question keeps its one answer


def test_outline_lists_the_sections_before_them() -> None:
    outline = shape_draft(DRAFT, ReportShape(shape="outline")).markdown
    head, body = outline.split("## Summary", 1)
    assert "## Outline\n\n1. Summary (2 sources)\n2. How do lipid nanoparticles deliver mRNA (2 sources)" in head
    assert "3. What adverse events follow vaccination (1 source)" in head
    assert "Known gaps" not in head and body.count("[1]") == 3
    assert cited_sentences(outline) == cited_sentences(DRAFT)  # the outline holds no claims


def test_a_draft_over_its_target_loses_its_last_cited_sentences_longest_section_first() -> None:
    shaped = shape_draft(DRAFT, ReportShape(target_words=50))
    assert shaped.words <= 50 and shaped.note == ""
    assert "Inside the cell the lipids release the mRNA [3]." not in shaped.markdown
    assert "Lipid nanoparticles wrap the fragile mRNA" in shaped.markdown  # each section keeps its best


def test_a_draft_short_of_its_target_says_so_rather_than_pad() -> None:
    shaped = shape_draft(DRAFT, ReportShape(target_words=600))
    assert shaped.words == 57
    assert shaped.note.startswith("About 57 words of the 600 asked for: the sources gathered hold no more")
    assert shaped.markdown.startswith(f"# How do mRNA vaccines work?\n\n_{shaped.note}_\n")
    assert cited_sentences(shaped.markdown) == cited_sentences(DRAFT)  # nothing added to fill the length


def test_the_layout_follows_the_shape_the_target_and_the_reply_cap() -> None:
    assert ReportShape().layout(3).section_count == "2-4"  # the desk's long-standing section
    assert ReportShape(shape="brief").layout(3).section_sentences == 1
    detailed = ReportShape(shape="detailed").layout(3)
    assert detailed.section_sentences == 8 and detailed.passages == 8 and detailed.per_source == 3
    long = ReportShape(target_words=1200).layout(3)
    assert long.section_sentences > 8 and not long.capped
    capped = ReportShape(target_words=1200).layout(3, reply_tokens=200)
    assert capped.capped and capped.section_sentences == 2
    note = shape_draft(DRAFT, ReportShape(target_words=1200), capped).note
    assert "the writer's reply cap holds each section" in note


@pytest.mark.parametrize("target", [10, 49, 3001])
def test_a_target_outside_the_bounds_is_refused(target: int) -> None:
    with pytest.raises(ValidationError):
        ReportShape(target_words=target)


def test_a_bullet_lead_is_read_in_linear_time_and_only_from_a_bold_lead() -> None:
    assert bullet_lead("- **Is it safe**: Yes [1].") == ("Is it safe", "Yes [1].")
    assert bullet_lead("- plain item") is None and bullet_lead("**Not a bullet**: text") is None
    assert bullet_lead("- **" + "*" * 50_000) is None  # bounded, no backtracking blow-up

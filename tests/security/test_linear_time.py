"""Every text path that reads outside text is linear-time: the
Markdown and HTML import, the researcher's notes, the writer's guards, the sanitiser and the
renderers (the draft panel, the exports), each fed the inputs that made the old patterns
quadratic or cubic. 2x the input may cost at most 3x the time (tests/security/linear.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from research.brains.offline.offline_brain import OfflineBrain
from research.drafts.citations import check_citations
from research.drafts.guard import repair_draft
from research.drafts.inert import inert_markdown
from research.export import markdown_blocks as md
from research.schemas.state_shapes import ResearcherTask, Source
from research.sources.library import text_readers
from research.sources.providers.html_text import html_to_text
from tests.security.linear import growth
from ui.text import draft_markdown


def repeated(unit: str) -> Callable[[int], str]:
    """An input of `n` copies of `unit`."""
    return lambda n: unit * n


# The inputs that broke the regex readers: a heading then a run of spaces (cubic), unclosed
# emphasis and image openers (quadratic), and what else CommonMark parsers are known to choke on.
MARKDOWN: dict[str, Callable[[int], str]] = {
    "heading then spaces": lambda n: "# a" + " " * n + "b",
    "unclosed emphasis": repeated("*a "),
    "unclosed strong": repeated("**a "),
    "unclosed underscores": repeated("_a "),
    "image openers": repeated("![a"),
    "link openers": repeated("[a"),
    "open brackets": repeated("["),
    "unclosed destinations": repeated("[a]("),
    "nested brackets": lambda n: "[" * n + "a" + "]" * n,
    "backticks": repeated("`a"),
    "angle brackets": repeated("<a"),
    "entities": repeated("&#"),
    "directives": repeated(":red["),
    "quotes": lambda n: "> " * n + "a",
    "list markers": lambda n: "- " * n + "a",
    "reference definitions": repeated("[a]: <"),
    "table pipes": lambda n: "|a" * n + "\n|-|\n" + "|a" * n,
    "many lines": repeated("a\n"),
}
HTML: dict[str, Callable[[int], str]] = {
    "closing openers": repeated("</"),
    "declarations": repeated("<!"),
    "attributes": lambda n: "<a " + "b=c " * n,
    "open tags": repeated("<p>a"),
    "nested divs": lambda n: "<div>" * n + "x",
    "comments": lambda n: "<!--" + "a" * n,
}
PLAIN: dict[str, Callable[[int], str]] = {
    "one long sentence": repeated("lipid mrna "),
    "many sentences": repeated("Lipid nanoparticles carry mRNA. "),
    "abbreviations": repeated("Mr. e.g. i.e. "),
    "numbers and dots": repeated("1.2.3. "),
    "citations": repeated("mRNA [1][2] "),
    "urls": repeated("mRNA http://a.b/c "),
    "spaces then text": lambda n: "mRNA" + " " * n + "x.",
}


def _check(fn: Callable[[str], object], make: Callable[[int], str]) -> None:
    ratio = growth(fn, make)
    assert ratio <= 3.0, f"2x the input took {ratio:.1f}x the time"


@pytest.mark.parametrize("form", sorted(MARKDOWN))
def test_markdown_import_is_linear(form: str) -> None:
    _check(text_readers.markdown_body, MARKDOWN[form])


@pytest.mark.parametrize("form", sorted(MARKDOWN))
def test_the_sanitiser_is_linear(form: str) -> None:
    _check(inert_markdown, MARKDOWN[form])


@pytest.mark.parametrize("form", sorted(MARKDOWN))
def test_rendering_the_draft_is_linear(form: str) -> None:
    def render(text: str) -> None:
        shown = draft_markdown(text)  # the draft panel
        for block in md.parse_blocks(inert_markdown(text)):  # the DOCX and PDF exports
            for inline in getattr(block, "items", None) or [getattr(block, "text", "")]:
                md.parse_inline(inline)
        assert shown is not None

    _check(render, MARKDOWN[form])


@pytest.mark.parametrize("form", sorted(HTML))
def test_html_import_and_page_text_are_linear(form: str) -> None:
    _check(lambda text: text_readers.html_page(text.encode()), HTML[form])
    _check(html_to_text, HTML[form])  # the scraper's fallback, in the research process


@pytest.mark.parametrize("form", sorted(PLAIN))
def test_the_researchers_notes_are_linear(form: str) -> None:
    brain = OfflineBrain()
    task = ResearcherTask(researcher_id="web-1", kind="web", question="How does lipid mRNA work?", topic="lipid mRNA")
    source = Source(id="s1", title="Lipid mRNA", url="library://x", kind="web", provider="library")
    _check(lambda text: brain.notes(task, [source], lambda _id: text), PLAIN[form])


@pytest.mark.parametrize("form", sorted(PLAIN | MARKDOWN))
def test_the_writers_guards_are_linear(form: str) -> None:
    make = (PLAIN | MARKDOWN)[form]

    def guard(text: str) -> None:
        repaired = repair_draft(text, {1}, {"https://example.org/a"})
        check_citations(repaired.text + "\n\n## Sources\n\n[1] A. <https://example.org/a>\n")

    _check(guard, make)


# Topic understanding and revision instructions read what a user typed: a long run of whitespace
# must not make their patterns try every start inside it.
TOPIC_PATTERNS: dict[str, Callable[[str], object]] = {
    "subject trailing verb": lambda text: _subject_trailing(text),
    "comparison context": lambda text: _comparison_context(text),
    "instruction clause end": lambda text: _clause_end(text),
}


def _subject_trailing(text: str) -> object:
    from research.topic.subject import _TRAILING

    return _TRAILING.sub("", text)


def _comparison_context(text: str) -> object:
    from research.topic.question_forms import _CONTEXT

    return _CONTEXT.search(text)


def _clause_end(text: str) -> object:
    from research.brains.offline.revise_instructions import _CLAUSE_END

    return _CLAUSE_END.split(text, maxsplit=1)


@pytest.mark.parametrize("pattern", sorted(TOPIC_PATTERNS))
def test_topic_and_instruction_patterns_are_linear_on_whitespace_runs(pattern: str) -> None:
    _check(TOPIC_PATTERNS[pattern], lambda n: "Rust" + " " * n + "x")

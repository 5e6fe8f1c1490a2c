"""The one sanitiser (research/drafts/sanitiser.py): every CommonMark form that would load a remote
image or follow a non-http link is text after it, in the draft panel's Markdown, "Download vN" and
every export."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from research.drafts.inert import inert_markdown
from research.export import markdown_blocks as md
from research.export.run_export import export_run
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.security.commonmark_forms import data_link, hostile_draft, image_forms, live_markup
from ui.text import download_markdown, draft_markdown

BASE = "http://127.0.0.1:9"
IMAGES = ("nested.png", "newline.png", "quote.png", "list.png", "escaped.png")  # the five forms' addresses


@pytest.mark.parametrize("form", sorted(image_forms(BASE)))
def test_each_image_form_becomes_its_alt_text(form: str) -> None:
    source = image_forms(BASE)[form]
    assert live_markup(source), "the form is live before sanitising"
    out = inert_markdown(source)
    assert live_markup(out) == [], out
    assert BASE not in out


def test_a_data_link_with_brackets_in_its_text_is_text() -> None:
    out = inert_markdown(data_link())
    assert live_markup(out) == [] and "data:" not in out
    assert "d [e] f" in out.replace("\\", "")


def test_what_the_allow_list_keeps() -> None:
    text = (
        "# Title\n\n## Part *one*\n\nA [link](https://example.org/a) and <https://example.org/b>, "
        "**bold**, `code`, ~~gone~~ [1].\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n"
        "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```\nx = 1\n```\n\n## Sources\n\n[1] A title. <https://example.org/s>\n"
    )
    out = inert_markdown(text)
    for kept in ("# Title", "## Part *one*", "[link](https://example.org/a)", "<https://example.org/b>",
                 "**bold**", "`code`", "~~gone~~", "[1]", "- one", "1. first", "> quoted", "| 1 | 2 |",
                 "```\nx = 1\n```", "[1] A title. <https://example.org/s>"):  # fmt: skip
        assert kept in out, kept
    assert inert_markdown(out) == out  # a sanitised draft is left as it is


@pytest.mark.parametrize(
    "text",
    [
        "a :red[b] c",  # a Streamlit directive
        "a ![x](http://h/p.png) b",
        "a [b](javascript:alert(1)) c",
        "a [b](<data:text/html,x>) c",
        "<img src=http://h/p.png>",
        "<https://ok.example> <javascript:alert(1)>",
        "[a]![(x)](http://h/p.png)",  # the alt text "(x)" after "[a]" would make a link
        "[a]: http://h/p.png\n\n![a]",
        "\\# not a heading\n\n\\- not a list\n\n1\\. not a list",
    ],
)
def test_every_output_is_a_fixed_point_with_nothing_live(text: str) -> None:
    out = inert_markdown(text)
    assert live_markup(out) == [], out
    assert live_markup(draft_markdown(text)) == []


def test_the_markdown_export_docx_and_pdf_and_download_carry_no_live_markup(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None, data_dir=tmp_path / "data", log_dir=tmp_path / "logs", sources="library", llm="offline"
    )
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="100"))
    runner.store.save_draft_version(run_id, hostile_draft(BASE), note="hostile edit")

    exported = export_run(runner.store, run_id, "md").data.decode("utf-8")
    assert live_markup(exported) == [] and not any(name in exported for name in IMAGES)
    assert live_markup(download_markdown(runner.store.latest_draft(run_id).markdown)) == []

    from docx import Document

    document = Document(io.BytesIO(export_run(runner.store, run_id, "docx").data))
    body = "\n".join(p.text for p in document.paragraphs)
    assert "a [b] c" in body and not any(name in body for name in IMAGES)  # the alt text, never the address
    targets = [r.target_ref for r in document.part.rels.values() if r.is_external]
    assert all(t.startswith(("http://", "https://")) and not t.endswith(IMAGES) for t in targets), targets
    assert export_run(runner.store, run_id, "pdf").data.startswith(b"%PDF-")


def test_export_blocks_never_carry_a_non_http_link() -> None:
    runs = [r for block in md.parse_blocks(inert_markdown(hostile_draft(BASE))) if isinstance(block, md.Paragraph)
            for r in md.parse_inline(block.text)]  # fmt: skip
    assert runs and all(r.url is None or r.url.startswith(("http://", "https://")) for r in runs)
    assert not any(r.url and r.url.endswith(IMAGES) for r in runs)


@pytest.mark.parametrize("text", ["*" * 2000 + "![" + "*" * 1000, "**a" * 3000 + "**" * 3000, "> " * 3000 + "a"])
def test_deep_nesting_is_cut_off_not_a_crash(text: str) -> None:
    """Emphasis nests past the parser's maxNesting (found by `make fuzz`): flattened to text."""
    from research.sources.library.text_readers import markdown_body

    out = inert_markdown(text)
    assert live_markup(out) == []
    assert isinstance(markdown_body(text)["text"], str)
    for block in md.parse_blocks(out):
        md.parse_inline(getattr(block, "text", ""))

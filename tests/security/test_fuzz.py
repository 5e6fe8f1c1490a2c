"""Generated hostile inputs against the importers: bundles, documents and library
queries. Every input is refused with the importer's own error or accepted and then readable by
every reader; nothing else may escape. Bounded here (a few dozen examples each); `make fuzz` runs
the same properties with HYPOTHESIS_PROFILE=fuzz for many more."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.export.run_export import export_run
from research.runs.bundle import BundleError, import_bundle
from research.runs.store import RunStore
from research.runs.view import fold, to_json
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.library.readers import SUPPORTED_SUFFIXES, UnreadableFile, parse_file
from tests.security.fuzzing import offline_bundle_document

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=25,
)


@pytest.fixture(scope="module")
def bundle_document(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return offline_bundle_document(tmp_path_factory.mktemp("fuzz"), allocation="110")


def _mutate(document: dict, data: st.DataObject) -> dict:
    """One to four random changes; a change whose target an earlier one replaced is skipped."""
    doc = json.loads(json.dumps(document))
    for _ in range(data.draw(st.integers(1, 4))):
        target = data.draw(st.sampled_from(["event", "run", "top", "text"]))
        # Earlier mutations may have replaced a part with any JSON value: mutate only what is still a container.
        events = doc.get("events")
        if target == "event" and isinstance(events, list) and events and isinstance(events[0], dict):
            event = events[data.draw(st.integers(0, len(events) - 1))]
            if not isinstance(event, dict):
                continue
            inner = event.get("data")
            box = inner if data.draw(st.booleans()) and isinstance(inner, dict) and inner else event
            key = data.draw(st.sampled_from(sorted(box)) | st.text(max_size=8))
            box[key] = data.draw(JSON)
        elif target == "run" and isinstance(doc.get("run"), dict) and doc["run"]:
            doc["run"][data.draw(st.sampled_from(sorted(doc["run"])))] = data.draw(JSON)
        elif target == "top":
            doc[data.draw(st.sampled_from(["version", "events", "drafts", "source_texts", "format", "junk"]))] = (
                data.draw(JSON)
            )
        elif target == "text" and isinstance(doc.get("source_texts"), dict):
            doc["source_texts"][data.draw(st.text(max_size=10))] = data.draw(st.text(max_size=200))
    return doc


@given(data=st.data())
def test_hostile_bundles_are_refused_or_fully_readable(bundle_document: dict, tmp_path_factory, data) -> None:
    document = _mutate(bundle_document, data)
    raw = json.dumps(document).encode()
    if data.draw(st.booleans()):
        raw = gzip.compress(raw)
    store = RunStore(tmp_path_factory.mktemp("bundle") / "runs.sqlite")
    try:
        run_id = import_bundle(store, raw)
    except BundleError:
        assert store.list_runs() == []  # refused before anything was written
        return
    view = fold(store.events(run_id))
    to_json(view)
    for fmt in ("md", "csv", "bib"):
        try:
            export_run(store, run_id, fmt)
        except Exception as exc:  # noqa: BLE001 - only the documented refusal is allowed
            assert type(exc).__name__ == "ExportError", exc


@given(
    suffix=st.sampled_from(SUPPORTED_SUFFIXES),
    body=st.binary(max_size=3000),
    prefix=st.sampled_from(
        [b"", b"%PDF-1.4\n", b"PK\x03\x04", b"---\ntitle: x\n---\n", b"<html><body>", b"\xef\xbb\xbf"]
    ),
)
def test_hostile_documents_are_refused_with_a_reason_or_imported(suffix: str, body: bytes, prefix: bytes) -> None:
    try:
        doc = parse_file(f"f{suffix}", prefix + body, kind="web", url="library://fuzz/x")
    except UnreadableFile as exc:
        assert str(exc)
        return
    assert doc.text.strip() and doc.title


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    lib = Library(tmp_path_factory.mktemp("fuzz-lib") / "library.sqlite")
    lib.ensure_sample()
    return lib


@given(query=st.text(max_size=300))
def test_hostile_queries_never_break_the_library(library: Library, query: str) -> None:
    for hit in library.search(query, limit=5):
        assert hit.title
    LibraryProvider(library, "academic").search(query, limit=3)


# --- ReDoS and CommonMark forms ---------------------------------------------------------

# Pieces of Markdown that open images, links, definitions, HTML, emphasis and directives, so the
# generated texts are made of the constructs a sanitiser must get right (and the inputs that made
# the old patterns backtrack: long runs of one opener).
MARKDOWN_PIECES = st.sampled_from(
    ["![", "[", "]", "(", ")", "<", ">", "\n", "\n\n", "> ", "- ", "1. ", "*", "_", "`", "\\", ":", "a", " ",
     "http://127.0.0.1:9/t.png", "data:text/html,x", "javascript:alert(1)", "<img src=x>", "[r]: ", "#",
     ":red[", "&#", "|", "~", "!", "\t", "    "]
)  # fmt: skip
MARKDOWN_TEXT = st.lists(MARKDOWN_PIECES, max_size=60).map("".join) | st.text(max_size=300)


@given(text=MARKDOWN_TEXT)
def test_the_sanitiser_leaves_nothing_live_in_any_markdown(text: str) -> None:
    from research.drafts.inert import inert_markdown
    from tests.security.commonmark_forms import live_markup
    from ui.text import draft_markdown

    out = inert_markdown(text)
    assert live_markup(out) == [], (text, out)
    assert live_markup(inert_markdown(out)) == []
    assert live_markup(draft_markdown(text)) == []


@given(text=MARKDOWN_TEXT)
def test_the_export_blocks_link_only_http(text: str) -> None:
    from research.drafts.inert import inert_markdown
    from research.export import markdown_blocks as md

    for block in md.parse_blocks(inert_markdown(text)):
        for inline in getattr(block, "items", None) or [getattr(block, "text", "")]:
            for run in md.parse_inline(inline):
                assert run.url is None or run.url.startswith(("http://", "https://")), run


@given(piece=MARKDOWN_PIECES, times=st.integers(200, 5000), other=MARKDOWN_TEXT)
def test_long_runs_of_one_opener_are_read_by_every_text_path(piece: str, times: int, other: str) -> None:
    """A run of one construct (the ReDoS shape) around generated Markdown: the import's readers,
    the sanitiser and the page-text converter all finish (their growth is tests/security/test_linear_time.py)."""
    from research.drafts.inert import inert_markdown
    from research.sources.library import text_readers
    from research.sources.providers.html_text import html_to_text

    text = piece * times + other + piece * (times // 2)
    assert isinstance(text_readers.markdown_body(text)["text"], str)
    assert isinstance(text_readers.html_page(text.encode())["text"], str)
    assert isinstance(html_to_text(text), str)
    assert live_markup_free(inert_markdown(text))


def live_markup_free(markdown: str) -> bool:
    from tests.security.commonmark_forms import live_markup

    return live_markup(markdown) == []

""" "Export": the latest draft as Markdown, DOCX or PDF (with its numbered Sources list), the sources
as CSV or BibTeX, and the whole run as one file to replay on another machine.

Files are built by research/export.py only when a button is clicked (deferred downloads), so a
40-page PDF never slows the page down; file names are safe whatever the topic.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from research.api import BUNDLE_EXTENSION, EXPORT_FORMATS, RunStore, export_bundle, export_run, safe_filename

# (format, button label, icon): the labels people and tests rely on.
BUTTONS = (
    ("md", "Download Markdown", ":material/markdown:"),
    ("docx", "Download DOCX", ":material/description:"),
    ("pdf", "Download PDF", ":material/picture_as_pdf:"),
    ("csv", "Download sources (CSV)", ":material/table_view:"),
    ("bib", "Download BibTeX", ":material/format_quote:"),
    ("claims", "Download claim check (CSV)", ":material/fact_check:"),
)


def download_name(topic: str, fmt: str) -> str:
    """The file name research/export.py gives this format (tests check the two agree)."""
    return safe_filename(topic, "sources.csv" if fmt == "csv" else EXPORT_FORMATS[fmt].extension)


def file_builder(store: RunStore, run_id: str, fmt: str) -> Callable[[], bytes]:
    return lambda: export_run(store, run_id, fmt).data


def render(store: RunStore, run_id: str, topic: str, *, has_draft: bool) -> None:
    with st.container(border=True, key=f"export-{run_id}"):
        st.markdown("#### :material/ios_share: Export")
        row = st.container(horizontal=True, gap="small", key=f"export-buttons-{run_id}")
        for fmt, label, icon in BUTTONS:
            info = EXPORT_FORMATS[fmt]
            name = download_name(topic, fmt)
            missing = info.needs_draft and not has_draft
            row.download_button(
                label,
                file_builder(store, run_id, fmt),
                file_name=name,
                mime=info.mime,
                icon=icon,
                key=f"export-{fmt}-{run_id}",
                on_click="ignore",
                disabled=missing,
                help="This run has no draft." if missing else f"Saves {name}",
            )
        bundle_name = safe_filename(topic, BUNDLE_EXTENSION)
        row.download_button(
            "Download run file",
            lambda: export_bundle(store, run_id),
            file_name=bundle_name,
            mime="application/gzip",
            icon=":material/package_2:",
            key=f"export-bundle-{run_id}",
            on_click="ignore",
            help=f"Saves {bundle_name}: events, sources and drafts, to import and replay elsewhere.",
        )
        st.caption(
            "Documents are the latest draft version with its numbered Sources list; "
            "CSV and BibTeX list every source the run found, cited ones first; the claim check "
            "lists each cited sentence with its verdict and passage."
        )

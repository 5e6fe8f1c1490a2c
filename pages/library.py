"""Library: what the offline researchers can find, a search box, and uploads with a kind."""

import pandas as pd
import streamlit as st

from research.api import RESEARCHER_KINDS, SUPPORTED_SUFFIXES, Library, import_bytes
from ui import auth
from ui.app_entry import ensure_app_entry
from ui.resources import get_manager, load_settings
from ui.text import KIND_LABELS, kind_icon, md_escape

ensure_app_entry()  # first: a page must never draw outside the app (see ui/app_entry.py)

library = get_manager(load_settings()).library


def _import(target: Library) -> None:
    """Form callback: runs before the page is drawn, so the counts above include the new files."""
    if not auth.may_change_things():  # the form is not drawn for them; refuse a replayed submit too
        return
    imported, skipped = [], []
    for file in st.session_state.get("library-files") or []:
        report = import_bytes(target, file.name, file.getvalue(), st.session_state["library-kind"])
        imported += [doc.title for doc in report.imported]
        skipped += [(s.name, s.reason) for s in report.skipped]
    st.session_state["library-import"] = (imported, skipped)


st.title(":material/library_books: Library", anchor=False)
st.caption(
    "The local documents every researcher searches when there is no network "
    "(and as a fallback when a live provider fails)."
)

counts = library.counts()
columns = st.columns(len(RESEARCHER_KINDS) + 1)
for column, kind in zip(columns, RESEARCHER_KINDS, strict=False):
    column.metric(f"{kind_icon(kind)} {KIND_LABELS[kind]}", counts.get(kind, 0))
columns[-1].metric(":material/functions: Total", sum(counts.values()))

search_col, upload_col = st.columns([2, 1], gap="large")
with search_col:
    st.subheader(":material/search: Search", anchor=False)
    query_col, kind_col = st.columns([3, 1], vertical_alignment="bottom")
    query = query_col.text_input("Search the library", placeholder="e.g. lipid nanoparticles")
    kinds: list[str] = ["all", *RESEARCHER_KINDS]
    chosen = kind_col.selectbox("Kind", kinds, format_func=lambda k: KIND_LABELS.get(k, "All kinds"))
    kind_filter = next((k for k in RESEARCHER_KINDS if k == chosen), None)  # None: all kinds
    if query.strip():
        hits = library.search(query, kind=kind_filter, limit=20)
        rows = [
            {
                "Title": h.title,
                "Kind": h.kind,
                "Authors": ", ".join(h.authors),
                "Year": h.year,
                "Relevance": round(h.score, 2),
                "Opening": " ".join(h.text.split())[:240],
            }
            for h in hits
        ]
        st.caption(f"{len(rows)} matching documents")
        frame = pd.DataFrame(rows, columns=["Title", "Kind", "Authors", "Year", "Relevance", "Opening"])
    else:
        docs = library.list_documents(kind_filter, limit=100)
        st.caption("Newest documents first")
        frame = pd.DataFrame(
            [
                {
                    "Title": d.title,
                    "Kind": d.kind,
                    "Authors": ", ".join(d.authors),
                    "Year": d.year,
                    "Topic": d.topic,
                    "Sample": d.sample,
                    "Characters": d.chars,
                }
                for d in docs
            ],
            columns=["Title", "Kind", "Authors", "Year", "Topic", "Sample", "Characters"],
        )
    frame["Year"] = frame["Year"].astype("Int64")
    st.dataframe(
        frame,
        hide_index=True,
        height=420,
        column_config={
            "Title": st.column_config.TextColumn(width="large"),
            "Year": st.column_config.NumberColumn(format="%d"),
        },
    )

with upload_col:
    st.subheader(":material/upload_file: Add documents", anchor=False)
    if auth.require_user("add documents"):
        with st.form("library-upload", clear_on_submit=True, border=True):
            st.file_uploader(
                "Documents",
                accept_multiple_files=True,
                key="library-files",
                help=f"Supported: {', '.join(SUPPORTED_SUFFIXES)}. Anything else is refused with the reason.",
            )
            st.selectbox(
                "Add as",
                RESEARCHER_KINDS,
                key="library-kind",
                format_func=lambda k: f"{KIND_LABELS[k]} documents",
            )
            st.form_submit_button("Import", type="primary", icon=":material/upload:", on_click=_import, args=(library,))
    outcome = st.session_state.pop("library-import", None)
    if outcome is not None:
        imported, skipped = outcome
        if not imported and not skipped:
            st.warning("Choose at least one file to import.", icon=":material/info:")
        if imported:
            st.success("Imported: " + "; ".join(md_escape(title) for title in imported), icon=":material/check_circle:")
        for name, reason in skipped:
            st.error(f"**{md_escape(name)}** was not imported: {md_escape(reason)}", icon=":material/block:")

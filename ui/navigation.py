"""The app's pages and the sidebar links to them.

Streamlit lists a `pages/` folder in the sidebar on its own, before the entry script has run; that
listing flashed on first load and opened pages without the app's layout. `.streamlit/config.toml`
turns it off (`client.showSidebarNavigation = false`), `st.navigation(..., position="hidden")`
routes, and these `st.page_link`s are the only navigation a person sees.
"""

from __future__ import annotations

import streamlit as st

# (script, title, icon); the first page is the default.
PAGES = (
    ("pages/research.py", "Research", ":material/travel_explore:"),
    ("pages/compare.py", "Compare", ":material/compare_arrows:"),
    ("pages/history.py", "History", ":material/history:"),
    ("pages/library.py", "Library", ":material/library_books:"),
    ("pages/settings.py", "Settings", ":material/settings:"),
)


def build_pages() -> list[st.Page]:
    return [
        st.Page(script, title=title, icon=icon, default=i == 0) for i, (script, title, icon) in enumerate(PAGES)
    ]


def render_links(pages: list[st.Page]) -> None:
    with st.sidebar:
        with st.container(key="app-nav"):
            for page in pages:
                st.page_link(page, label=page.title, icon=page.icon, width="stretch")
        st.divider()

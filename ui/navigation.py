"""The app's pages and the sidebar links to them.

Streamlit lists a `pages/` folder in the sidebar on its own, before the entry script has run; that
listing flashed on first load and opened pages without the app's layout. `.streamlit/config.toml`
turns it off (`client.showSidebarNavigation = false`), `st.navigation(..., position="hidden")`
routes, and these `st.page_link`s are the only navigation a person sees. Code that links or switches
to a page asks `page(AppPage.X)` for its `st.Page`, never a path string.
"""

from __future__ import annotations

from enum import StrEnum

import streamlit as st


class AppPage(StrEnum):
    RESEARCH = "research"
    COMPARE = "compare"
    HISTORY = "history"
    LIBRARY = "library"
    SETTINGS = "settings"


# title and icon per page; the first is the default. Scripts live in pages/<name>.py.
_PAGES: dict[AppPage, tuple[str, str]] = {
    AppPage.RESEARCH: ("Research", ":material/travel_explore:"),
    AppPage.COMPARE: ("Compare", ":material/compare_arrows:"),
    AppPage.HISTORY: ("History", ":material/history:"),
    AppPage.LIBRARY: ("Library", ":material/library_books:"),
    AppPage.SETTINGS: ("Settings", ":material/settings:"),
}


def page(name: AppPage) -> st.Page:
    """The `st.Page` of one of the app's pages (for st.switch_page and st.page_link)."""
    title, icon = _PAGES[name]
    return st.Page(f"pages/{name.value}.py", title=title, icon=icon, default=name is AppPage.RESEARCH)


def build_pages() -> list[st.Page]:
    return [page(name) for name in _PAGES]


def render_links(pages: list[st.Page]) -> None:
    with st.sidebar:
        with st.container(key="app-nav"):
            for item in pages:
                st.page_link(item, label=item.title, icon=item.icon, width="stretch")
        st.divider()

"""Make sure a page runs inside the app (navigation, wide layout, sidebar), never on its own.

Streamlit still has its older multipage mode for apps with a `pages/` folder: until the first
`st.navigation` call in a process, it runs a requested page's script directly. So the first
request of a fresh server for a page URL (a bookmark, a refresh of `/history?run=...` after a
restart) drew that page bare: no sidebar, narrow layout. Every page calls `ensure_app_entry()`
first; in that case it switches the process to the app's own navigation (what `st.navigation`
does) and reruns, so the entry script draws the page with the app around it.
"""

from __future__ import annotations

import streamlit as st
from streamlit import config


def ensure_app_entry() -> None:
    if config.get_option("global.appTest"):  # read through the module: AppTest patches it there
        return  # AppTest resets the mode before every run (its own harness), and reruns would drop clicks
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the older mode: nothing to do
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()

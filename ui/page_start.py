"""How a page opens: inside the app (see ui/app_entry.py), with the settings and the shared run
manager, under its title and one-line caption."""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from research.api import RunControl, Settings
from ui.app_entry import ensure_app_entry
from ui.resources import get_manager, load_settings


class OpenedPage(NamedTuple):
    settings: Settings
    manager: RunControl


def open_page(title: str, caption: str) -> OpenedPage:
    ensure_app_entry()  # first: a page must never draw outside the app
    settings = load_settings()
    manager = get_manager(settings)
    st.title(title, anchor=False)
    st.caption(caption)
    return OpenedPage(settings, manager)

"""Process-wide resources: the settings and the one run manager (a RunControl) every session shares.

The manager is cached per settings fingerprint (@st.cache_resource), so all browser sessions see
the same run threads (a refresh re-attaches to a live run) while tests that point
RESEARCH_DATA_DIR at a fresh temp dir get a fresh manager.
"""

from __future__ import annotations

import streamlit as st

from research.api import DatabaseUnavailable, RunControl, Settings, make_manager, settings_key
from ui.secrets_env import apply_streamlit_secrets


def load_settings() -> Settings:
    """Settings from secrets + environment, read on every script run (cheap, always current)."""
    apply_streamlit_secrets()
    return Settings()


@st.cache_resource(show_spinner=False, max_entries=8)
def _manager(fingerprint: str, _settings: Settings) -> RunControl:
    return make_manager(_settings)  # RESEARCH_SERVER_URL: a client of the LangGraph server


def get_manager(settings: Settings) -> RunControl:
    """The shared manager; if the shared run database is unreachable, a clear message and the page
    stops (no traceback; nothing is cached, so the next script run tries again)."""
    try:
        return _manager(settings_key(settings), settings)  # a new key (or secret): a new manager
    except DatabaseUnavailable as exc:
        if settings.database_url is None:  # the local store's file is damaged or empty: the message names it
            st.error(f"{exc}.", icon=":material/error:")
        else:
            st.error(
                f"{exc}. Runs are kept there (RESEARCH_DATABASE_URL): check that the server is up and "
                "reachable, or unset the setting for the local SQLite store.",
                icon=":material/cloud_off:",
            )
        st.stop()
        raise  # st.stop() raises; this keeps type checkers sure nothing is returned

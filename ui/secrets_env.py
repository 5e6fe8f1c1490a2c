"""Map Streamlit secrets onto the environment names Settings reads, before Settings is built.

Accepted shapes in .streamlit/secrets.toml (see secrets.toml.example):
  OPENAI_API_KEY = "..."            top level, the names the SDKs read
  [research]                        a section; keys become RESEARCH_<KEY>
  sources = "library"
An environment variable that is already set wins, so tests and shells stay in control.
Values are never displayed or logged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from typing import Any

import streamlit as st

_TOP_LEVEL = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "GITHUB_TOKEN")


def secrets_to_env(secrets: Mapping[str, Any], environ: MutableMapping[str, str] = os.environ) -> list[str]:
    """Copy the recognised secrets into `environ`; returns the names set (never the values)."""
    updates: dict[str, object] = {}  # scalars as the secrets file gave them (str, bool, number)
    for key, value in secrets.items():
        name = str(key).upper()
        if isinstance(value, Mapping):
            if name == "RESEARCH":
                updates.update({f"RESEARCH_{str(k).upper()}": v for k, v in value.items() if _scalar(v)})
            continue
        if _scalar(value) and (name in _TOP_LEVEL or name.startswith("RESEARCH_")):
            updates[name] = value
    set_names = []
    for name, value in updates.items():
        if name not in environ:
            environ[name] = str(value).lower() if isinstance(value, bool) else str(value)
            set_names.append(name)
    return set_names


def apply_streamlit_secrets() -> None:
    """Load secrets.toml when there is one (no file is normal: offline defaults apply)."""
    try:
        if not st.secrets.load_if_toml_exists():
            return
        secrets_to_env(st.secrets.to_dict())
    except Exception:  # noqa: BLE001 - a broken secrets file must not take the dashboard down
        st.toast("Could not read .streamlit/secrets.toml; using environment settings.", icon=":material/warning:")


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))

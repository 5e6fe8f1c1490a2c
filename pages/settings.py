"""Settings: which keys are configured (never their values), provider checks, data dir and caps."""

import pandas as pd
import streamlit as st

from research.api import RESEARCHER_KINDS, check_providers, mask_url
from ui import auth
from ui.page_start import open_page
from ui.sidebar import SOURCE_MODES, brain_label
from ui.text import KIND_LABELS

settings, manager = open_page(
    ":material/settings: Settings",
    "Set keys in `.streamlit/secrets.toml` or the environment (`RESEARCH_*`, `OPENAI_API_KEY`, "
    "`TAVILY_API_KEY`); restart the app after changing them.",
)

if settings.server_url:  # remote mode: what is shown below is this dashboard's side only
    st.info(
        f"Remote mode: runs execute on the LangGraph server at `{mask_url(settings.server_url)}`, with the "
        "server's own keys, providers and library. This page shows this dashboard's settings.",
        icon=":material/cloud:",
    )

keys_col, limits_col = st.columns([2, 3], gap="large")
with keys_col:
    st.subheader(":material/key: Keys", anchor=False)
    configured = {
        "OpenAI API key": settings.openai_api_key,
        "OpenAI base URL": settings.openai_base_url,
        "Tavily API key": settings.tavily_api_key,
        "GitHub token": settings.github_token,
    }
    st.dataframe(
        pd.DataFrame([{"Key": name, "Configured": "yes" if value else "no"} for name, value in configured.items()]),
        hide_index=True,
    )
    st.markdown(f"**Brain:** {brain_label(settings)}")

with limits_col:
    st.subheader(":material/speed: Limits and storage", anchor=False)
    st.dataframe(
        pd.DataFrame(
            [
                {"Setting": "Data directory", "Value": str(settings.data_dir.resolve())},
                {"Setting": "Revision cap (analyst rounds)", "Value": str(settings.max_iterations)},
                {"Setting": "Researcher cap (per run)", "Value": str(settings.max_researchers)},
                {"Setting": "Results per query", "Value": str(settings.results_per_query)},
                {"Setting": "HTTP timeout", "Value": f"{settings.http_timeout:g} s"},
                {"Setting": "Demo pacing (per library search)", "Value": f"{settings.demo_delay:g} s"},
            ]
        ),
        hide_index=True,
    )

st.subheader(":material/lan: Sources", anchor=False)
st.markdown(f"**Mode:** {SOURCE_MODES.get(settings.sources, settings.sources)}")
st.dataframe(
    pd.DataFrame(
        [
            {"Kind": KIND_LABELS[kind], "Providers": ", ".join(manager.sources.describe(kind))}
            for kind in RESEARCHER_KINDS
        ]
    ),
    hide_index=True,
)
if settings.sources == "library":
    st.caption("Live providers are not used in library mode; the check below still contacts them.")
if auth.require_user("check connections") and st.button("Check connections", icon=":material/network_check:"):
    with st.spinner("Asking each live provider for one result…"):
        statuses = check_providers(settings, timeout=min(settings.http_timeout, 8.0))
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "Provider": s.name,
                    "Kind": KIND_LABELS.get(s.kind, s.kind),
                    "OK": s.ok,
                    "Answer": s.message,
                    "Time": f"{s.seconds:.1f} s",
                }
                for s in statuses
            ]
        ),
        hide_index=True,
        column_config={"OK": st.column_config.CheckboxColumn()},
    )

"""Compare: one topic with 2-4 allocations side by side (run now, or picked from History)."""

import streamlit as st

from ui import compare_session, compare_setup
from ui.app_entry import ensure_app_entry
from ui.compare_view import show
from ui.comparison_store import ComparisonStore
from ui.resources import get_manager, load_settings

ensure_app_entry()  # first: a page must never draw outside the app (see ui/app_entry.py)

settings = load_settings()
manager = get_manager(settings)
comparisons = ComparisonStore(manager.store)

st.title(":material/compare_arrows: Compare allocations", anchor=False)
st.caption(
    "Send the same topic out with different researcher allocations, or line up finished runs: "
    "sources, overlap, analyst verdicts, time and drafts side by side."
)

comparison = compare_session.attached(comparisons)
with st.expander("Set up a comparison", icon=":material/tune:", expanded=comparison is None):
    compare_setup.render(manager, comparisons, settings)

if comparison is None:
    st.info(
        "Choose a topic and two to four allocations, or pick finished runs, to compare them.",
        icon=":material/lightbulb:",
    )
else:
    show(manager, comparison)

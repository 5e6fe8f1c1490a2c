"""Research Desk: the dashboard's entry point (`streamlit run streamlit_app.py`).

Sets the page up, maps secrets onto settings, draws the sidebar and hands over to the chosen page.
"""

import streamlit as st

from ui import sidebar
from ui.resources import load_settings

st.set_page_config(page_title="Research Desk", page_icon=":material/travel_explore:", layout="wide")

settings = load_settings()
sidebar.render(settings)

pages = [
    st.Page("pages/research.py", title="Research", icon=":material/travel_explore:", default=True),
    st.Page("pages/history.py", title="History", icon=":material/history:"),
    st.Page("pages/library.py", title="Library", icon=":material/library_books:"),
    st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
]
st.navigation(pages, position="sidebar").run()

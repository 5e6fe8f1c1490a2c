"""Research Desk: the dashboard's entry point (`streamlit run streamlit_app.py`).

Sets the page up, routes to the chosen page (navigation first, so no script run shows anything
but the app's own layout), draws the sidebar links and status, then runs the page.
"""

import streamlit as st

from ui import auth, navigation, sidebar
from ui.resources import load_settings

st.set_page_config(page_title="Research Desk", page_icon=":material/travel_explore:", layout="wide")
auth.guard_exposure(load_settings())  # a desk on the network without a login serves nothing

pages = navigation.build_pages()
current = st.navigation(pages, position="hidden")
navigation.render_links(pages)
sidebar.render(load_settings())
auth.render_account()
current.run()

"""Compare (stub)."""
import streamlit as st
st.title("Compare", anchor=False)

"""Who may do what on a shared desk: Streamlit's own OIDC login (st.login) when `[auth]` is in
secrets, a signed-in user for the actions that change or spend (deleting a run, editing the
library, checking connections), and a desk that refuses to serve a non-loopback address without a
login unless RESEARCH_ALLOW_UNAUTHENTICATED=1 says that is intended.

Without `[auth]` the desk is a single-user tool on loopback: nobody can sign in, so the guarded
actions stay open there (the exposure check is what keeps such a desk off the network).
"""

from __future__ import annotations

import ipaddress
import time

import streamlit as st

from research.api import RunStore, Settings

DAY = 24 * 3600

LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}


def auth_configured() -> bool:
    try:
        section = st.secrets.get("auth")
    except Exception:  # noqa: BLE001 - no secrets file at all, or an unreadable one
        return False
    if not section:
        return False
    return bool(section.get("client_id") or any(isinstance(v, dict) for v in section.values()))


def signed_in_user() -> str | None:
    """The signed-in user's email (or name, or subject), None when nobody is signed in."""
    if not auth_configured():
        return None
    try:
        if not st.user.is_logged_in:
            return None
        return str(st.user.get("email") or st.user.get("name") or st.user.get("sub") or "signed-in user")
    except Exception:  # noqa: BLE001 - st.user outside a script run
        return None


def may_change_things() -> bool:
    """True when the guarded actions are allowed: a signed-in user, or a desk without a login."""
    return signed_in_user() is not None or not auth_configured()


def require_user(action: str) -> bool:
    """Draw a sign-in prompt instead of `action` when it needs a user; True when it may go on."""
    if may_change_things():
        return True
    st.info(f"Sign in to {action}.", icon=":material/lock:")
    st.button("Sign in", icon=":material/login:", key=f"sign-in-{action}", on_click=st.login)
    return False


def may_delete(started_by: str | None, settings: Settings) -> bool:
    """Deleting a run on a desk with a login: its owner (who started it) or an admin (RESEARCH_ADMINS)."""
    if not auth_configured():
        return True
    user = signed_in_user()
    if user is None:
        return False
    return user == started_by or user.lower() in settings.admin_emails


def spend_refusal(store: RunStore, settings: Settings, *, now: float | None = None) -> str | None:
    """Why the signed-in user may not spend model calls now (None when they may): not signed in on a
    desk with a login, or over their daily cap on the shared key (RESEARCH_USER_DAILY_LLM_CALLS)."""
    if not auth_configured():
        return None
    user = signed_in_user()
    if user is None:
        return "Sign in to start runs or revise drafts: they spend the desk's model key."
    cap = settings.user_daily_llm_calls
    if cap is None or settings.brain_kind() == "offline":
        return None
    used = store.model_calls_by(user, (time.time() if now is None else now) - DAY)
    if used >= cap:
        return f"Your daily model-call cap is reached ({used} of {cap} in the last 24 hours); try again later."
    return None


def require_spend(store: RunStore, settings: Settings, action: str) -> bool:
    """Draw why `action` may not spend (a sign-in prompt, or the cap) instead of it; True when it may."""
    refusal = spend_refusal(store, settings)
    if refusal is None:
        return True
    if signed_in_user() is None:
        return require_user(action)
    st.info(refusal, icon=":material/hourglass_top:")
    return False


def is_loopback(address: str | None) -> bool:
    if not address:
        return False  # Streamlit then listens on every interface
    if address in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_refusal(address: str | None, *, configured: bool, allowed: bool) -> str | None:
    """Why this desk must not serve on `address` (None when it may)."""
    if is_loopback(address) or configured or allowed:
        return None
    where = address or "every network interface"
    return (
        f"This desk listens on {where} without a login. Add an [auth] section (OpenID Connect) to "
        ".streamlit/secrets.toml so people sign in, serve it on 127.0.0.1, or set "
        "RESEARCH_ALLOW_UNAUTHENTICATED=1 if an open desk on the network is intended."
    )


def guard_exposure(settings: Settings) -> None:
    """Stop every page of a desk that is exposed without a login (before anything is drawn)."""
    reason = exposure_refusal(
        st.get_option("server.address"),
        configured=auth_configured(),
        allowed=settings.allow_unauthenticated,
    )
    if reason:
        st.error(reason, icon=":material/block:")
        st.stop()


def render_account() -> None:
    """The sidebar's sign-in / signed-in line (only on desks with a login)."""
    if not auth_configured():
        return
    with st.sidebar:
        user = signed_in_user()
        if user:
            st.caption(f":material/account_circle: Signed in as {user.replace(':', ' ')}")
            st.button("Sign out", icon=":material/logout:", key="sign-out", on_click=st.logout)
        else:
            st.button("Sign in", icon=":material/login:", key="sign-in", on_click=st.login)

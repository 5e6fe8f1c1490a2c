"""Claim support in the draft panel: the passage behind each [n], unsupported claims marked.

Claims and passages are outside text (a source's words, or a model's): always through md_escape,
so nothing in them becomes HTML, a link or an image.
"""

from __future__ import annotations

import streamlit as st

from research.api import CheckedClaim, RunView
from ui.panels import source_search
from ui.text import md_escape

_BADGE = {
    "supported": ":green-badge[:material/check: supported]",
    "partial": ":orange-badge[:material/remove: partial]",
    "unsupported": ":red-badge[:material/close: unsupported]",
    "unverifiable": ":gray-badge[:material/help: unverifiable]",
}


def precision_label(precision: float | None) -> str:
    return "n/a" if precision is None else f"{precision:.0%}"


def render(view: RunView, version: int) -> None:
    reasons = next((r.reasons for r in view.revisions if r.version == version), [])
    if reasons:
        with st.expander(f"Why the reviewer wrote v{version} ({len(reasons)} changes)", icon=":material/rate_review:"):
            st.markdown("\n".join(f"- {md_escape(r)}" for r in reasons))
    check = view.claims_by_version.get(version)
    if not check:
        if view.claims_by_version:
            st.caption(f"The claim check ran on the run's own drafts, not on v{version}.")
        return
    claims = check.claims
    counts = {v: sum(c.verdict == v for c in claims) for v in _BADGE}
    method = "a model judge" if check.method == "model" else "the offline support score"
    offline = sum(1 for c in claims if _kept_offline(check.method, c))
    if offline:
        method += f"; {offline} claims the judge did not reach keep the offline score"
    with st.container(key=f"claims-{view.run_id}-{version}"):
        st.markdown(
            f"**Claim check** (v{version}, {method}): citation precision "
            f"**{precision_label(check.precision)}** · "
            + " · ".join(f"{_BADGE[v]} {n}" for v, n in counts.items() if n)
        )
        for claim in claims:
            if claim.verdict in ("unsupported", "unverifiable"):
                st.warning(
                    f"[{claim.n}] {claim.verdict}: {md_escape(claim.sentence)}" + _why(claim),
                    icon=":material/report:",
                )
        with st.expander(f"The passage behind each citation ({len(claims)} claims)", icon=":material/format_quote:"):
            for i, claim in enumerate(claims):
                passage = md_escape(claim.passage) or ":gray[no stored text for this source]"
                mark = _OFFLINE if _kept_offline(check.method, claim) else ""
                st.markdown(
                    f"**[{claim.n}]** {_BADGE.get(claim.verdict, '')}{mark} {md_escape(claim.sentence)}{_why(claim)}"
                    f"  \n> {passage}"
                )
                if claim.source_id and claim.passage:  # the passage in its source's page text, highlighted
                    st.button(
                        "Find in sources",
                        key=f"claim-find-{view.run_id}-{version}-{i}",
                        icon=":material/manage_search:",
                        on_click=source_search.show_passage,
                        args=(view.run_id, claim.source_id, claim.passage),
                        help="Shows this passage in the Sources search, above, with its source first.",
                    )


_OFFLINE = " :gray-badge[judged offline]"


def _kept_offline(method: str, claim: CheckedClaim) -> bool:
    """A verifiable claim of a model-judged check that kept the offline verdict (the run's call cap,
    a failed batch): said beside it, so no one reads it as the model's."""
    return (
        method == "model"
        and claim.judged_by == "offline"
        and claim.verdict != "unverifiable"
        and (
            claim.failure != "changed"  # a changed number or name is the text's fact, whoever judged
        )
    )


def _why(claim: CheckedClaim) -> str:
    """Why a claim is not supported (the check's reason), or nothing."""
    return f"  \n:gray[Why: {md_escape(claim.reason)}]" if claim.reason and claim.verdict != "supported" else ""

"""The dashboard's research form as a person fills it (for the browser tests and the dashboard
benchmark): the topic, then the allocation notation, applied with Enter."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the benchmark imports this before it knows playwright is there
    from playwright.sync_api import Page


def fill_research_form(page: Page, topic: str, allocation: str) -> None:
    page.get_by_role("textbox", name="Research topic", exact=True).fill(topic)
    notation = page.get_by_role("textbox", name="Allocation", exact=True)
    notation.fill(allocation)
    notation.press("Enter")

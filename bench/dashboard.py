"""Figure 6: dashboard responsiveness, as a person sees it: headless Chromium against
`streamlit run`, offline (offline brain, sample library, no demo delay).

- first_card_seconds: from the click on "Run research" to the first researcher card on screen;
- draft_seconds: from the same click to the draft on screen;
- table_500_seconds: from opening a stored run with 500 sources (`?run=<id>`) to its sources grid
  holding all 500 rows (the same for a 5-source run is recorded as the page's own baseline).

Selectors are the dashboard's stable keys (st-key-researcher-card-<id>, st-key-draft-body-<run>,
st-key-run-header) and the sources grid's aria-rowcount. Skipped, with the reason recorded, when Chromium,
Playwright or the dashboard is not there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bench.harness import (
    REPO_ROOT,
    BenchContext,
    FigureSkipped,
    Stopwatch,
    clean_environ,
    log,
    median,
    rounded,
)
from tests.browser.research_form import fill_research_form
from tests.streamlit_server import offline_env, streamlit_server

CHROMIUM = Path(os.environ.get("RESEARCH_BENCH_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-background-networking"]
TOPIC = "How do mRNA vaccines work?"
TARGET_FIRST_CARD_SECONDS = 1.0
CARD = "[class*='st-key-researcher-card-']"
DRAFT = "[class*='st-key-draft-body-']"
RUN_BUTTON = "Run research"


# --- a stored run with many sources (the table figure) --------------------------------------------


def store_sources_run(data_dir: Path, count: int) -> str:
    """A finished run whose one researcher found `count` sources, written as the runner would."""
    from research.api import RunStore
    from tests.run_events import RunEvents, store_finished_run

    store = RunStore(data_dir / "runs.sqlite")
    run_id = f"bench{count:07d}"[:12]
    store.create_run(run_id, f"Table of {count} sources", "100", "offline")
    ev = RunEvents(run_id)

    sources = [
        {
            "id": f"s{i}",
            "title": f"Source number {i} on heat pumps",
            "url": f"https://site{i % 40}.example.org/{i}",
            "kind": ("web", "academic", "book")[i % 3],
            "provider": "library",
            "snippet": f"Snippet {i}. " * 12,
            "authors": ["A. Author"],
            "year": 1990 + i % 30,
            "score": 1.0 - i / (count + 1),
            "researcher_id": "web-1",
            "query": f"query {i % 3}",
        }
        for i in range(count)
    ]
    draft = (
        f"# Table of {count} sources\n\nA summary [1].\n\n## Sources\n\n"
        "[1] Source number 0. <https://site0.example.org/0>\n"
    )
    events = [
        ev(
            "run_started",
            topic=f"Table of {count} sources",
            allocation_request="100",
            brain="offline",
            model="offline",
            source_mode="library",
            max_iterations=0,
        ),
        ev(
            "allocation_decided",
            allocation={"web": 1, "academic": 0, "book": 0},
            origin="user",
            reasoning="Set by the user.",
            research_questions=["What are heat pumps?"],
        ),
        ev("researcher_started", "web-1", 0, kind="web", question="What are heat pumps?", angle="news"),
        ev("sources_found", "web-1", 0, query="heat pumps", providers=["library"], sources=sources),
        ev(
            "researcher_finished",
            "web-1",
            0,
            kind="web",
            status="done",
            source_ids=[s["id"] for s in sources],
            seconds=1.0,
            notes="",
            error=None,
        ),
        ev.critique(0, "APPROVED", ["Fine."], [], []),
        ev("draft_ready", markdown=draft, citations={"1": "s0"}, known_gaps=[]),
        ev("run_finished", status="finished", seconds=1.0, counts={"sources": count}),
    ]
    store_finished_run(store, run_id, events, draft, allocation="100", source_count=count)
    return run_id


# --- the app and the browser ------------------------------------------------------------------------


def streamlit_app(data_dir: Path):
    """The dashboard, offline, on a free loopback port (proxies cleared: see clean_environ)."""
    return streamlit_server(offline_env(data_dir, base=clean_environ(dead_proxies=True)), data_dir / "streamlit.log")


def _open_inputs(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name=RUN_BUTTON).wait_for(state="visible")
    fill_research_form(page, TOPIC, "111")
    page.get_by_text("of at most 3 researchers: 1 web").wait_for(state="visible")


# Timestamps taken in the page itself: the click event (capture phase, so before Streamlit sees it)
# and the first DOM mutation that shows a researcher card / the draft. Playwright's own click call
# also waits for the button to be stable, which is not the user's wait.
_WATCH = """() => {
  const marks = window.__bench = {};
  document.addEventListener('click', () => { if (!marks.click) marks.click = performance.now(); }, true);
  new MutationObserver(() => {
    if (!marks.click) return;
    if (!marks.card && document.querySelector("{card}")) marks.card = performance.now();
    if (!marks.draft && document.querySelector("{draft}")) marks.draft = performance.now();
  }).observe(document.body, {subtree: true, childList: true});
}""".replace("{card}", CARD).replace("{draft}", DRAFT)


def one_run(page, url: str) -> dict[str, float]:
    _open_inputs(page, url)
    page.evaluate(_WATCH)
    page.get_by_role("button", name=RUN_BUTTON).click()
    page.locator(CARD).first.wait_for(state="visible")
    page.locator(DRAFT).first.wait_for(state="visible", timeout=120_000)
    page.locator(".st-key-run-header").get_by_text("Finished").first.wait_for(state="visible")
    marks = page.evaluate("() => window.__bench")
    return {"first_card": (marks["card"] - marks["click"]) / 1000, "draft": (marks["draft"] - marks["click"]) / 1000}


def open_table(page, url: str, run_id: str, rows: int) -> float:
    """Seconds from navigating to a stored run to its sources grid holding `rows` rows."""
    # The grid draws on a canvas; its accessible twin carries the row count (header included).
    grid = page.locator(f"[data-testid=stDataFrame] [aria-rowcount='{rows + 1}']")
    with Stopwatch() as sw:
        page.goto(f"{url}/?run={run_id}")
        grid.first.wait_for(state="attached", timeout=60_000)
    return sw.seconds


def measure(ctx: BenchContext) -> dict[str, Any]:
    if not CHROMIUM.exists():
        raise FigureSkipped(f"Chromium not found at {CHROMIUM} (install Debian's chromium, or `make browser`)")
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise FigureSkipped("playwright is not installed (requirements-dev.txt)") from None
    if not (REPO_ROOT / "streamlit_app.py").exists():
        raise FigureSkipped("the dashboard (streamlit_app.py) is not there yet")
    repeats = 3 if ctx.quick else 5
    data_dir = ctx.scratch("dashboard")
    table_run = store_sources_run(data_dir, 500)
    small_run = store_sources_run(data_dir, 5)
    with streamlit_app(data_dir) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            page.set_default_timeout(30_000)
            try:
                runs = [one_run(page, url)]  # warm-up: the app's first script run imports the engine
            except PlaywrightError as exc:
                raise FigureSkipped(f"the dashboard did not offer a run as expected: {str(exc)[:200]}") from None
            runs = [one_run(page, url) for _ in range(repeats)]
            open_table(page, url, table_run, 500)  # warm-up (chart and grid components load once)
            tables = [open_table(page, url, table_run, 500) for _ in range(repeats)]
            smalls = [open_table(page, url, small_run, 5) for _ in range(repeats)]
        finally:
            browser.close()
    result = {
        "first_card_seconds": rounded(median([r["first_card"] for r in runs])),
        "draft_seconds": rounded(median([r["draft"] for r in runs])),
        "table_500_seconds": rounded(median(tables)),
    }
    log(
        f"dashboard: first card {result['first_card_seconds']} s, draft {result['draft_seconds']} s, "
        f"500-row table {result['table_500_seconds']} s (5 rows: {median(smalls):.2f} s)"
    )
    return {
        "dashboard": result,
        "dashboard_details": {
            "repeats": repeats,
            "runs": [{k: rounded(v) for k, v in r.items()} for r in runs],
            "table_5_seconds": rounded(median(smalls)),
            "target_first_card_seconds": TARGET_FIRST_CARD_SECONDS,
            "setup": "streamlit run, offline brain, sample library, allocation 111; headless Chromium",
        },
    }

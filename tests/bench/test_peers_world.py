"""The peers bench's search world and report scorer: the Tavily endpoint through the real
tavily-python client, the custom-retriever endpoint and the pages over HTTP, one scoring of
reports the way each system cites (Markdown links, [n] with a reference list), and the desk run
in that world through the meter."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tavily import TavilyClient

from bench.peers.desk import desk_settings, run_desk
from bench.peers.meter import MeteringProxy
from bench.peers.score import Expectation, score_report
from bench.peers.scripted import PeerScriptedModel
from bench.peers.world import PeerWorld
from tests.fakes import lift_rate_limits
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PeerWorld]:
    with PeerWorld(Path(tmp_path_factory.mktemp("world"))) as w:
        yield w


def test_tavily_search_answers_from_the_library_in_tavilys_format(world: PeerWorld) -> None:
    world.clear_log()
    client = TavilyClient(api_key="tvly-test", api_base_url=world.tavily_url)
    covered = client.search("How do mRNA vaccines work?", max_results=4, include_raw_content=True)["results"]
    near_miss = client.search("How do you prevent rust on old cars?", max_results=3)["results"]
    assert len(covered) == 4
    assert all("/pages/mrna-vaccines/" in r["url"] for r in covered)
    page = world.page(covered[0]["url"])
    assert page is not None and covered[0]["raw_content"] == page.text and covered[0]["content"][:60] in page.text
    assert {world.page(r["url"]).topic for r in near_miss} == {"rust-vs-go"}  # shared word, other subject
    assert "raw_content" not in near_miss[0]
    assert world.searches() == {"searches": 2, "page_fetches": 0}


def test_the_custom_retriever_and_the_pages_serve_the_same_text(world: PeerWorld) -> None:
    world.clear_log()
    hits = httpx.get(world.retriever_url, params={"query": "Gutenberg printing press spread"}).json()
    assert hits and all(set(h) == {"url", "raw_content", "title"} for h in hits)
    page = httpx.get(hits[0]["url"])
    assert page.headers["content-type"].startswith("text/html")
    first_paragraph = hits[0]["raw_content"].split("\n\n")[0]
    assert first_paragraph[:60] in page.text.replace("&#x27;", "'").replace("&quot;", '"')
    assert world.searches() == {"searches": 1, "page_fetches": 1}


def test_one_scorer_reads_links_and_numbered_references_alike(world: PeerWorld) -> None:
    cold = next(p for p in world.pages.values() if p.url.endswith("/mrna-vaccines/cold-chain-logistics"))
    rust = next(p for p in world.pages.values() if p.topic == "rust-vs-go")
    copied = cold.text.split(". ")[1]  # a sentence of the page, in its own words
    report = "\n".join(
        [
            "# mRNA vaccines",
            "",
            f"{copied} ([Cold chain]({cold.url})).",
            "Vaccines are made of cheese on the moon [1].",
            f"Rust is memory safe [2]. A made-up study says so ({'https://invented.example/study'}).",
            "Nothing resolves this marker [7].",
            "",
            "## References",
            f"[1] Cold chain. {cold.url}",
            f"[2] {rust.title}: {rust.url}",
        ]
    )
    scored = score_report(report, world, Expectation("mrna-vaccines"))
    assert scored["sources_cited"] == 2
    assert scored["invented_citations"] == 2  # the invented URL and the unresolved [7]
    assert scored["invented_examples"] == ["https://invented.example/study"]
    assert scored["off_subject_citations"] == 1  # the Rust page on an mRNA topic
    assert (scored["cited_sentences"], scored["supported_sentences"]) == (3, 1)
    assert scored["cites_nothing"] is False
    nothing = score_report("# Bagpipes\n\nNo sources answer this.", world, Expectation(None))
    assert nothing["cites_nothing"] is True and nothing["supported_share"] is None
    off = score_report(f"Bagpipes are made of wood [{cold.title}]({cold.url}).", world, Expectation(None))
    assert off["off_subject_citations"] == 1  # nothing answers an uncovered topic: every citation is off
    assert off["says_nothing_found"] is False and nothing["says_nothing_found"] is False  # cites nothing, says less
    honest = "# Bagpipes\n\nNo relevant  sources were found, so this draft makes no claims.\n"
    assert score_report(honest, world, Expectation(None))["says_nothing_found"] is True
    assert score_report("We could NOT find anything on bagpipes.", world, Expectation(None))["says_nothing_found"]


def test_the_desk_runs_in_the_world_through_the_meter(world: PeerWorld, tmp_path: Path) -> None:
    lift_rate_limits("tavily", concurrency=8)
    script = PeerScriptedModel()
    with FakeOpenAIServer(script) as fake, MeteringProxy(fake.base_url) as proxy:
        rows = {}
        for topic, expect in (("How do mRNA vaccines work?", "mrna-vaccines"), ("How are bagpipes made?", None)):
            proxy.reset()
            fake.reset()
            world.clear_log()
            script.topic = topic
            run = run_desk(desk_settings(world, proxy.base_url, "bench-model", tmp_path / topic[:6]), topic)
            meter = proxy.meter()
            assert (meter.requests, meter.prompt_tokens) == (fake.stats.calls, fake.stats.prompt_tokens)
            rows[topic] = (run, world.searches(), score_report(run["report"], world, Expectation(expect)))
    run, searches, covered = rows["How do mRNA vaccines work?"]
    assert run["finished"] and searches["searches"] == 2  # the desk's two scripted queries, on Tavily
    assert covered["sources_cited"] >= 2 and covered["invented_citations"] == covered["off_subject_citations"] == 0
    _, _, uncovered = rows["How are bagpipes made?"]
    assert uncovered["cites_nothing"] and uncovered["off_subject_citations"] == 0

"""Revise with instructions: offline restructures, the LLM writer path, new versions, citations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from research.brains.offline.offline_revise import RevisionError, offline_revise, parse_instruction
from research.drafts.citations import check_citations
from research.drafts.numbering import source_entries, split_sources_section
from research.runs.revision import number_sources, renumber, revise_draft, revise_run
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest, Source
from research.settings import Settings
from research.text import split_sentences
from tests.fakes.openai_server import FakeOpenAIServer
from tests.finished_run import TOPIC
from tests.settings_presets import loopback_llm_settings


@pytest.fixture
def run(runner):
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="120"))
    return runner, run_id


def sources_of(runner, run_id) -> list[Source]:
    return [Source.model_validate(s) for s in fold(runner.store.events(run_id)).sources.values()]


def assert_citations_resolve(markdown: str, sources: list[Source]) -> None:
    check = check_citations(markdown, sources)
    assert check.ok and check.cited, check
    assert check.cited == check.listed == list(range(1, len(check.cited) + 1))  # 1..n, none orphaned
    urls = {s.url for s in sources}
    for entry in source_entries(markdown).values():
        found = re.search(r"<([^>]+)>|`([^`]+)`", entry)  # http(s) autolink, else a code span
        assert (found.group(1) or found.group(2)) in urls


def test_shorten_makes_a_shorter_new_version_whose_citations_resolve(run, settings) -> None:
    runner, run_id = run
    before = runner.store.latest_draft(run_id)
    revision = revise_run(runner.store, run_id, "Shorten it, please", settings=settings)
    assert revision.version == before.version + 1
    latest = runner.store.latest_draft(run_id)
    assert latest.markdown == revision.markdown and latest.note == "Revised: Shorten it, please"
    body_before, _ = split_sources_section(before.markdown)
    body_after, _ = split_sources_section(revision.markdown)
    assert len(body_after) < len(body_before) * 0.8
    assert [line for line in body_after.splitlines() if line.startswith("#")] == [
        line for line in body_before.splitlines() if line.startswith("#")
    ]  # every heading kept
    assert revision.check.ok
    assert_citations_resolve(revision.markdown, sources_of(runner, run_id))


def test_an_instruction_the_offline_brain_does_not_understand_saves_nothing(run, settings) -> None:
    runner, run_id = run
    versions = runner.store.draft_versions(run_id)
    with pytest.raises(RevisionError, match="did not understand 'make it funnier'.*understands: shorten"):
        revise_run(runner.store, run_id, "make it funnier", settings=settings)
    with pytest.raises(RevisionError, match="empty"):
        revise_run(runner.store, run_id, "   ", settings=settings)
    with pytest.raises(RevisionError, match="both shorten and expand"):
        revise_run(runner.store, run_id, "shorten and expand", settings=settings)
    assert runner.store.draft_versions(run_id) == versions


def test_expand_adds_cited_sentences_from_the_sources(run, settings) -> None:
    runner, run_id = run
    before = runner.store.latest_draft(run_id).markdown
    revision = revise_run(runner.store, run_id, "expand with more detail", settings=settings)
    assert len(split_sentences(split_sources_section(revision.markdown)[0])) > len(
        split_sentences(split_sources_section(before)[0])
    )
    assert_citations_resolve(revision.markdown, sources_of(runner, run_id))


def test_bullet_points_reverse_and_focus(run, settings) -> None:
    runner, run_id = run
    base = runner.store.latest_draft(run_id).markdown
    sources = sources_of(runner, run_id)
    citations = fold(runner.store.events(run_id)).citations

    def revise(instruction: str) -> str:
        return revise_draft(base, instruction, sources, _offline(), citations=citations)

    bullets = revise("use bullet points")
    body = split_sources_section(bullets)[0]
    prose_lines = [line for line in body.splitlines() if line.strip() and not line.startswith(("#", "- "))]
    assert prose_lines == [] and body.count("\n- ") >= 5

    headings = [line for line in base.splitlines() if line.startswith("## ") and line != "## Sources"]
    reversed_ = [
        line for line in revise("reverse the sections").splitlines() if line.startswith("## ") and line != "## Sources"
    ]
    assert reversed_ == [headings[0], *headings[1:][::-1]]  # the summary stays first

    focused = revise("focus on lipid nanoparticles")
    assert "lipid" in split_sources_section(focused)[0].lower()
    assert len(focused) < len(base)
    for revised in (bullets, focused):
        assert_citations_resolve(revised, sources)
    with pytest.raises(RevisionError, match="Nothing in the draft mentions 'quantum chromodynamics'"):
        revise("focus on quantum chromodynamics")


def _offline():
    from research.brains.offline.offline_brain import OfflineBrain

    return OfflineBrain()


def test_instruction_parsing() -> None:
    ops = parse_instruction("Shorten it and use bullet points")
    assert ops.shorten and ops.bullets and not ops.expand
    assert parse_instruction("Please focus on cold chain logistics, then shorten").focus == "cold chain logistics"
    assert parse_instruction("focus on cats, dogs and birds").focus == "cats, dogs and birds"
    assert parse_instruction("move the safety section first").move == ("safety", "first")
    assert parse_instruction("sort the sections alphabetically").reorder == "alphabetical"
    with pytest.raises(RevisionError, match="both bullet points and prose"):
        parse_instruction("bullet points as prose")


def test_renumbering_keeps_a_users_edited_entries_verbatim() -> None:
    a = Source(title="Alpha", url="https://a.org/1", kind="web", provider="x")
    b = Source(title="Beta", url="https://b.org/2", kind="book", provider="x")
    draft = (
        "# T\n\n## Summary\n\nFirst claim [2]. Second claim [1].\n\n## Sources\n\n"
        "[1] Alpha, my own wording. <https://a.org/1>\n[2] Beta (edited by hand). <https://b.org/2>\n"
    )
    numbered = number_sources(draft, [a, b])
    assert [(ns.n, ns.source.title) for ns in numbered] == [(1, "Alpha"), (2, "Beta")]
    out = renumber("# T\n\nOnly the second [2], a ghost [9], grouped [1, 2].", source_entries(draft), numbered)
    assert "Only the second [1], a ghost, grouped [2][1]." in out  # renumbered by first appearance
    assert out.endswith("[1] Beta (edited by hand). <https://b.org/2>\n[2] Alpha, my own wording. <https://a.org/1>\n")


def test_offline_revise_refuses_what_it_cannot_change() -> None:
    one_sentence = "# T\n\n## Summary\n\nOne sentence [1].\n"
    with pytest.raises(RevisionError, match="already as short"):
        offline_revise(one_sentence, "shorten", [], lambda _sid: "")
    with pytest.raises(RevisionError, match="Nothing to reorder"):
        offline_revise(one_sentence, "reorder the sections", [], lambda _sid: "")


# --- the LLM brain: the writer again, through the real client, against a loopback fake -------------


def _llm_settings(runner: ResearchRunner, server: FakeOpenAIServer, log_dir: Path, **overrides: Any) -> Settings:
    """The run's own data, revised by the LLM brain against the fake model server."""
    return loopback_llm_settings(
        server.base_url,
        data_dir=runner.settings.data_dir,
        log_dir=log_dir,
        model="fake-model",
        openai_api_key="sk-test-revise",
        **overrides,
    )


def test_llm_revision_sends_the_instruction_and_sources_and_guards_the_reply(run, log_dir) -> None:
    runner, run_id = run
    base = runner.store.latest_draft(run_id).markdown
    sources = sources_of(runner, run_id)
    numbered = number_sources(base, sources, fold(runner.store.events(run_id)).citations)
    reply = (
        "# How do mRNA vaccines work?\n\n## Summary\n\nA tighter summary [2], with an invented source [99] "
        "and a link https://made-up.example.com/x.\n\n## References\n\n[1] Fake list\n"
    )
    with FakeOpenAIServer(responder=lambda request: reply) as server:
        settings = _llm_settings(runner, server, log_dir)
        revision = revise_run(runner.store, run_id, "Make the summary tighter", settings=settings)
        request = server.requests[-1]
    prompt = "\n".join(m["content"] for m in request["messages"])
    assert "Role: research writer revising a draft" in prompt
    assert "<instruction>\nMake the summary tighter\n</instruction>" in prompt
    assert f'<source n="{numbered[0].n}"' in prompt and numbered[0].source.title in prompt
    assert "<<<DRAFT>>>" in prompt and "## Sources" not in prompt.split("<<<DRAFT>>>")[1].split("<<<END DRAFT>>>")[0]

    assert revision.warnings == [  # what the guard removed is said, not hidden
        "Removed citations that matched no source: [99].",
        "Removed links not among the sources: https://made-up.example.com/x.",
    ]
    body, tail = split_sources_section(revision.markdown)
    # [2] -> [1]; [99] gone; the clause that held the invented link is dropped, not left as "and a link".
    assert "A tighter summary [1]." in body and "and a link" not in body
    assert "made-up.example.com" not in revision.markdown and "Fake list" not in revision.markdown
    second = next(ns.source for ns in numbered if ns.n == 2)
    assert tail.strip().startswith("[1] ") and second.title in tail
    assert revision.check.ok


def test_llm_failure_falls_back_to_the_offline_reviser_with_a_warning(run, log_dir) -> None:
    runner, run_id = run
    with FakeOpenAIServer() as server:
        server.fail_next("500", times=10)
        settings = _llm_settings(runner, server, log_dir, llm_timeout=5)
        revision = revise_run(runner.store, run_id, "shorten", settings=settings)
    assert revision.warnings and "revise failed (HTTP 500" in revision.warnings[0]
    assert "sk-test-revise" not in revision.warnings[0]
    assert revision.check.ok

"""Revise with instructions: offline restructures, the LLM writer path, new versions, citations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from research.brains.offline.offline_revise import RevisionError, offline_revise, parse_instruction
from research.drafts.citations import check_citations
from research.drafts.numbering import source_entries, split_sources_section
from research.report_shape import ReportShape
from research.runs.reshape import reshape_run
from research.runs.revision import number_sources, renumber, revise_draft, revise_run
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest, Source
from research.settings import Settings
from research.text import split_sentences
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import requested_schema_name
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


_PASSAGE = re.compile(r'<source n="(\d+)" kind="passage"[^>\n]*>\n([^\n]*)')
MEMORY = "There are two main types of mRNA vaccines called subunit vaccines and vector vaccines."


def _reviser(request: dict[str, Any]) -> Any:
    """A model that, per section, rewrites passage 1 in its words, adds a sentence from memory
    naming passage 2, and one holding a made-up link."""
    if requested_schema_name(request) != "SectionSentences":
        return {}
    passages = dict(_PASSAGE.findall(request["messages"][1]["content"]))
    words = " ".join(passages["1"].split()[:14]).rstrip(".,;:")
    return {
        "sentences": [
            {"passage": 1, "text": f"In short, {words}."},
            {"passage": 2, "text": MEMORY},
            {"passage": 1, "text": "See https://made-up.example.com/x for the whole account of this."},
        ]
    }


def test_llm_revision_rewrites_each_section_from_numbered_passages_keeping_only_grounded_sentences(
    run, log_dir
) -> None:
    runner, run_id = run
    base = runner.store.latest_draft(run_id).markdown
    sources = sources_of(runner, run_id)
    with FakeOpenAIServer(responder=_reviser) as server:
        settings = _llm_settings(runner, server, log_dir)
        revision = revise_run(runner.store, run_id, "Make it tighter", settings=settings)
        requests = [r for r in server.requests if requested_schema_name(r) == "SectionSentences"]
    headings = [line for line in split_sources_section(base)[0].splitlines() if line.startswith("## ")]
    assert len(requests) == len([h for h in headings if h != "## Known gaps"])  # one call per section
    prompt = "\n".join(m["content"] for m in requests[0]["messages"])
    assert "Role: research writer revising a draft, one section at a time" in prompt
    assert "<instruction>\nMake it tighter\n</instruction>" in prompt
    assert "Current sentences:\n- (passage 1) " in prompt and '<source n="1" kind="passage"' in prompt

    body, tail = split_sources_section(revision.markdown)
    assert [line for line in body.splitlines() if line.startswith("## ")] == headings  # every heading kept
    assert "In short, " in body and MEMORY not in body  # the sentence from memory is dropped
    assert "made-up.example.com" not in revision.markdown and "whole account" not in body
    texts = {s.title: runner.store.get_text(run_id, s.id) or "" for s in sources}
    entries = source_entries(revision.markdown)
    for sentence, n in re.findall(r"In short, ([^\[]+?) \[(\d+)\]\.", body):
        title = next(t for t in texts if t in entries[int(n)])
        assert " ".join(sentence.split()[:6]) in " ".join(texts[title].split())  # cited to the passage it rests on
    assert revision.check.ok
    assert_citations_resolve(revision.markdown, sources)


def test_a_revision_resting_on_no_passage_is_a_failed_step_the_offline_reviser_takes_over(run, log_dir) -> None:
    runner, run_id = run

    def from_memory(request: dict[str, Any]) -> Any:
        return {"sentences": [{"passage": 1, "text": MEMORY}]} if requested_schema_name(request) else {}

    with FakeOpenAIServer(responder=from_memory) as server:
        revision = revise_run(runner.store, run_id, "shorten", settings=_llm_settings(runner, server, log_dir))
    assert (
        "revise failed (invalid output" in revision.warnings[0]
        and "rests on none of the passages" in (revision.warnings[0])
    )
    assert MEMORY not in revision.markdown and revision.check.ok


def test_llm_failure_falls_back_to_the_offline_reviser_with_a_warning(run, log_dir) -> None:
    runner, run_id = run
    with FakeOpenAIServer() as server:
        server.fail_next("500", times=10)
        settings = _llm_settings(runner, server, log_dir, llm_timeout=5)
        revision = revise_run(runner.store, run_id, "shorten", settings=settings)
    assert revision.warnings and "revise failed (HTTP 500" in revision.warnings[0]
    assert "sk-test-revise" not in revision.warnings[0]
    assert revision.check.ok


# --- a revision's model calls: the run's usage and the reviser's daily cap ------------------------

ADA, BOB = "ada@example.org", "bob@example.org"


def test_a_revisions_model_calls_count_in_the_runs_usage_exactly(run, log_dir) -> None:
    runner, run_id = run
    before = fold(runner.store.events(run_id)).usage.calls
    with FakeOpenAIServer(responder=_reviser) as server:
        revise_run(runner.store, run_id, "Make it tighter", settings=_llm_settings(runner, server, log_dir), user=ADA)
        made = (server.stats.calls, server.stats.prompt_tokens, server.stats.completion_tokens)
    usage = fold(runner.store.events(run_id)).usage
    assert made[0] > 1 and made[1] > 0 and made[2] > 0
    revision = usage.by_node["revision"]
    assert (revision.calls, revision.prompt_tokens, revision.completion_tokens) == made  # what the server answered
    assert usage.calls == before + made[0]
    assert runner.store.model_calls_by(ADA, 0) == made[0]  # the user who asked spent them, not the run's starter


def test_a_rewrite_in_another_shape_counts_its_model_calls_too(run, log_dir) -> None:
    runner, run_id = run
    with FakeOpenAIServer(responder=_reviser) as server:
        settings = _llm_settings(runner, server, log_dir)
        reshape_run(runner.store, run_id, ReportShape(shape="brief"), settings=settings, user=ADA)
        made = (server.stats.calls, server.stats.prompt_tokens, server.stats.completion_tokens)
    revision = fold(runner.store.events(run_id)).usage.by_node["revision"]
    assert made[0] > 0 and (revision.calls, revision.prompt_tokens, revision.completion_tokens) == made


def test_the_daily_cap_stops_a_revision_before_the_request_past_it(run, log_dir) -> None:
    runner, run_id = run
    with FakeOpenAIServer(responder=_reviser) as server:
        revise_run(runner.store, run_id, "Make it tighter", settings=_llm_settings(runner, server, log_dir), user=ADA)
        spent = server.stats.calls
        version = runner.store.latest_draft(run_id).version
        server.reset()
        capped = _llm_settings(runner, server, log_dir, user_daily_llm_calls=spent + 1)
        with pytest.raises(RevisionError, match="Daily model-call cap reached: .*the draft was not revised"):
            revise_run(runner.store, run_id, "Make it shorter still", settings=capped, user=ADA)
        assert server.stats.calls == 1  # the one call left, not one past it
        with pytest.raises(RevisionError, match="Daily model-call cap reached"):
            revise_run(runner.store, run_id, "Make it shorter still", settings=capped, user=ADA)
        assert server.stats.calls == 1  # at the cap: no request at all
        assert runner.store.latest_draft(run_id).version == version  # a refused revision saves nothing
        with pytest.raises(RevisionError, match="unchanged"):  # the fake rewrites as it did for Ada
            revise_run(runner.store, run_id, "Make it shorter still", settings=capped, user=BOB)  # his own cap
        assert server.stats.calls == 1 + spent
    assert runner.store.model_calls_by(ADA, 0) == spent + 1  # the refused revision's call counts: it was made
    assert runner.store.model_calls_by(BOB, 0) == spent

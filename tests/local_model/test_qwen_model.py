"""The real-model lane on a model that can write: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, assembled by
scripts/local_model_setup.sh from its pinned wheel slices) on llama-cpp-python's own server. Opt-in
(`make test-local-model`): each run takes minutes on two shared cores.

What it holds the desk to with a real model: the draft is the model's own (not the offline
fallback), every factual sentence of it is cited, every citation resolves to a retrieved source,
no internal marker or URL query appears, and a topic the library does not cover cites nothing and
says so.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from bench.eval.local_model import CAPS, N_CTX
from bench.eval.local_model_figures import factual_sentences
from bench.llama_server import QWEN_ALIAS, QWEN_SHA256, LlamaServer, lane_settings, qwen_model_path, run_research
from research.drafts.citations import SOURCES_HEADING

RUN_LIMIT_SECONDS = 3000  # minutes on an idle machine; far more when the two cores are shared
# Resolved at import: each test runs with its own XDG_CACHE_HOME (tests/conftest.py), where the
# assembled model is not.
MODEL = qwen_model_path()

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        os.environ.get("RESEARCH_TEST_LOCAL_MODEL") != "1", reason="real-model lane: run `make test-local-model`"
    ),
    pytest.mark.skipif(MODEL is None, reason="Qwen2.5-Coder-1.5B not set up (scripts/local_model_setup.sh)"),
]


@pytest.fixture(scope="module")
def qwen(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("qwen")
    with LlamaServer(root / "server.log", model=MODEL, alias=QWEN_ALIAS, n_ctx=N_CTX) as server:
        yield server, root


def _run(qwen, topic: str, name: str):
    server, root = qwen
    settings = lane_settings(
        server,
        root / name,
        review_rounds=0,
        llm_timeout=1800,
        llm_reply_seconds=1800,
        **{f"reply_tokens_{role}": cap for role, cap in CAPS.items()},
    )
    return run_research(settings, topic, allocation="110", max_iterations=0)


@pytest.mark.timeout(RUN_LIMIT_SECONDS + 300)
def test_a_covered_topic_gets_the_models_own_grounded_draft(qwen) -> None:
    run = _run(qwen, "How do mRNA vaccines work?", "covered")
    result = run.result
    warnings = [w["message"] for w in result["warnings"]]

    assert result["status"] == "finished" and result["draft"]
    assert not [w for w in warnings if "write failed" in w or "cited none of the" in w], warnings
    draft = result["draft"]
    body = draft.split(f"\n{SOURCES_HEADING}", 1)[0]
    markers = {n for n in re.findall(r"\[(\d+)\]", body)}
    assert markers and markers <= set(result["citations"]), (markers, result["citations"])
    source_ids = {s["id"] for s in result["sources"]}
    assert set(result["citations"].values()) <= source_ids
    factual = factual_sentences(draft)
    assert factual and all(re.search(r"\[\d+\]", s) for s in factual), factual
    assert "<<<" not in draft and ">>>" not in draft and "‹‹‹" not in draft
    queries = [q for r in result["researchers"] for q in r["queries"]]
    assert queries and not [q for q in queries if "://" in q or "www." in q], queries
    assert run.seconds < RUN_LIMIT_SECONDS


@pytest.mark.timeout(RUN_LIMIT_SECONDS + 300)
def test_an_uncovered_topic_cites_nothing_and_says_so(qwen) -> None:
    run = _run(qwen, "How are bagpipes made?", "uncovered")
    result = run.result

    assert result["status"] == "finished"
    assert result["evidence"] == "none" and not result["citations"]
    assert "No relevant sources were found" in result["draft"]
    assert "<<<" not in result["draft"]


@pytest.mark.timeout(RUN_LIMIT_SECONDS)
def test_a_copy_is_condensed_through_the_real_grammar(qwen) -> None:
    """The condensing pass's pattern (grounded_condense.py) through llama-cpp-python's own schema
    converter and sampler: a copied sentence with an apposition goes to be restated, then (the
    restatement left out) condensed; no call fails, and the condensation the model writes is one of
    those offered, so it takes the copy's place."""
    from research.brains.llm.grounded_condense import choices, layout
    from research.brains.llm.grounded_restate import Restated, restate_copies
    from research.brains.llm.grounded_sentence import clean_sentence
    from research.brains.llm.llm_brain import LLMBrain
    from research.text.copying import copied

    server, root = qwen
    sentence = (
        "An ionizable lipid, ALC-0315 in the Pfizer-BioNTech vaccine and SM-102 in the Moderna vaccine, "
        "binds the mRNA and carries it into cells."
    )
    brain = LLMBrain(lane_settings(server, root / "condense", llm_timeout=1800))

    def ask(schema, messages):  # the brain's own metered structured call, as its writer makes it
        return brain._structured(brain._main, schema, messages, role="writer")

    def accept(text: str, _ground: str, _others: list[str]) -> tuple[str, str]:
        cleaned = clean_sentence(text)
        return (cleaned, "") if cleaned else ("", "not a plain sentence")

    def passes(text: str) -> bool:
        return bool(clean_sentence(text)) and not copied(text, sentence)

    lay = layout(sentence)
    offered = {
        clean_sentence(" ".join(lay.words[i].raw for i in kept)).replace(",", "") for kept in choices(lay, passes)
    }
    tally = Restated()
    [(written, n)] = restate_copies(
        "How do mRNA vaccines work?", "How do lipid nanoparticles deliver mRNA into cells?",
        [(sentence, 1)], [sentence], ask, accept, tally,
    )  # fmt: skip

    assert tally.failed_calls == 0 and n == 1
    if not tally.replaced:  # Qwen's restatement left out (it changed the subject in every run so far)
        assert tally.condense_asked == 1 and tally.condensed == 1, tally
        assert written.replace(",", "") in offered and not copied(written, sentence), written


@pytest.mark.timeout(RUN_LIMIT_SECONDS)
def test_the_dry_sampler_sees_the_prompt_so_a_sentence_asked_for_verbatim_is_not_copied(qwen) -> None:
    """bench/llama_server_dry.py through llama-cpp-python's own server and sampler: asked to copy a
    sentence, greedy Qwen copies it; with llama-server's DRY fields on the request, the penalty
    (primed with the prompt's tokens, as llama-server primes it) breaks the copy."""
    import openai

    from research.text.copying import copied_share

    server, _root = qwen
    sentence = (
        "Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids, which carries it "
        "into the cells near the injection site."
    )
    client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0, timeout=1800)

    def reply(**dry: float) -> str:
        answer = client.chat.completions.create(
            model=QWEN_ALIAS,
            messages=[
                {
                    "role": "user",
                    "content": f'Copy the text between the quotes, word for word, and nothing else.\n"{sentence}"',
                }
            ],
            temperature=0,
            max_tokens=80,
            extra_body={"max_tokens": 80, **dry},
        )
        return answer.choices[0].message.content or ""

    plain, dry = reply(), reply(dry_multiplier=1.5, dry_allowed_length=3)

    assert copied_share(plain, sentence) == 1.0, plain
    # Measured 6 Dec: 0.24, with slips ("ionizable lipoids", "fragile RNA"): why the writer drops them.
    assert dry.strip() and copied_share(dry, sentence) < 0.5, dry


def test_the_model_file_matches_its_pin() -> None:
    model = MODEL
    assert model is not None and model.stat().st_size == 1_117_320_768
    digest = hashlib.sha256()
    with Path(model).open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    assert digest.hexdigest() == QWEN_SHA256

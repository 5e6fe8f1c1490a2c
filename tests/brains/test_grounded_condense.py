"""The writer's condensing pass (grounded_condense.py): a copied sentence whose restatement was left
out goes back once more, and the model may only leave phrases out. Through the real ChatOpenAI
against the loopback OpenAI-compatible server, and the grammar as llama-cpp would receive it."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from research.brains.base import WriteRequest, number_sources
from research.brains.llm.grounded_condense import choices, layout, pattern, read_back
from research.brains.llm.llm_brain import LLMBrain
from research.schemas.state_shapes import Source
from research.text.copying import copied
from tests.brains.test_grounded_restate import brain, section_of
from tests.brains.test_grounded_writer import passages_in, request
from tests.brains.test_local_model_calls import llama_like, settings_for
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name

QUESTION = "How do lipid nanoparticles deliver mRNA into cells?"
LIPID = (
    "An ionizable lipid, ALC-0315 in the Pfizer-BioNTech vaccine and SM-102 in the Moderna vaccine, "
    "binds the mRNA and carries it into cells"
)
LIPID_TEXT = f"{LIPID}. The particles then fuse with the membrane of the cell."
CONDENSED = "An ionizable lipid binds the mRNA and carries it into cells."
# A restatement Qwen2.5-Coder-1.5B wrote of this shape (3 Dec): the roles swapped, so it is left out.
SWAPPED = "The Pfizer-BioNTech and Moderna vaccine delivery is key to the ionizable lipid ALC-0315 and SM-102."


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def lipid_request() -> WriteRequest:
    source = Source(id="s-lipid", title="Lipids", url="https://example.org/l", kind="web", provider="fake")
    return request(
        questions=[QUESTION], sources=number_sources([source]), text_of=lambda _id: LIPID_TEXT, known_gaps=[]
    )


def editor(condensed: Callable[[str], str]) -> Callable[[dict[str, Any]], Any]:
    """A model that copies its first passage's first sentence, restates by swapping its roles, and
    condenses as `condensed(the sentence sent)` says."""
    default = ScriptedModel()

    def responder(req: dict[str, Any]) -> Any:
        user = req["messages"][1]["content"]
        if requested_schema_name(req) == "SectionSentences":
            return {"sentences": [{"passage": 1, "text": passages_in(user)[1].split(". ")[0] + "."}]}
        if requested_schema_name(req) == "Restatement":
            return {"text": SWAPPED}
        if requested_schema_name(req) == "Condensation":
            return {"text": condensed(user.split("Sentence to shorten:\n")[1].split("\n")[0])}
        return default(req)

    return responder


def condense_requests(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if requested_schema_name(r) == "Condensation"]


# --- the sentence read into parts and phrases, and what must stay -------------------------------------


def test_a_sentence_is_read_as_parts_between_commas_and_phrases_opening_at_prepositions() -> None:
    lay = layout(f"{LIPID}.")
    parts = [[" ".join(lay.words[i].bare for i in phrase) for phrase in part] for part in lay.parts]

    assert parts == [
        ["An ionizable lipid"],
        ["ALC-0315", "in the Pfizer-BioNTech vaccine and SM-102", "in the Moderna vaccine"],
        ["binds the mRNA and carries it", "into cells"],
    ]
    # The subject with its verb (found past the apposition), and what answers the question.
    assert lay.kept_words() == ["ionizable", "lipid", "binds"]


@pytest.mark.parametrize(
    ("reply", "condensation"),
    [
        (" An ionizable lipid binds the mRNA and carries it into cells", True),  # the apposition left out
        (" An ionizable lipid binds the mRNA and carries it", True),  # and the last phrase
        (" An ionizable lipid ALC-0315 binds the mRNA and carries it into cells", False),  # a part cut short
        (" An ionizable lipid binds mRNA and carries it into cells", False),  # a phrase cut inside
        (" An ionizable lipid ALC-0315 in the Moderna vaccine binds the mRNA", False),  # joined to another word
        (" binds the mRNA and carries it into cells", False),  # the subject left out
        (" An ionizable lipid binds the fragile mRNA and carries it into cells", False),  # a word added
        (" The mRNA and carries it into cells binds an ionizable lipid", False),  # moved
    ],
)
def test_only_condensations_are_offered_and_read_back(reply: str, condensation: bool) -> None:
    lay = layout(f"{LIPID}.")
    offered = choices(lay, lambda text: not copied(text, LIPID_TEXT))

    assert bool(re.fullmatch(pattern(lay, offered), reply)) is condensation
    assert bool(read_back(reply, lay)) is condensation  # a server without grammars is held to the same


def test_only_the_condensations_that_pass_are_offered_longest_first() -> None:
    lay = layout(f"{LIPID}.")
    offered = [read_back(" ".join(lay.words[i].bare for i in kept), lay) for kept in choices(lay, lambda _t: True)]

    # Leaving out a fifth of the words at least: the apposition, so none keeps it.
    assert offered == [CONDENSED, "An ionizable lipid binds the mRNA and carries it."]
    passing = choices(lay, lambda text: not copied(text, LIPID_TEXT) and "cells" in text)
    assert [read_back(" ".join(lay.words[i].bare for i in kept), lay) for kept in passing] == [CONDENSED]


def test_a_dash_stays_between_the_words_it_stood_between() -> None:
    lay = layout("The vaccine — tested in 2020 — protects adults against severe disease in most trials.")

    assert read_back(" ".join(w.bare for w in lay.words), lay) == (
        "The vaccine — tested in 2020 — protects adults against severe disease in most trials."
    )


def test_leaving_out_a_bracketed_name_alone_is_not_condensing() -> None:
    """Measured on Qwen (6 Dec): "(mRNA-LNP)" left out of a 17-word sentence splits its run of the
    source's words (the copy metric reads "not copied"), but the sentence says all it said."""
    sentence = (
        "Messenger RNA vaccines formulated in lipid nanoparticles (mRNA-LNP) elicit potent antibody and "
        "cellular immunity after intramuscular injection."
    )
    lay = layout(sentence)
    without = "Messenger RNA vaccines formulated in lipid nanoparticles elicit potent antibody and cellular immunity"
    assert not copied(without + " after intramuscular injection.", sentence)
    assert read_back(without + " after intramuscular injection", lay)  # a condensation by its shape
    offered = [" ".join(lay.words[i].bare for i in kept) for kept in choices(lay, lambda t: not copied(t, sentence))]
    assert offered == [without]  # its end left out too: 13 of 17 words


@pytest.mark.parametrize(
    ("sentence", "measured"),
    [
        # Measured on Qwen (6 Dec) while any part could be left out: the subject's part left out, and
        # a list's item, which joined its neighbours into another noun phrase. Neither is offered now.
        (
            "In the randomized phase 2b KEYNOTE-942 trial in patients with resected high-risk melanoma, the "
            "individualised vaccine mRNA-4157 (V940), developed by Moderna and Merck, combined with the checkpoint "
            "inhibitor pembrolizumab reduced the risk of recurrence or death by 44 percent compared with "
            "pembrolizumab alone.",
            "In the randomized phase 2b KEYNOTE-942 trial in patients with resected high-risk melanoma combined with "
            "the checkpoint inhibitor pembrolizumab reduced the risk of recurrence or death by 44 percent compared "
            "with pembrolizumab alone",
        ),
        (
            "The experience pushed developers to pursue more stable formulations, including freeze-dried, or "
            "lyophilised, mRNA vaccines that could be stored in a refrigerator for long periods.",
            "The experience pushed developers to pursue more stable formulations or lyophilised mRNA vaccines that "
            "could be stored in a refrigerator",
        ),
    ],
)
def test_only_asides_are_left_out_so_what_stays_says_what_it_said(sentence: str, measured: str) -> None:
    lay = layout(sentence)

    assert not read_back(measured, lay)
    assert not choices(lay, lambda _t: True)  # an aside of 4 words is too little to leave out; a list item no aside


def test_a_relative_clause_stays_only_with_the_noun_it_is_about() -> None:
    sentence = "The mRNA is read by ribosomes, a step in the cytoplasm, which takes minutes."
    lay = layout(sentence)

    assert not read_back("The mRNA is read by ribosomes which takes minutes", lay)
    assert read_back("The mRNA is read by ribosomes a step in the cytoplasm which takes minutes", lay)


def test_the_verb_is_found_past_an_apposition_or_a_qualifier_and_stays() -> None:
    for sentence, kept in [
        ("Researchers at several sites, in a study of 40,000 people, reported myocarditis in young men.", "reported"),
        ("The vaccines, stored at minus 80 degrees, protect against severe disease.", "protect"),
        ("The trials, which ran in 2020, found that myocarditis was rare.", "found"),
    ]:
        assert kept in layout(sentence).kept_words(), sentence


def test_a_denial_a_hedge_and_a_comparison_stay_with_their_phrase() -> None:
    sentence = "Serious adverse events, which were counted by the trial sites, were not common in older adults."
    lay = layout(sentence)

    assert read_back("Serious adverse events were not common", lay) == "Serious adverse events were not common."
    assert not read_back("Serious adverse events were common in older adults", lay)  # the denial dropped
    more = layout("Pseudouridine-containing mRNA was translated into far more protein in mice.")
    assert not read_back("Pseudouridine-containing mRNA was translated", more)  # "more" holds its phrase
    assert read_back("Pseudouridine-containing mRNA was translated into far more protein", more)


def test_punctuation_comes_from_the_original() -> None:
    lay = layout("Once in the cytoplasm, the mRNA (about 4,000 bases) is read by ribosomes, which work fast.")

    assert read_back("Once in the cytoplasm the mRNA is read by ribosomes", lay) == (
        "Once in the cytoplasm, the mRNA is read by ribosomes."
    )
    assert read_back("Once in the cytoplasm the mRNA about 4000 bases is read by ribosomes", lay) == (
        "Once in the cytoplasm, the mRNA (about 4,000 bases) is read by ribosomes."
    )


# --- in the writer: after a restatement is left out ----------------------------------------------------


def test_a_copy_whose_restatement_is_left_out_is_condensed_and_cited(server: FakeOpenAIServer) -> None:
    server.responder = editor(lambda _sentence: " An ionizable lipid binds the mRNA and carries it into cells")
    draft = brain(server).write(lipid_request())

    assert section_of(draft, QUESTION) == "An ionizable lipid binds the mRNA and carries it into cells [1]."
    assert copied(f"{LIPID}.", LIPID_TEXT) and not copied(CONDENSED, LIPID_TEXT)
    [call] = condense_requests(server)
    assert f"Sentence to shorten:\n{LIPID}.\nkeep: ionizable; lipid; binds" in call["messages"][1]["content"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (" An ionizable lipid binds the fragile mRNA and carries it into cells", "not a condensation"),
        (f" {LIPID}", "left out too little"),
    ],
)
def test_a_condensation_that_breaks_a_rule_leaves_the_copy(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture, reply: str, why: str
) -> None:
    server.responder = editor(lambda _sentence: reply)
    with caplog.at_level(logging.INFO, logger="research.agents"):
        draft = brain(server).write(lipid_request())

    assert section_of(draft, QUESTION) == f"{LIPID} [1]."
    assert f"condensations left out: 1 {why}" in caplog.text


def test_a_sentence_with_no_condensation_that_passes_costs_no_call(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """ "Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids" is one part:
    whatever is left out of its end, the rest is one run of the source's words, a copy still."""
    server.responder = editor(lambda _sentence: "never asked")
    with caplog.at_level(logging.INFO, logger="research.agents"):
        brain(server).write(request())

    assert not condense_requests(server)
    assert "condensations left out: 3 no condensation passes" in caplog.text  # both sections and the summary


def test_on_llama_cpp_the_grammar_offers_only_the_condensations_that_pass(tmp_path: Path) -> None:
    with llama_like(editor(lambda _sentence: " An ionizable lipid binds the mRNA and carries it into cells")) as server:
        draft = LLMBrain(settings_for(server, tmp_path, writer_restate_copies=True), max_retries=0).write(
            lipid_request()
        )
        [call] = [r for r in condense_requests(server) if r["response_format"]["type"] == "json_object"]
    grammar = re.compile(call["response_format"]["schema"]["properties"]["text"]["pattern"])

    assert grammar.fullmatch(" An ionizable lipid binds the mRNA and carries it into cells")
    assert not grammar.fullmatch(" " + " ".join(f"{LIPID}".replace(",", "").split()))  # the copy is not offered
    assert not grammar.fullmatch(" An ionizable lipid binds the fragile mRNA and carries it into cells")
    assert "An ionizable lipid binds the mRNA and carries it into cells [1]." in draft

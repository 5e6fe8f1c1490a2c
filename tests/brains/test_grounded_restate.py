"""The writer's restating pass (RESEARCH_WRITER_RESTATE_COPIES): a sentence the model copied word for
word from its passage is sent back, one per call, to be restated, and the restatement takes its
place only when it is still grounded, faithful, on the question and no longer a copy. Through the
real ChatOpenAI against the loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from research.brains.base import WriteRequest, number_sources
from research.brains.llm.grounded_restate import Restated, kept_words, opening, restate_copies
from research.brains.llm.grounded_schema import MAX_RESTATED_CHARS, Restatement, restatement_schema
from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.model_output import strict_json_schema
from research.brains.llm.restated_meaning import meaning_change, subject_words
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.text.copying import copied
from tests.brains.test_grounded_writer import QUESTIONS, TEXTS, TOPIC, passages_in, request
from tests.brains.test_local_model_calls import llama_like, settings_for
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name

LNP = QUESTIONS[0]
# A restatement that ran on to its room (MAX_RESTATED_CHARS), where llama-cpp's grammar ends it mid-word.
CUT_RESTATEMENT = ("A shell of ionizable lipids, the nanoparticle, wraps up fragile mRNA, and " * 4)[
    :MAX_RESTATED_CHARS
]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def brain(server: FakeOpenAIServer, *, restate: bool = True, **settings: Any) -> LLMBrain:
    return LLMBrain(
        Settings(
            _env_file=None,
            openai_base_url=server.base_url,
            openai_api_key="sk-test",
            model="m",
            llm_timeout=5,
            writer_restate_copies=restate,
            **settings,
        )
    )


def copier(restated: Callable[[str], str | None]) -> Callable[[dict[str, Any]], Any]:
    """A model that copies its first passage whole, and restates as `restated(user prompt)` says
    (None: it repeats the sentence it was sent, still a copy)."""
    default = ScriptedModel()

    def responder(req: dict[str, Any]) -> Any:
        user = req["messages"][1]["content"]
        if requested_schema_name(req) == "SectionSentences":
            return {"sentences": [{"passage": 1, "text": passages_in(user)[1].split(". ")[0]}]}
        if requested_schema_name(req) == "Restatement":
            text = restated(user)
            return {"text": text if text is not None else user.split("Sentence to restate:\n")[1].split("\n")[0]}
        return default(req)

    return responder


def restate_requests(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if requested_schema_name(r) == "Restatement"]


def section_of(draft: str, heading: str) -> str:
    return draft.split(f"## {heading}")[1].split("##")[0].strip()


def test_a_copied_sentence_is_restated_and_the_restatement_is_cited(server: FakeOpenAIServer) -> None:
    def restated(user: str) -> str | None:
        return "In a shell of ionizable lipids, lipid nanoparticles wrap fragile mRNA." if LNP in user else None

    server.responder = copier(restated)
    draft = brain(server).write(request())

    assert section_of(draft, LNP) == "In a shell of ionizable lipids, lipid nanoparticles wrap fragile mRNA [1]."
    assert not copied("In a shell of ionizable lipids, lipid nanoparticles wrap fragile mRNA.", TEXTS["s-lnp"])
    [lnp_call] = [r for r in restate_requests(server) if LNP in r["messages"][1]["content"]]
    assert (
        "Sentence to restate:\nLipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids"
        in lnp_call["messages"][1]["content"]
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Lipid nanoparticles wrap the fragile mRNA in a shell of 12 ionizable lipids.", "a number the passage lacks"),
        ("Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids.", "still a copy"),
        ("Vector vaccines are the other main type, made of adenovirus.", "not its passage's words"),
        ("Ionizable lipids wrap [3] https://x.example the mRNA.", "a link"),
        (CUT_RESTATEMENT, "cut mid-word where the grammar's room ended it"),
    ],
)
def test_a_restatement_that_breaks_a_rule_leaves_the_copied_sentence(
    server: FakeOpenAIServer, text: str, why: str
) -> None:
    server.responder = copier(lambda user: text if LNP in user else None)
    draft = brain(server).write(request())

    assert section_of(draft, LNP) == "Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids [1].", (
        why
    )


def test_off_by_default_no_restating_call(server: FakeOpenAIServer) -> None:
    server.responder = copier(lambda user: None)
    brain(server, restate=False).write(request())

    assert not restate_requests(server)


def test_each_copied_sentence_is_sent_alone_and_a_section_sends_at_most_five() -> None:
    """Shown several sentences in one call, Qwen2.5-Coder-1.5B ran them together and answered one
    sentence's number with another's (3 Dec): each call now shows one sentence, and a section
    spends at most MAX_RESTATED calls."""
    sentences = [(f"Finding number {k} says the lipid shell protects mRNA in cells.", 1) for k in range(7)]
    asked: list[str] = []

    def ask(schema: type[Restatement], messages: list[BaseMessage]) -> Restatement:
        if "Sentence to restate" in str(messages[1].content):
            asked.append(str(messages[1].content))
        return schema(text="left out anyway")

    tally = Restated()
    restate_copies(TOPIC, LNP, sentences, [text for text, _n in sentences], ask, lambda *_a: ("", "left out"), tally)

    assert len(asked) == tally.asked == 5
    for k, user in enumerate(asked):
        shown = [text for text, _n in sentences if text in user]
        assert shown == [f"Finding number {k} says the lipid shell protects mRNA in cells."]


def test_each_sentence_to_restate_lists_the_words_that_answer_its_question_and_its_exact_tokens(
    server: FakeOpenAIServer,
) -> None:
    server.responder = copier(lambda user: None)
    brain(server).write(request())

    [lnp_call] = [r for r in restate_requests(server) if LNP in r["messages"][1]["content"]]
    user = lnp_call["messages"][1]["content"]
    # The lipid sentence answers "How do lipid nanoparticles deliver mRNA into cells?" by these words.
    assert (
        "Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids.\nkeep: Lipid; nanoparticles; mRNA; lipids"
        in user
    )


def test_the_words_kept_are_the_fitting_ones_and_the_numbers_with_their_sign_and_unit() -> None:
    sentence = "The Pfizer-BioNTech vaccine was stored between minus 80 and minus 60 degrees Celsius after 2021."
    kept = kept_words(sentence, "How cold was the vaccine stored?", TOPIC)
    # "vaccine" too: it is the sentence's subject, which the meaning rule holds a restatement to.
    assert kept == ["Pfizer-BioNTech", "vaccine", "stored", "minus 80", "minus 60 degrees", "2021"]


def test_the_grammar_lets_no_restatement_open_as_its_copied_original_did(tmp_path: Path) -> None:
    """On a server that turns the schema into a grammar (llama-cpp), a restatement may not begin
    with the first letter of either of its original's first two words: deleting an article or a
    clause and keeping the rest in order is not a restatement. Other servers get no pattern."""
    with llama_like(copier(lambda user: None)) as server:
        LLMBrain(settings_for(server, tmp_path, writer_restate_copies=True), max_retries=0).write(request())
        grammar = next(
            r["response_format"]["schema"]
            for r in server.requests
            if r.get("response_format", {}).get("type") == "json_object"
            and LNP in r["messages"][1]["content"]
            and requested_schema_name(r) == "Restatement"
        )
    text = re.compile(grammar["properties"]["text"]["pattern"])
    original = "Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids."
    assert not text.fullmatch(original) and not text.fullmatch(original.split(" ", 1)[1])
    assert text.fullmatch("In a shell of ionizable lipids, lipid nanoparticles wrap fragile mRNA.")
    assert "pattern" not in json.dumps(strict_json_schema(restatement_schema(opening(original))))


def test_the_log_says_why_each_restatement_was_left_out_and_quotes_it(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    memory = "Vector vaccines are the other main type, made of adenovirus."
    server.responder = copier(lambda user: memory if LNP in user else None)
    with caplog.at_level(logging.INFO, logger="research.agents"):
        brain(server).write(request())

    assert "1 not its passage's words" in caplog.text
    assert f'left out the restatement (not its passage\'s words): "{memory}"' in caplog.text


# --- a restatement says what its original said (restated_meaning.py) ------------------------------

PSEUDO_Q = "Why does modified mRNA make more protein?"
PSEUDO = "Pseudouridine-containing mRNA was translated into far more protein"
PSEUDO_TEXT = f"{PSEUDO}. The modification became a foundation of every mRNA vaccine."


def pseudouridine_request() -> WriteRequest:
    source = Source(id="s-nobel", title="Nobel", url="https://example.org/n", kind="web", provider="fake")
    return request(
        questions=[PSEUDO_Q], sources=number_sources([source]), text_of=lambda _id: PSEUDO_TEXT, known_gaps=[]
    )


@pytest.mark.parametrize(
    ("restated", "kept"),
    [
        # Measured on Qwen2.5-Coder-1.5B: the passage's words, not a copy, on the question, and about
        # another thing (the qualifier that defined the subject is gone).
        ("The mRNA vaccine was translated into far more protein.", f"{PSEUDO} [1]."),
        # Every word is the original's or its passage's but one fact of the model's own ("muscle").
        ("Far more protein was translated from pseudouridine-containing mRNA in muscle.", f"{PSEUDO} [1]."),
        # Measured (3 Dec): the original's words, its subject moved into a clause of its own.
        ("The mRNA was translated into far more protein, which is a pseudouridine-containing.", f"{PSEUDO} [1]."),
        # A change of voice with no agent ("from", not "by"): by its words, a swap of roles.
        ("Far more protein was translated from pseudouridine-containing mRNA.", f"{PSEUDO} [1]."),
        # A faithful reordering: the same subject with its qualifier, an opening clause moved, nothing added.
        (
            "Into far more protein, pseudouridine-containing mRNA was translated.",
            "Into far more protein, pseudouridine-containing mRNA was translated [1].",
        ),
    ],
)
def test_a_restatement_that_loses_its_subject_or_adds_words_leaves_the_original(
    server: FakeOpenAIServer, restated: str, kept: str
) -> None:
    server.responder = copier(lambda user: restated if PSEUDO_Q in user else None)
    draft = brain(server).write(pseudouridine_request())

    assert section_of(draft, PSEUDO_Q) == kept


@pytest.mark.parametrize(
    ("sentence", "subject"),
    [
        (f"{PSEUDO}.", ["Pseudouridine-containing", "mRNA"]),
        ("Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids.", ["Lipid", "nanoparticles"]),
        ("Messenger RNA vaccines formulated in lipid nanoparticles elicit immunity.", ["Messenger", "RNA", "vaccines"]),
        ("Once in the cytoplasm, the mRNA is translated by host ribosomes.", ["mRNA"]),
        ("The efficacy of the vaccines in older adults was high.", ["efficacy", "vaccines"]),
        (
            "Both the Pfizer-BioNTech and Moderna vaccines use N1-methylpseudouridine.",
            ["Pfizer-BioNTech", "Moderna", "vaccines"],
        ),
        (
            "Safety monitoring systems in Israel, the United States and Europe detected it.",
            ["Safety", "monitoring", "systems"],
        ),
    ],
)
def test_the_subject_is_the_noun_phrase_before_the_verb_with_its_qualifiers(sentence: str, subject: list[str]) -> None:
    assert subject_words(sentence) == subject


def test_a_restatement_keeps_the_subject_with_its_numbers_and_its_denials_but_may_drop_other_detail() -> None:
    prize = "The 2023 Nobel Prize was awarded to Katalin Karikó and Drew Weissman."
    assert meaning_change("Katalin Karikó and Drew Weissman were awarded the 2023 Nobel Prize.", prize, prize) == ""
    assert meaning_change("Katalin Karikó and Drew Weissman were awarded the Nobel Prize.", prize, prize) == (
        "lost its subject"
    )
    lipid = "An ionizable lipid, ALC-0315 in the Pfizer-BioNTech vaccine, binds the mRNA and is the key to delivery."
    assert meaning_change("An ionizable lipid binds mRNA for delivery.", lipid, lipid) == ""
    rare = "Myocarditis was not seen in the phase 3 trials, which were too small."
    assert meaning_change("Myocarditis, in the phase 3 trials that were too small, was seen.", rare, rare) == (
        "changed a negation"
    )
    assert meaning_change("Myocarditis, in the phase 3 trials that were too small, was not seen.", rare, rare) == ""
    assert meaning_change("Myocarditis was seen in the phase 3 trials, which were not too small.", rare, rare) == (
        "changed a negation"
    )
    # Measured (Qwen, 2 Dec): the denied clause left out whole, the denial with it, is faithful.
    fragile = (
        "Messenger RNA is fragile, and the hard problem was never writing the message but getting it inside cells."
    )
    assert meaning_change("Messenger RNA is fragile and hard to get inside cells.", fragile, fragile) == ""


@pytest.mark.parametrize(
    ("restated", "original", "why"),
    [
        # Measured on Qwen2.5-Coder-1.5B (3 Dec), the grammar holding it to the original's words:
        # every word is the original's, none is a copy, and each says something else.
        (
            "Practical quirks of lipid nanoparticles explain some of the vaccines.",
            "Lipid nanoparticles also explain some of the vaccines' practical quirks.",
            "changed its subject",
        ),
        (
            "The Pfizer-BioNTech and Moderna vaccine delivery is key to the ionizable lipid ALC-0315 and SM-102.",
            "An ionizable lipid, ALC-0315 in the Pfizer-BioNTech vaccine and SM-102 in the Moderna vaccine, binds the "
            "mRNA and is the key to delivery.",
            "changed its subject",
        ),
        (
            "The fragile messenger RNA molecule, which is the hardest engineering problem behind mRNA vaccines, was "
            "never writing the genetic message but getting it inside human cells intact.",
            "Messenger RNA is a fragile molecule, and the hardest engineering problem behind mRNA vaccines was never "
            "writing the genetic message but getting it inside human cells intact.",
            "changed its subject",
        ),
        # Measured on Qwen2.5-Coder-1.5B (3 Dec): a change of voice, the original's subject now the agent.
        (
            "Some of the vaccines' practical quirks are explained by lipid nanoparticles.",
            "Lipid nanoparticles also explain some of the vaccines' practical quirks.",
            "",
        ),
        # And the other way: the passive's receiver made the subject.
        (
            "Katalin Karikó and Drew Weissman were awarded the 2023 Nobel Prize.",
            "The 2023 Nobel Prize was awarded to Katalin Karikó and Drew Weissman.",
            "",
        ),
        # Measured: an apposition turned round, the subject and the names it stood for swapped.
        (
            "BNT162b2 and mRNA-1273, two messenger RNA vaccines, were the first COVID-19 vaccines to report phase 3 "
            "efficacy results.",
            "Two messenger RNA vaccines, BNT162b2 from Pfizer and BioNTech and mRNA-1273 from Moderna, were the first "
            "COVID-19 vaccines to report phase 3 efficacy results.",
            "",
        ),
    ],
)
def test_a_restatement_keeps_its_subject_unless_it_turns_a_voice_or_an_apposition_round(
    restated: str, original: str, why: str
) -> None:
    assert meaning_change(restated, original, original) == why


def test_a_role_word_that_is_no_participle_is_no_change_of_voice() -> None:
    """ "is key to host ribosomes" names them after "to", but "key" is no participle (as in the
    measured "... vaccine delivery is key to the ionizable lipid"): a passive is
    "<be> <participle> by|to ...", and only a passive turns the roles round faithfully."""
    original = "Host ribosomes translate the mRNA and are the key to delivery."
    assert meaning_change("The delivery is key to host ribosomes.", original, original) == "changed its subject"
    assert meaning_change("The mRNA is translated by host ribosomes.", original, original) == ""

"""The grammar a llama-cpp-like server receives gives the writer's sentences room: a long sentence
with identifiers, units and accents fits whole (the old 160-character cap cut it mid-word), it is
still bounded, every other string keeps the short cap, and OpenAI's strict schema carries no
`maxLength` (validation never rejects a longer sentence from a server that only reads it)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from research.brains.base import NumberedSource, WriteRequest
from research.brains.llm.grammar_schema import MAX_DECLARED_CHARS, MAX_STRING_CHARS, grammar_schema
from research.brains.llm.grounded_schema import MAX_SENTENCE_CHARS, PASSAGE_CHARS, section_schema
from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.model_output import strict_json_schema
from research.schemas.llm_shapes import QueryPlan
from research.schemas.state_shapes import Source
from tests.brains.test_local_model_calls import llama_like, settings_for
from tests.fakes.scripted_model import requested_schema_name

LONG = (
    "Tokio's spawn_blocking moves a blocking call such as std::fs::read onto a pool of up to 512 "
    "threads, so the async workers keep polling other tasks while the call waits on the disk, and the "
    "runtime's Handle can still schedule work at 5 °C or ±3% error in São Paulo’s data centre – "
    "the pool grows on demand and shrinks after ten idle seconds"
)
TOPIC = "How does Tokio run blocking code?"


def _sentence_pattern(request: dict[str, Any]) -> re.Pattern[str]:
    schema = request["response_format"]["schema"]
    return re.compile(schema["properties"]["sentences"]["items"]["properties"]["text"]["pattern"])


def test_a_long_sentence_fits_the_writer_grammar_whole_and_stays_bounded(tmp_path: Path) -> None:
    assert 300 < len(LONG) < MAX_SENTENCE_CHARS
    source = Source(id="s1", title="Tokio", url="https://docs.example/tokio", kind="web", provider="fake")

    def responder(request: dict[str, Any]) -> Any:
        if requested_schema_name(request) == "SectionSentences":
            return {"sentences": [{"passage": 1, "text": LONG}]}
        return {"queries": ["tokio"]}

    with llama_like(responder) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        draft = brain.write(
            WriteRequest(
                topic=TOPIC,
                questions=[],
                sources=[NumberedSource(1, source)],
                text_of=lambda _sid: LONG + ".",
                known_gaps=[],
            )
        )
        sent = [r for r in server.requests if r.get("response_format", {}).get("type") == "json_object"]

    pattern = _sentence_pattern(sent[0])
    assert pattern.fullmatch(LONG)  # identifiers, units, signs and accents, all 300+ characters
    assert not pattern.fullmatch(LONG[:MAX_STRING_CHARS] * 4)  # bounded
    assert pattern.fullmatch("x" * MAX_SENTENCE_CHARS) and not pattern.fullmatch("x" * (MAX_SENTENCE_CHARS + 1))
    assert not pattern.fullmatch('a "quoted" word') and not pattern.fullmatch("see [3] and <b>")
    assert f"{LONG} [1]." in draft  # the whole sentence, cited


def test_undeclared_strings_keep_the_short_cap_and_a_declared_room_has_a_ceiling() -> None:
    query = re.compile(grammar_schema(QueryPlan)["properties"]["queries"]["items"]["pattern"])
    assert query.fullmatch("q" * MAX_STRING_CHARS) and not query.fullmatch("q" * (MAX_STRING_CHARS + 1))
    assert MAX_SENTENCE_CHARS <= MAX_DECLARED_CHARS
    strict = str(strict_json_schema(section_schema(3)))
    assert "maxLength" not in strict and "pattern" not in strict  # OpenAI's strict mode rejects both


# A passage sentence over 400 characters and within a passage's 420: a copy of it must fit whole.
LONGEST = (
    "Tokio's spawn_blocking moves a blocking call such as std::fs::read onto a pool of up to 512 "
    "threads, so the async workers keep polling other tasks while the call waits on the disk, the runtime "
    "grows that pool on demand and shrinks it after ten idle seconds, and a blocking task that never "
    "returns keeps its thread busy until the runtime shuts down, which is why long blocking "
    "loops belong on a dedicated thread."
)
SHORT = "Tokio's spawn_blocking moves a blocking call such as std::fs::read onto a pool of threads."
_ROOM = re.compile(r"\{1,(\d+)\}\$$")


def _grammar_writer(texts: Callable[[], list[str]]) -> Callable[[dict[str, Any]], Any]:
    """A model behind llama-cpp's grammar: each of `texts` as the writer's sentence, ended where the
    grammar's pattern ends it (its room), as a real grammar would cut it."""

    def responder(request: dict[str, Any]) -> Any:
        if requested_schema_name(request) != "SectionSentences":
            return {"queries": ["tokio"]}
        room = int(_ROOM.search(_sentence_pattern(request).pattern).group(1)) + 1  # ^first + {1,room-1}
        return {"sentences": [{"passage": 1, "text": text[:room]} for text in texts()]}

    return responder


def _write(tmp_path: Path, responder: Callable[[dict[str, Any]], Any], text: str = LONGEST) -> str:
    source = Source(id="s1", title="Tokio", url="https://docs.example/tokio", kind="web", provider="fake")
    with llama_like(responder) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        return brain.write(
            WriteRequest(
                topic=TOPIC,
                questions=[],
                sources=[NumberedSource(1, source)],
                text_of=lambda _sid: text,
                known_gaps=[],
            )
        )


def test_a_passage_sentence_over_400_characters_copied_whole_is_not_cut(tmp_path: Path) -> None:
    assert 400 < len(LONGEST) <= PASSAGE_CHARS
    draft = _write(tmp_path, _grammar_writer(lambda: [LONGEST]))
    assert f"{LONGEST[:-1]} [1]." in draft  # the whole sentence, to its last word, cited


def test_a_sentence_the_grammar_ends_at_its_bound_is_never_shown_cut(tmp_path: Path, caplog) -> None:
    """A model that runs on past its room: the grammar ends the text there, mid-word; the desk
    drops that sentence (with a note) and keeps the whole one after it."""
    runaway = ", and ".join([LONGEST[:-1]] * 3) + "."  # one run-on sentence of its passage's words
    with caplog.at_level(logging.WARNING, logger="research.agents"):
        draft = _write(tmp_path, _grammar_writer(lambda: [runaway, SHORT]))
    summary = draft.split("## Summary\n\n", 1)[1].split("\n\n", 1)[0].strip()
    assert summary == f"{SHORT[:-1]} [1]."  # the whole sentence only: nothing of the cut run-on
    assert "cut off at the reply's length bound" in caplog.text

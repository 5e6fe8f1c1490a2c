"""Fitting a prompt into the model's context window by dropping its least relevant sources.

Token counts are estimated from characters (CHARS_PER_TOKEN, on the safe side for English with
small-vocabulary tokenizers), so no tokenizer is needed for any server. Only the untrusted source
blocks (`<source ...>...</source>` inside the SOURCES delimiters) are dropped: the instructions,
the question and the schema always stay. Blocks are ranked by how many of the prompt's own terms
(its topic and question, outside the sources) they contain; the rest keep their order.
"""

from __future__ import annotations

import re

from langchain_core.messages import BaseMessage

from research.text import tokenize

CHARS_PER_TOKEN = 3
# Room for the chat template's own tokens and the reply-format instructions added later.
TEMPLATE_OVERHEAD_TOKENS = 200
MIN_PROMPT_CHARS = 1200
_BLOCK = re.compile(r"<source [^>\n]*>\n.*?\n</source>", re.DOTALL)


def prompt_chars_allowed(context_tokens: int, reply_tokens: int) -> int:
    """Characters of prompt that fit beside a reply of `reply_tokens` in `context_tokens`."""
    tokens = context_tokens - reply_tokens - TEMPLATE_OVERHEAD_TOKENS
    return max(MIN_PROMPT_CHARS, tokens * CHARS_PER_TOKEN)


def prompt_chars(messages: list[BaseMessage]) -> int:
    return sum(len(str(m.content)) for m in messages)


def fit_messages(messages: list[BaseMessage], max_chars: int) -> tuple[list[BaseMessage], int]:
    """`messages` with source blocks dropped, least relevant first, until they fit `max_chars`.

    Returns the messages (unchanged objects when nothing had to go) and how many blocks went.
    """
    excess = prompt_chars(messages) - max_chars
    if excess <= 0:
        return messages, 0
    out = list(messages)
    dropped = 0
    # The last message holding sources is the one the prompt builders put them in.
    for index in range(len(out) - 1, -1, -1):
        content = str(out[index].content)
        blocks = list(_BLOCK.finditer(content))
        if not blocks:
            continue
        outside = set(tokenize(_BLOCK.sub(" ", content)))
        ranked = sorted(range(len(blocks)), key=lambda i: (_score(blocks[i].group(0), outside), -i))
        gone: set[int] = set()
        for i in ranked:
            if excess <= 0:
                break
            gone.add(i)
            excess -= len(blocks[i].group(0)) + 1
        dropped += len(gone)
        out[index] = out[index].model_copy(update={"content": _without(content, blocks, gone)})
        if excess <= 0:
            break
    return out, dropped


def _score(block: str, prompt_terms: set[str]) -> float:
    terms = set(tokenize(block))
    return len(terms & prompt_terms) / (1 + len(prompt_terms)) if terms else 0.0


def _without(content: str, blocks: list[re.Match[str]], gone: set[int]) -> str:
    pieces: list[str] = []
    last = 0
    for i, block in enumerate(blocks):
        pieces.append(content[last : block.start()])
        last = block.end()
        if i not in gone:
            pieces.append(block.group(0))
        elif content[last : last + 1] == "\n":
            last += 1  # the line break that separated it from the next block
    pieces.append(content[last:])
    return "".join(pieces)

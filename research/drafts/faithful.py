"""Whether a claim keeps its passage's exact tokens: numbers, units and identifiers.

A quote is a quote. Term overlap rates "Tokio's spawnblocking" as supported by "Tokio's
`spawn_blocking`" (the words nearly match); a reader copying the identifier gets it wrong. So every
number and identifier a claim carries must stand in the passage as written, a number's unit must
follow it there too, and a claim word that is a passage identifier or number with its punctuation
changed or dropped ("spawnblocking", "35" for "3.5") is named as changed. Paraphrase is free;
the exact tokens are not.
"""

from __future__ import annotations

import re

_EDGE = "\"'“”‘’()[]{},;:!?.…"
_IDENTIFIER = re.compile(r"_|::|[a-z][A-Z]|[A-Za-z][./][A-Za-z]|[A-Za-z](?:#|\+\+)$")
_DIGIT = re.compile(r"\d")
_SQUASH = re.compile(r"[^0-9a-z]+")
_POSSESSIVE = re.compile(r"['’]s$")
UNITS = frozenset(
    [
        "%",
        "percent",
        "ms",
        "s",
        "µs",
        "us",
        "ns",
        "sec",
        "secs",
        "second",
        "seconds",
        "min",
        "mins",
        "minute",
        "minutes",
        "h",
        "hr",
        "hrs",
        "hour",
        "hours",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "kg",
        "g",
        "mg",
        "µg",
        "mcg",
        "lb",
        "lbs",
        "km",
        "m",
        "cm",
        "mm",
        "µm",
        "nm",
        "nanometres",
        "nanometers",
        "micrometres",
        "micrometers",
        "metres",
        "meters",
        "miles",
        "°c",
        "°f",
        "degrees",
        "kb",
        "mb",
        "gb",
        "tb",
        "kib",
        "mib",
        "gib",
        "bytes",
        "bits",
        "kbit",
        "mbit",
        "gbit",
        "hz",
        "khz",
        "mhz",
        "ghz",
        "w",
        "kw",
        "mw",
        "gw",
        "kwh",
        "v",
        "mv",
        "ma",
        "a",
        "dollars",
        "euros",
        "pounds",
        "yen",
        "million",
        "billion",
        "trillion",
        "thousand",
        "doses",
        "times",
        "x",
        "fold",
        "cores",
        "threads",
        "requests",
        "connections",
    ]
)


def _words(text: str) -> list[str]:
    text = re.sub(r"(\d) ?percent\b", r"\1%", text)
    return [w for w in (_POSSESSIVE.sub("", raw.strip(_EDGE)).strip(_EDGE) for raw in text.split()) if w]


def _exact_kind(word: str) -> bool:
    return bool(_DIGIT.search(word) or _IDENTIFIER.search(word))


def changed_tokens(claim: str, passage: str) -> str | None:
    """What the claim changes of the passage's exact tokens, in words; None when it keeps them."""
    passage_words = _words(passage)
    present = set(passage_words)
    pairs = {(w, nxt.lower()) for w, nxt in zip(passage_words, passage_words[1:], strict=False)}
    squashed: dict[str, str] = {}
    for word in passage_words:
        if _exact_kind(word):
            squashed.setdefault(_SQUASH.sub("", word.lower()), word)
    words = _words(claim)
    for k, word in enumerate(words):
        if word in present:
            unit = words[k + 1].lower() if k + 1 < len(words) else ""
            if _DIGIT.search(word) and unit in UNITS and (word, unit) not in pairs:
                return f'"{word} {words[k + 1]}" is not in the cited passage'
            continue
        original = squashed.get(_SQUASH.sub("", word.lower()))
        if original is not None and original != word:
            return f'it quotes "{original}" as "{word}"'
        if _exact_kind(word):
            return f'"{word}" is not in the cited passage as written'
    return None

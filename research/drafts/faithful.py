"""Whether a claim keeps its passage's exact tokens: numbers, units and identifiers.

A quote is a quote. Term overlap rates "Tokio's spawnblocking" as supported by "Tokio's
`spawn_blocking`" (the words nearly match); a reader copying the identifier gets it wrong. So every
number and identifier a claim carries must stand in the passage as written, a number's unit must
follow it there too, and a claim word that is a passage identifier or number with its punctuation
changed or dropped ("spawnblocking", "35" for "3.5") is named as changed. So is a word spelt
one letter off a passage word (two in a word of ten letters or more) but not as the passage spells
it, unless it is only another form of that word (a plural, a tense, British or American spelling): "pembrolizumbar" for
"pembrolizumab", "Modernda" for "Moderna", "reseced" for "resected", the marks a small model
leaves when it copies a name and slips. Paraphrase is free; the exact tokens are not.
"""

from __future__ import annotations

import re

from research.text.tokens import STOPWORDS

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


# A misspelling is looked for only in longer words (short ones are too often another real word):
# one edit away in a word of 6-9 letters, two in a longer one ("infection" and "inflation" are two
# edits apart and two words; "pembrolizumab" and "pembrolizumbar" are two edits apart and one name).
MISSPELT_MIN_CHARS = 6
MISSPELT_LONG_CHARS = 10
MISSPELT_EDITS = 2
# Endings by which two forms of one word differ ("protects", "protected"; "antibody", "antibodies").
_FORM_ENDINGS = frozenset(["", "s", "es", "ed", "d", "ing", "e", "er", "ers", "y", "ies", "ied", "ly", "al", "is"])
# British -> American spellings, so "immunise" and "immunize" are one word.
_SPELLINGS = (("isation", "ization"), ("ise", "ize"), ("yse", "yze"), ("our", "or"), ("tre", "ter"), ("ising", "izing"))
_LETTERS = re.compile(r"[a-z]+")


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
    return _misspelt(words, passage_words)


def _misspelt(claim_words: list[str], passage_words: list[str]) -> str | None:
    """'it quotes "X" as "Y"' for the first claim word that is a passage word misspelt, else None.
    Only words absent from the passage are compared, each with the passage's words of its first
    letter and nearly its length: a handful of short edit distances per claim."""
    known = {w.lower() for w in passage_words}
    unknown = [
        word
        for word in claim_words
        if len(word) >= MISSPELT_MIN_CHARS
        and (lower := word.lower()) not in known
        and lower not in STOPWORDS
        and _LETTERS.fullmatch(lower)
    ]
    if not unknown:  # a quote's words are all its passage's: nothing to compare (the common case)
        return None
    vocabulary: dict[str, set[str]] = {}
    for word in passage_words:
        lower = word.lower()
        if len(lower) >= MISSPELT_MIN_CHARS - MISSPELT_EDITS and lower not in STOPWORDS and _LETTERS.fullmatch(lower):
            vocabulary.setdefault(lower[0], set()).add(lower)
    for word in unknown:
        lower = word.lower()
        allowed = MISSPELT_EDITS if len(lower) >= MISSPELT_LONG_CHARS else 1
        near = [
            (_edits(lower, other, MISSPELT_EDITS), other)
            for other in vocabulary.get(lower[0], ())
            if abs(len(other) - len(lower)) <= MISSPELT_EDITS
        ]
        if not near:
            continue
        edits, closest = min(near)
        if edits <= allowed and not any(_same_word(lower, other) for _e, other in near):
            original = next(w for w in passage_words if w.lower() == closest)
            return f'it quotes "{original}" as "{word}"'
    return None


def _same_word(a: str, b: str) -> bool:
    """Two forms of one word: they differ only by an ending, or by British and American spelling."""
    for british, american in _SPELLINGS:
        a, b = a.replace(british, american), b.replace(british, american)
    if a == b:
        return True
    stem = 0
    while stem < min(len(a), len(b)) and a[stem] == b[stem]:
        stem += 1
    return a[stem:] in _FORM_ENDINGS and b[stem:] in _FORM_ENDINGS


def _edits(a: str, b: str, most: int) -> int:
    """Levenshtein distance, or most + 1 once every path is over `most` (words of a few dozen letters)."""
    previous = list(range(len(b) + 1))
    for i, letter in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (letter != other)))
        if min(current) > most:
            return most + 1
        previous = current
    return previous[-1]

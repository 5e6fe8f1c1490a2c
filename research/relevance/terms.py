"""Term keys and aspect words: what two spellings of one subject term share, and which words only
name an aspect of a subject ("effects", "history") rather than the subject itself."""

from __future__ import annotations

from research.text import tokenize
from research.text.memo import WordMemo

# Words that name an aspect of a subject, not the subject: never enough on their own.
ASPECT_TERMS: frozenset[str] = frozenset(
    tokenize(
        "health effect effects impact impacts influence role significance history histories cause causes "
        "consequence consequences origin origins future state benefit benefits risk risks advantage "
        "advantages disadvantage disadvantages pros cons made make making use uses used work works "
        "overview introduction evidence mechanism mechanisms side long term short main key best way ways "
        "type types kind kinds today modern new recent current problem problems issue issues good bad "
        "choose choosing choice pick select decide compare comparison better worse team teams company companies"
    )
)
# Word forms of one subject compare equal once derivational endings are cut ("Impressionism" /
# "Impressionists", "painters" / "painting", "vaccination" / "vaccine"); a stem keeps 4+ letters.
_ENDINGS = ("ations", "ation", "isms", "ism", "ists", "ist", "ers", "er", "e")


def _term_key(term: str) -> str:
    for ending in _ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= 4:
            return term[: -len(ending)]
    return term


term_key = WordMemo(_term_key)
"""A term's key (called for every token of every source the relevance judge reads: memoised)."""

"""Words and tokens: accent folding, stopwords and the light stemming behind `tokenize`.

`tokenize` is the one normaliser both sides of a comparison must go through (query and document),
so its stemming only has to be consistent, not linguistic.
"""

from __future__ import annotations

import re
import unicodedata

from research.text.memo import WordMemo, memo_list

# A compact English stopword list (function words that carry no topic).
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "either",
        "else",
        "etc",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "least",
        "let",
        "ll",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "mustn",
        "my",
        "myself",
        "neither",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "often",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "rather",
        "re",
        "same",
        "shall",
        "shan",
        "she",
        "should",
        "shouldn",
        "since",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "via",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won",
        "would",
        "wouldn",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "ve",
    ]
)

_WORD = re.compile(r"[^\W_]+")


def _fold(text: str) -> str:
    """Lower-case and strip accents (café -> cafe) so spellings compare equal."""
    text = text.lower()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """Lower-case, accent-folded words and numbers, in order; no stopword removal, no stemming."""
    return _WORD.findall(_fold(text))


def stem(word: str) -> str:
    """Light, consistent suffix stripping: plurals (-s, -es, -ies) and -ing.

    Deliberately conservative: it only has to map a word's common forms to one key
    (models/model, studies/study, classes/class, running/run, learning/learn).
    """
    n = len(word)
    if n <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and n > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ches", "shes", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if word.endswith("ing") and n >= 6:
        base = word[:-3]
        if len(base) >= 4 and any(vowel in base for vowel in "aeiouy"):
            if base[-1] == base[-2] and base[-1] not in "lsz":
                return base[:-1]  # running -> run, mapping -> map
            return base  # learning -> learn (short bases such as str-ing stay whole)
    return word


_stem = WordMemo(stem)


@memo_list
def tokenize(text: str) -> list[str]:
    """Index/query tokens: words minus stopwords and 1-letter noise, lightly stemmed."""
    return [_stem(w) for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]

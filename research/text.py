"""Shared text utilities: words, tokens, sentences, BM25 ranking and best-sentence snippets.

Pure Python and deterministic. The local library uses them for snippets; the offline brain uses
them to pick and rank sentences. `tokenize` is the one normaliser both sides of a comparison must
go through (query and document), so its light stemming only has to be consistent, not linguistic.

Kept hand-written after measuring the libraries (bench/libraries.py, README "Libraries we use"):
PyStemmer regroups words (other rankings, other relevance), bm25s scores the same but is slower on
these small corpora and has no exact-IDF prefilter, and pysbd splits the same cases ~190x slower.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

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


def tokenize(text: str) -> list[str]:
    """Index/query tokens: words minus stopwords and 1-letter noise, lightly stemmed."""
    return [stem(w) for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


# --- sentences -------------------------------------------------------------------------------

# Abbreviations after which a period never ends a sentence.
_TITLE_ABBREVIATIONS = frozenset(
    [
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "cf",
        "al",
        "approx",
        "ca",
        "gen",
        "gov",
        "rev",
        "hon",
        "mt",
        "ft",
        "lt",
        "col",
        "sgt",
        "capt",
        "e.g",
        "i.e",
        "viz",
        "resp",
        "dept",
        "univ",
        "assoc",
    ]
)
# Abbreviations that only bind to a following number ("No. 5", "Fig. 2", "pp. 10-12").
_NUMBER_ABBREVIATIONS = frozenset(
    ["no", "nos", "vol", "vols", "pp", "p", "fig", "figs", "eq", "eqs", "ch", "sec", "art", "para", "ref", "refs"]
)
_INITIALISM = re.compile(r"(?:[a-z]\.){2,}")  # U.S., e.g., a.m.
_INITIAL = re.compile(r"[A-Z]\.")  # J. Smith
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s+\S)")
_BLOCK_BREAK = re.compile(r"\n\s*\n")
_LINE_START_BLOCK = re.compile(r"^\s*(?:#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|>\s?)")
_OPENERS = "\"'“‘([{"


def _blocks(text: str) -> list[str]:
    """Paragraphs, with headings and list items as blocks of their own; whitespace collapsed."""
    out: list[str] = []
    for paragraph in _BLOCK_BREAK.split(text):
        current: list[str] = []
        for line in paragraph.splitlines():
            if _LINE_START_BLOCK.match(line) and current:
                out.append(" ".join(current))
                current = []
            stripped = line.strip()
            if stripped:
                current.append(stripped)
            if stripped.startswith("#"):  # a heading never runs on into the next line
                out.append(" ".join(current))
                current = []
        if current:
            out.append(" ".join(current))
    return [" ".join(block.split()) for block in out if block.strip()]


def _ends_sentence(block: str, match: re.Match[str], start: int) -> bool:
    punct = match.group()
    rest = block[match.end() :].lstrip()
    next_char = rest[:1]
    if "?" in punct or "!" in punct:
        return True
    if not (next_char.isupper() or next_char.isdigit() or next_char in _OPENERS):
        return False  # "e.g. the", "U.S. and", "3 p.m. on": a lower-case word continues the sentence
    word = block[start : match.start() + 1].rsplit(None, 1)[-1].lstrip(_OPENERS)
    if not word.endswith("."):
        return True  # the period sits after a quote or bracket: a real end
    bare = word.lower()
    if bare.rstrip(".") in _TITLE_ABBREVIATIONS or bare in _TITLE_ABBREVIATIONS:
        return False
    if bare.rstrip(".") in _NUMBER_ABBREVIATIONS and next_char.isdigit():
        return False
    if _INITIALISM.fullmatch(bare) or _INITIAL.fullmatch(word):
        return False
    return True


def split_sentences(text: str) -> list[str]:
    """Sentences in order. Paragraphs, headings and list items always split; inside a paragraph a
    period splits only before a capital, digit or quote, and not after common abbreviations
    (Dr., e.g., U.S., Fig. 2) or initials. Decimals (3.14) never split: no space follows the dot."""
    sentences: list[str] = []
    for block in _blocks(text):
        start = 0
        for match in _BOUNDARY.finditer(block):
            if _ends_sentence(block, match, start):
                sentence = block[start : match.end()].strip()
                if sentence:
                    sentences.append(sentence)
                start = match.end()
        tail = block[start:].strip()
        if tail:
            sentences.append(tail)
    return sentences


# --- BM25 ------------------------------------------------------------------------------------


class BM25:
    """Okapi BM25 over pre-tokenised documents (k1=1.5, b=0.75 by default).

    An inverted index means scoring touches only the documents that share a query term.
    IDF uses the non-negative variant log(1 + (N - df + 0.5) / (df + 0.5)).
    """

    def __init__(
        self,
        corpus: Sequence[Sequence[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        total_docs: int | None = None,
        avg_length: float | None = None,
    ) -> None:
        """`total_docs` / `avg_length` describe the full collection when `corpus` is only the part
        of it that can match (every document holding a query term): IDFs stay exact that way."""
        self.k1 = k1
        self.b = b
        self.size = len(corpus)
        self.lengths = [len(doc) for doc in corpus]
        self.total_docs = max(total_docs or 0, self.size)
        if avg_length is None:
            avg_length = (sum(self.lengths) / self.size) if self.size else 0.0
        self.avg_length = avg_length
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for index, doc in enumerate(corpus):
            for term, freq in Counter(doc).items():
                self._postings.setdefault(term, []).append((index, freq))
        self._idf = {
            term: math.log(1.0 + (self.total_docs - len(post) + 0.5) / (len(post) + 0.5))
            for term, post in self._postings.items()
        }

    def idf(self, term: str) -> float:
        return self._idf.get(term, 0.0)

    def scores(self, query_tokens: Sequence[str]) -> list[float]:
        """One score per document, in corpus order (0.0 where no query term occurs)."""
        out = [0.0] * self.size
        if not self.size or not self.avg_length:
            return out
        k1, b, avg = self.k1, self.b, self.avg_length
        for term, query_freq in Counter(query_tokens).items():
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index, freq in self._postings[term]:
                norm = k1 * (1.0 - b + b * self.lengths[index] / avg)
                out[index] += query_freq * idf * freq * (k1 + 1.0) / (freq + norm)
        return out

    def top(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The k best (index, score) pairs with a positive score, best first; ties keep corpus order."""
        scored = [(i, s) for i, s in enumerate(self.scores(query_tokens)) if s > 0.0]
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]


# --- best sentences --------------------------------------------------------------------------


class ScoredSentence(NamedTuple):
    text_index: int  # which of the given texts it came from
    sentence_index: int  # its position in that text
    sentence: str
    score: float


_PREFILTER_FROM = 64  # sentences; below this, ranking everything is cheaper than filtering


def _probe(token: str) -> str:
    """A substring every word that tokenizes to `token` contains (stems are prefixes, bar -ies -> -y)."""
    return token if len(token) <= 3 else token[:-1]


def _rank(query_tokens: list[str], located: list[tuple[int, int, str]], k: int) -> list[ScoredSentence]:
    candidates = located
    if len(located) >= _PREFILTER_FROM:
        # Long texts (books): tokenise only sentences that can hold a query term. Every sentence
        # with a query term survives, so document frequencies, and hence IDFs, stay exact.
        probes = {_probe(token) for token in query_tokens}
        candidates = [item for item in located if any(p in _fold(item[2]) for p in probes)]
    token_lists = [tokenize(sentence) for _, _, sentence in candidates]
    average = sum(map(len, token_lists)) / len(token_lists) if token_lists else 0.0
    ranking = BM25(token_lists, total_docs=len(located), avg_length=average).top(query_tokens, k)
    return [ScoredSentence(*candidates[i], score) for i, score in ranking]


def top_sentences(query: str, texts: Sequence[str], k: int = 5) -> list[ScoredSentence]:
    """The k sentences across `texts` that best match `query` by BM25, best first."""
    query_tokens = tokenize(query)
    if not query_tokens or k <= 0:
        return []
    located = [
        (text_index, sentence_index, sentence)
        for text_index, text in enumerate(texts)
        for sentence_index, sentence in enumerate(split_sentences(text))
    ]
    return _rank(query_tokens, located, k)


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut).rstrip(" ,;:") + "…"


def best_snippet(query: str, text: str, *, max_chars: int = 600, max_sentences: int = 3) -> str:
    """The sentences of `text` that best match `query`, kept in reading order, within max_chars.

    Falls back to the opening of the text when no sentence shares a term with the query.
    """
    sentences = split_sentences(text)
    if not sentences:
        return ""
    query_tokens = tokenize(query)
    located = [(0, i, sentence) for i, sentence in enumerate(sentences)]
    ranked = _rank(query_tokens, located, max_sentences) if query_tokens and max_sentences > 0 else []
    if not ranked:
        return _clip(" ".join(sentences[:max_sentences]), max_chars)
    chosen: list[ScoredSentence] = []
    used = 0
    for item in ranked:  # best first, so the best sentence always gets in
        cost = len(item.sentence) + (1 if chosen else 0)
        if chosen and used + cost > max_chars:
            continue
        chosen.append(item)
        used += cost
    chosen.sort(key=lambda item: item.sentence_index)
    return _clip(" ".join(item.sentence for item in chosen), max_chars)

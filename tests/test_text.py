"""Shared text utilities: tokens, sentences, BM25 and best-sentence snippets."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from research.text import BM25, best_snippet, split_sentences, stem, tokenize, top_sentences, words


def test_tokenize_lowercases_drops_stopwords_and_noise() -> None:
    assert tokenize("The Quantum computer and THE qubit: a 2021 study of C") == [
        "quantum", "computer", "qubit", "2021", "study",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("forms", "key"),
    [
        (["model", "models", "Models"], "model"),
        (["study", "studies"], "study"),
        (["class", "classes"], "class"),
        (["box", "boxes"], "box"),
        (["match", "matches"], "match"),
        (["learn", "learning", "learns"], "learn"),
        (["run", "running", "runs"], "run"),
    ],
)
def test_tokenize_maps_word_forms_to_one_key(forms: list[str], key: str) -> None:
    assert {tokenize(form)[0] for form in forms} == {key}


def test_stem_leaves_short_and_s_final_words_alone() -> None:
    assert [stem(w) for w in ("string", "analysis", "status", "glass", "gas", "2020s")] == [
        "string", "analysis", "status", "glass", "gas", "2020",
    ]  # fmt: skip


def test_words_fold_accents_and_split_on_punctuation() -> None:
    assert words("Café naïve—déjà_vu, C++!") == ["cafe", "naive", "deja", "vu", "c"]


# Shared with bench/libraries.py, which runs the library splitter on the same cases.
SPLIT_CASES = json.loads((Path(__file__).parent / "fixtures" / "sentence_splits.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("text", "expected"), [(case["text"], case["sentences"]) for case in SPLIT_CASES["cases"]])
def test_split_sentences_handles_abbreviations_and_decimals(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_split_sentences_treats_paragraphs_headings_and_list_items_as_boundaries() -> None:
    text = "# Heading\nA line that wraps\nonto the next line\n\nNo full stop here\n- first item\n- second item"
    assert split_sentences(text) == [
        "# Heading",
        "A line that wraps onto the next line",
        "No full stop here",
        "- first item",
        "- second item",
    ]


def test_split_sentences_of_empty_text() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n\n \t") == []


CORPUS = [
    "Bees forage for nectar and pollen in gardens.",
    "Quantum error correction protects logical qubits with surface codes. Qubits are fragile.",
    "The history of medieval trade in Europe.",
]


def test_bm25_ranks_the_relevant_document_first() -> None:
    bm25 = BM25([tokenize(doc) for doc in CORPUS])
    scores = bm25.scores(tokenize("how do surface codes protect qubits?"))
    assert scores.index(max(scores)) == 1
    assert scores[0] == scores[2] == 0.0
    assert bm25.top(tokenize("qubits"), 5) == [(1, bm25.scores(["qubit"])[1])]  # only positive scores


def test_bm25_matches_the_okapi_formula_with_k1_1_5_and_b_0_75() -> None:
    corpus = [["a", "a", "b"], ["b", "c"], ["c", "d", "e", "f"]]
    bm25 = BM25(corpus)
    n, avg = 3, 3.0
    idf = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))  # "a" is in one document
    tf, length = 2, 3
    expected = idf * tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * length / avg))
    assert bm25.scores(["a"]) == pytest.approx([expected, 0.0, 0.0])


def test_bm25_prefers_rare_terms_and_short_documents() -> None:
    corpus = [["common", "rare"], ["common", "filler"], ["common", "filler"], ["rare"] + ["filler"] * 20]
    bm25 = BM25(corpus)
    assert bm25.idf("rare") > bm25.idf("common")
    scores = bm25.scores(["rare"])
    assert scores[0] > scores[3] > 0.0  # same term frequency, the longer document scores lower


def test_bm25_of_an_empty_corpus() -> None:
    assert BM25([]).scores(["x"]) == []
    assert BM25([[]]).scores(["x"]) == [0.0]


def test_top_sentences_ranks_across_texts_and_says_where_each_came_from() -> None:
    best = top_sentences("surface codes qubits", CORPUS, k=2)
    assert [(s.text_index, s.sentence_index) for s in best] == [(1, 0), (1, 1)]
    assert best[0].sentence.startswith("Quantum error correction")
    assert best[0].score > best[1].score > 0
    assert top_sentences("the of and", CORPUS) == []  # stopwords only: nothing to rank on


def test_best_snippet_keeps_reading_order_and_fits_the_budget() -> None:
    text = (
        "An introduction that says nothing. Surface codes correct errors. A digression about lunch. "
        "Decoders for surface codes must be fast. Closing remarks."
    )
    snippet = best_snippet("surface codes decoders", text, max_chars=200, max_sentences=2)
    assert snippet == "Surface codes correct errors. Decoders for surface codes must be fast."
    short = best_snippet("surface codes decoders", text, max_chars=30)
    assert len(short) <= 30 and short.endswith("…")


def test_best_snippet_falls_back_to_the_opening_without_a_match() -> None:
    assert best_snippet("volcano", "First sentence. Second one. Third.", max_sentences=2) == (
        "First sentence. Second one."
    )
    assert best_snippet("anything", "") == ""


def test_long_texts_rank_like_a_full_bm25_over_every_sentence() -> None:
    # Equal-length sentences, so the only shortcut in play is skipping sentences with no query term.
    topics = ["otters eat urchins", "kelp grows fast", "storms tear kelp", "urchins graze kelp"]
    sentences = [f"Note {i} says {topics[i % 4]} here." for i in range(120)]
    text = " ".join(sentences)
    best = top_sentences("urchins kelp", [text], k=5)
    full = BM25([tokenize(s) for s in sentences]).top(tokenize("urchins kelp"), 5)
    assert [s.sentence_index for s in best] == [i for i, _ in full]
    assert [s.score for s in best] == pytest.approx([score for _, score in full])
    assert all("urchins graze kelp" in s.sentence for s in best)


def test_bm25_idf_can_describe_a_larger_collection() -> None:
    subset = BM25([["kelp"], ["kelp", "otter"]], total_docs=100)
    assert subset.idf("kelp") == pytest.approx(math.log(1 + (100 - 2 + 0.5) / 2.5))
    assert len(subset.scores(["kelp"])) == 2

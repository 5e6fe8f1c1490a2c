"""Which language a topic is written in, as far as the desk needs to know: English, or another one.

The offline brain's questions, queries and relevance rules are English word lists: a German topic
gets nonsense questions and no sources, so the run warns. A model can work in the topic's language,
so its prompts ask it to keep that language. A few function words per language decide (linear in
the topic, no model, no download); letters outside the Latin script mean "not English" at once.
"""

from __future__ import annotations

import re
import unicodedata

ENGLISH = "English"
_WORD = re.compile(r"[^\W\d_]+")
# Short, frequent function words: what a topic sentence cannot avoid in its language.
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        ENGLISH: "the a an of and or in on for to with how what why which who is are was were do does did "
        "can could should would between from by about its their this that these those vs versus",
        "German": "der die das des dem den ein eine einer eines und oder wie was warum welche welcher wer ist "
        "sind war waren für mit von zu zum zur im auf über zwischen bei nach aus werden wird kann "
        "können sollte nicht auch sich",
        "French": "le la les un une des du de et ou comment pourquoi quel quelle quels qui est sont était pour "
        "avec dans sur entre par sans peut",
        "Spanish": "el la los las un una unos unas del de y o cómo como qué por cuál quién es son era para "
        "con en sobre entre sin puede",
        "Italian": "il lo la gli le un una dei delle del della di e o come perché quale chi è sono era per con "
        "nel nella sulla tra senza può",
        "Dutch": "de het een en of hoe wat waarom welke wie is zijn was voor met van naar op over tussen bij "
        "niet ook kan",
    }.items()
}
_NON_ENGLISH_LETTERS = frozenset("äöüßéèêàâçñíóúìòùœæøåëïÿ")


def topic_language(topic: str) -> str:
    """ENGLISH, the name of another language, or "a language other than English"."""
    words = [w.lower() for w in _WORD.findall(topic[:2_000])]
    if not words:
        return ENGLISH
    if _mostly_non_latin(words):
        return "a language other than English"
    scores = {lang: sum(w in vocab for w in words) for lang, vocab in _FUNCTION_WORDS.items()}
    accented = sum(any(ch in _NON_ENGLISH_LETTERS for ch in w) for w in words)
    best = max(scores, key=lambda lang: scores[lang])
    if best != ENGLISH and scores[best] > scores[ENGLISH]:
        return best
    if scores[ENGLISH] == 0 and accented and accented * 3 >= len(words):
        return "a language other than English"
    return ENGLISH


def _mostly_non_latin(words: list[str]) -> bool:
    letters = [ch for w in words for ch in w]
    latin = sum("LATIN" in unicodedata.name(ch, "") for ch in letters)
    return latin * 2 < len(letters)


def offline_language_warning(language: str) -> str:
    return (
        f"the offline brain reads English only: this topic looks like {language}, so its questions and "
        "queries may make no sense and find nothing. Write the topic in English, or use a model "
        "(RESEARCH_LLM=openai), which keeps the topic's language."
    )

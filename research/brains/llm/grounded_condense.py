"""Condensing a copied sentence by leaving phrases out (the writer's restating pass, second try).

Asked to restate a copied sentence, Qwen2.5-Coder-1.5B wrote 2 faithful restatements of 7 on a
quiet machine (3 Dec); the other five said something else (another subject, two sentences in one,
a qualifier moved onto another noun) and the desk kept the copy. What can be done to a sentence
without changing what it says is to leave phrases out. So a copied sentence whose restatement was
left out goes back once more, to be condensed: the model chooses what to leave out, and may not
add, change or move a word.

- The sentence is read as parts: the stretches between commas, semicolons, colons, dashes and
  brackets (an opening clause, an apposition, a relative clause, an item of a list); the last part
  also as phrases, a new one opening at a preposition, a relative, or a conjunction before a verb
  ("binds the mRNA | and is the key to delivery"; "of" and "to" stay in their phrase, and so does
  "and" between two names, and a preposition after a participle: "compared with ..."). An aside
  (`_aside`: a bracket, an apposition or a relative clause set off by commas) may be left out
  whole, and the last part cut after a phrase, keeping half its words; a part that goes on from
  the one before it ("which ...", "and ...") stays only with it.
- The words that carry the claim stay: the subject with its qualifiers and the verb after it
  (restated_meaning.subject_words), a denial, a hedge or a comparison ("not", "may", "only", "more
  than", "compared with"). A name or number may go with its part; it is never changed.
- Of those condensations (at most MAX_CONFIGURATIONS looked at), the desk offers only the ones that
  leave out at least a fifth of the words (`leaves_out_enough`) and pass every rule a restatement
  must: a plain sentence, not a repeat, on its section's question, no longer a copy
  (research/text/copying.py), the same subject and denials (restated_meaning.py). Asked merely to
  leave words out, the model left out a comma or its last phrase and kept the rest, a copy still
  (4 of 6 on 6 Dec). None passes: no call is made.
- On a server that turns the schema into a grammar (llama-cpp) the offered condensations are the
  grammar, so the model writes one of them. On any server the desk reads the reply back onto the
  sentence's own parts (`read_back`) and checks it again. Punctuation comes from the original: a
  comma stays where what followed it stayed, brackets and quotes only in pairs.

A condensation says less than its original, and every word it keeps is the source's, in the
source's order: the claim check reads it like any other sentence, and the eval counts it apart from
the sentences a model wrote in its own order (bench/eval/local_model_figures.py).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from pydantic import Field, create_model

from research.brains.llm.grounded_schema import MAX_SENTENCE_CHARS, Condensation
from research.brains.llm.restated_meaning import subject_words
from research.relevance.shape import PREPOSITIONS, VERBS
from research.text import STOPWORDS, words
from research.text.copying import COPIED_AT

MAX_WORDS = 80  # of a sentence read into parts (sentences are bounded by the writer's grammar anyway)
MAX_CONFIGURATIONS = 256  # condensations of one sentence looked at
MAX_CHOICES = 12  # of those that pass, the ones offered (the longest)
_END = ""  # a condensation may end here (a key no word has: words are never empty)
_EDGE = "\"'“”‘’()[]{},;:!?.…"
_PART_END = (",", ";", ":", ")", "]")
_DASHES = frozenset({"-", "--", "—", "–"})
# A phrase opens at these words; "of" and "to" stay with the phrase they follow ("a shell of
# lipids", "the key to delivery"), and "than" with its comparison.
_CLAUSE_WORDS = "which who whom whose where while whereas although though because"
_OPENS_PHRASE = (PREPOSITIONS - {"of", "to"}) | frozenset(_CLAUSE_WORDS.split())
_CONJUNCTIONS = frozenset({"and", "or", "but"})
_RELATIVES = frozenset({"which", "who", "whom", "whose", "where"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "these", "those", "its", "their", "his", "her", "two", "three"})
_IRREGULAR_PARTICIPLES = frozenset({"made", "found", "held", "kept", "led", "paid", "sold", "told", "won", "known"})
_OPENER_WORDS = "once when while although though because if as unlike despite like whereas"
_OPENERS = frozenset(_OPENER_WORDS.split())
_AUXILIARY_WORDS = (
    "is are was were be been being has have had can could will would may might must shall should do does did"
)
_AUXILIARIES = frozenset(_AUXILIARY_WORDS.split())
_ADVERB_WORDS = "also often still now then usually typically generally largely mostly only first"
_ADVERBS = frozenset(_ADVERB_WORDS.split())
# Words whose phrase stays: a denial (research.text.words splits "doesn't" into "doesn", "t"), a
# hedge, a quantity or a comparison. Leaving one out changes what the sentence claims.
_HOLD_WORDS = (
    "not no never cannot nor neither without none nothing t may might could can only some most many few fewer "
    "less more than rarely seldom often sometimes usually mostly largely partly nearly almost "
    "approximately roughly least likely unlikely possibly probably perhaps compared versus relative"
)
_HOLD = frozenset(_HOLD_WORDS.split())
# What a grammar may write: the grounded writer's plain-text characters (grammar_schema._TEXT) but
# the separators the desk puts back itself (commas, brackets, quotes, full stops at a word's edge).
_UNWRITABLE = re.compile(r"[^A-Za-z0-9.%/+_=#&'’\u00b0\u00b1\u00b5\u00c0-\u024f\u0370-\u03ff-]")
_REGEX_SPECIAL = frozenset("+*?()[]{}|^$\\")


@dataclass(frozen=True)
class Word:
    raw: str  # as the sentence writes it, punctuation included
    bare: str  # as the condensation writes it: no edge punctuation, only characters a grammar writes


@dataclass(frozen=True)
class Layout:
    """A sentence read for condensing: its words, its parts (each a list of phrases, each a list of
    word indexes), and the indexes of the phrases that must stay."""

    words: tuple[Word, ...]
    parts: tuple[tuple[tuple[int, ...], ...], ...]
    required: frozenset[int]  # word indexes

    def kept_words(self) -> list[str]:
        """The required words, once each, as the prompt lists them after "keep:"."""
        return list(dict.fromkeys(self.words[i].bare for i in sorted(self.required)))


def layout(sentence: str) -> Layout:
    """`sentence` read into parts and phrases, with what must stay (see the module's docstring)."""
    found: list[Word] = []
    breaks_before: set[int] = set()  # a part opens at these word indexes
    for raw in sentence.replace("—", " — ").split()[:MAX_WORDS]:
        if raw in _DASHES:
            breaks_before.add(len(found))
            if found:  # the dash is written after the word before it, and goes when what follows goes
                found[-1] = Word(f"{found[-1].raw} {raw}", found[-1].bare)
            continue
        bare = _UNWRITABLE.sub("", raw.strip(_EDGE))
        if not bare:
            breaks_before.add(len(found))
            continue
        if raw.startswith(("(", "[")):
            breaks_before.add(len(found))
        found.append(Word(raw, bare))
        if raw.endswith(_PART_END):
            breaks_before.add(len(found))
    parts: list[list[list[int]]] = []
    for i in range(len(found)):
        if not parts or i in breaks_before:
            parts.append([[i]])
        elif _opens_phrase(found, i):
            parts[-1].append([i])
        else:
            parts[-1][-1].append(i)
    return Layout(
        tuple(found),
        tuple(tuple(tuple(phrase) for phrase in part) for part in parts),
        frozenset(_required(found, sentence)),
    )


def _opens_phrase(found: list[Word], i: int) -> bool:
    """Whether a new phrase opens at word `i`: a preposition or a relative; a conjunction only
    before a verb ("binds the mRNA | and is the key"), since one that joins two names ("BNT162b2
    and mRNA-1273") cut short would leave a list that says less than it did."""
    lower = found[i].bare.lower()
    after = found[i + 1].bare.lower() if i + 1 < len(found) else ""
    if lower in PREPOSITIONS and i and found[i - 1].bare.lower().endswith("ed"):
        return False  # "compared with ...", "translated by ...": the participle goes with what it names
    if lower.endswith("ed") and after in PREPOSITIONS:
        return True
    if lower in _CONJUNCTIONS:
        return after in _AUXILIARIES or after in VERBS or (after.endswith("ed") and len(after) > 4)
    return lower in _OPENS_PHRASE


def _required(found: list[Word], sentence: str) -> set[int]:
    required: set[int] = set()
    # The subject, in order from the sentence's start, then its verb group ("was translated").
    subject = subject_words(sentence)
    at = 0
    last = -1
    for said in subject:
        bare = _UNWRITABLE.sub("", said)
        match = next((k for k in range(at, len(found)) if found[k].bare == bare), None)
        if match is None:
            break
        required.add(match)
        last, at = match, match + 1
    if last >= 0:
        required |= _verb_group(found, _verb_start(found, last))
    return required | {k for k, word in enumerate(found) if any(token in _HOLD for token in words(word.raw))}


def _verb_start(found: list[Word], last: int) -> int:
    """Where the verb of a subject ending at word `last` starts: right after it when that word is
    verb-like, else at the first later part that opens with an auxiliary, or with a verb-like word
    and is not set off by a comma like an apposition ("An ionizable lipid, ALC-0315 in ..., binds
    the mRNA"; "Researchers at several sites, in a study of 40,000 people, reported ..."; "The
    vaccines, stored at minus 80 degrees, protect")."""
    if last + 1 < len(found) and not found[last].raw.endswith(_PART_END) and _verb_like(found[last + 1].bare):
        return last + 1
    for k in range(last + 1, len(found)):
        word = found[k].bare
        if found[k - 1].raw.endswith(_PART_END) and _verb_like(word):
            end = next((j for j in range(k, len(found)) if found[j].raw.endswith(_PART_END)), None)
            set_off = end is not None and found[end].raw.endswith(",")  # "made by several companies,"
            if word in _AUXILIARIES or not set_off:
                return k
    return len(found)


def _verb_like(word: str) -> bool:
    """A word that may open a predicate: lower case, no preposition, conjunction or clause opener."""
    if not (word.isalpha() and word.islower()) or word in _OPENS_PHRASE or word in _OPENERS or word in _CONJUNCTIONS:
        return False
    return word in _AUXILIARIES or word not in STOPWORDS


def _verb_group(found: list[Word], start: int) -> set[int]:
    """The auxiliaries, adverbs and hedges from `start` up to and with the main verb ("was translated")."""
    group: set[int] = set()
    for k in range(start, len(found)):
        lower = found[k].bare.lower()
        group.add(k)
        if lower not in _AUXILIARIES and lower not in _ADVERBS and lower not in _HOLD:
            break  # the main verb
        if found[k].raw.endswith(_PART_END):
            break
    return group


def _required_phrases(lay: Layout, part: tuple[tuple[int, ...], ...]) -> int:
    """How many of `part`'s phrases must stay: up to the last one holding a required word."""
    return max((j + 1 for j, phrase in enumerate(part) if lay.required & set(phrase)), default=0)


def _options(lay: Layout, index: int) -> list[list[int]]:
    """What a condensation may keep of part `index`: nothing, when the part is set off as an aside
    (`_aside`) and no phrase of it must stay; else the whole part; the last part also its first m
    phrases, at least as many as hold required words and at least half its words. A part before
    another is kept whole: cut short, "Once in the cytoplasm," becomes "Once", and "translated by
    host ribosomes into the encoded antigen, which ..." hands the antigen's relative clause to the
    ribosomes."""
    part = lay.parts[index]
    must = _required_phrases(lay, part)
    options: list[list[int]] = [[]] if not must and _aside(lay, index) else []
    first = len(part)
    if index == len(lay.parts) - 1:
        size = sum(len(phrase) for phrase in part)
        first = max(must, 1, next(m for m in range(1, len(part) + 1) if 2 * _words_in(part[:m]) >= size))
    for m in range(first, len(part) + 1):
        options.append([i for phrase in part[:m] for i in phrase])
    return options


def _words_in(phrases: tuple[tuple[int, ...], ...]) -> int:
    return sum(len(phrase) for phrase in phrases)


def _aside(lay: Layout, index: int) -> bool:
    """Whether part `index` can be left out without the sentence saying something else: a bracket,
    or a part between two commas that is an apposition or a relative clause (it opens with a name,
    a number, a determiner, a relative or a past participle: ", BNT162b2 from Pfizer and BioNTech
    and mRNA-1273 from Moderna,", ", which were counted by the sites,", ", developed by Moderna,").
    Not an opening clause ("In patients with resected melanoma," says whom the claim is about), a
    list's item or a clause that opens with a conjunction (", or lyophilised,", which leaves its
    neighbours joined into another noun phrase), nor the main clause after an opening one. The last
    part, when it opens with a relative or a conjunction after a comma, is an aside too."""
    part = lay.parts[index]
    first, last = lay.words[part[0][0]], lay.words[part[-1][-1]]
    if first.raw.startswith(("(", "[")) and last.raw.rstrip(",;:.").endswith((")", "]")):
        return True
    lower = first.bare.lower()
    after_comma = index > 0 and lay.words[lay.parts[index - 1][-1][-1]].raw.endswith(",")
    if index == len(lay.parts) - 1:
        return after_comma and (lower in _RELATIVES or lower in _CONJUNCTIONS)
    if not last.raw.endswith(","):
        return False
    if not after_comma or lower in _CONJUNCTIONS:
        return False
    named = first.bare[:1].isupper() or first.bare[:1].isdigit()
    participle = lower.endswith(("ed", "en")) or lower in _IRREGULAR_PARTICIPLES
    if index == 1 and (lay.words[0].bare.lower() in _OPENERS or lay.words[0].bare.lower() in PREPOSITIONS):
        return lower in _RELATIVES or participle  # after an opening clause: the main clause starts here
    return named or participle or lower in _RELATIVES or lower in _DETERMINERS


def _follows_its_noun(lay: Layout, index: int, previous_kept: bool) -> bool:
    """A part that opens with a relative or a conjunction ("which ...", "and ...") stays only after
    the part it follows, whose noun or clause it goes on from."""
    first = lay.words[lay.parts[index][0][0]].bare.lower()
    return previous_kept or index == 0 or (first not in _RELATIVES and first not in _CONJUNCTIONS)


def choices(lay: Layout, passes: Callable[[str], bool]) -> list[list[int]]:
    """The condensations of `lay` (word indexes kept) whose text `passes` the caller's rules (no
    longer a copy, on the question, the same subject, ...), longest first, at most MAX_CHOICES.
    Only these are offered: asked merely to leave words out, Qwen2.5-Coder-1.5B left out a comma or
    the last phrase and kept the rest, still a copy (4 of 6 on 6 Dec). Bounded: at most
    MAX_CONFIGURATIONS are looked at."""
    found: list[list[int]] = []
    options = [_options(lay, index) for index in range(len(lay.parts))]
    for n, combination in enumerate(itertools.product(*options)):
        if n >= MAX_CONFIGURATIONS:
            break
        if not all(_follows_its_noun(lay, k, bool(combination[k - 1])) for k, kept in enumerate(combination) if kept):
            continue
        kept = [i for option in combination for i in option]
        if kept and leaves_out_enough(len(kept), lay) and passes(_written(kept, lay)):
            found.append(kept)
    found.sort(key=len, reverse=True)  # a stable sort: of two as long, the one that keeps earlier words
    return found[:MAX_CHOICES]


def leaves_out_enough(kept: int, lay: Layout) -> bool:
    """Whether keeping `kept` of the sentence's words condenses it: at most COPIED_AT of them, the
    share at which a run of a source's words is the source's sentence (research/text/copying.py).
    Leaving out "(mRNA-LNP)" alone is not condensing, though it splits the run (measured, 6 Dec)."""
    return kept <= COPIED_AT * len(lay.words)


def pattern(lay: Layout, offered: list[list[int]]) -> str:
    """The grammar's pattern that writes exactly one of the `offered` condensations, each word with
    a space before it; beginnings they share are written once (a tree of words)."""
    tree: dict[str, Any] = {}
    for kept in offered:
        node = tree
        for i in kept:
            node = node.setdefault(_escaped(lay.words[i].bare), {})
        node[_END] = {}
    return "^" + _branches(tree) + "$"


def _branches(node: dict[str, Any]) -> str:
    """One tree node as a pattern: its words' branches as an alternation, optional where a
    condensation may end (no empty alternative: llama-cpp's converter is not asked to read one)."""
    written = [f" {word}{_branches(child)}" for word, child in node.items() if word != _END]
    if not written:
        return ""
    group = written[0] if len(written) == 1 and _END not in node else "(" + "|".join(written) + ")"
    return group + ("?" if _END in node else "")


def _escaped(bare: str) -> str:
    """`bare` as a pattern's literal that llama-cpp's converter also reads as one: it copies "\\."
    into the grammar, where it is no escape, so a full stop is the class "[.]"."""
    return "".join("[.]" if c == "." else f"\\{c}" if c in _REGEX_SPECIAL else c for c in bare)


def read_back(reply: str, lay: Layout) -> str:
    """The condensation `reply` written with the original's punctuation, or "" when it is not one
    of `lay`: exactly the strings `pattern` allows (compared without case, since a server without
    grammars may change it), found by a linear walk over the parts, not by matching the pattern."""
    said = [bare.lower() for bare in (_UNWRITABLE.sub("", token.strip(_EDGE)) for token in reply.split()) if bare]
    kept = _aligned(said, lay)
    return _written(kept, lay) if kept else ""


def _aligned(said: list[str], lay: Layout) -> list[int]:
    """The word indexes of `lay` that `said` keeps, when it is a condensation of it; else []. For
    each part in turn, the reply positions it can end at (each a choice of `_options`) and whether
    it kept that part, so the work is parts x phrases x words, whatever the reply."""
    reach: dict[tuple[int, bool], list[int]] = {(0, False): []}  # (reply position, part kept) -> words kept
    for index in range(len(lay.parts)):
        nxt: dict[tuple[int, bool], list[int]] = {}
        for (at, previous_kept), kept in reach.items():
            for option in _options(lay, index):
                if option and not _follows_its_noun(lay, index, previous_kept):
                    continue
                end = at + len(option)
                if (end, bool(option)) not in nxt and said[at:end] == [lay.words[i].bare.lower() for i in option]:
                    nxt[(end, bool(option))] = kept + option
        reach = nxt
    return next((kept for (at, _), kept in reach.items() if at == len(said) and kept), [])


def _written(kept: list[int], lay: Layout) -> str:
    out: list[str] = []
    for n, i in enumerate(kept):
        raw = lay.words[i].raw
        following = kept[n + 1] if n + 1 < len(kept) else None
        if following != i + 1:
            raw = raw.rstrip(",;:-—– ")  # what followed the comma or dash was left out
        out.append(raw)
    text = " ".join(out)
    for opening, closing in (("(", ")"), ("[", "]")):
        if text.count(opening) != text.count(closing):
            text = text.replace(opening, "").replace(closing, "")
    if text.count('"') % 2 or text.count("“") != text.count("”"):
        text = text.replace('"', "").replace("“", "").replace("”", "")
    text = text.rstrip(" ,;:.!?")
    if not text:
        return ""
    first = text.split(" ", 1)[0]
    return (text[:1].upper() + text[1:] if first.islower() else text) + "."


@functools.lru_cache(maxsize=64)
def condensation_schema(grammar: str) -> type[Condensation]:
    """Condensation whose text, on a server that turns the schema into a grammar (llama-cpp), can
    only be a condensation of one sentence (`grammar`, from `pattern`). Validation is unchanged:
    a server that only reads the schema may write anything, and `read_back` judges it."""
    text = Field(
        description=Condensation.model_fields["text"].description,
        json_schema_extra={"maxLength": MAX_SENTENCE_CHARS, "pattern": grammar},
    )
    build: Any = create_model
    return cast("type[Condensation]", build(Condensation.__name__, __base__=Condensation, text=(str, text)))

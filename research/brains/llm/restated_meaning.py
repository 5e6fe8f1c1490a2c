"""Whether a restatement still says what its original said (the restating pass's meaning rule).

Word overlap is not meaning. Asked to restate "Pseudouridine-containing mRNA was translated into
far more protein", a 1.5B model wrote "The mRNA vaccine was translated into far more protein":
grounded (its words are the passage's), not a copy, on the question, and the claim check rated it
supported; but it is about another thing. A qualifier that defined the subject was lost. So a
restatement must also

- keep its original's subject: the content words of the noun phrase the sentence is about, with
  what qualifies it ("Pseudouridine-containing mRNA", "the efficacy of mRNA vaccines"), its names
  and numbers with it ("The 2023 Nobel Prize" is not "The Nobel Prize"), as the opening of its own
  subject, with nothing before or among it, unless it turns a voice or an apposition round
  (`_same_subject`). Held by a grammar to its original's words, Qwen2.5-Coder-1.5B turned the
  roles round in 4 of the 4 restatements that were no longer copies (3 Dec): "Lipid nanoparticles
  also explain some of the vaccines' practical quirks" became "Practical quirks of lipid
  nanoparticles explain some of the vaccines", "An ionizable lipid ... is the key to delivery"
  became "The ... vaccine delivery is key to the ionizable lipid";
- deny what the original denies, and only that ("not", "never", "without", "-n't"): a denial goes
  with the word it denies, so a restatement that keeps that word keeps the denial, and one that
  leaves the denied clause out entirely ("... was never writing the message but ...") may;
- add no content word that neither the original nor its passage holds (a restatement rewords;
  it does not bring facts of its own).

A name or number outside the subject may be left out (the claim says less, and stays true: "An
ionizable lipid, ALC-0315 in ..., binds the mRNA" -> "An ionizable lipid binds mRNA"), never changed
(drafts/faithful.py's changed_tokens, applied before this). A word of the restatement's own,
irregular forms included ("saw" for "seen"), leaves it out: a conservative rule, by design.

The subject is found without a parser, by the words themselves: after any opening clause ("Once in
the cytoplasm, ..."), from the first content word up to the verb, which is an auxiliary or a
relative ("was", "can", "that"), a common verb (relevance.shape.VERBS), a word a determiner follows
("wrap the ..."), a past form after the head ("vaccines formulated in ..."), a preposition other
than "of", or the clause's end. It errs towards requiring more (a verb counted into the subject
must then be kept too), and a rejected restatement leaves the original sentence, which is true to
its source and counted as copied. Words compare by the project's tokenizer and the fit rule's
six-letter stems (drafts/fit.py), a shorter stem matching a longer one's start ("evade"/"evaded").
"""

from __future__ import annotations

from research.drafts.fit import word_stem
from research.relevance.shape import PREPOSITIONS, VERBS
from research.text import STOPWORDS, tokenize, words

MAX_WORDS = 80  # of a sentence read for its subject (sentences are bounded by the grammar anyway)
MAX_SUBJECT_WORDS = 5
MAX_OPENING_WORDS = 12  # an opening clause ("Once in the cytoplasm,") is at most this long
MIN_PREFIX = 4  # letters a stem must have to match a longer one by its start
_EDGE = "\"'“”‘’()[]{},;:!?.…"
_CLAUSE_END = (",", ";", ":", "—")
# Words that end a subject: auxiliaries, copulas, modals and the words that open a clause.
_SUBJECT_ENDS = (
    "is are was were be been being has have had can could will would may might must shall should do does did "
    "that which who whom whose where when while because although though if whereas"
)
_ENDS_SUBJECT = frozenset(_SUBJECT_ENDS.split())
# Words that open a sentence with a clause before its subject ("Once in the cytoplasm, the mRNA ...").
_OPENER_WORDS = "once when while although though because if as unlike despite like whereas"
_OPENERS = PREPOSITIONS | frozenset(_OPENER_WORDS.split())
_DETERMINER_WORDS = "the a an this these those its their his her our your every each both all some any no many most"
_DETERMINERS = frozenset(_DETERMINER_WORDS.split())
# A denial, as research.text.words splits it ("doesn't" -> "doesn", "t").
_NEGATIONS = frozenset({"not", "no", "never", "cannot", "nor", "neither", "without", "none", "nothing", "t"})
_BE_WORDS = "is are was were be been being"
_BE = frozenset(_BE_WORDS.split())
_AGENT_MARKS = frozenset({"by", "to"})  # "explained by X", "awarded to X"
_IRREGULAR = "made found held kept led paid sold told won brought bought thought caught taught sent spent set put"
_IRREGULAR_PARTICIPLES = frozenset(_IRREGULAR.split())
MAX_APPOSITIVE_WORDS = 14
_JOINS = frozenset({"of", "and", "or"})  # inside a subject: "the efficacy of mRNA vaccines", "Karikó and Weissman"


def subject_words(sentence: str) -> list[str]:
    """The words (as written) of the noun phrase `sentence` is about, with its qualifiers:
    "Pseudouridine-containing mRNA was translated ..." -> ["Pseudouridine-containing", "mRNA"]."""
    raw = sentence.split()[:MAX_WORDS]
    bare = [w.strip(_EDGE) for w in raw]
    start = 0
    if bare and bare[0].lower() in _OPENERS:
        end = next((k for k, w in enumerate(raw[:MAX_OPENING_WORDS]) if w.endswith(_CLAUSE_END)), None)
        start = end + 1 if end is not None else 0
    out: list[str] = []
    joined = False  # the previous word was "of", "and" or "or": a determiner may follow
    for k in range(start, len(bare)):
        word, lower = bare[k], bare[k].lower()
        if not word:
            continue
        if lower in _ENDS_SUBJECT or lower in VERBS:
            break
        if lower in STOPWORDS:
            if out and lower in _JOINS:
                joined = True
            elif out and not (joined and lower in _DETERMINERS):
                break  # another preposition ("systems in Israel"): what follows is not the subject
            continue  # a leading "The", "Both the", "of the"
        following = bare[k + 1].lower() if k + 1 < len(bare) else ""
        if out and not joined and (following in _DETERMINERS or (lower.endswith("ed") and len(lower) > 4)):
            break  # "nanoparticles wrap the mRNA", "vaccines formulated in": the verb
        out.append(word)
        joined = False
        if raw[k].endswith(_CLAUSE_END) or len(out) >= MAX_SUBJECT_WORDS:
            break
    return out


def meaning_change(restated: str, original: str, passage: str) -> str:
    """Why `restated` does not say what `original` (copied from `passage`) said; "" when it does."""
    have = _keys(restated)
    subject_keys = _key_list(" ".join(subject_words(original)))
    if any(not _held(key, have) for key in subject_keys):
        return "lost its subject"
    if not _same_subject(restated, original, subject_keys):
        return "changed its subject"
    mine, theirs = _denied(restated), _denied(original)
    if any(not _held(key, theirs) for key in mine) or any(_held(k, have) and not _held(k, mine) for k in theirs):
        return "changed a negation"  # a denial added, moved, or dropped from the words it denied
    allowed = _keys(original) | _keys(passage)
    if any(not _held(key, allowed) for key in have):
        return "added words"
    return ""


def _same_subject(restated: str, original: str, theirs: list[str]) -> bool:
    """Whether `restated` is about what `original` is about (`theirs`: the original's subject keys).

    Its subject opens with the original's, nothing before or among it (a subject's end is found
    less surely than its start: a verb may be read into it). Or the two name each other in one
    of the two shapes a faithful reordering takes, both measured on Qwen2.5-Coder-1.5B (3 Dec):
    a change of voice ("Lipid nanoparticles also explain some of the vaccines' practical quirks"
    -> "Some of the vaccines' practical quirks are explained by lipid nanoparticles"; "The 2023
    Nobel Prize was awarded to Karikó and Weissman" -> "Karikó and Weissman were awarded the 2023
    Nobel Prize"), or an apposition turned round ("Two messenger RNA vaccines, BNT162b2 and
    mRNA-1273, were ..." -> "BNT162b2 and mRNA-1273, two messenger RNA vaccines, were ...").
    Swapped roles without either shape ("Practical quirks of lipid nanoparticles explain some of
    the vaccines") are left out."""
    subject = set(theirs)
    mine = _key_list(" ".join(subject_words(restated)))
    opens = set(mine[: len(theirs)])
    if all(_held(key, opens) for key in subject) and all(_held(key, subject) for key in opens):
        return True
    own = set(mine)
    if not own or not subject:
        return False

    def names(phrase: set[str], keys: set[str]) -> bool:
        return bool(phrase) and all(_held(key, phrase) for key in keys)

    made_passive = names(_passive_agent(restated), subject) and names(_keys(original), own)
    made_active = names(_passive_agent(original), own)
    apposition = names(_appositive(restated), subject) and names(_appositive(original), own)
    return made_passive or made_active or apposition


def _passive_agent(sentence: str) -> set[str]:
    """The keys of the noun phrase a passive names after "<be> <participle> by|to" ("are explained
    by lipid nanoparticles" -> lipid, nanoparticles)."""
    ws = words(sentence)[:MAX_WORDS]
    for k in range(len(ws) - 2):
        if ws[k] in _BE and _participle(ws[k + 1]) and ws[k + 2] in _AGENT_MARKS:
            return _phrase_keys(ws[k + 3 :])
    return set()


def _participle(word: str) -> bool:
    """A past participle, by its ending or as one of the common irregular ones ("is key to" is not)."""
    return word not in STOPWORDS and (word.endswith(("ed", "en", "wn")) or word in _IRREGULAR_PARTICIPLES)


def _appositive(sentence: str) -> set[str]:
    """The keys of the phrase set off by commas right after the subject ("Two mRNA vaccines,
    BNT162b2 and mRNA-1273, were ..." -> bnt162b2, mrna, 1273), or none."""
    parts = sentence.split(",")[:3]
    subject = subject_words(sentence)
    if len(parts) < 3 or not subject or not parts[0].split():
        return set()
    if subject[-1] != parts[0].split()[-1].strip(_EDGE):
        return set()  # the subject did not end at the first comma
    inner = words(parts[1])
    if len(inner) > MAX_APPOSITIVE_WORDS or any(w in _ENDS_SUBJECT or w in VERBS for w in inner):
        return set()  # a clause, not a noun phrase
    return _keys(parts[1])


def _phrase_keys(ws: list[str]) -> set[str]:
    """The content words of the noun phrase `ws` (lower-cased words) opens with."""
    phrase: list[str] = []
    for word in ws[: MAX_SUBJECT_WORDS * 2]:
        if word in STOPWORDS:
            if phrase and word not in _JOINS:
                break
            continue
        phrase.append(word)
    return _keys(" ".join(phrase))


def _denied(text: str) -> set[str]:
    """The keys of the words `text` denies: the first content word after each denial."""
    out: set[str] = set()
    pending = False
    for word in words(text)[:MAX_WORDS]:
        if word in _NEGATIONS:
            pending = True
        elif pending and word not in STOPWORDS:
            out |= _keys(word)
            pending = False
    return out


def _keys(text: str) -> set[str]:
    return set(_key_list(text))


def _key_list(text: str) -> list[str]:
    return [word_stem(token) for token in tokenize(text)]


def _held(key: str, keys: set[str]) -> bool:
    """Whether `keys` hold `key`: the same stem, or (words, not numbers) one stem the other's start."""
    if key in keys:
        return True
    if not key.isalpha() or len(key) < MIN_PREFIX:
        return False
    return any(k.isalpha() and len(k) >= MIN_PREFIX and (k.startswith(key) or key.startswith(k)) for k in keys)

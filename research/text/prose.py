"""What makes a source sentence unfit to be read aloud as the desk's own prose.

Sentence-level features, not lists of sentences:
- `first_person`: the source's author speaking ("we argue", "our data", "I found"): quoted under the
  desk's name it claims the desk did the work;
- `method`: a document describing itself or its method ("This review summarises...", "We searched
  for...", "inclusion criteria", "Methods:"), which answers no question about the subject;
- `dangling`: a demonstrative whose referent is outside the sentence ("borrowed that delivery
  platform", "such vaccines", "the latter") with no earlier clause in the quoted text to hold it.
Sentence openers that lean on the previous sentence ("It...", "This...") are the writer's concern:
it quotes them with their antecedent or not at all.

All patterns are alternations of bounded words: linear on any input.
"""

from __future__ import annotations

import re
from typing import Literal

from research.text.memo import memo_list
from research.text.tokens import stem

Flaw = Literal["first_person", "method", "dangling"]

_FIRST_PERSON = re.compile(
    r"(?i:\b(?:we|our|ours|ourselves|my|myself|mine)\b|\bI(?:'m|'ve|'d|'ll)\b)|\bus\b|\bme\b"
    r"|\bI (?:am|was|have|had|will|would|think|thought|believe|argue|found|find|use|used|can|could|do|did|"
    r"feel|felt|suggest|propose|show|showed|wrote|write|learned|saw|see|know|knew|want|wanted|tried|try|"
    r"spent|began|started|need|hope|recommend|met|asked)\b"
)
_DOCUMENT = (
    r"(?:systematic |narrative |scoping |literature |critical |brief |short )?"
    r"(?:review|paper|article|study|chapter|report|essay|thesis|survey|overview|post|piece|book|section|"
    r"analysis|meta-analysis|guide|tutorial|work|note|blog|series|primer|white paper)s?"
)
_METHOD = re.compile(
    r"(?i)\b(?:this|the present|the current|the following|in this|here,? in this) " + _DOCUMENT + r"\b"
    r"|\b(?:searched|screened)\b"
    r"|\b(?:were|was) (?:included|excluded|screened|retrieved|identified|extracted|pooled|abstracted)\b"
    r"|\b(?:inclusion|exclusion|eligibility) criteria\b|\bsearch (?:terms?|strateg(?:y|ies)|strings?)\b"
    r"|\brisk of bias\b|\b(?:pubmed|medline|embase|scopus|web of science|cochrane library)\b"
    r"|^(?:background|methods?|results?|conclusions?|objectives?|aims?|purpose|abstract|keywords|"
    r"introduction|discussion|findings|summary)\s*:"
    # The document as the subject of a reporting verb: "The review therefore supports...".
    r"|(?:^|(?<=[.!?] ))the "
    + _DOCUMENT
    + r"(?: [a-z]{1,20}){0,2} (?:argues|shows|suggests|supports|finds|concludes|describes|"
    r"summari[sz]es|examines|reviews|presents|proposes|reports|demonstrates|highlights|explores|discusses|"
    r"synthesi[sz]es|outlines|considers|covers|traces|maps|assesses|evaluates|identifies)\b"
)
# Demonstratives that point outside their sentence. "that" is one only after a preposition or a
# verb that does not take a that-clause ("borrowed that platform", not "showed that vaccines...").
_DEMONSTRATIVE = re.compile(
    r"(?i)\b(?:(?:this|these|those)|such(?! as\b| that\b)|(?P<after>[a-z]{2,20}) that)\s+(?P<word>[a-z][a-z-]{1,30})\b"
    r"|\bthe (?:latter|former|aforementioned)\b"
)
# Past-tense verbs that take a that-clause ("showed that vaccines work"): "that" after them is no pointer.
_THAT_CLAUSE_VERBS = tuple(
    [
        "show",
        "suggest",
        "argu",
        "note",
        "report",
        "mean",
        "ensur",
        "believ",
        "claim",
        "demonstrat",
        "indicat",
        "reveal",
        "conclud",
        "assum",
        "stat",
        "predict",
        "confirm",
        "prov",
        "establish",
        "recogni",
        "realiz",
        "realis",
        "discover",
        "learn",
        "observ",
        "decid",
        "agre",
        "recommend",
        "requir",
        "insist",
        "warn",
        "expect",
        "hop",
        "fear",
        "estimat",
        "impli",
        "add",
        "explain",
        "emphasi",
        "stress",
        "acknowledg",
        "determin",
        "hypothesi",
        "propos",
        "specul",
        "doubt",
        "guarante",
        "remark",
        "announc",
        "complain",
        "mention",
        "admit",
        "deni",
        "declar",
        "prefer",
        "order",
        "demand",
        "ask",
        "persuad",
        "convinc",
        "remind",
        "assur",
        "promis",
        "suspect",
        "speculat",
        "conced",
        "object",
        "respond",
        "repli",
        "answer",
        "concern",
        "worri",
        "imagin",
        "pretend",
        "presum",
        "sens",
        "signal",
        "specifi",
        "underlin",
        "highlight",
        "point",
        "calculat",
    ]
)
_PREPOSITIONS = frozenset(
    [
        "of",
        "in",
        "for",
        "by",
        "with",
        "from",
        "to",
        "on",
        "at",
        "after",
        "before",
        "since",
        "during",
        "like",
        "about",
        "under",
        "over",
        "into",
        "onto",
        "through",
        "across",
        "against",
        "among",
        "between",
        "beyond",
        "despite",
        "toward",
        "towards",
        "upon",
        "within",
        "without",
    ]
)
# Words after a demonstrative that make it a pronoun or a clause, not a reference to a missing noun.
_NOT_A_NOUN = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "may",
        "might",
        "should",
        "must",
        "do",
        "does",
        "did",
        "means",
        "and",
        "or",
        "of",
        "in",
        "to",
        "by",
        "as",
        "a",
        "an",
        "the",
        "that",
        "which",
        "who",
        "whom",
        "whose",
        "it",
        "its",
        "if",
        "when",
        "because",
    ]
)
_CLAUSE_BREAK = re.compile(r"[,;:.!?]|\b(?:and|but|which|who|where|while|when|because)\b", re.IGNORECASE)


def _dangling(text: str) -> bool:
    for m in _DEMONSTRATIVE.finditer(text):
        word = (m.group("word") or "").lower()
        if word in _NOT_A_NOUN:
            continue
        after = (m.group("after") or "").lower()
        if after and after not in _PREPOSITIONS and (not after.endswith("ed") or after.startswith(_THAT_CLAUSE_VERBS)):
            continue  # "that" opens a clause ("showed that") or a relative clause ("vaccines that")
        before = text[: m.start()]
        if _CLAUSE_BREAK.search(before):
            continue  # an earlier clause may hold the referent
        if word and stem(word) in {stem(w) for w in re.findall(r"[a-z]+", before.lower())}:
            continue  # "mRNA vaccines ... these vaccines": the noun is right there
        return True
    return False


@memo_list
def flaws(text: str) -> list[Flaw]:
    """Why a quoted piece of text cannot stand as the desk's prose; empty when it can. Memoised
    (research/text/memo.py): the writer asks it of every sentence of every source once per section."""
    out: list[Flaw] = []
    if _FIRST_PERSON.search(text):
        out.append("first_person")
    if _METHOD.search(text):
        out.append("method")
    if _dangling(text):
        out.append("dangling")
    return out

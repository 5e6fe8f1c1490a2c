"""Reading a revision instruction ("shorten and use bullet points") into operations.

The offline reviser understands a fixed set of operations; anything else is a RevisionError that
says what it does understand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_INSTRUCTION_CHARS = 2000
UNDERSTOOD = (
    "shorten, expand, reorder sections (or reverse / sort alphabetically / move <section> first or last), "
    "bullet points, prose, focus on <topic>"
)

_SHORTEN = re.compile(
    r"\b(shorten|shorter|condense|concise|trim|tighten|brief(?:er)?|summari[sz]e|less detail|cut (?:it )?down)\b", re.I
)
_EXPAND = re.compile(
    r"\b(expand|longer|lengthen|elaborate|more details?|more detailed|flesh (?:it )?out|extend)\b", re.I
)
_REORDER = re.compile(r"\b(reorder|re-order|rearrange|reorgani[sz]e|reverse|sort|alphabeti[sz]e)\b", re.I)
_MOVE = re.compile(
    r"\b(?:move|put|place)\s+(?:the\s+)?(?P<what>.+?)\s+(?:section\s+)?(?:to\s+the\s+|at\s+the\s+)?(?P<where>first|last|top|bottom|start|end|beginning)\b",
    re.I,
)
_BULLETS = re.compile(r"\b(bullets?|bulleted|bullet points?|as a list|list form|itemi[sz]e)\b", re.I)
_PROSE = re.compile(r"\b(prose|no bullets|remove (?:the )?bullets|as paragraphs|into paragraphs)\b", re.I)
_FOCUS = re.compile(r"\b(?:focus(?:\s+more)?\s+on|concentrate\s+on|emphasi[sz]e)\s+(?P<what>.+)", re.I)
_NEXT_OP = r"(?=shorten|expand|reorder|use|make|convert|turn|put|move|sort|reverse|bullet)"
_CLAUSE_END = re.compile(rf"[.;!?]|,?(?<!\s)\s++(?:and\s+then|and|then)\s+{_NEXT_OP}|,\s*+{_NEXT_OP}", re.I)


class RevisionError(ValueError):
    """The instruction could not be carried out; the message says why and what would work."""


@dataclass
class Operations:
    shorten: bool = False
    expand: bool = False
    reorder: str | None = None  # evidence | reverse | alphabetical | move
    move: tuple[str, str] | None = None  # (section words, first|last)
    bullets: bool = False
    prose: bool = False
    focus: str | None = None

    @property
    def any(self) -> bool:
        return any((self.shorten, self.expand, self.reorder, self.bullets, self.prose, self.focus))


def parse_instruction(instruction: str) -> Operations:
    text = " ".join((instruction or "").split())
    if not text:
        raise RevisionError("The revision instruction is empty: say what to change, e.g. 'shorten'.")
    if len(text) > MAX_INSTRUCTION_CHARS:
        raise RevisionError(
            f"The revision instruction is too long: {len(text):,} characters, at most {MAX_INSTRUCTION_CHARS:,}."
        )
    ops = Operations(shorten=bool(_SHORTEN.search(text)), expand=bool(_EXPAND.search(text)))
    ops.bullets, ops.prose = bool(_BULLETS.search(text)), bool(_PROSE.search(text))
    if focus := _FOCUS.search(text):
        what = _CLAUSE_END.split(focus.group("what"), maxsplit=1)[0].strip(" \"',")
        ops.focus = what or None
    if move := _MOVE.search(text):
        where = "first" if move.group("where").lower() in ("first", "top", "start", "beginning") else "last"
        ops.reorder, ops.move = "move", (move.group("what"), where)
    elif reorder := _REORDER.search(text):
        word = reorder.group(1).lower()
        ops.reorder = (
            "reverse"
            if word == "reverse"
            else "alphabetical"
            if (word.startswith("alpha") or "alphabet" in text.lower())
            else "evidence"
        )
    if ops.shorten and ops.expand:
        raise RevisionError("The instruction asks to both shorten and expand; choose one.")
    if ops.bullets and ops.prose:
        raise RevisionError("The instruction asks for both bullet points and prose; choose one.")
    if not ops.any:
        raise RevisionError(
            f"The offline reviser did not understand {text[:80]!r}. It understands: {UNDERSTOOD}. "
            "Free-form instructions need a language model (set an OpenAI-compatible model in Settings)."
        )
    return ops

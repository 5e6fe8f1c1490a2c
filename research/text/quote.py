"""Quoting outside text: a source sentence as plain text the writer may quote, and back to markdown.

A quote is a quote: identifiers (`spawn_blocking`, `__init__`, `C#`), numbers and units (`$5`,
`~5 ms`, `10:30`) keep every character. Only markup *constructs* go: images and links keep their
text, code spans their content, HTML tags, autolinks and bare URLs are dropped, Streamlit
directives keep their text, paired emphasis delimiters go. What is left is plain text, and
`md_quote` escapes it when it enters a draft, so nothing in it renders as markup; `md_unquote`
reads the draft's sentence back as the plain text the claim check compares with the source.

Linear time on any input (sentences come from untrusted documents): one left-to-right scan; every
forward search goes through `_Finder`, whose answer only moves forward, so no character is scanned
more than a constant number of times, and no pattern here can backtrack over unbounded text.
"""

from __future__ import annotations

import bisect
import re

# A quoted source sentence that speaks to the reader or the model is an instruction, not evidence.
# Alternatives of bounded literals: each attempt reads a bounded span.
_INSTRUCTION = re.compile(
    r"(?i)\b("
    r"ignore (?:all |any |the )?(?:previous|prior|above|earlier|preceding|other) "
    r"(?:instructions?|prompts?|directions?|rules?)"
    r"|disregard (?:all |any |the )?(?:previous|prior|above|earlier)"
    r"|(?:system|developer) prompt|you are (?:now )?(?:an?|the) (?:ai|assistant|language model|chatbot)"
    r"|as an ai\b|(?:assistant|system|user)\s*:|new instructions?|follow (?:these|the following) instructions"
    r"|do not (?:tell|mention|reveal)|reveal (?:your|the) (?:prompt|instructions|key|secret)"
    r"|(?:click|tap) (?:here|this link|below)|visit (?:this|our) (?:site|website|link)"
    r"|jailbreak"
    r")"
)
_SPECIAL = re.compile(r"[`\\!\[\]<:*~_]")
_URL_MARK = re.compile(r"://|(?i:www\.)")
_AUTOLINK_BODY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*")
_DIRECTIVE = re.compile(r":[a-z]{1,24}(?:-[a-z]{1,24}){0,3}\[")
_ICON = re.compile(r":(?:material/[a-z0-9_]{1,48}|[a-z0-9_+-]{0,40}[a-z][a-z0-9_+-]{0,40}):")
_REFERENCE_MARK = re.compile(r"\d{1,3}(?: ?[,\u2013-] ?\d{1,3}){0,8}")  # a source's own "[12]", "[3, 4]"
_URL_END = frozenset(" \t\n\r<>()[]")
_MIN_WORD_CHARS = 12
_WORD_CHAR = re.compile(r"[^\W_]")
_LEFT_SPACE = re.compile(r" ([,.;:!?)])")


class _Finder:
    """The next index of one character at or after a position (-1: none). It remembers its last
    answer, so a sequence of queries that moves forward scans the text once in all."""

    def __init__(self, text: str, char: str) -> None:
        self.text, self.char = text, char
        self.low, self.answer = len(text) + 1, -1  # no `char` in [low, answer) (answer -1: in [low, end))

    def __call__(self, start: int) -> int:
        if start < self.low:
            found = self.text.find(self.char, start, self.low)
            if found >= 0:
                self.answer = found
            self.low = start
        elif self.answer != -1 and start > self.answer:
            self.low, self.answer = start, self.text.find(self.char, start)
        return self.answer


class _Scanner:
    def __init__(self, text: str) -> None:
        self.s = text
        self.out: list[str] = []
        self.skip: dict[int, int] = {}  # a position to jump from -> where to resume
        # One finder per call site: each site's queries move forward with the scan.
        self.label_end = _Finder(text, "]")
        self.ref_end = _Finder(text, "]")
        self.paren_end = _Finder(text, ")")
        self.angle_end = _Finder(text, ">")
        self.angle_next = _Finder(text, "<")
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.delimiters: list[tuple[int, str, bool, bool]] = []  # (out index, run, can open, can close)

    def before_newline(self, index: int, start: int) -> bool:
        """Whether `index` is found and no newline stands in [start, index)."""
        if index < 0:
            return False
        k = bisect.bisect_left(self.newlines, start)
        return k == len(self.newlines) or self.newlines[k] >= index

    def bracket_end(self, start: int) -> int:
        """Index of the `]` closing a `[` at `start - 1`, or -1."""
        end = self.label_end(start)
        return end if self.before_newline(end, start) else -1

    def construct_after(self, end: int) -> int:
        """After a label's `]`: where a `(destination)` or `[reference]` ends (exclusive), or -1."""
        s = self.s
        if end + 1 < len(s) and s[end + 1] in "([":
            close = (self.paren_end if s[end + 1] == "(" else self.ref_end)(end + 2)
            if self.before_newline(close, end + 2):
                return close + 1
        return -1

    def run(self) -> str:
        s, n, i = self.s, len(self.s), 0
        urls = self._url_starts()
        next_url = 0
        in_code = False
        while i < n:
            if i in self.skip:
                i = self.skip.pop(i)
                continue
            if in_code:  # a code span's content is kept as written
                end = s.find("`", i)
                end = n if end < 0 else end
                self.out.append(s[i:end])
                i, in_code = end + 1, False
                continue
            while next_url < len(urls) and urls[next_url] < i:
                next_url += 1
            special = _SPECIAL.search(s, i)
            j = min(special.start() if special else n, urls[next_url] if next_url < len(urls) else n)
            if j > i:
                self.out.append(s[i:j])  # plain text up to the next character that may open markup
                i = j
                continue
            c = s[i]
            if next_url < len(urls) and urls[next_url] == i:
                while i < n and s[i] not in _URL_END:
                    i += 1
            elif c == "`":
                in_code = True
                i += 1
            elif c == "\\" and i + 1 < n and s[i + 1].isascii() and not s[i + 1].isalnum() and not s[i + 1].isspace():
                self.out.append(s[i + 1])  # a markdown escape: the character itself
                i += 2
            elif c == "!" and i + 1 < n and s[i + 1] == "[" and self._label(i + 1, image=True):
                i += 2
            elif c == "[" and self._label(i, image=False):
                i = self.skip.pop(i, i + 1)
            elif c == "<":
                i = self._angle(i)
            elif (
                c == ":"
                and (i == 0 or not (s[i - 1].isalnum() or s[i - 1] == ":"))
                and (m := _ICON.match(s, i))
                and not s[m.end() : m.end() + 1].isalnum()
                and s[m.end() : m.end() + 1] != ":"  # "std::thread::sleep" is a path, not an icon
            ):
                i = m.end()
            elif c == ":" and (m := _DIRECTIVE.match(s, i)) and (end := self.bracket_end(m.end())) >= 0:
                self.skip[end] = end + 1  # ":red[text]" keeps its text
                i = m.end()
            elif c in "*~_":
                i = self._delimiter_run(i)
            else:
                self.out.append(c)
                i += 1
        return self._join()

    def _url_starts(self) -> list[int]:
        """Where bare URLs begin: a scheme before "://" (at most 32 characters back), or "www."."""
        s, starts = self.s, []
        for m in _URL_MARK.finditer(s):
            if m.group() == "://":
                k = m.start()
                while k > 0 and m.start() - k < 32 and (s[k - 1].isalnum() or s[k - 1] in "+.-"):
                    k -= 1
                if k < m.start() and s[k].isalpha():
                    starts.append(k)
            elif m.start() == 0 or not s[m.start() - 1].isalnum():
                starts.append(m.start())
        return sorted(set(starts))

    def _label(self, i: int, *, image: bool) -> bool:
        """`[label](...)`, `[label][ref]` (and images): keep the label, drop the rest; a source's own
        reference marks ("[12]") go entirely. False when `[` opens nothing."""
        end = self.bracket_end(i + 1)
        if end < 0:
            return False
        after = self.construct_after(end)
        if after >= 0:
            self.skip[end] = after
            return True
        if (
            not image
            and (i == 0 or not self.s[i - 1].isalnum())
            and end - i <= 40
            and _REFERENCE_MARK.fullmatch(self.s, i + 1, end)
        ):
            self.skip[i] = end + 1
            return True
        return False

    def _angle(self, i: int) -> int:
        """An autolink or an HTML tag is dropped; any other `<` is text."""
        s = self.s
        end, other = self.angle_end(i + 1), self.angle_next(i + 1)
        closed = self.before_newline(end, i + 1) and (other == -1 or other > end)
        if closed and (_AUTOLINK_BODY.fullmatch(s, i + 1, end) or (i + 1 < end and s[i + 1] in "/!?")):
            return end + 1
        if closed and i + 1 < end and s[i + 1].isalpha():
            return end + 1
        self.out.append("<")
        return i + 1

    def _delimiter_run(self, i: int) -> int:
        s, n = self.s, len(self.s)
        j = i
        while j < n and s[j] == s[i]:
            j += 1
        before = s[i - 1] if i else " "
        after = s[j] if j < n else " "
        can_open = not after.isspace() and (before.isspace() or not before.isalnum())
        can_close = not before.isspace() and (after.isspace() or not after.isalnum())
        self.delimiters.append((len(self.out), s[i:j], can_open, can_close))
        self.out.append(s[i:j])
        return j

    def _join(self) -> str:
        """Paired emphasis delimiters go: `*` and `~~` pairs always, `_` pairs only around several
        words (`__init__` and `_private` are identifiers, not emphasis)."""
        spaced = [0]  # spaced[k]: pieces before out[k] holding a space
        for piece in self.out:
            spaced.append(spaced[-1] + (" " in piece))
        open_at: dict[str, int] = {}
        for index, run, can_open, can_close in self.delimiters:
            if run == "~":
                continue
            if can_close and run in open_at:
                start = open_at.pop(run)
                if run[0] != "_" or spaced[index] > spaced[start + 1]:
                    self.out[start] = self.out[index] = ""
                continue
            if can_open:
                open_at[run] = index  # one open run per spelling: later openers replace earlier ones
        return "".join(self.out)


def clean_quoted_sentence(sentence: str) -> str | None:
    """The sentence as plain text the writer may quote, or None: an instruction, or nothing left."""
    if _INSTRUCTION.search(sentence):
        return None
    original = " ".join(sentence.split())
    text = " ".join(_Scanner(sentence).run().split())
    if text != original:  # something was dropped: tidy the spaces and brackets it leaves
        text = _LEFT_SPACE.sub(r"\1", text.replace(" ( )", "").replace(" ()", ""))
    text = text.strip(" -:;,")
    if _INSTRUCTION.search(text) or len(_WORD_CHAR.findall(text)) < _MIN_WORD_CHARS:
        return None
    return text


# Characters that start markup somewhere in CommonMark, GFM or Streamlit's markdown. `_` between two
# letters or digits is never emphasis, so identifiers stay readable in the markdown source.
_MD_ACTIVE = re.compile(r"[\\`*\[\]<>$|~]|(?<![^\W_])_|_(?![^\W_])|&(?=#?\w{1,32};)|:(?=material/)")
_MD_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def md_quote(text: str) -> str:
    """Plain text as markdown that renders as exactly that text."""
    return _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), text)


def md_unquote(markdown: str) -> str:
    """A draft sentence's backslash escapes undone: the plain text it renders as."""
    return _MD_ESCAPED.sub(r"\1", markdown)


def plain_text(markdown: str) -> str:
    """Any source text as the plain text a quote of it would read: the same scan, nothing judged."""
    return " ".join(_Scanner(markdown).run().split())

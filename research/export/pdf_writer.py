"""The draft as a PDF (fpdf2): headings, paragraphs with bold/italic/links, lists, tables, code.

Whatever the draft holds, the export must not break: long URLs wrap mid-word (fpdf2 breaks a
word wider than the line), table cells wrap, characters no available font can draw become '?'
with a note at the end of the PDF saying how many and which (see pdf_fonts for the fonts used).
Arabic and Hebrew are shaped right-to-left when the optional `uharfbuzz` package is installed.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from research.export import markdown_blocks as md
from research.export.pdf_fonts import FontSet, find_fonts

BODY_PT = 10.5
LINE_MM = 5.4
HEADING_PT = {1: 18, 2: 14, 3: 12}
MAX_CELL_CHARS = 1200  # a table row must fit on one page
LIST_INDENT_MM = 6
LINK_RGB = (20, 70, 160)
MAX_NOTED_CHARS = 12

_AUTO = object()
_CORE_MAP = str.maketrans(
    {
        "\u2014": "-",
        "\u2013": "-",
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2026": "...",
        "\u2022": "-",
        "\u00a0": " ",
        "\u2212": "-",
    }
)
_CORE_COVERAGE = frozenset([*range(0x20, 0x7F), *range(0xA0, 0x100)])


class GlyphFilter:
    """Makes text drawable: drops invisible format characters, replaces undrawable ones with '?'."""

    def __init__(self, coverage: frozenset[int], *, core: bool) -> None:
        self.coverage = coverage
        self.core = core
        self.replaced: dict[str, int] = {}

    def __call__(self, text: str) -> str:
        if self.core:
            text = text.translate(_CORE_MAP)
        out = []
        for ch in text:
            cat = unicodedata.category(ch)
            if cat == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F or (cat == "Cc" and ch not in "\n\t"):
                continue  # zero-width joiners, variation selectors, bidi controls, control chars
            if ch in "\n\t" or ord(ch) in self.coverage:
                out.append(ch)
            else:
                self.replaced[ch] = self.replaced.get(ch, 0) + 1
                out.append("?")
        return "".join(out)

    def note(self) -> str:
        count = sum(self.replaced.values())
        sample = ", ".join(f"U+{ord(ch):04X}" for ch in list(self.replaced)[:MAX_NOTED_CHARS])
        more = ", ..." if len(self.replaced) > MAX_NOTED_CHARS else ""
        return (
            f"Note: {count} character{'s' if count != 1 else ''} ({sample}{more}) could not be shown with the "
            "fonts available on this machine and appear as '?'. The Markdown and DOCX exports contain the full text."
        )


class _DraftPdf(FPDF):
    def __init__(self, family: str) -> None:
        super().__init__(format="A4")
        self._family = family

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(self._family, "", 8)
        self.set_text_color(120, 120, 120)
        self.cell(0, 6, str(self.page_no()), align="C")


def render_pdf(markdown: str, *, title: str = "", fonts: FontSet | None | object = _AUTO) -> bytes:
    """`fonts`: the default finds fonts on this machine; None forces the Latin-1 core fonts."""
    fontset = find_fonts() if fonts is _AUTO else fonts
    writer = _Writer(fontset)  # type: ignore[arg-type]
    return writer.render(markdown, title)


class _Writer:
    def __init__(self, fonts: FontSet | None) -> None:
        self.core = fonts is None
        self.family = "helvetica" if self.core else "body"
        self.mono = "courier" if self.core else "mono"
        self.pdf = _DraftPdf(self.family)
        self.styles = {"", "B", "I", "BI"}
        if fonts is not None:
            self._add_fonts(fonts)
        self.clean = GlyphFilter(_CORE_COVERAGE if fonts is None else fonts.coverage(), core=self.core)

    def _add_fonts(self, fonts: FontSet) -> None:
        pdf = self.pdf
        pdf.add_font("body", "", str(fonts.regular))
        variants = {"B": fonts.bold, "I": fonts.italic, "BI": fonts.bold_italic}
        self.styles = {""} | {style for style, path in variants.items() if path}
        for style, path in variants.items():
            if path:
                pdf.add_font("body", style, str(path))
        pdf.add_font("mono", "", str(fonts.mono or fonts.regular))
        # Glyphs missing from bold/italic/mono come from the regular face, then the CJK fallbacks.
        pdf.add_font("fallback", "", str(fonts.regular))
        names = ["fallback"]
        for i, path in enumerate(fonts.fallbacks):
            pdf.add_font(f"fallback{i}", "", str(path))
            names.append(f"fallback{i}")
        pdf.set_fallback_fonts(names, exact_match=False)
        try:
            import uharfbuzz  # noqa: F401 - optional: right-to-left shaping for Arabic and Hebrew

            pdf.set_text_shaping(True)
        except ImportError:
            pass

    # --- document ---------------------------------------------------------------------------
    def render(self, markdown: str, title: str) -> bytes:
        pdf = self.pdf
        pdf.set_title(self.clean(md.scrub_surrogates(title))[:200] or "Research draft")
        pdf.set_creator("Research Desk")
        pdf.set_margins(18, 18, 18)
        pdf.set_auto_page_break(True, margin=18)
        pdf.add_page()
        pdf.set_font(self.family, "", BODY_PT)
        for block in md.parse_blocks(markdown):
            self._block(block)
        if self.clean.replaced:
            pdf.ln(4)
            self._set_font("I", 8.5)
            pdf.set_text_color(110, 110, 110)
            pdf.multi_cell(0, 4.5, self.clean.note(), align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        return bytes(pdf.output())

    def _block(self, block: md.Block) -> None:
        pdf = self.pdf
        pdf.set_text_color(0, 0, 0)
        if isinstance(block, md.Heading):
            self._heading(block)
        elif isinstance(block, md.Paragraph):
            self._runs(md.parse_inline(block.text))
            pdf.ln(LINE_MM + 1.6)
        elif isinstance(block, md.ListBlock):
            self._list(block)
        elif isinstance(block, md.Table):
            self._table(block)
        elif isinstance(block, md.CodeBlock):
            self._set_font("", 9, mono=True)
            pdf.set_fill_color(242, 242, 242)
            pdf.multi_cell(
                0, 4.6, self.clean(block.text) or " ", fill=True, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT
            )
            pdf.ln(2)
        elif isinstance(block, md.Quote):
            self._indented(
                LIST_INDENT_MM, lambda: self._runs(md.parse_inline(block.text), italic=True, rgb=(80, 80, 80))
            )
            pdf.ln(LINE_MM + 1.6)
        elif isinstance(block, md.Rule):
            y = pdf.get_y() + 2
            pdf.line(pdf.l_margin, y, pdf.w - pdf.r_margin, y)
            pdf.ln(5)

    def _heading(self, block: md.Heading) -> None:
        pdf = self.pdf
        size = HEADING_PT.get(block.level, 11)
        if pdf.get_y() > pdf.page_break_trigger - 25:
            pdf.add_page()  # never leave a heading alone at the foot of a page
        pdf.ln(2 if block.level > 1 else 0)
        self._set_font("B", size)
        pdf.multi_cell(
            0, size * 0.5, self.clean(md.plain_text(block.text)), align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT
        )
        pdf.ln(2)

    def _list(self, block: md.ListBlock) -> None:
        pdf = self.pdf
        bullet = "\u2022" if not self.core else "-"
        for n, item in enumerate(block.items, block.start):
            nested = item.startswith("  ")
            indent = LIST_INDENT_MM * (2 if nested else 1)
            marker = f"{n}." if block.ordered and not nested else bullet
            self._set_font("", BODY_PT)
            x = pdf.l_margin + indent - LIST_INDENT_MM
            pdf.set_x(x)
            pdf.cell(LIST_INDENT_MM, LINE_MM, marker)
            self._indented(indent, functools.partial(self._runs, md.parse_inline(item.strip())), keep_y=True)
            pdf.ln(LINE_MM + 0.6)
        pdf.ln(1.2)

    def _table(self, table: md.Table) -> None:
        pdf = self.pdf
        header, rows = table.padded()
        size = BODY_PT - 1 if table.columns <= 4 else max(6.5, BODY_PT - 1 - (table.columns - 4))
        self._set_font("", size)
        with pdf.table(
            text_align="LEFT",
            line_height=size * 0.5,
            first_row_as_headings=True,
            width=pdf.w - pdf.l_margin - pdf.r_margin,
        ) as grid:
            for cells in [header, *rows]:
                row = grid.row()
                for cell in cells:
                    text = self.clean(md.plain_text(cell))
                    row.cell(text[:MAX_CELL_CHARS] + ("…" if len(text) > MAX_CELL_CHARS and not self.core else ""))
        pdf.ln(3)

    # --- inline -------------------------------------------------------------------------------
    def _runs(self, runs: Iterable[md.Run], *, italic: bool = False, rgb: tuple[int, int, int] = (0, 0, 0)) -> None:
        pdf = self.pdf
        for run in runs:
            style = ("B" if run.bold else "") + ("I" if run.italic or italic else "")
            self._set_font(style, BODY_PT, mono=run.code, underline=bool(run.url))
            pdf.set_text_color(*(LINK_RGB if run.url else rgb))
            pdf.write(LINE_MM, self.clean(run.text), link=run.url or "")
        pdf.set_text_color(0, 0, 0)

    def _indented(self, indent: float, draw: Callable[[], None], *, keep_y: bool = False) -> None:
        pdf = self.pdf
        left = pdf.l_margin
        pdf.set_left_margin(left + indent)
        if not keep_y:
            pdf.set_x(left + indent)
        try:
            draw()
        finally:
            pdf.set_left_margin(left)

    def _set_font(self, style: str, size: float, *, mono: bool = False, underline: bool = False) -> None:
        if mono:
            family, style = self.mono, ""
        else:
            family = self.family
            if style not in self.styles:
                style = "B" if "B" in style and "B" in self.styles else ""
        self.pdf.set_font(family, style + ("U" if underline else ""), size)

"""The draft as a Word document (python-docx): headings, paragraphs with bold/italic/links, lists,
tables and code, with real hyperlinks.

Word renders any script with the reader's fonts, so non-Latin text needs nothing special here;
only characters XML forbids (control characters) are dropped, since python-docx refuses them.
"""

from __future__ import annotations

import io
import re

from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.text import WD_COLOR_INDEX
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt, RGBColor
from docx.text.paragraph import Paragraph as DocxParagraph

from research.export import markdown_blocks as md

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MONO_FONT = "Courier New"
LINK_RGB = RGBColor(0x14, 0x46, 0xA0)


def xml_safe(text: str) -> str:
    return _XML_ILLEGAL.sub("", md.scrub_surrogates(text))


def render_docx(markdown: str, *, title: str = "") -> bytes:
    document = Document()
    document.core_properties.title = xml_safe(title)[:255]
    document.core_properties.author = "Research Desk"
    for block in md.parse_blocks(markdown):
        _block(document, block)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _block(document: DocxDocument, block: md.Block) -> None:
    if isinstance(block, md.Heading):
        paragraph = document.add_heading(level=min(block.level, 9))
        _add_runs(paragraph, md.parse_inline(block.text))
    elif isinstance(block, md.Paragraph):
        _add_runs(document.add_paragraph(), md.parse_inline(block.text))
    elif isinstance(block, md.ListBlock):
        for n, item in enumerate(block.items, block.start):
            nested = item.startswith("  ")
            if block.ordered and not nested:
                # Numbers as text: python-docx's "List Number" style shares one counter per document.
                paragraph = document.add_paragraph()
                paragraph.paragraph_format.left_indent = Pt(18)
                paragraph.paragraph_format.first_line_indent = Pt(-18)
                paragraph.add_run(f"{n}.\t")
            else:
                paragraph = document.add_paragraph(style="List Bullet 2" if nested else "List Bullet")
            _add_runs(paragraph, md.parse_inline(item.strip()))
    elif isinstance(block, md.Table):
        _table(document, block)
    elif isinstance(block, md.CodeBlock):
        paragraph = document.add_paragraph()
        for i, line in enumerate(block.text.split("\n")):
            if i:
                paragraph.add_run().add_break()
            run = paragraph.add_run(xml_safe(line))
            run.font.name = MONO_FONT
            run.font.size = Pt(9)
            run.font.highlight_color = WD_COLOR_INDEX.GRAY_25
    elif isinstance(block, md.Quote):
        _add_runs(document.add_paragraph(style="Quote"), md.parse_inline(block.text))
    elif isinstance(block, md.Rule):
        document.add_paragraph("―" * 12)


def _table(document: DocxDocument, block: md.Table) -> None:
    header, rows = block.padded()
    grid = document.add_table(rows=1 + len(rows), cols=block.columns)
    grid.style = "Table Grid"
    for r, cells in enumerate([header, *rows]):
        for c, text in enumerate(cells):
            paragraph = grid.cell(r, c).paragraphs[0]
            _add_runs(paragraph, md.parse_inline(text), bold=r == 0)
    document.add_paragraph()


def _add_runs(paragraph: DocxParagraph, runs: list[md.Run], *, bold: bool = False) -> None:
    for run in runs:
        if run.url:
            _hyperlink(paragraph, run)
            continue
        piece = paragraph.add_run(xml_safe(run.text))
        piece.bold = run.bold or bold or None
        piece.italic = run.italic or None
        if run.code:
            piece.font.name = MONO_FONT


def _hyperlink(paragraph: DocxParagraph, run: md.Run) -> None:
    """A clickable link (python-docx has no API for it: the w:hyperlink element by hand)."""
    rel_id = paragraph.part.relate_to(xml_safe(run.url or ""), RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), rel_id)
    piece = OxmlElement("w:r")
    props = OxmlElement("w:rPr")
    color = OxmlElement("w:color")
    color.set(qn("w:val"), str(LINK_RGB))
    underline = OxmlElement("w:u")
    underline.set(qn("w:val"), "single")
    props.extend([color, underline])
    if run.bold:
        props.append(OxmlElement("w:b"))
    if run.italic:
        props.append(OxmlElement("w:i"))
    text = OxmlElement("w:t")
    text.text = xml_safe(run.text)
    text.set(qn("xml:space"), "preserve")
    piece.extend([props, text])
    link.append(piece)
    paragraph._p.append(link)

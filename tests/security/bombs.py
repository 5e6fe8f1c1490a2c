"""Hostile files built at test time (small on disk): a PDF whose pages inflate enormously, a docx
zip bomb, a huge-text markdown file."""

from __future__ import annotations

import io
import zipfile
import zlib


def pdf_bomb(pages: int = 20, page_mb: int = 60) -> bytes:
    """`pages` pages whose content streams each inflate to `page_mb` MB of text-showing operators."""
    op = b"BT /F1 12 Tf 72 720 Td (lorem ipsum) Tj ET\n"
    return _text_pdf(zlib.compress(op * (page_mb * 1024 * 1024 // len(op)), 9), pages, b" /Filter /FlateDecode")


def pdf_with_text(text: str, pages: int = 1) -> bytes:
    """A real, readable PDF (Helvetica) with `text` on each of `pages` pages."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")
    return _text_pdf(b"BT /F1 12 Tf 72 720 Td (" + escaped + b") Tj ET", pages, b"")


def _text_pdf(content: bytes, pages: int, filters: bytes) -> bytes:
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(pages)).encode()
    objects.append(b"<< /Type /Pages /Kids [" + kids + b"] /Count " + str(pages).encode() + b" >>")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i in range(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(
            b"<< /Length " + str(len(content)).encode() + filters + b" >>\nstream\n" + content + b"\nendstream"
        )
    return _pdf(objects)


def _pdf(objects: list[bytes]) -> bytes:
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{n} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def docx_bomb(inflated_mb: int = 1024) -> bytes:
    """A docx whose document.xml inflates to `inflated_mb` MB (written in chunks: small in memory)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        )
        z.writestr(
            "_rels/.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        )
        with z.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(
                b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>'
            )
            chunk = b"a" * (1024 * 1024)
            for _ in range(inflated_mb):
                member.write(chunk)
            member.write(b"</w:t></w:r></w:p></w:body></w:document>")
    return out.getvalue()

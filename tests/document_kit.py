"""Documents made in the tests: PDFs (text, scanned, encrypted, corrupt) and DOCX files.

The PDF writer is minimal and has no font files: each character is written as its Unicode code
point under a font with a ``ToUnicode`` map, so pypdf extracts the text (English and Korean
alike) exactly as written, as it would from a real report. Used by the tests and by
``bench/documents.py``.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence


def _cmap(chars: Sequence[str]) -> bytes:
    lines = [
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def /CMapType 2 def",
        "1 begincodespacerange <0000> <FFFF> endcodespacerange",
    ]
    codes = sorted({ord(c) for c in chars if ord(c) <= 0xFFFF})
    for start in range(0, len(codes), 100):
        chunk = codes[start : start + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        lines += [f"<{c:04X}> <{c:04X}>" for c in chunk]
        lines.append("endbfchar")
    lines += ["endcmap CMapName currentdict /CMap defineresource pop end end"]
    return "\n".join(lines).encode("ascii")


def _wrap(text: str, width: int = 90) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return lines


def make_pdf(pages: Sequence[str]) -> bytes:
    """A PDF with one page per text (an empty text: a page with no text layer, like a scan)."""
    chars = sorted({c for page in pages for c in page} | {" "})
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_id = add(b"")
    cmap = _cmap(chars)
    to_unicode = add(b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream")
    descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /TestSans /CIDToGIDMap /Identity "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>"
    )
    font = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /TestSans /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (descendant, to_unicode)
    )
    kids = []
    for text in pages:
        ops = ["BT /F1 10 Tf 14 TL 50 800 Td"]
        for line in _wrap(text) if text.strip() else []:
            ops.append("<" + "".join(f"{ord(c):04X}" for c in line if ord(c) <= 0xFFFF) + "> Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("ascii")
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.write(b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref))
    return out.getvalue()


def encrypted_pdf(pages: Sequence[str], password: str = "secret") -> bytes:
    """A PDF that needs a password to open."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(pages))))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(sections: Sequence[tuple[str, Sequence[str]]], tables: Sequence[Sequence[Sequence[str]]] = ()) -> bytes:
    """A Word file: a Heading 1 and its paragraphs per section; then the tables (first row: header)."""
    import docx

    document = docx.Document()
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for text in paragraphs:
            document.add_paragraph(text)
    for rows in tables:
        table = document.add_table(rows=len(rows), cols=len(rows[0]))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                table.cell(r, c).text = str(value)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def zip_bomb_docx(megabytes: int = 40) -> bytes:
    """A .docx whose one extra part unpacks to ``megabytes`` of zeros from a few KB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
        archive.writestr("word/media/filler.bin", b"\x00" * (megabytes * 1024 * 1024))
    return out.getvalue()

"""Unicode fonts for the PDF export, found on this machine, and the glyphs they can show.

The PDF's main font is DejaVu Sans (Debian's fonts-dejavu-core, part of this project's machine
image): Latin, Cyrillic, Greek, Arabic, Hebrew and many symbols. CJK needs a second font; any
installed one is used as a fallback (found with `fc-list :charset=4e2d`, or at the usual Debian
paths of fonts-noto-cjk / fonts-wqy-* / fonts-droid-fallback). Characters that no available font
has are replaced with '?' by the PDF writer, and the PDF says so; the Markdown and DOCX exports
always keep the full text.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

log = logging.getLogger("research.export.run_export")

_DEJAVU_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF")
_CJK_CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
)
_CJK_PROBE = "4e2d"  # 中: a font that has it is taken as a CJK font
_FC_LIST_TIMEOUT = 5


@dataclass(frozen=True)
class FontSet:
    """TrueType files for the PDF: a family (regular required) and fallbacks for other scripts."""

    regular: Path
    bold: Path | None = None
    italic: Path | None = None
    bold_italic: Path | None = None
    mono: Path | None = None
    fallbacks: tuple[Path, ...] = field(default_factory=tuple)

    def coverage(self) -> frozenset[int]:
        """Every code point the regular font or a fallback can draw (bold/mono fall back to these)."""
        points: set[int] = set()
        for path in (self.regular, *self.fallbacks):
            points |= _cmap(str(path))
        return frozenset(points)


@lru_cache(maxsize=1)
def find_fonts() -> FontSet | None:
    """The best fonts on this machine; None when no DejaVu Sans is installed (core fonts then)."""
    for folder in _DEJAVU_DIRS:
        base = Path(folder)
        if (base / "DejaVuSans.ttf").is_file():

            def opt(name: str) -> Path | None:  # called in this iteration only, so `base` is this folder's
                return base / name if (base / name).is_file() else None  # noqa: B023

            return FontSet(
                regular=base / "DejaVuSans.ttf",
                bold=opt("DejaVuSans-Bold.ttf"),
                italic=opt("DejaVuSans-Oblique.ttf"),
                bold_italic=opt("DejaVuSans-BoldOblique.ttf"),
                mono=opt("DejaVuSansMono.ttf"),
                fallbacks=tuple(_cjk_fonts()[:1]),
            )
    log.warning("No DejaVu Sans font found: PDF exports use core fonts (Latin-1 only).")
    return None


def _cjk_fonts() -> list[Path]:
    found: list[Path] = []
    if shutil.which("fc-list"):
        try:
            out = subprocess.run(
                ["fc-list", f":charset={_CJK_PROBE}", "file"],
                capture_output=True,
                text=True,
                timeout=_FC_LIST_TIMEOUT,
                check=False,
            ).stdout
            found = [Path(line.split(":")[0].strip()) for line in out.splitlines() if line.strip()]
        except (OSError, subprocess.SubprocessError):
            found = []
    found += [Path(p) for p in _CJK_CANDIDATES if Path(p).is_file()]
    # fontconfig's charset answer can be loose: keep only fonts that really have the probe glyph.
    usable = [
        p
        for p in dict.fromkeys(found)
        if p.suffix.lower() in (".ttf", ".otf", ".ttc") and int(_CJK_PROBE, 16) in _cmap(str(p))
    ]
    return usable


@lru_cache(maxsize=16)
def _cmap(path: str) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    try:
        font = TTFont(path, fontNumber=0, lazy=True)
        return frozenset(font.getBestCmap() or {})
    except Exception:  # noqa: BLE001 - an unreadable font file simply covers nothing
        log.warning("Could not read font %s", path)
        return frozenset()

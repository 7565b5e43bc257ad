r"""Combining marks in what players write (chat, display names): a few per letter, as
every script needs, never a tower of them that spills over the lines around it.

>>> cap_marks("e" + "\u0301" * 6) == "\u00e9" + "\u0301" * 3
True
>>> len(cap_marks("\u0634\u0651\u064e"))  # shin, shadda, fatha: Arabic keeps both
3
"""

from __future__ import annotations

import unicodedata

__all__ = ["MAX_MARKS", "cap_marks"]

MAX_MARKS = 3
"""Most combining marks kept after one base character (after NFC composition): enough
for Arabic's shadda with a vowel and for stacked Vietnamese accents."""


def cap_marks(text: str, most: int = MAX_MARKS) -> str:
    """``text`` in NFC, with at most ``most`` combining marks (Unicode categories Mn and
    Me) after each base character; the rest are dropped."""
    kept: list[str] = []
    run = 0
    for ch in unicodedata.normalize("NFC", text):
        if unicodedata.category(ch) in ("Mn", "Me"):
            run += 1
            if run > most:
                continue
        else:
            run = 0
        kept.append(ch)
    return "".join(kept)

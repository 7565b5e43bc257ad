"""How players are named, the same everywhere: the table, the lobby, records, replays and
the terminal.

Computer players get a first name by seat, so two computers of one level never share a
name ("Layla's turn", not "Computer (expert)'s turn"); the level is shown beside the name.
A person who gives no name is a guest, numbered by seat.

>>> computer_name(1), computer_name(3)
('Layla', 'Sami')
>>> guest_name(0)
'Guest 1'
>>> computer_label(2, "expert")
'Nadia (expert)'
"""

from __future__ import annotations

from basra.i18n import DEFAULT_LANGUAGE, text

__all__ = ["COMPUTER_NAMES", "computer_label", "computer_name", "guest_name"]

COMPUTER_NAMES = ("Karim", "Layla", "Nadia", "Sami")
"""The computer's names, by seat (a table has at most four seats). They read the same in
English and Arabic pages (the front end writes them in Arabic script there)."""


def computer_name(seat: int) -> str:
    """The name of the computer player in ``seat``."""
    return COMPUTER_NAMES[seat % len(COMPUTER_NAMES)]


def computer_label(seat: int, level: str) -> str:
    """The computer player of ``seat`` with its level, as text-only places show it."""
    return f"{computer_name(seat)} ({level})"


def guest_name(seat: int) -> str:
    """The name of a person in ``seat`` who gave none (as the English catalog words it;
    the pages show it in theirs)."""
    return text(DEFAULT_LANGUAGE, "guest_n", n=seat + 1)

"""Player accounts, apart from the web: the rules for names and passwords, password
hashing, session tokens and the pace at which wrong passwords are let through.

Accounts are optional: a guest plays without one. An account is a name and a password,
nothing else (no e-mail).

=========  =================================================================
name       3 to 20 characters: letters of the Latin or Arabic script, digits
           (0-9, ٠-٩ or ۰-۹), ``_`` and ``-``; at least one letter. Names that
           pass for the computer players or for guests are refused.
name key   what makes two names the same: NFKC, case folded, Arabic-Indic
           digits as 0-9, the Arabic letters that look alike as one
           (أ إ آ ٱ as ا, ى ی as ي, ک as ك). Unique among accounts.
password   8 to 200 characters, not the name itself; stored only as an
           Argon2id hash (``argon2-cffi``), rehashed when the parameters change
session    a random token in a cookie, stored only as its SHA-256
=========  =================================================================

>>> check_name("Amira_7")
'Amira_7'
>>> name_key("AMIRA_7") == name_key("amira_7")
True
>>> name_key("أحمد") == name_key("احمد")
True
>>> check_name("Computer2")
Traceback (most recent call last):
...
basra.players.accounts.BadNameError: the name 'Computer2' is kept for the computer players
>>> [LoginPace().lock_seconds(failures) for failures in (5, 6, 7, 8)]
[0.0, 1.0, 2.0, 4.0]
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from basra.bots import BOT_LEVELS
from basra.i18n import languages, text
from basra.players.names import COMPUTER_NAMES

if TYPE_CHECKING:
    from argon2 import Parameters

__all__ = [
    "NAME_LENGTH",
    "PASSWORD_LENGTH",
    "SESSION_SECONDS",
    "AccountError",
    "BadNameError",
    "BadPasswordError",
    "LoginPace",
    "Passwords",
    "check_name",
    "check_password",
    "name_key",
    "new_token",
    "token_hash",
]

NAME_LENGTH = (3, 20)
"""Fewest and most characters of a name."""
PASSWORD_LENGTH = (8, 200)
"""Fewest and most characters of a password."""
SESSION_SECONDS = 30 * 24 * 3600
"""How long a log-in lasts: 30 days."""

_DIGITS = {**{chr(0x0660 + i): str(i) for i in range(10)},   # Arabic-Indic ٠..٩
           **{chr(0x06F0 + i): str(i) for i in range(10)}}   # Extended Arabic-Indic ۰..۹
_LOOK_ALIKE = {"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي", "ی": "ي", "ک": "ك"}
_FOLD = str.maketrans({**_DIGITS, **_LOOK_ALIKE})

_COMPUTER_PREFIXES = ("computer", "كمبيوتر", "الكمبيوتر", "حاسوب", "الحاسوب")
"""A name whose letters start with one of these (or with the word for the computer in any
catalog) passes for the computer."""
_COMPUTER_KEYS = ("name_karim", "name_layla", "name_nadia", "name_sami",
                  *(f"level_{level}" for level in BOT_LEVELS))
"""The catalog keys of the computer players' names and levels, as every page shows them."""
_STAFF_WORDS = ("admin", "administrator", "moderator", "system")


def _catalog_words(key: str) -> tuple[str, ...]:
    """The text ``key`` in every catalog (``web/i18n/*.json``), its holes left out
    ("ضيف {n}" as "ضيف")."""
    return tuple(text(language, key, n="") for language in languages())


@functools.cache
def _reserved() -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    """The keys of the names kept for the computer, the prefixes kept for it, and the
    keys of the names kept for guests."""
    computer = (*COMPUTER_NAMES, *BOT_LEVELS, "bot",
                *(word for key in _COMPUTER_KEYS for word in _catalog_words(key)))
    prefixes = (*_COMPUTER_PREFIXES, *_catalog_words("computer"))
    guests = ("guest", *_catalog_words("guest_n"))
    return (frozenset(_stem(name_key(word)) for word in computer),
            tuple(_stem(name_key(word)) for word in prefixes),
            frozenset(_stem(name_key(word)) for word in guests))




class AccountError(ValueError):
    """Something about an account that the request must change; ``code`` names it for
    programs (``bad_name``, ``bad_password``, ...)."""

    code = "account"


class BadNameError(AccountError):
    """A name that breaks the rules for names; the message says which rule."""

    code = "bad_name"


class BadPasswordError(AccountError):
    """A password that breaks the rules for passwords; the message says which rule."""

    code = "bad_password"


def name_key(name: str) -> str:
    """What a name is unique by: two names with the same key are the same name.

    >>> name_key("Omar١") == name_key("OMAR1")
    True
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded).translate(_FOLD)


def _stem(key: str) -> str:
    """A key without its digits, ``_`` and ``-``: what a name passes for."""
    return "".join(ch for ch in key if ch.isalpha())


def _shown(ch: str) -> str:
    """A character as a message shows it: itself and its Unicode name, or only the name
    and code point when it is invisible."""
    name = unicodedata.name(ch, "").lower()
    if ch.isprintable() and not ch.isspace():
        return f"{ch!r} ({name})" if name else repr(ch)
    return f"a {name} (U+{ord(ch):04X})" if name else f"the control character U+{ord(ch):04X}"


def _allowed(ch: str) -> bool:
    if ch in "_-" or "0" <= ch <= "9" or ch in _DIGITS:
        return True
    if unicodedata.category(ch) not in ("Lu", "Ll", "Lt", "Lo"):
        return False
    return unicodedata.name(ch, "").startswith(("LATIN ", "ARABIC "))


def check_name(name: object) -> str:
    """The name as stored (NFKC, spaces around it removed), or :class:`BadNameError`
    naming the rule it breaks.

    >>> check_name("  ليلى_2  ")
    Traceback (most recent call last):
    ...
    basra.players.accounts.BadNameError: the name 'ليلى_2' is a computer player's name
    """
    if not isinstance(name, str):
        raise BadNameError("the name must be text")
    name = unicodedata.normalize("NFKC", name).strip()
    fewest, most = NAME_LENGTH
    if not fewest <= len(name) <= most:
        raise BadNameError(f"the name {name[:40]!r} has {len(name)} characters; a name has "
                           f"{fewest} to {most}")
    for ch in name:
        if not _allowed(ch):
            raise BadNameError(f"the name {name!r} has {_shown(ch)}; a name has only letters "
                               "(Latin or Arabic), digits, _ and -")
    stem = _stem(name_key(name))
    if not stem:
        raise BadNameError(f"the name {name!r} has no letter; a name needs at least one")
    computer, prefixes, guests = _reserved()
    if stem.startswith(prefixes):
        raise BadNameError(f"the name {name!r} is kept for the computer players")
    if stem in computer:
        raise BadNameError(f"the name {name!r} is a computer player's name")
    if stem in guests:
        raise BadNameError(f"the name {name!r} is how the server names guests")
    if stem in _STAFF_WORDS:
        raise BadNameError(f"the name {name!r} is reserved")
    return name


def check_password(password: object, name: str | None = None) -> str:
    """The password, or :class:`BadPasswordError` naming the rule it breaks (the message
    never quotes the password).

    >>> check_password("short")
    Traceback (most recent call last):
    ...
    basra.players.accounts.BadPasswordError: the password has 5 characters; a password has 8 to 200
    """
    if not isinstance(password, str):
        raise BadPasswordError("the password must be text")
    fewest, most = PASSWORD_LENGTH
    if not fewest <= len(password) <= most:
        raise BadPasswordError(f"the password has {len(password)} characters; a password "
                               f"has {fewest} to {most}")
    if name is not None and name_key(password.strip()) == name_key(name):
        raise BadPasswordError("the password must not be the name")
    return password


class Passwords:
    """Argon2id hashes of passwords (``argon2-cffi``), with its recommended parameters
    (which follow the library's updates) unless ``parameters`` are given
    (``argon2.profiles.CHEAPEST`` for tests).

    Passwords are hashed in their NFKC form, so the same password typed on another
    keyboard (a composed or decomposed letter) still matches.
    """

    def __init__(self, parameters: Parameters | None = None) -> None:
        from argon2 import PasswordHasher

        self._hasher = (PasswordHasher() if parameters is None
                        else PasswordHasher.from_parameters(parameters))
        self._dummy: str | None = None

    @staticmethod
    def _normal(password: str) -> str:
        return unicodedata.normalize("NFKC", password)

    def hash(self, password: str) -> str:
        """A new hash of ``password`` (with a random salt)."""
        return self._hasher.hash(self._normal(password))

    def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches the ``stored`` hash. With no hash (no such
        account), a made-up one is checked, so that the answer takes as long."""
        from argon2.exceptions import InvalidHashError, VerificationError

        if stored is None:
            if self._dummy is None:
                self._dummy = self.hash(secrets.token_hex(16))
            stored = self._dummy
            password = ""  # never matches: the dummy's password is random
        try:
            return self._hasher.verify(stored, self._normal(password)) and bool(password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than these (hash the password
        again at its next log-in)."""
        from argon2.exceptions import InvalidHashError

        try:
            return self._hasher.check_needs_rehash(stored)
        except InvalidHashError:
            return True


def new_token() -> str:
    """A new session token: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database keeps of a token: its SHA-256, in hex.

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class LoginPace:
    """How wrong passwords slow down log-ins to one name.

    The first ``free_failures`` wrong passwords cost nothing; each one after locks the
    name's log-ins for twice as long as the last (``first_lock`` seconds, then twice that,
    up to ``longest_lock``). A right password clears the count, and so do
    ``forget_after`` seconds without a wrong one. The count is kept per name whether or
    not an account has it, so the answers never tell which names exist.
    """

    free_failures: int = 5
    first_lock: float = 1.0
    longest_lock: float = 900.0
    forget_after: float = 24 * 3600.0

    def lock_seconds(self, failures: int) -> float:
        """How long log-ins are locked after ``failures`` wrong passwords in a row."""
        beyond = failures - self.free_failures
        if beyond <= 0:
            return 0.0
        return min(self.first_lock * 2.0 ** min(beyond - 1, 60), self.longest_lock)

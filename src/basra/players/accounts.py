"""Player accounts, apart from the web: the rules for names and passwords, password
hashing, session tokens and the pace at which wrong passwords are let through.

Accounts are optional: a guest plays without one. An account is a name and a password,
nothing else (no e-mail).

=========  =================================================================
name       3 to 20 characters: letters of the Latin, Greek or Arabic script,
           digits (0-9, ٠-٩ or ۰-۹), ``_`` and ``-``; at least one letter, and no
           Greek letter beside a Latin or Arabic one (``Αlice`` with a Greek
           Alpha is refused: mixing scripts is how names pass for others). Names
           that pass for the computer players or for guests are refused.
name key   what makes two names the same, so that no name passes for another:
           NFKC; Greek letters without their accents and, in either case, as the
           Latin letter their capital looks like (``Α α`` as ``a``, ``Η η`` as
           ``h``, ``Ν ν`` as ``n``, ``Ρ ρ`` as ``p``, ...: ``ΤΟΜ`` is ``Tom``,
           ``ΓΙΩΡΓΟΣ`` is ``Γιώργος``); case folded, the Turkish capital ``İ``
           as ``i`` (``İpek``, ``ipek``, ``IPEK`` and ``ıpek`` are one name);
           Arabic-Indic digits as 0-9, the Arabic letters
           that look alike as one (أ إ آ ٱ as ا, ى ی as ي, ک as ك), then the
           Unicode confusable skeleton (UTS #39, ICU's ``SpoofChecker`` through
           PyICU: ``ı`` as ``i``, ``ᴄ`` as ``c``, ``m`` as ``rn``), case folded
           again, and two folds of our own: the digits that pass for letters
           (0 o, 1 l, 3 e, 4 a, 5 s, 7 t; UTS #39 leaves digits alone) and
           ``i`` as ``l`` (a capital I looks like an l, and names are the same
           whatever their case, so ``AIi``, ``Ali`` and ``All`` are one name).
           Unique among accounts; guests' display names may not have an
           account's or a computer player's key either.
password   8 to 200 characters, not the name itself, neither blank (spaces and
           control characters only) nor easy to guess (``zxcvbn``'s score
           under 2 of 4: common passwords, words, keyboard runs, repeats);
           stored only as an Argon2id hash (``argon2-cffi``), rehashed when the
           parameters change
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
>>> name_key("Karım") == name_key("Karim") == name_key("KARIM")
True
>>> name_key("Αlice") == name_key("Alice"), name_key("ΓΙΩΡΓΟΣ") == name_key("Γιώργος")
(True, True)
>>> [LoginPace().lock_seconds(failures) for failures in (5, 6, 7, 8)]
[0.0, 1.0, 2.0, 4.0]
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import secrets
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from basra.bots import BOT_LEVELS
from basra.i18n import languages, text
from basra.players.names import COMPUTER_NAMES

if TYPE_CHECKING:
    from argon2 import Parameters

__all__ = [
    "NAME_LENGTH",
    "PASSWORD_LENGTH",
    "RESERVED_WHY",
    "SESSION_SECONDS",
    "AccountError",
    "BadNameError",
    "BadPasswordError",
    "LoginPace",
    "Passwords",
    "WeakPasswordError",
    "address_group",
    "check_name",
    "check_password",
    "look_alike_keys",
    "name_key",
    "new_token",
    "reserved_as",
    "skeleton",
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

_GREEK_AS_LATIN = str.maketrans(dict(zip("αβεζηικμνορτυχ", "abezhikmnoptyx", strict=True)))
"""Greek letters (folded to small, accents off) as the Latin letter their capital looks
like: one choice for both cases, so that Greek names stay the same whatever their case
and a Greek capital passes for no Latin one (``Νora`` is ``Nora``, ``ΚΙΜ`` is ``Kim``)."""
_DOTTED_I = "i\u0307"
"""The Turkish capital ``İ`` case folded: an ``i`` and a combining dot above."""

_DIGIT_LETTERS = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t",
                                "i": "l"})
"""Our own folds after the skeleton: digits that pass for letters (UTS #39 maps none of
these), and ``i`` as ``l`` (see the module's table)."""

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
def _reserved() -> tuple[frozenset[str], tuple[str, ...], frozenset[str], frozenset[str]]:
    """The stems of the names kept for the computer, the prefixes kept for it, the
    stems of the names kept for guests and of the staff's words."""
    computer = (*COMPUTER_NAMES, *BOT_LEVELS, "bot",
                *(word for key in _COMPUTER_KEYS for word in _catalog_words(key)))
    prefixes = (*_COMPUTER_PREFIXES, *_catalog_words("computer"))
    guests = ("guest", *_catalog_words("guest_n"))
    return (frozenset(_stem(name_key(word)) for word in computer),
            tuple(_stem(name_key(word)) for word in prefixes),
            frozenset(_stem(name_key(word)) for word in guests),
            frozenset(_stem(name_key(word)) for word in _STAFF_WORDS))


RESERVED_WHY = {
    "computer_prefix": "is kept for the computer players",
    "computer": "is a computer player's name",
    "guest": "is how the server names guests",
    "staff": "is reserved",
}
"""Why a name is kept (:func:`reserved_as`), as the messages say it."""


def reserved_as(name: str) -> str | None:
    """What a name passes for, if it passes for a name the server keeps: a key of
    :data:`RESERVED_WHY`; None for a name anyone may take. Its letters are compared
    by their confusable skeletons, once with its digits read as letters (``Gu3st``)
    and once without them (``Nadia-1``).

    >>> reserved_as("Kar1m"), reserved_as("ᴄomputer_9"), reserved_as("Amira")
    ('computer', 'computer_prefix', None)
    """
    letters = "".join(ch for ch in unicodedata.normalize("NFKC", name) if ch.isalpha())
    stems = {_stem(name_key(name)), _stem(name_key(letters)) if letters else ""} - {""}
    computer, prefixes, guests, staff = _reserved()
    for why, found in (("computer_prefix", any(stem.startswith(prefixes) for stem in stems)),
                       ("computer", bool(stems & computer)), ("guest", bool(stems & guests)),
                       ("staff", bool(stems & staff))):
        if found:
            return why
    return None




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


class WeakPasswordError(BadPasswordError):
    """A password that is blank or easy to guess; ``warning`` is the estimator's
    (``zxcvbn``) reason in English, ``hint`` the catalog key of what the pages show."""

    code = "weak_password"

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


WEAKEST_SCORE = 2
"""The lowest ``zxcvbn`` score (0 to 4) a password may have: 2 is "somewhat guessable",
some 10^8 guesses; 0 and 1 are the common passwords, single words and runs."""
_ESTIMATED = 72
"""The characters of a password the estimator reads (it is slow on long text; a longer
password is no weaker for what follows)."""
_HINTS = (
    ("common", "account_hint_common"),
    ("repeat", "account_hint_repeats"),
    ("sequence", "account_hint_sequence"),
    ("keyboard", "account_hint_keyboard"),
    ("row of keys", "account_hint_keyboard"),
    ("date", "account_hint_dates"),
    ("years", "account_hint_dates"),
    ("name", "account_hint_names"),
    ("word", "account_hint_words"),
)
"""Catalog keys of the pages' hints, by a word of zxcvbn's English warning."""


@functools.cache
def _spoof_checker() -> Any:
    import icu  # type: ignore[import-untyped]

    return icu.SpoofChecker()


def skeleton(text: str) -> str:
    """The Unicode confusable skeleton of ``text`` (UTS #39, ICU): two texts with the
    same skeleton look alike.

    >>> skeleton("ᴄomputer") == skeleton("computer")
    True
    """
    return str(_spoof_checker().getSkeleton(0, text))


def name_key(name: str) -> str:
    """What a name is unique by: two names with the same key are the same name.

    >>> name_key("Omar١") == name_key("OMAR1")
    True
    """
    folded = _greek_as_latin(unicodedata.normalize("NFKC", name)).casefold()
    folded = folded.replace(_DOTTED_I, "i")
    folded = unicodedata.normalize("NFKC", folded).translate(_FOLD)
    return skeleton(folded).casefold().translate(_DIGIT_LETTERS)


def look_alike_keys(name: str) -> frozenset[str]:
    """The keys of the names ``name`` may pass for: its own :func:`name_key` and, for a
    name with Greek letters, the key its small Greek letters look like as they are
    (``νera`` is ``nera`` by its key but passes for ``vera``).

    >>> sorted(look_alike_keys("νera"))
    ['nera', 'vera']
    """
    keys = {name_key(name)}
    if any(_script(ch) == "GREEK" for ch in name):
        folded = unicodedata.normalize("NFKC", name).casefold().replace(_DOTTED_I, "i")
        folded = unicodedata.normalize("NFKC", folded).translate(_FOLD)
        keys.add(skeleton(folded).casefold().translate(_DIGIT_LETTERS))
    return frozenset(keys)


def _script(ch: str) -> str:
    """The script of a letter as its Unicode name starts ("LATIN", "GREEK", "ARABIC")."""
    return unicodedata.name(ch, "").partition(" ")[0]


def _greek_as_latin(name: str) -> str:
    """``name`` with its Greek letters unaccented, small, and as the Latin letters their
    capitals look like (see :data:`_GREEK_AS_LATIN`); other letters as they are.

    >>> _greek_as_latin("Γιώργος ΤΟΜ")
    'γiωpγoς tom'
    """
    if not any(_script(ch) == "GREEK" for ch in name):
        return name
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", name):
        if unicodedata.combining(ch) and out and _script(out[-1]) == "GREEK":
            continue  # tonos and dialytika: capitals are written without them
        out.append(ch)
    plain = "".join(ch.lower() if _script(ch) == "GREEK" else ch for ch in out)
    return unicodedata.normalize("NFC", plain).translate(_GREEK_AS_LATIN)


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
    return _script(ch) in _SCRIPTS


_SCRIPTS = ("LATIN", "GREEK", "ARABIC")
"""The scripts a name's letters may come from."""


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
                               "(Latin, Greek or Arabic), digits, _ and -")
    scripts = {_script(ch) for ch in name if ch.isalpha()}
    if "GREEK" in scripts and len(scripts) > 1:
        other = sorted(scripts - {"GREEK"})[0].title()
        raise BadNameError(f"the name {name!r} mixes Greek and {other} letters; a name "
                           "with Greek letters has no others")
    if not any(ch.isalpha() for ch in name):
        raise BadNameError(f"the name {name!r} has no letter; a name needs at least one")
    why = reserved_as(name)
    if why is not None:
        raise BadNameError(f"the name {name!r} {RESERVED_WHY[why]}")
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
    if not "".join(ch for ch in password if ch.isprintable() and not ch.isspace()):
        raise WeakPasswordError("the password is blank: it has only spaces or control "
                                "characters", "account_hint_blank")
    if name is not None and name_key(password.strip()) == name_key(name):
        raise BadPasswordError("the password must not be the name")
    from zxcvbn import zxcvbn

    estimate = zxcvbn(password[:_ESTIMATED], user_inputs=[name] if name else [])
    if estimate["score"] < WEAKEST_SCORE:
        warning = str(estimate["feedback"]["warning"] or "")
        lowered = warning.lower()
        hint = next((key for word, key in _HINTS if word in lowered), "account_hint_longer")
        reason = f": {warning.rstrip('.')}" if warning else ""
        raise WeakPasswordError(f"the password is too easy to guess{reason}; use a longer "
                                "one, a few uncommon words", hint)
    return password


def address_group(address: str) -> str:
    """The addresses one client is taken to hold: an IPv4 address alone, an IPv6 one
    with its /64 network (one household's or host's share); anything else as it is.

    >>> address_group("2001:db8:1:2:3:4:5:6"), address_group("203.0.113.9")
    ('2001:db8:1:2::/64', '203.0.113.9')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed.ipv4_mapped or parsed) if isinstance(parsed, ipaddress.IPv6Address) \
        else str(parsed)


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
    """How wrong passwords slow down log-ins to one name, counted per name *and address*
    (an IPv6 address with its /64, :func:`address_group`).

    From one address, the first ``free_failures`` wrong passwords for a name cost nothing;
    each one after locks that address's log-ins to the name for twice as long as the last
    (``first_lock`` seconds, then twice that, up to ``longest_lock``). Someone hammering
    a name so locks only their own address: the owner logs in from anywhere else.

    Across every address, a name with more than ``brake_after`` wrong passwords is under
    attack and braked: every address then has only ``braked_free`` free wrong passwords
    and its locks start at ``braked_first_lock`` seconds. Many addresses (a botnet) get
    one guess each per lock, while the owner's right password, from an address that has
    not failed, is still tried at once: no count ever locks out an address that has not
    failed itself.

    A right password clears its address's count for the name; a count is forgotten
    ``forget_after`` seconds after its last wrong password. Counts are kept per name
    whether or not an account has it, so the answers never tell which names exist.

    >>> pace = LoginPace()
    >>> [pace.lock_seconds(failures) for failures in (5, 6, 7, 8)]
    [0.0, 1.0, 2.0, 4.0]
    >>> [pace.lock_seconds(failures, braked=True) for failures in (1, 2, 3)]
    [60.0, 120.0, 240.0]
    """

    free_failures: int = 5
    first_lock: float = 1.0
    longest_lock: float = 900.0
    forget_after: float = 24 * 3600.0
    brake_after: int = 50
    braked_free: int = 0
    braked_first_lock: float = 60.0

    def lock_seconds(self, failures: int, braked: bool = False) -> float:
        """How long log-ins to a name from one address are locked after ``failures``
        wrong passwords from it in a row (``braked``: the name is under attack)."""
        free, first = ((self.braked_free, self.braked_first_lock) if braked
                       else (self.free_failures, self.first_lock))
        beyond = failures - free
        if beyond <= 0:
            return 0.0
        return min(first * 2.0 ** min(beyond - 1, 60), self.longest_lock)

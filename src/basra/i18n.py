"""The translation catalogs: one JSON file a language under ``web/i18n/`` (``en.json``,
``ar.json``, ``fa.json``, ``tr.json``, ``el.json``...), which the pages load and Python reads.

A catalog maps a key to a text with ``{name}`` holes, or, for a text that counts, to one
text per plural category (``{"one": "{n} card", "other": "{n} cards"}``; the count is the
``n`` hole). A few keys describe the language itself::

    language_name   the language named in itself ("العربية")
    language_dir    "ltr" or "rtl"
    number_system   the digits it writes numbers in ("latn", "arab", "arabext")
    plural_forms    the plural categories its counting texts have ("one other")

Adding a language is adding one file: every catalog has the same keys and holes.

>>> "ar" in languages()
True
>>> text("ar", "level_expert")
'خبير'
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TypeAlias

__all__ = [
    "DEFAULT_LANGUAGE",
    "Catalog",
    "catalog",
    "choose_language",
    "format_number",
    "languages",
    "phrase",
    "placeholders",
    "plural_form",
    "plural_keys",
    "sort_key",
    "text",
]

DEFAULT_LANGUAGE = "en"
"""The language of a page when nothing says which, and the language keys are written in."""

Catalog: TypeAlias = Mapping[str, str | Mapping[str, str]]
"""One language's texts by key."""

_CODE = re.compile(r"^[a-z]{2,3}$")
_HOLE = re.compile(r"\{(\w+)\}")


def _folder() -> Traversable:
    return resources.files("basra") / "web" / "i18n"


@functools.cache
def languages() -> tuple[str, ...]:
    """The codes of the catalogs present: English first, then the others by code.

    >>> languages()[0]
    'en'
    """
    found = sorted(entry.name.removesuffix(".json") for entry in _folder().iterdir()
                   if entry.name.endswith(".json") and _CODE.match(entry.name[:-5]))
    return tuple(sorted(found, key=lambda code: (code != DEFAULT_LANGUAGE, code)))


@functools.cache
def catalog(language: str) -> Catalog:
    """The texts of ``language`` (a code of :func:`languages`), or ``KeyError``."""
    if language not in languages():
        raise KeyError(f"no catalog for the language {language!r}; there are "
                       f"{', '.join(languages())}")
    loaded: dict[str, str | Mapping[str, str]] = json.loads(
        (_folder() / f"{language}.json").read_text(encoding="utf-8"))
    return loaded


def text(language: str, key: str, **params: object) -> str:
    """The text ``key`` in ``language`` with its holes filled from ``params`` (a counting
    text takes its ``other`` form).

    >>> text("en", "seat_n", n=2)
    'Seat 2'
    """
    value = catalog(language)[key]
    if not isinstance(value, str):
        value = value["other"]
    return _HOLE.sub(lambda hole: str(params.get(hole[1], hole[0])), value)


_DIGITS = {"latn": "0123456789",
           "arab": "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
           "arabext": "\u06f0\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9"}


def format_number(language: str, value: int) -> str:
    """A whole number in the digits of ``language`` (its ``number_system``), without
    thousands separators: the server's side of the pages' ``formatNumber``.

    >>> format_number("fa", 1600), format_number("ar", 24), format_number("en", 64)
    ('۱۶۰۰', '٢٤', '64')
    """
    digits = _DIGITS.get(text(language, "number_system"), _DIGITS["latn"])
    return str(value).translate(str.maketrans(_DIGITS["latn"], digits))


@functools.cache
def _plural_rules(language: str) -> object:
    import icu  # type: ignore[import-untyped]

    return icu.PluralRules.forLocale(icu.Locale(language))


def plural_form(language: str, count: int) -> str:
    """The plural category of ``count`` in ``language`` (CLDR's, as the pages'
    ``Intl.PluralRules`` chooses it).

    >>> [plural_form("ar", n) for n in (0, 1, 2, 5, 11, 100)]
    ['zero', 'one', 'two', 'few', 'many', 'other']
    """
    form: str = _plural_rules(language).select(count)  # type: ignore[attr-defined]
    return form


def phrase(language: str, key: str, **params: object) -> str:
    """The text ``key`` in ``language`` as the pages' ``t`` writes it: a counting text in
    the plural form of ``params["n"]``, whole numbers in the language's digits, and a
    param that is itself a mapping with a ``key`` written as that text first (with the
    rest of the mapping as its params: ``{"key": "duration_minute", "n": 5}``).

    >>> phrase("ar", "duration_minute", n=5)
    '٥ دقائق'
    >>> phrase("en", "rate_help", rate={"key": "rate_minute", "n": 20},
    ...        more={"key": "rate_day", "n": 300})
    '20 a minute (300 a day)'
    """
    value = catalog(language)[key]
    if not isinstance(value, str):
        count = params.get("n")
        form = plural_form(language, count) if isinstance(count, int) else "other"
        value = value.get(form, value["other"])

    def fill(hole: re.Match[str]) -> str:
        if hole[1] not in params:
            return hole[0]
        param = params[hole[1]]
        if isinstance(param, Mapping) and "key" in param:
            inner = {name: item for name, item in param.items() if name != "key"}
            return phrase(language, str(param["key"]), **inner)
        if isinstance(param, int) and not isinstance(param, bool):
            return format_number(language, param)
        return str(param)

    return _HOLE.sub(fill, value)


@functools.cache
def _collator(language: str) -> object:
    import icu

    collator = icu.Collator.createInstance(icu.Locale(language))
    collator.setAttribute(icu.UCollAttribute.NUMERIC_COLLATION, icu.UCollAttributeValue.ON)
    return collator


def sort_key(language: str) -> Callable[[str], bytes]:
    """A key for ``sorted`` that orders texts (players' names) as ``language`` does (ICU's
    collation, digits by their value): in Turkish ``ı`` before ``i`` and ``Ş`` after
    ``S``, where English reads them as ``i`` and ``s``.

    >>> names = ["Şahin", "İpek", "Sevgi", "Irmak", "Oya 10", "Oya 9"]
    >>> sorted(names, key=sort_key("tr"))
    ['Irmak', 'İpek', 'Oya 9', 'Oya 10', 'Sevgi', 'Şahin']
    >>> sorted(names, key=sort_key("en"))
    ['İpek', 'Irmak', 'Oya 9', 'Oya 10', 'Şahin', 'Sevgi']
    """
    key: Callable[[str], bytes] = _collator(language).getSortKey  # type: ignore[attr-defined]
    return key


def placeholders(value: str | Mapping[str, str]) -> frozenset[str]:
    """The names of the holes of a catalog value (of every form of a counting text).

    >>> sorted(placeholders("{name} played {card}"))
    ['card', 'name']
    """
    forms = [value] if isinstance(value, str) else list(value.values())
    return frozenset(name for form in forms for name in _HOLE.findall(form))


def plural_keys(language: str) -> frozenset[str]:
    """The keys of ``language`` whose texts count (one text per plural category)."""
    return frozenset(key for key, value in catalog(language).items()
                     if not isinstance(value, str))


def choose_language(choice: str | None = None, accept_language: str | None = None) -> str:
    """The language of a page: the one the person chose (a cookie) when it has a catalog,
    else the first of the browser's ``Accept-Language`` that has one, else English.

    >>> choose_language(None, "fr-CA,fa;q=0.8,en;q=0.5")
    'fa'
    >>> choose_language("xx", None)
    'en'
    """
    present = languages()
    if choice in present:
        return choice
    ranked: list[tuple[float, int, str]] = []
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _, weight = part.strip().partition(";")
        quality = 1.0
        if weight.strip().startswith("q="):
            try:
                quality = float(weight.strip()[2:])
            except ValueError:
                quality = 0.0
        code = tag.strip().split("-")[0].lower()
        if code in present and quality > 0:
            ranked.append((-quality, order, code))
    return min(ranked)[2] if ranked else DEFAULT_LANGUAGE

"""The translation catalogs (``web/i18n/<lang>.json``): the same keys and holes in every
language, the plural forms each language counts with, and how a page's language is chosen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from basra.i18n import (
    DEFAULT_LANGUAGE,
    catalog,
    choose_language,
    format_number,
    languages,
    phrase,
    placeholders,
    plural_keys,
    text,
)
from basra.server.errors import ERRORS

PLURAL_CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
"""The plural categories of Unicode's plural rules (what ``Intl.PluralRules`` answers)."""

OTHERS = [code for code in languages() if code != DEFAULT_LANGUAGE]


def test_english_arabic_and_persian_are_present_english_first() -> None:
    assert languages()[0] == "en"
    assert {"en", "ar", "fa"} <= set(languages())


def test_turkish_and_greek_read_left_to_right_and_count_one_and_other() -> None:
    for language, name in (("tr", "Türkçe"), ("el", "Ελληνικά")):
        assert text(language, "language_name") == name
        assert (text(language, "language_dir"), text(language, "number_system")) == ("ltr", "latn")
        assert text(language, "plural_forms").split() == ["one", "other"]
    assert [phrase("el", "cards_count", n=n) for n in (1, 3)] == ["1 φύλλο", "3 φύλλα"]
    assert phrase("tr", "duration_minute", n=5) == "5 dakika"


@pytest.mark.parametrize("language", ["tr", "el"])
def test_turkish_and_greek_are_not_english_left_in_place(language: str) -> None:
    """Every text that reads in words is translated: the same as English only where it is a
    name, a symbol or a format (``{variant} · {players}``, ``7♦``, ``Basra``...)."""
    about = {"language_name", "language_dir", "number_system", "plural_forms"}
    same = sorted(key for key, value in catalog("en").items()
                  if key not in about and value == catalog(language)[key]
                  and isinstance(value, str)
                  and len(re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", "", value))) > 1)
    assert same == [], same


@pytest.mark.parametrize("language", OTHERS)
def test_every_catalog_has_the_keys_of_the_english_one(language: str) -> None:
    english, other = set(catalog("en")), set(catalog(language))
    assert not english - other, f"{language}.json lacks {sorted(english - other)}"
    assert not other - english, f"{language}.json has keys English lacks: " \
                                f"{sorted(other - english)}"


@pytest.mark.parametrize("language", OTHERS)
def test_every_text_has_the_holes_of_the_english_one(language: str) -> None:
    wrong = {key: (sorted(placeholders(value)), sorted(placeholders(catalog(language)[key])))
             for key, value in catalog("en").items()
             if placeholders(value) != placeholders(catalog(language)[key])}
    assert not wrong, f"holes (English, {language}) differ: {wrong}"


@pytest.mark.parametrize("language", OTHERS)
def test_the_same_texts_count_in_every_language(language: str) -> None:
    assert plural_keys(language) == plural_keys("en")


@pytest.mark.parametrize("language", languages())
def test_a_counting_text_has_exactly_the_plural_forms_its_language_needs(language: str) -> None:
    needed = set(text(language, "plural_forms").split())
    assert "other" in needed and needed <= PLURAL_CATEGORIES, needed
    for key in plural_keys(language):
        forms = catalog(language)[key]
        assert set(forms) == needed, f"{language}.json {key}: {sorted(forms)}, not {needed}"
        assert all(isinstance(form, str) and form for form in forms.values())
        assert "n" in placeholders(forms), f"{key} counts, so it has an {{n}} hole"


def test_arabic_counts_with_six_forms_and_persian_with_two() -> None:
    assert text("ar", "plural_forms").split() == ["zero", "one", "two", "few", "many", "other"]
    assert text("fa", "plural_forms").split() == ["one", "other"]
    assert catalog("en")["cards_count"] == {"one": "{n} card", "other": "{n} cards"}


@pytest.mark.parametrize("language", languages())
def test_each_language_says_how_it_reads_and_writes_numbers(language: str) -> None:
    assert text(language, "language_dir") in {"ltr", "rtl"}
    assert text(language, "number_system") in {"latn", "arab", "arabext"}
    assert text(language, "language_name")
    assert all(isinstance(value, (str, dict)) for value in catalog(language).values())


def test_right_to_left_languages_write_their_own_digits() -> None:
    assert (text("ar", "language_dir"), text("ar", "number_system")) == ("rtl", "arab")
    assert (text("fa", "language_dir"), text("fa", "number_system")) == ("rtl", "arabext")
    assert (text("en", "language_dir"), text("en", "number_system")) == ("ltr", "latn")


def test_every_error_code_has_a_text_in_every_catalog() -> None:
    codes = {getattr(kind_type, "code", kind.code) for kind_type, kind in ERRORS.items()}
    families = {"account", "refused"}  # base kinds: every error raised has its own code
    for language in languages():
        missing = sorted(code for code in codes - families
                         if f"error.{code}" not in catalog(language))
        assert missing == [], language


def test_error_codes_have_texts() -> None:
    codes = [key.removeprefix("error.") for key in catalog("en") if key.startswith("error.")]
    for code in ("unknown_table", "expired", "unrestored", "storage_down", "server_busy",
                 "rate_limited", "bad_name", "name_taken", "replaced", "not_your_turn"):
        assert code in codes


@pytest.mark.parametrize(("choice", "accept", "chosen"), [
    ("ar", "en-US,en;q=0.9", "ar"),
    (None, "ar-EG,ar;q=0.9,en;q=0.8", "ar"),
    (None, "fr-FR,fr;q=0.9,fa;q=0.5,en;q=0.4", "fa"),
    (None, "en;q=0.2,fa;q=0.9", "fa"),
    (None, "ar;q=0", "en"),
    ("tlh", "de-DE", "en"),
    (None, None, "en"),
    (None, "garbage;q=x,,", "en"),
    (None, "tr-TR,tr;q=0.9,en;q=0.5", "tr"),
    (None, "el-GR,el;q=0.9", "el"),
    ("el", "tr-TR", "el"),
])
def test_a_page_speaks_the_chosen_language_else_the_browsers_else_english(
        choice: str | None, accept: str | None, chosen: str) -> None:
    assert choose_language(choice, accept) == chosen


def test_unknown_languages_have_no_catalog() -> None:
    with pytest.raises(KeyError, match="no catalog"):
        catalog("tlh")


WEB = Path(__file__).parents[1] / "src" / "basra" / "web"
USED_KEY = re.compile(r"""(?:\bt|sentence|hasKey|familyKey)\(\s*["']([\w.]+)["']"""
                      r"""|data-i18n(?:-label|-placeholder)?=["']([\w.]+)["']"""
                      r"""|\bt\(["']([\w.]+)["']\)""")


def test_every_key_the_scripts_and_templates_name_is_in_the_catalogs() -> None:
    files = [*(WEB / "js").glob("*.js"), *(WEB / "templates").glob("*.html")]
    used = {next(group for group in match.groups() if group): path.name
            for path in files for match in USED_KEY.finditer(path.read_text(encoding="utf-8"))}
    assert len(used) > 100
    missing = {key: name for key, name in used.items() if key not in catalog("en")}
    assert not missing, f"keys without a text: {missing}"


def test_the_scripts_hold_no_texts_of_their_own() -> None:
    """Texts live in the catalogs only: no script's code has a word of Arabic or Persian
    (its comments may quote some)."""
    for script in (WEB / "js").glob("*.js"):
        code = [line for line in script.read_text(encoding="utf-8").splitlines()
                if not line.lstrip().startswith(("//", "/*", "*"))]
        assert not re.search(r"[\u0600-\u06FF]", "\n".join(code)), script.name


@pytest.mark.parametrize("language", languages())
def test_every_notice_of_the_computer_has_a_text(language: str) -> None:
    from basra.server.computer import NOTICES

    missing = [note for note in NOTICES if f"notice_{note}" not in catalog(language)]
    assert not missing, f"{language}.json has no notice_ text for {missing}"


def test_the_server_writes_numbers_and_counts_as_the_pages_do() -> None:
    assert format_number("ar", 1700) == "١٧٠٠"
    assert format_number("fa", 24) == "۲۴"
    assert [phrase("ar", "duration_minute", n=n) for n in (1, 2, 5, 11)] == [
        "دقيقة واحدة", "دقيقتين", "٥ دقائق", "١١ دقيقة"]
    assert phrase("en", "times_count", n=1) == "once"
    assert phrase("fa", "rate_help", rate={"key": "rate_minute", "n": 20},
                  more={"key": "rate_day", "n": 300}) == "دقیقه‌ای ۲۰ (روزی ۳۰۰)"

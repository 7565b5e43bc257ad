"""The catalogs in a real browser: each page loads its own language's catalog only, the
browser's plural rules ask for the forms the catalogs hold, numbers are written in the
language's digits, and the server's refusals are translated by their code."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Request, expect

from basra.i18n import catalog, languages, text

pytestmark = pytest.mark.e2e

OpenPage = Callable[..., Page]


def open_in(open_page: OpenPage, server: str, language: str, path: str = "/"
            ) -> tuple[Page, list[str]]:
    """A page in ``language`` (chosen before, as the language menu keeps it: a cookie) and
    the catalogs it fetched."""
    page = open_page()
    page.context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
    fetched: list[str] = []

    def seen(request: Request) -> None:
        if "/static/i18n/" in request.url:
            fetched.append(request.url.rsplit("/", 1)[-1])

    page.on("request", seen)
    page.goto(path)
    expect(page.locator("html")).to_have_attribute("lang", language)
    return page, fetched


@pytest.mark.parametrize("language", languages())
def test_a_page_loads_only_its_own_catalog(
        open_page: OpenPage, server: str, language: str) -> None:
    page, fetched = open_in(open_page, server, language)
    expect(page.get_by_role("button", name=text(language, "quick_game"))).to_be_visible()
    assert fetched == [f"{language}.json"]
    expect(page.locator("html")).to_have_attribute("dir", text(language, "language_dir"))


@pytest.mark.parametrize("language", languages())
def test_the_browsers_plural_rules_ask_for_the_forms_the_catalog_has(
        open_page: OpenPage, server: str, language: str) -> None:
    page, _ = open_in(open_page, server, language)
    categories = page.evaluate(
        "lang => new Intl.PluralRules(lang).resolvedOptions().pluralCategories", language)
    assert sorted(categories) == sorted(text(language, "plural_forms").split())


def test_counts_take_their_plural_form_and_the_languages_digits(
        open_page: OpenPage, server: str) -> None:
    page, _ = open_in(open_page, server, "ar")
    said = page.evaluate("""async () => {
        const { t, cardName, formatNumber } = await import('/static/js/i18n.js');
        return [0, 1, 2, 3, 11, 100].map((n) => t('cards_count', { n }))
            .concat([cardName('7D'), cardName('10S'), formatNumber(1500), t('seat_n', { n: 2 })]);
    }""")
    forms = catalog("ar")["cards_count"]
    assert isinstance(forms, dict)
    assert said[:6] == [forms["zero"], forms["one"], forms["two"],
                        forms["few"].replace("{n}", "٣"), forms["many"].replace("{n}", "١١"),
                        forms["other"].replace("{n}", "١٠٠")]
    assert said[6:] == ["٧ ديناري", "١٠ بستوني", "١٥٠٠", "المقعد ٢"]

    page, _ = open_in(open_page, server, "fa")
    assert page.evaluate("""async () => {
        const { t, cardName } = await import('/static/js/i18n.js');
        return [cardName('7D'), t('seat_n', { n: 12 })];
    }""") == ["۷ خشت", "صندلی ۱۲"]

    page, _ = open_in(open_page, server, "en")
    assert page.evaluate("""async () => {
        const { t, cardName } = await import('/static/js/i18n.js');
        return [t('cards_count', { n: 1 }), t('cards_count', { n: 2 }), cardName('QH')];
    }""") == ["1 card", "2 cards", "queen of hearts"]


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_refusal_is_translated_by_its_code_with_its_params(
        open_page: OpenPage, server: str, language: str) -> None:
    page, _ = open_in(open_page, server, language)
    said = page.evaluate("""async () => {
        const { errorText } = await import('/static/js/i18n.js');
        return [
            errorText({ code: 'rate_limited', message: 'slow down', params: { n: 3 } }),
            errorText({ code: 'no_such_code', message: 'the server said so', params: {} }),
            errorText({}),
        ];
    }""")
    rate = catalog(language)["error.rate_limited"]
    assert isinstance(rate, dict)
    assert said[0] == rate["few" if language == "ar" else "other"].replace(
        "{n}", "٣" if language == "ar" else "3")
    assert said[1] == "the server said so"
    assert said[2] == text(language, "error.server_error")

"""Every module's docstring examples and every documentation page's ``>>>`` examples run
as tests (the README's run through pytest)."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import basra

MIGRATION_SCRIPTS = ("basra.store.migrations.env", "basra.store.migrations.versions.")
"""Scripts that only Alembic runs, inside a migration: importing them alone fails."""

DOCS = Path(__file__).resolve().parent.parent / "docs"

PAGES = sorted(page.name for page in DOCS.glob("*.md") if ">>> " in page.read_text("utf-8"))
"""The documentation pages with examples (``docs/library.md``)."""

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(basra.__path__, prefix="basra.")
    if not info.name.startswith(MIGRATION_SCRIPTS)
)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page: str) -> None:
    result = doctest.testfile(str(DOCS / page), module_relative=False, encoding="utf-8",
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {page}"

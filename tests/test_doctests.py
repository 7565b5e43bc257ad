"""Every module's docstring examples run as tests (the README's run through pytest)."""

import doctest
import importlib
import pkgutil

import pytest

import basra

MIGRATION_SCRIPTS = ("basra.store.migrations.env", "basra.store.migrations.versions.")
"""Scripts that only Alembic runs, inside a migration: importing them alone fails."""

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(basra.__path__, prefix="basra.")
    if not info.name.startswith(MIGRATION_SCRIPTS)
)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    if name.startswith("basra.fast."):
        pytest.importorskip("numba", reason="the compiled path's modules need the fast extra")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"

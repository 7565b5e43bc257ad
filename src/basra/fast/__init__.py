"""The compiled fast path for search: captures, plays, playouts and scoring at native speed.

It runs on numba, which the package installs; where numba cannot be imported (or with
``BASRA_NO_FAST=1``) everything still works on the pure-Python reference core, only
slower. :func:`available` says which one search uses.
The reference core (:mod:`basra.state`, :mod:`basra.captures`) defines the rules; this
path is checked against it state by state (``tests/test_fast.py``,
``benchmarks/fast_differential.py``).

>>> isinstance(available(), bool)
True
"""

from __future__ import annotations

import importlib.util
import os

__all__ = ["available", "unavailable_reason"]


def unavailable_reason() -> str | None:
    """Why the compiled path is not used (None when it is)."""
    if os.environ.get("BASRA_NO_FAST", "") not in ("", "0"):
        return "turned off by BASRA_NO_FAST"
    if importlib.util.find_spec("numba") is None:
        return "numba is not installed (pip install 'numba>=0.60')"
    return None


def available() -> bool:
    """Whether the compiled path can be used (numba installed, not turned off)."""
    return unavailable_reason() is None

"""What the rules page shows: ``/rules`` lists every preset, ``/rules/{name}`` shows one
(an alias such as ``pasoor`` names its preset), both from :mod:`basra.study.rulebook`,
the source of ``docs/rules.md``'s tables too. An unknown name gets the list, a sentence
that says so, and status 404."""

from __future__ import annotations

from typing import Any

from basra.rules import PRESETS, RulesError, preset
from basra.study.lessons import LESSONS
from basra.study.rulebook import option_rows, preset_summary

__all__ = ["rules_context"]


def rules_context(name: str | None) -> tuple[dict[str, Any], int]:
    """The rules template's values for ``name`` (every preset when None), and the
    page's HTTP status."""
    context: dict[str, Any] = {
        "presets": [preset_summary(found) for found in PRESETS.values()],
        "chosen": None, "missing": None, "rows": [], "lesson": None}
    if name is None:
        return context, 200
    try:
        found = preset(name)
    except RulesError:
        return {**context, "missing": name[:40]}, 404
    family = found.rules.family
    # The pile games have no lessons yet: their page links to none.
    first = next((lesson.id for lesson in LESSONS if lesson.family == family), None)
    return {**context, "chosen": preset_summary(found), "rows": option_rows(found.name),
            "lesson": first}, 200

"""The rules in words have one source: docs/rules.md's tables are what
``basra variants --markdown`` prints, and every text the rules page names is in every
catalog."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from basra.cli import cli
from basra.i18n import catalog, languages
from basra.rules import PRESETS, option_names
from basra.study.rulebook import markdown, option_rows, update_markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_docs_rules_md_is_what_the_generator_writes() -> None:
    document = DOC.read_text(encoding="utf-8")
    assert update_markdown(document) == document, (
        "docs/rules.md is out of date: write `basra variants --markdown` into its generated part")
    assert markdown() in document


def test_the_command_prints_the_tables() -> None:
    result = CliRunner().invoke(cli, ["variants", "--markdown"])
    assert result.exit_code == 0, result.output
    assert result.output == markdown()
    for name in option_names():
        assert f"| `{name}` |" in result.output


def test_every_text_of_every_preset_is_in_every_catalog() -> None:
    for name in PRESETS:
        rows = option_rows(name)
        assert sorted(row["option"] for row in rows) == sorted(option_names())
        for language in languages():
            texts = catalog(language)
            for row in rows:
                assert row["label"] in texts and row["help"] in texts
                if "key" in row["value"]:
                    assert row["value"]["key"] in texts, row
            assert f"variant_{name}_desc" in texts

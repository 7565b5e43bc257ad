"""The rules core depends on the standard library alone (ARCHITECTURE: a core with no I/O)."""

import ast
import sys
from pathlib import Path

import pytest

import basra

CORE = ("cards", "rules", "captures", "state", "match", "observe", "record", "position")
SOURCE = Path(basra.__file__).parent


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_only_the_standard_library(module: str) -> None:
    tree = ast.parse((SOURCE / f"{module}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: must stay inside the core
                assert (node.module or "").split(".")[0] in CORE, ast.unparse(node)
                continue
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "__future__", (
                f"{module}.py imports {name}"
            )

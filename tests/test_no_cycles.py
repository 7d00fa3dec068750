"""No import circle anywhere: not in the package, not in the benchmarks; and the benchmarks are a package
that imports neither the tests nor edits ``sys.path``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"wikihowqa": ROOT / "src" / "wikihowqa", "benchmarks": ROOT / "benchmarks"}


def module_files() -> dict[str, Path]:
    found = {}
    for top, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = [top, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def face_names(modules: dict[str, Path], package: str) -> dict[str, str]:
    """A lazy face's names and the modules they come from (its ``__init__.pyi``)."""
    stub = modules.get(package, Path("/nonexistent")).with_suffix(".pyi")
    if not stub.is_file():
        return {}
    names = {}
    for node in ast.walk(ast.parse(stub.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{package}.{node.module}"
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every module ``name`` imports (at any depth of its code), resolved to modules of ``modules``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [(base, alias.name) for alias in node.names]
        else:
            continue
        for base, attr in targets:
            candidates = [f"{base}.{attr}"] if attr else []
            face = face_names(modules, base).get(attr or "")
            candidates += [face] if face else []
            candidates.append(base)
            target = next((c for c in candidates if c in modules), None)
            if target and target != name:
                found.add(target)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_module_of_the_package_or_the_benchmarks_is_in_an_import_circle():
    modules = module_files()
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_planted_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_benchmarks_import_no_tests_and_leave_sys_path_alone():
    for path in sorted(SOURCES["benchmarks"].glob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not any(m == "tests" or m.startswith("tests.") for m in imported), path.name
        assert "sys.path" not in text, path.name

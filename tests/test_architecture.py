"""Facts about the code anyone can check: layers import downward only, no import cycles, no private name crosses a
module and every name that crosses one is in its ``__all__``, no pytest internals, modules of a readable size."""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "pytest_llmeval"


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: pathlib.Path, *, type_checking: bool = False) -> set[str]:
    """The package's modules that ``path`` imports, at module level or inside functions (and under ``if TYPE_CHECKING``
    when ``type_checking``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if not type_checking and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for body in node.body for child in ast.walk(body))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates if c.startswith("pytest_llmeval"))
    return found


def graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges = {}
    for name, path in modules.items():
        # importing a.b.c imports a.b first: an edge to the deepest module that exists
        targets = set()
        for target in imports_of(path, type_checking=type_checking):
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                targets.add(target)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_sees_real_edges():
    edges = graph()
    assert "pytest_llmeval.core.result" in edges["pytest_llmeval.run.check"]
    assert "pytest_llmeval.harness.api" in edges["pytest_llmeval.harness.context"]  # a lazy import counts too
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("type_checking", [False, True], ids=["runtime", "with-type-imports"])
def test_no_import_cycles(type_checking):
    """A package ``__init__`` re-exporting its own modules is the one allowed loop (it is how packages work); imports
    for type checkers count too, so a reader follows every import downward."""
    edges = graph(type_checking=type_checking)
    for name in edges:
        if PACKAGE.joinpath(*name.split(".")[1:], "__init__.py").exists():
            edges[name] = {t for t in edges[name] if not t.startswith(name + ".")}
    assert cycles(edges) == []


#: Each layer and the layers it may import (docs/design.md draws the same graph). The layers not named here sit on
#: top (``harness``, ``plugin``, the package's ``__init__``, ``strategies``) and may import any below them.
LAYERS: dict[str, set[str]] = {
    "core": set(),
    "text": {"core"},
    "stats": {"core"},
    "models": {"core", "text"},
    "facts": {"core", "text", "models"},
    "judges": {"core", "text", "models"},
    "run": {"core", "text", "stats", "models", "facts", "judges"},
    "kit": {"core", "text", "stats", "models", "facts", "judges", "run"},
    # The built-in checks import only from the authoring kit (and from other checks), as an outside check does.
    "checks": {"kit"},
    "report": {"core", "text", "stats"},
    "harness": {"core", "text", "stats", "models", "facts", "judges", "run", "checks", "report"},
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def inversions(edges: dict[str, set[str]]) -> list[str]:
    """``a -> b`` for each import of a module ``b`` from a layer that ``a``'s layer may not import."""
    found = []
    for name, targets in sorted(edges.items()):
        allowed = LAYERS.get(layer_of(name))
        if allowed is None:
            continue
        found += [
            f"{name} -> {t}" for t in sorted(targets) if layer_of(t) not in allowed | {layer_of(name), "_version"}
        ]
    return found


def test_the_layer_check_sees_an_inversion():
    edges = {
        "pytest_llmeval.core.case": {"pytest_llmeval.judges.base"},
        "pytest_llmeval.checks.x": {"pytest_llmeval.run.check"},
        "pytest_llmeval.checks.y": {"pytest_llmeval.kit.judge"},
        "pytest_llmeval.report.view": {"pytest_llmeval.harness.session"},
    }
    assert inversions(edges) == [
        "pytest_llmeval.checks.x -> pytest_llmeval.run.check",
        "pytest_llmeval.core.case -> pytest_llmeval.judges.base",
        "pytest_llmeval.report.view -> pytest_llmeval.harness.session",
    ]


@pytest.mark.parametrize("type_checking", [False, True], ids=["runtime", "with-type-imports"])
def test_layers_import_downward_only(type_checking):
    """The contract (``core``) imports nothing of the package; checks never reach the session; reports are functions of
    records; models run no check code; imports for type checkers count too."""
    assert inversions(graph(type_checking=type_checking)) == []


def _imported_names(path: pathlib.Path) -> list[tuple[str, str]]:
    """``(module, name)`` for each ``from <package module> import name`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
            found += [(target, alias.name) for alias in node.names if target.startswith("pytest_llmeval")]
    return found


def test_no_private_name_crosses_a_module():
    """A name with a leading underscore is its module's own; what another module needs is public (and in
    ``__all__``)."""
    crossing = {
        f"{module_name(p)}: {target}.{name}"
        for p in PACKAGE.rglob("*.py")
        for target, name in _imported_names(p)
        if name.startswith("_") and not name.startswith("__")
    }
    assert sorted(crossing) == []


def _declared_all(path: pathlib.Path) -> set[str] | None:
    """The names a module lists in ``__all__`` (``None`` without one; one built from others is read by importing it)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return set(importlib.import_module(module_name(path)).__all__)
    return None


def test_every_name_a_module_takes_from_another_is_in_that_module_s_all():
    """What crosses a module is its public surface: a name imported from another module of the package is listed in
    that module's ``__all__`` (a submodule imported from its package is a module, not a name)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    declared = {name: _declared_all(path) for name, path in paths.items()}
    missing = sorted(
        f"{module_name(p)}: {target}.{name}"
        for p in PACKAGE.rglob("*.py")
        for target, name in _imported_names(p)
        if target in paths
        and f"{target}.{name}" not in paths
        and not name.startswith("__")
        and name not in (declared[target] or set())
    )
    assert missing == []


def test_the_contract_needs_no_pytest():
    """``core`` (case, result, evaluator, verdict, params, errors) runs without pytest: the runner maps its errors to
    outcomes."""
    offenders = []
    for path in (PACKAGE / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in ("pytest", "_pytest", "pluggy")]
    assert offenders == []


def test_no_pytest_internals():
    offenders = [
        str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py") if "_pytest" in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_no_module_is_too_long():
    lengths = {
        str(p.relative_to(PACKAGE.parent)): len(p.read_text(encoding="utf-8").splitlines())
        for p in PACKAGE.rglob("*.py")
    }
    assert {name: n for name, n in lengths.items() if n > 520} == {}
    # the session is a hub, not a home: its cap (300 lines before ruff format laid calls out one argument a line)
    assert lengths["pytest_llmeval/harness/session.py"] < 360


def test_no_line_is_too_wide():
    """Modules stay short by what they do, not by wide lines: no line over 120 characters (as ruff checks in CI)."""
    wide = [
        f"{p.relative_to(PACKAGE.parent)}:{number}"
        for p in PACKAGE.rglob("*.py")
        for number, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > 120
    ]
    assert wide == []


TIMERS = {
    "perf_counter",
    "perf_counter_ns",
    "monotonic",
    "monotonic_ns",
    "time",
    "time_ns",
    "process_time",
    "default_timer",
    "timeit",
}


def _reads_clock(node: ast.AST, timed: set[str], tainted: set[str]) -> bool:
    """Whether ``node`` reads the clock: a timer call, a call of a function returning one, or a name bound to one."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if (
                name in TIMERS
                and (not isinstance(func, ast.Attribute) or ast.unparse(func.value) in ("time", "timeit"))
            ) or name in timed:
                return True
        elif isinstance(child, ast.Name) and child.id in tainted:
            return True
    return False


def wall_clock_asserts(source: str) -> list[str]:
    """The ``assert`` statements of ``source`` that compare a time read from the clock (waits and deadlines are
    fine)."""
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    timed = {
        f.name
        for f in functions
        if any(
            isinstance(n, ast.Return) and n.value is not None and _reads_clock(n.value, set(), set())
            for n in ast.walk(f)
        )
    }
    found = []
    for function in functions:
        tainted: set[str] = set()
        for _ in range(3):  # names bound from names bound from the clock
            for node in ast.walk(function):
                if (
                    isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                    and node.value is not None
                    and _reads_clock(node.value, timed, tainted)
                ):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    tainted.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        found += [
            ast.unparse(n) for n in ast.walk(function) if isinstance(n, ast.Assert) and _reads_clock(n, timed, tainted)
        ]
    return found


def test_the_wall_clock_scan_tells_timings_from_waits():
    assert wall_clock_asserts(
        "def test():\n    start = time.perf_counter()\n    run()\n    assert time.perf_counter() - start < 3\n"
    )
    assert wall_clock_asserts(
        "def _t():\n    s = time.monotonic()\n    return time.monotonic() - s, 1\n\n"
        "def test():\n    took, result = _t()\n    fast = took * 2\n    assert fast < 1 and result\n"
    )
    waits = (
        "def test():\n    deadline = time.monotonic() + 30\n    while time.monotonic() < deadline:\n        "
        "time.sleep(0.05)\n"
        "    start = text.index('x')\n    assert start == 0 and result.time == 1 and 'elapsed' in reason\n"
    )
    assert wall_clock_asserts(waits) == []


def test_no_test_asserts_a_wall_clock_time():
    """Tests assert behaviour; a busy machine makes any time limit flaky. Timings live in ``benchmarks/``."""
    tests = pathlib.Path(__file__).resolve().parents[0]
    found = {
        str(p.relative_to(tests)): wall_clock_asserts(p.read_text(encoding="utf-8"))
        for p in sorted(tests.rglob("*.py"))
    }
    assert {name: asserts for name, asserts in found.items() if asserts} == {}


def test_the_tests_mirror_the_package():
    """A test module sits in the folder of the layer it tests (``tests/checks/embedding/test_groundedness.py``), or at
    the
    top when it tests the project as a whole (layout, docs, start-up); no module is named after a round of fixes."""
    tests = pathlib.Path(__file__).resolve().parent
    layers = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()} | {"benchmarks"}
    misplaced = []
    for path in tests.rglob("test_*.py"):
        parts = path.relative_to(tests).parts
        if len(parts) > 1 and parts[0] not in layers:
            misplaced.append(str(path.relative_to(tests)))
        if len(parts) > 2 and parts[0] == "checks" and not (PACKAGE / "checks" / parts[1]).is_dir():
            misplaced.append(str(path.relative_to(tests)))
        if path.name.startswith("test_fix"):
            misplaced.append(str(path.relative_to(tests)))
    assert misplaced == []

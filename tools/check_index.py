"""The names lazy loading needs, read from the check modules themselves (``python tools/check_index.py --write``).

Two generated blocks, each between ``# <generated: NAME>`` and ``# </generated: NAME>`` lines:

- ``pytest_llmeval/checks/__init__.py``: every built-in check's name -> ``module:Class`` (what the registry
  resolves), and every public helper -> its module;
- ``pytest_llmeval/__init__.py``: the helpers among the package's public names, for the lazy ``__getattr__``
  and for type checkers.

A check module declares itself: an ``Evaluator`` subclass with ``name = "..."`` and its helpers in ``__all__``.
``test_layout.py`` fails when a block differs from what this script writes.
"""

from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pytest_llmeval"
CHECKS = PACKAGE / "checks"
HELPER_PREFIXES = ("assert_", "record_", "measure_")

sys.path.insert(0, str(ROOT))
from tools.generated import formatted, read, rewrite  # noqa: E402


def module_of(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _names_of_class(node: ast.ClassDef) -> str | None:
    for item in node.body:
        if (
            isinstance(item, ast.Assign)
            and len(item.targets) == 1
            and isinstance(item.targets[0], ast.Name)
            and item.targets[0].id == "name"
            and isinstance(item.value, ast.Constant)
            and isinstance(item.value.value, str)
        ):
            return item.value.value
    return None


def scan() -> tuple[dict[str, str], dict[str, str]]:
    """(check name -> "module:Class", public helper or helper type -> module) of every module under checks/."""
    checks: dict[str, str] = {}
    helpers: dict[str, str] = {}
    for path in sorted(CHECKS.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = module_of(path)
        exported: list[str] = []
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                exported = list(ast.literal_eval(node.value))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                name = _names_of_class(node)
                if name is not None:
                    if name in checks:
                        raise ValueError(f"check {name!r} is declared twice: {checks[name]} and {module}:{node.name}")
                    checks[name] = f"{module}:{node.name}"
            if (
                isinstance(node, (ast.FunctionDef, ast.ClassDef))
                and node.name in exported
                and (node.name.startswith(HELPER_PREFIXES) or node.name == "Measurement")
            ):
                if node.name in helpers:
                    raise ValueError(f"helper {node.name!r} is defined twice: {helpers[node.name]} and {module}")
                helpers[node.name] = module
    return dict(sorted(checks.items())), dict(sorted(helpers.items()))


def checks_block() -> str:
    checks, helpers = scan()
    lines = [
        "#: Name -> ``module:Class`` of every check this package ships.",
        "BUILTIN_CHECKS: Mapping[str, str] = MappingProxyType({",
    ]
    lines += [_entry(name, target) for name, target in checks.items()]
    lines += [
        "})",
        "",
        "#: Public helper -> the check module that defines it.",
        "HELPERS: Mapping[str, str] = MappingProxyType({",
    ]
    lines += [_entry(name, module) for name, module in helpers.items()]
    lines += ["})"]
    return formatted("\n".join(lines))


def _entry(key: str, value: str) -> str:
    """One ``"key": "value",`` line; a value that would pass 120 characters goes in parentheses on a line of its own."""
    line = f'    "{key}": "{value}",'
    return line if len(line) <= 120 else f'    "{key}": (\n        "{value}"\n    ),'


def exports_block() -> str:
    _, helpers = scan()
    lines = ["_HELPERS = {"]
    lines += [_entry(name, module.removeprefix("pytest_llmeval.")) for name, module in helpers.items()]
    lines += ["}"]
    return formatted("\n".join(lines))


def typing_block() -> str:
    _, helpers = scan()
    by_module: dict[str, list[str]] = {}
    for name, module in helpers.items():
        by_module.setdefault(module, []).append(name)
    return formatted(
        "\n".join(
            f"    from {module.removeprefix('pytest_llmeval')} import {', '.join(sorted(names))}"
            for module, names in sorted(by_module.items())
        )
    )


BLOCKS = {
    (CHECKS / "__init__.py", "checks"): checks_block,
    (PACKAGE / "__init__.py", "helpers"): exports_block,
    (PACKAGE / "__init__.py", "helper types"): typing_block,
}


def markers(name: str) -> tuple[str, str]:
    return f"# <generated: {name}>", f"# </generated: {name}>"


def current(path: pathlib.Path, name: str) -> str:
    found = read(path, *markers(name))
    if found is None:
        raise ValueError(f"{path}: no '# <generated: {name}>' block")
    return found


def write() -> list[str]:
    return [
        f"{path.relative_to(ROOT)} ({name})"
        for (path, name), make in BLOCKS.items()
        if rewrite(path, *markers(name), make())
    ]


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tools/check_index.py --write")
    print("\n".join(write()) or "up to date")

"""The map of the package: a check is one module named after it, holding its evaluator and its helpers; a few
modules at the top; generated name tables that match the modules; loading the plugin imports only what pytest needs."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

import pytest_llmeval
from pytest_llmeval.harness.registry import BUILTIN_EVALUATORS, Registry

from tools.check_index import BLOCKS, current

PACKAGE = pathlib.Path(pytest_llmeval.__file__).parent


def test_the_generated_name_tables_match_the_check_modules():
    """``python tools/check_index.py --write`` rewrites them after a check is added, renamed or moved."""
    stale = [
        f"{path.relative_to(PACKAGE.parent)} ({name})"
        for (path, name), make in BLOCKS.items()
        if current(path, name) != make()
    ]
    assert stale == [], "run: python tools/check_index.py --write"


def test_few_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top


def test_every_check_module_is_named_after_its_check():
    """``checks/<family>/<name>.py``; variants of one check share its module (``gptscore_qa`` in ``gptscore.py``)."""
    misnamed = {}
    for name, target in BUILTIN_EVALUATORS.items():
        module = target.partition(":")[0]
        parts = module.split(".")
        if (
            parts[:2] != ["pytest_llmeval", "checks"]
            or len(parts) != 4
            or not (name == parts[-1] or name.startswith(parts[-1] + "_"))
        ):
            misnamed[name] = module
    assert misnamed == {}


def test_each_helper_lives_beside_the_evaluator_it_runs():
    """Every public ``assert_*`` helper that a check declares (``helper = ...``) is defined in that check's module."""
    registry = Registry(entry_points=False)
    declared: dict[str, list[type]] = {}
    for name in registry.names():
        cls = registry.resolve(name)
        if cls.helper:
            declared.setdefault(cls.helper, []).append(cls)
    helpers = [n for n in pytest_llmeval.__all__ if n.startswith(("assert_", "record_", "measure_"))]
    beside = [
        h
        for h in helpers
        if h in declared and getattr(pytest_llmeval, h).__module__ in {c.__module__ for c in declared[h]}
    ]
    generic = sorted(h for h in helpers if h not in declared)
    assert generic == [
        "assert_check",
        "assert_metric",
        "measure_metric",
        "record_generation",
    ]  # any check, deepeval metrics, a second form
    assert sorted(set(helpers) - set(beside) - set(generic)) == []
    assert len(beside) >= 0.9 * len(helpers)


def test_a_helper_holds_its_class():
    """No check module reaches a check by its name: a helper hands its class to the runner (``check(Groundedness,
    ...)``), so following ``actual`` from ``assert_grounded`` reaches the scoring method without a lookup."""
    import ast

    by_name = []
    for path in (PACKAGE / "checks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("assert_check", "evaluate")
            ):
                by_name.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("check", "run_check", "run_cases")
            ):
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant):
                    by_name.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert by_name == []


def test_a_helper_declares_its_checks_parameters_with_the_checks_defaults():
    """A parameter a helper and its check both declare has one default: the helper never gives another verdict than
    ``evaluate(name, ...)`` for the same input (``assert_context_ranked`` once defaulted to 0.7 where the check
    calibrates its cut-off)."""
    import inspect

    registry = Registry(entry_points=False)
    drifted = {}
    for name in registry.names():
        cls = registry.resolve(name)
        helper = getattr(pytest_llmeval, cls.helper, None) if cls.helper else None
        if helper is None:
            continue
        for parameter in inspect.signature(helper).parameters.values():
            if parameter.name in cls.defaults and parameter.default is not inspect.Parameter.empty:
                if parameter.default != cls.defaults[parameter.name] and parameter.default is not None:
                    drifted[f"{cls.helper}({parameter.name})"] = (parameter.default, cls.defaults[parameter.name])
    assert drifted == {}


def test_every_declared_helper_exists_and_is_public():
    registry = Registry(entry_points=False)
    missing = {
        name: registry.resolve(name).helper
        for name in registry.names()
        if registry.resolve(name).helper and registry.resolve(name).helper not in pytest_llmeval.__all__
    }
    assert missing == {}


LOADED = """
import sys, json, pytest
code = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", sys.argv[1]])
print("LOADED=" + json.dumps(sorted(m for m in sys.modules if m.startswith(("pytest_llmeval", "numpy", "torch")))))
"""


def test_a_run_that_uses_no_check_loads_only_the_plugins_modules(tmp_path):
    """Options, markers, the session and the record layer; no check, model, fact, judge or report module, no numpy."""
    tmp_path.joinpath("test_plain.py").write_text(
        "def test_one():\n    assert True\n\n\ndef test_two(llmeval):\n    llmeval.model = 'm'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", LOADED, str(tmp_path / "test_plain.py")], capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout.rpartition("LOADED=")[2])
    assert [m for m in loaded if m.startswith(("numpy", "torch"))] == []
    allowed = {
        "pytest_llmeval",
        "pytest_llmeval._version",
        "pytest_llmeval.plugin",
        "pytest_llmeval.checks",
        "pytest_llmeval.harness",
        "pytest_llmeval.harness.options",
        "pytest_llmeval.harness.option",
        "pytest_llmeval.harness.option_table",
        "pytest_llmeval.harness.judge_options",
        "pytest_llmeval.harness.markers",
        "pytest_llmeval.harness.session",
        "pytest_llmeval.harness.finishing",
        "pytest_llmeval.harness.context",
        "pytest_llmeval.harness.hookspecs",
        "pytest_llmeval.core",
        "pytest_llmeval.core.errors",
        "pytest_llmeval.core.ids",
        "pytest_llmeval.run",
        "pytest_llmeval.run.recording",
        "pytest_llmeval.harness.registry",
        "pytest_llmeval.harness.values",
        "pytest_llmeval.harness.table",
        "pytest_llmeval.harness.deferring",
        "pytest_llmeval.harness.cassettes",
        "pytest_llmeval.harness.unverified",
        "pytest_llmeval.harness.tiers",
        "pytest_llmeval.models",
        "pytest_llmeval.models.config",
    }
    assert sorted(set(loaded) - allowed) == []


def readme_check_module() -> str:
    """The worked example of the docs' "Writing your own check" (docs/writing-checks.md includes this file)."""
    return PACKAGE.parent.joinpath("docs", "examples", "word_budget.py").read_text(encoding="utf-8")


def test_a_check_added_as_one_module_is_found_by_name(pytester: pytest.Pytester):
    """The docs' worked example: one new module and its registration; ``--llmeval-evaluators`` lists it, ``evaluate``
    finds it by name, its helper passes and fails like a built-in one."""
    pytester.mkpydir("mychecks")
    pytester.path.joinpath("mychecks", "word_budget.py").write_text(readme_check_module())
    pytester.makeconftest("""
        def pytest_llmeval_register_evaluators(registry):
            registry.register("word_budget", "mychecks.word_budget:WordBudget")
    """)
    pytester.makepyfile(
        test_budget="""
        import pytest
        from pytest_llmeval import evaluate
        from mychecks.word_budget import assert_word_budget

        def test_short():
            assert_word_budget("four words right here", budget=5)

        def test_evaluate_by_name():
            result = evaluate("word_budget", actual="one two three", params={"budget": 2})
            assert result.evaluator == "word_budget" and not result.passed

        def test_long():
            assert_word_budget("far too many words for so small a budget", budget=3)
    """
    )
    pytester.syspathinsert()
    listed = pytester.runpytest("-p", "no:randomly", "--llmeval-evaluators")
    listed.stdout.fnmatch_lines(
        [
            "word_budget: assert_word_budget(...); within_budget >= 1; needs actual; rules, from "
            "mychecks.word_budget:WordBudget",
            "    The answer fits a budget of words",
        ]
    )
    run = pytester.runpytest("-p", "no:randomly")
    run.assert_outcomes(passed=2, failed=1)
    run.stdout.fnmatch_lines(["*llmeval word_budget failed*within_budget 0.333 < threshold 1.000*"])


def test_the_kit_holds_what_a_check_author_needs():
    """``pytest_llmeval.kit`` names the contract, the runner, the bases and the errors; the docs' example check imports
    only from it (and the test above runs that example)."""
    import pytest_llmeval.kit as kit

    assert all(getattr(kit, name) is not None for name in kit.__all__)
    assert {"Evaluator", "MetricSpec", "Score", "Verdict", "check", "JudgeEvaluator", "ModelEvaluator"} <= set(
        kit.__all__
    )
    imports = [
        line
        for line in readme_check_module().splitlines()
        if line.startswith(("from pytest_llmeval", "import pytest_llmeval"))
    ]
    assert imports and all(line.startswith("from pytest_llmeval.kit import") for line in imports)


@pytest.mark.parametrize("part", ["text", "judge", "models", "facts"])
def test_the_kits_modules_hold_what_the_built_in_checks_use(part):
    """What a built-in check takes beyond the contract comes from one of the kit's modules (the architecture test lets
    a check import nothing else); each names what it holds, and each name is there."""
    import importlib

    module = importlib.import_module(f"pytest_llmeval.kit.{part}")
    assert module.__doc__ and module.__all__
    assert all(getattr(module, name) is not None for name in module.__all__)

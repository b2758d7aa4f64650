"""Evaluator names mapped to dotted paths, imported on first use.

Built-in evaluators are the modules under `pytest_llmeval.checks`, one per check, listed in
`BUILTIN_EVALUATORS` by a table generated from them. Third parties add
their own in one of two ways:

- an entry point in the ``pytest_llmeval.evaluators`` group, in their ``pyproject.toml``::

      [project.entry-points."pytest_llmeval.evaluators"]
      my_check = "my_package.checks:MyCheck"

- the ``pytest_llmeval_register_evaluators`` hook in a ``conftest.py`` or plugin::

      def pytest_llmeval_register_evaluators(registry):
          registry.register("my_check", "my_package.checks:MyCheck")

>>> registry = Registry()
>>> registry.resolve("exact_match").__name__
'ExactMatch'
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Union

from ..checks import BUILTIN_CHECKS

if TYPE_CHECKING:
    from ..core.evaluator import Evaluator

__all__ = ["Registry", "BUILTIN_EVALUATORS", "ENTRY_POINT_GROUP", "UnknownEvaluatorError", "check_names"]


ENTRY_POINT_GROUP = "pytest_llmeval.evaluators"


#: Name -> "module:Class" of every check this package ships, generated from the check modules
#: (`pytest_llmeval.checks.BUILTIN_CHECKS`).
BUILTIN_EVALUATORS: Mapping[str, str] = BUILTIN_CHECKS


Target = Union[str, "type[Evaluator]"]


class UnknownEvaluatorError(LookupError):
    """No evaluator is registered under that name."""


class Registry:
    """Name -> evaluator class, resolved lazily.

    Args:
        entry_points: also read the ``pytest_llmeval.checks`` entry-point group.
    """

    def __init__(self, *, entry_points: bool = True) -> None:
        self._targets: dict[str, Target] = dict(BUILTIN_EVALUATORS)
        self._resolved: dict[str, type[Evaluator]] = {}
        # Scanning installed distributions costs milliseconds: done when first needed.
        self._entry_points_pending = entry_points

    def _load_entry_points(self) -> None:
        if not self._entry_points_pending:
            return
        self._entry_points_pending = False
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            self._targets.setdefault(entry.name, entry.value)

    def register(self, name: str, target: Target, *, replace: bool = False) -> None:
        """Register ``target`` ("module:Class" or the class itself) under ``name``."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"evaluator name must be an identifier like 'my_check', got {name!r}")
        if not isinstance(target, str) and not isinstance(target, type):
            raise TypeError(f"evaluator {name!r}: target must be 'module:Class' or a class, got {target!r}")
        if isinstance(target, str) and ":" not in target:
            raise ValueError(f"evaluator {name!r}: target must look like 'package.module:Class', got {target!r}")
        if name in self._targets and not replace and self._targets[name] != target:
            raise ValueError(f"evaluator {name!r} is already registered ({self._targets[name]!r}); pass replace=True")
        self._targets[name] = target
        self._resolved.pop(name, None)

    def __contains__(self, name: object) -> bool:
        if name not in self._targets:
            self._load_entry_points()
        return name in self._targets

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._targets)

    def _unknown(self, name: str) -> str:
        """The error for an unknown name: the close names first, then where to see them all."""
        import difflib

        names = self.names()
        lowered = {n.lower(): n for n in names}
        close = [lowered[n] for n in difflib.get_close_matches(name.lower(), lowered, n=3, cutoff=0.7)]
        # a name inside the typed one (``bleu_score``) or the typed one inside a name (``pii``)
        close += [n for n in names if n not in close and len(name) >= 3 and (name.lower() in n or n in name.lower())][
            : 5 - len(close)
        ]
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        return f"no evaluator named {name!r}{hint} (`pytest --llmeval-evaluators` lists all {len(names)})"

    def resolve(self, name: str) -> type[Evaluator]:
        """The evaluator class registered under ``name``, imported now if needed."""
        if not isinstance(name, str):
            raise TypeError(
                f"the evaluator name must be a str such as 'groundedness'; got {type(name).__name__} {name!r:.80}"
            )
        if name in self._resolved:
            return self._resolved[name]
        if name not in self._targets:
            self._load_entry_points()
        if name not in self._targets:
            raise UnknownEvaluatorError(self._unknown(name))
        target = self._targets[name]
        if isinstance(target, str):
            module_name, _, attribute = target.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                raise ImportError(
                    f"evaluator {name!r} needs the module {exc.name!r}, which is not installed "
                    f"(is an extra of pytest-llm-verdict missing?)"
                ) from exc
            cls = getattr(module, attribute, None)
            if cls is None:
                raise ImportError(f"evaluator {name!r}: {module_name} has no attribute {attribute!r}")
        else:
            cls = target
        from ..core.evaluator import Evaluator

        if not (isinstance(cls, type) and issubclass(cls, Evaluator)):
            raise TypeError(f"evaluator {name!r} resolves to {cls!r}, which is not an Evaluator subclass")
        self._resolved[name] = cls
        return cls

    def create(self, name: str, **params: object) -> Evaluator:
        """Build the evaluator ``name`` with ``params``."""
        return self.resolve(name)(**params)


def check_names(registry: Registry, judge_for: Iterable[str], overrides: Mapping[str, Iterable[str]]) -> None:
    """Raise ``pytest.UsageError`` naming the option when a judge assignment names no judge check, or a threshold
    override an unknown check or metric."""
    import pytest

    for evaluator in judge_for:
        try:
            if not registry.resolve(evaluator).needs_judge:
                raise pytest.UsageError(f"judge.for / llmeval_judge_for: {evaluator} is not a judge check")
        except UnknownEvaluatorError as exc:
            raise pytest.UsageError(f"judge.for / llmeval_judge_for: {exc}") from None
    for evaluator, metrics in overrides.items():
        try:
            known = registry.resolve(evaluator).metric_specs()
        except UnknownEvaluatorError as exc:
            raise pytest.UsageError(f"--llmeval-threshold / llmeval_thresholds: {exc}") from None
        for metric in metrics:
            if metric not in known:
                raise pytest.UsageError(
                    f"--llmeval-threshold / llmeval_thresholds: {evaluator} has no metric {metric!r}; "
                    f"its metrics: {', '.join(known)}"
                )

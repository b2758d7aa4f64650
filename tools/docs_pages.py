"""The docs' generated parts, from the code: ``python tools/docs_pages.py --write`` rewrites them; ``test_docs.py``
fails
when one is stale.

Each generated part sits between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` in a page:

- ``docs/checks/index.md`` (``catalog``): every built-in check, from the evaluator classes' metadata;
- ``docs/checks/<family>.md`` (``checks``): each check of the family: what it measures, its inputs, metrics and
  default thresholds, parameters, the extra it needs, the catalogs it comes from, and where its verdicts are measured;
- every page (``example NAME``): the sample file ``docs/examples/NAME`` as a fenced block, so that the page shows
  it on GitHub as in the site (the suite runs the samples);
- ``docs/options.md`` (``options``): every option, ini key and environment variable;
- ``docs/coverage.md`` (``coverage``): every item of the reference catalogs and what implements it;
- ``docs/quality.md`` (``verdicts``, ``evidence-kinds``): the verdict-quality and per-kind evidence tables, from the
  committed measurement of ``benchmarks/bench_verdicts.py --results benchmarks/results`` (``verdicts.json``,
  ``evidence_kinds.json``), and ``pytest_llmeval/facts/kinds.py`` (``failing``): the kinds that fail by default, the
  kinds that measurement lets fail.

The reference catalogs are named as their authors name them (H2O Sonar, Valor, DataRobot ...), never by file number.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import json
import pathlib
import re
import sys
from collections import defaultdict
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT))

from pytest_llmeval.checks import BUILTIN_CHECKS  # noqa: E402
from pytest_llmeval.harness.catalog import EXAMPLE_NEEDS, example_code, helper_signature, readme_table  # noqa: E402
from pytest_llmeval.harness.registry import Registry  # noqa: E402
from pytest_llmeval.harness.options import options_table  # noqa: E402
from tools.generated import read, rewrite  # noqa: E402
from tests.seed_coverage import CATALOG_NAMES, SEED_COVERAGE, coverage_table  # noqa: E402

#: The reference catalogs, by the number of their file in ../shared/seeds.
CATALOGS = CATALOG_NAMES

FAMILY_TITLES = {
    "lexical": "Lexical and structure checks",
    "embedding": "Embedding checks",
    "judge_rag": "Judge checks of RAG answers",
    "judge_quality": "Judge checks of answer quality",
    "safety": "Safety checks",
    "language_model": "Language-model checks",
    "text_stats": "Text statistics",
    "classification": "Classification",
    "agents": "Agent checks",
    "operations": "Operational metrics",
}


def decode(text: str) -> str:
    """Internal catalog numbers ("seed 003", "seeds 000 and 003") as the catalogs' names."""
    text = re.sub(
        r"\b[Ss]eeds (\d{3}) and (\d{3})", lambda m: f"{CATALOGS[m.group(1)]} and {CATALOGS[m.group(2)]}", text
    )
    return re.sub(r"\b[Ss]eed (\d{3})", lambda m: CATALOGS[m.group(1)], text)


def families() -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for name, target in sorted(BUILTIN_CHECKS.items()):
        out[target.split(".")[2]].append(name)
    return dict(sorted(out.items()))


def _sources() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for row in SEED_COVERAGE:
        if row.status in ("check", "option"):
            for name in row.evaluators:
                entry = f"{CATALOGS[row.seed]}: {row.item}"
                if entry not in found[name]:
                    found[name].append(entry)
    return found


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def check_section(name: str, registry: Registry, sources: dict[str, list[str]], measured: str) -> list[str]:
    cls = registry.resolve(name)
    helper = f"`{cls.helper}(...)`" if cls.helper else f'`assert_check("{name}", ...)`'
    kind = "judge" if cls.needs_judge else ("model" if cls.uses_models else "rules")
    needs = ", ".join(cls.requires) + (f" (optional: {', '.join(cls.uses)})" if cls.uses else "")
    lines = [f"### `{name}`", "", decode(cls.description) + "."]
    signature = helper_signature(cls)
    if signature is not None:
        lines += ["", "```py", signature, "```"]
    caption = (
        f"Example (it needs {EXAMPLE_NEEDS[name]}):"
        if name in EXAMPLE_NEEDS
        else "Example (the tests run it" + (", against a judge" if cls.needs_judge else "") + "):"
    )
    lines += [
        "",
        caption,
        "",
        "```py",
        example_code(cls).rstrip("\n"),
        "```",
        "",
        f"- helper: {helper}; kind: {kind}" + (" (a GPU helps)" if cls.gpu else ""),
        f"- needs: {needs or 'nothing but the answer'}",
        f"- extra: `{cls.extra}`" if cls.extra else "- extra: none (the core install)",
    ]
    origin = sources.get(name, [])
    lines.append(f"- from: {'; '.join(origin)}" if origin else "- from: this project (no reference catalog names it)")
    if re.search(rf"`{re.escape(name)}`|\b{re.escape(name)}\b", measured):
        lines.append(
            "- verdict quality: measured on labeled data, see [How far each verdict can be trusted](../quality.md)"
        )
    else:
        lines.append("- verdict quality: not measured on labeled data")
    if "fail_on" in cls.defaults:
        from pytest_llmeval.facts.kinds import FAILING, KIND_IDS

        warn = [kind for kind in KIND_IDS if kind not in FAILING]
        lines.append(
            f"- evidence that fails by default: {', '.join(f'`{k}`' for k in KIND_IDS if k in FAILING) or 'none'}; "
            "concerns only (the answer is unverified, the concern named): "
            f"{', '.join(f'`{k}`' for k in warn) or 'none'} "
            "([measured per kind](../quality.md#evidence-kinds-and-which-of-them-fail); `fail_on=` chooses)"
        )
    doc = inspect.cleandoc(cls.__doc__ or "")
    paragraphs = [p for p in doc.split("\n\n") if p.strip() and not p.lstrip().startswith(">>>")]
    if paragraphs:
        lines += ["", decode(" ".join(" ".join(p.split()) for p in paragraphs[:3]))]
    lines += ["", "| metric | what it is | default threshold | better |", "|---|---|---:|---|"]
    for spec in cls.metrics:
        threshold = "" if spec.threshold is None else f"{spec.threshold:g}"
        calibrated = "; ".join(f"{v:g} for {family}" for family, v in (getattr(spec, "calibrated", None) or {}).items())
        if calibrated:
            threshold += f" ({calibrated})"
        mark = " (primary)" if spec.primary else ""
        lines.append(
            f"| `{spec.name}`{mark} | {_cell(decode(spec.description))} | {threshold} | "
            f"{'higher' if spec.higher_is_better else 'lower'} |"
        )
    if cls.defaults:
        lines += ["", "| parameter | default |", "|---|---|"]
        lines += [f"| `{key}` | `{_cell(_value(value))}` |" for key, value in cls.defaults.items()]
    return [*lines, ""]


def family_block(family: str) -> str:
    registry = Registry(entry_points=False)
    sources = _sources()
    measured = (DOCS / "quality.md").read_text(encoding="utf-8")
    lines: list[str] = []
    for name in families()[family]:
        lines += check_section(name, registry, sources, measured)
    return "\n".join(lines).rstrip("\n")


def catalog_block() -> str:
    return decode("\n".join(readme_table(Registry(entry_points=False))))


def options_block() -> str:
    return "\n".join(options_table())


def coverage_block() -> str:
    return decode("\n".join(coverage_table()))


RESULTS = ROOT / "benchmarks" / "results"


def _results(name: str) -> Any:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


@functools.cache
def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_verdicts", ROOT / "benchmarks" / "bench_verdicts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verdicts_block() -> str:
    """The published verdict-quality table: every row of the committed benchmark run."""
    run = _results("verdicts.json")
    return _bench().render_published(run["table"]) + "\n\n" + run["footer"]


def kinds_block() -> str:
    return _bench().render_kinds(_results("evidence_kinds.json"))


def failing_block() -> str:
    from pytest_llmeval.facts.kinds import measured_failing

    kinds = ", ".join(f'"{kind}"' for kind in sorted(measured_failing(_results("evidence_kinds.json"))))
    from tools.generated import formatted

    value = f"frozenset({{{kinds}}})" if kinds else "frozenset()"
    return formatted(f"FAILING: frozenset[str] = {value}")


def verifier_block() -> str:
    """The shipped verifier: its card's development AUC and thresholds, how fast it read in the committed benchmark run,
    and per set the rules alone beside rules then verifier and the verifier alone (from ``verdicts.json``)."""
    from pytest_llmeval.models.verifier import SHIPPED, VerifierCard

    card = VerifierCard.read(SHIPPED)
    speed = _results("verifier.json") if (RESULTS / "verifier.json").exists() else None
    lines = [
        f"Shipped: verifier {card.version} (card {card.digest[:12]}), {card.data['run']['layers']} layers of "
        f"{card.base}; fails a claim below {card.fail_below:g}, passes an answer whose every claim reaches "
        f"{card.pass_at:g}.",
        "",
    ]
    if speed:
        lines += [
            f"Speed (benchmark run, {speed['threads']} CPU threads): cold load {speed['cold_load_s']} s, "
            f"{speed['claims_per_s']} claims per second over {speed['claims']} claims of {speed['answers']} answers, "
            f"peak memory of the process {speed['peak_rss_mb']} MB.",
            "",
        ]
    rows = [
        r
        for r in _results("verdicts.json")["table"]
        if r["check"] == "groundedness" and r["setup"] in ("facts", "rules then verifier", "verifier alone")
    ]
    order = {"facts": 0, "rules then verifier": 1, "verifier alone": 2}
    names = {
        "facts": "rules alone (default)",
        "rules then verifier": "rules then verifier",
        "verifier alone": "verifier alone",
    }

    def cell(value: Any) -> str:
        return "-" if value is None or value != value else f"{value:.3f}"

    lines += [
        "| data | setup | good failed | good passed | bad caught | failure precision | unverified | AUC (verifier's "
        "support: card) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    aucs = card.data.get("development_auc", {})
    for row in sorted(rows, key=lambda r: (r["data"], order[r["setup"]])):
        mark = row["auc"] if row["setup"] == "verifier alone" else None
        shown = cell(mark)
        if row["setup"] == "verifier alone":
            known = next((v for k, v in aucs.items() if row["data"].startswith(k.split(" (")[0])), None)
            shown += f" ({cell(known)})"
        lines.append(
            f"| {row['data']} | {names[row['setup']]} | {cell(row['failed_good'])} | {cell(row['pass_good'])} | "
            f"{cell(row['catch_bad'])} | {cell(row['failure_precision'])} | {cell(row['unverified'])} | {shown} |"
        )
    return "\n".join(lines)


#: A page's copy of a sample file of docs/examples: ``<!-- example test_first.py:start -->`` ... ``:end -->``.
EXAMPLE = re.compile(r"<!-- (example [\w.-]+):start -->")
FENCES = {".py": "python", ".jsonl": "json"}


def example_block(name: str) -> str:
    """A sample file as a fenced block, so that a page shows it on GitHub and in the site alike."""
    path = DOCS / "examples" / name
    return f"```{FENCES.get(path.suffix, 'text')}\n{path.read_text(encoding='utf-8').rstrip()}\n```"


def blocks() -> dict[tuple[pathlib.Path, str], str]:
    out = {
        (DOCS / "checks" / "index.md", "catalog"): catalog_block(),
        (DOCS / "options.md", "options"): options_block(),
        (DOCS / "coverage.md", "coverage"): coverage_block(),
        (DOCS / "quality.md", "verdicts"): verdicts_block(),
        (DOCS / "quality.md", "evidence-kinds"): kinds_block(),
        (ROOT / "pytest_llmeval" / "facts" / "kinds.py", "failing"): failing_block(),
        (DOCS / "verifier.md", "verifier"): verifier_block(),
    }
    for family in families():
        out[(DOCS / "checks" / f"{family}.md", "checks")] = family_block(family)
    for page in sorted(DOCS.rglob("*.md")):
        for found in EXAMPLE.finditer(page.read_text(encoding="utf-8")):
            out[(page, found.group(1))] = example_block(found.group(1).split(" ", 1)[1])
    return out


def markers(name: str) -> tuple[str, str]:
    if name == "failing":  # a Python file: the markers are comments
        return f"# <!-- {name}:start -->", f"# <!-- {name}:end -->"
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def current(path: pathlib.Path, name: str) -> str | None:
    return read(path, *markers(name))


def write() -> list[str]:
    changed = []
    for (path, name), text in blocks().items():
        if not path.exists():
            family = path.stem
            title = FAMILY_TITLES.get(family, family)
            intro = inspect.cleandoc(__import__(f"pytest_llmeval.checks.{family}", fromlist=["_"]).__doc__ or "")
            path.write_text(
                f"# {title}\n\n{decode(intro)}\n\n<!-- checks:start -->\n<!-- checks:end -->\n", encoding="utf-8"
            )
        if rewrite(path, *markers(name), text):
            changed.append(f"{path.relative_to(ROOT)} ({name})")
    return changed


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tools/docs_pages.py --write")
    print("\n".join(write()) or "up to date")

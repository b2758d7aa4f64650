"""Long contexts through pytest: real news articles and their summaries, where the time goes, against raw model work.

    python benchmarks/bench_long_context.py [--answers 100] [--data ../shared/data] [--workers 0]

The answers are HaluEval summarization's summaries (right and hallucinated, in turn) with their news article as the
context (../shared/data, read by path): about 500 words of context an answer. A generated suite of ``--answers``
tests, ``@pytest.mark.parametrize`` over them, each ``assert_grounded(summary, [article])`` with the defaults (the fact
layer, spaCy), runs in a pytest subprocess over a fresh cache folder, per test and deferred
(``--llmeval-gate=aggregate``). A conftest times, without changing them, the model loads (``SentenceTransformer``,
``spacy.load``), every ``SentenceTransformer.encode`` call and every spaCy parse (``Language.__call__`` and
``Language.pipe``), and the run from the first test's set-up to the last test's end; what is left is the fact
layer's evidence and the harness.

The reference is a hand-written script in a fresh process, timed the same way part by part: it loads the two models,
encodes the unique sentences the checks look up in one batched call and parses the texts the fact layer reads in one
``nlp.pipe``. Printed: each part's seconds for the reference and the runs, seconds an answer, and reference / run.
Imports are outside both clocks (the conftest imports the libraries it times before the first test).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data"
sys.path.insert(0, str(HERE))

from bench_deferred import CONFTEST as SPAN_CONFTEST  # noqa: E402
from bench_groundedness_pytest import REFERENCE, user_env  # noqa: E402

CONFTEST = (
    SPAN_CONFTEST
    + """

PARTS = {"load": 0.0, "encode": 0.0, "parse": 0.0, "encoded": 0, "parsed": 0}


def _timed(owner, name, part, count=None):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            out = original(*args, **kwargs)
            if part == "parse" and name == "pipe":
                out = list(out)
            return out
        finally:
            PARTS[part] += time.perf_counter() - start
            if count is not None:
                PARTS[count] += count_of(name, args)

    setattr(owner, name, wrapper)


def count_of(name, args):
    if name == "encode":
        return len(args[1]) if isinstance(args[1], (list, tuple)) else 1
    if name == "pipe":
        return len(args[1]) if isinstance(args[1], (list, tuple)) else 0
    return 1


def pytest_configure(config):
    import sentence_transformers, spacy
    from spacy.language import Language
    _timed(sentence_transformers.SentenceTransformer, "__init__", "load")
    _timed(sentence_transformers.SentenceTransformer, "encode", "encode", "encoded")
    _timed(spacy, "load", "load")
    _timed(Language, "__call__", "parse", "parsed")
    _timed(Language, "pipe", "parse", "parsed")


def pytest_unconfigure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(os.environ["BENCH_OUT"], f"parts-{worker}.json"), "w") as handle:
        json.dump(PARTS, handle)
"""
)

SUITE = """
import json
import pytest
from pytest_llmeval import assert_grounded

ROWS = [json.loads(line) for line in open("rows.jsonl")]


@pytest.mark.parametrize("i", range(len(ROWS)))
def test_summary(i):
    assert_grounded(ROWS[i]["actual_output"], ROWS[i]["retrieved_context"], unverified="pass")
"""

#: The reference, timed part by part: REFERENCE's work, its clock read between the parts.
TIMED_REFERENCE = (
    REFERENCE.replace("model = SentenceTransformer(", "loading = time.perf_counter()\nmodel = SentenceTransformer(")
    .replace("model.encode(", "loaded = time.perf_counter()\nmodel.encode(")
    .replace("docs = list(nlp.pipe(", "encoded = time.perf_counter()\ndocs = list(nlp.pipe(")
    .replace(
        '"seconds": time.perf_counter() - start,',
        '"seconds": time.perf_counter() - start, "load": loaded - loading, "encode": encoded - loaded, '
        '"parse": time.perf_counter() - encoded, "imports": loading - start,',
    )
)


def rows(data: Path, count: int) -> list[str]:
    out = []
    with open(data / "halueval_summarization_dev.jsonl", encoding="utf-8") as handle:
        for index, line in enumerate(handle):
            if len(out) >= count:
                break
            row = json.loads(line)
            summary = row["right_summary"] if index % 2 == 0 else row["hallucinated_summary"]
            out.append(
                json.dumps({"id": f"s{index}", "actual_output": summary, "retrieved_context": [row["document"]]})
            )
    return out


def run_suite(folder: Path, options: list[str], workers: int, name: str) -> dict[str, float]:
    out = folder / name
    out.mkdir()
    cache = folder / f"cache-{name}"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "test_long.py",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--llmeval-cache-dir={cache}",
        *options,
        *(["-n", str(workers)] if workers else []),
    ]
    done = subprocess.run(command, cwd=folder, env=user_env(BENCH_OUT=str(out)), capture_output=True, text=True)
    shutil.rmtree(cache, ignore_errors=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    spans = [s for s in (json.loads(p.read_text()) for p in out.glob("span-*.json")) if "first" in s]
    parts = [json.loads(p.read_text()) for p in out.glob("parts-*.json")]
    found = {key: sum(p[key] for p in parts) for key in ("load", "encode", "parse", "encoded", "parsed")}
    found["seconds"] = max(s["last"] for s in spans) - min(s["first"] for s in spans)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers (0: none)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        (folder / "rows.jsonl").write_text("\n".join(rows(args.data, args.answers)) + "\n")
        (folder / "conftest.py").write_text(CONFTEST)
        (folder / "test_long.py").write_text(SUITE)
        (folder / "reference.py").write_text(TIMED_REFERENCE)
        done = subprocess.run(
            [sys.executable, str(folder / "reference.py"), str(folder / "rows.jsonl")],
            capture_output=True,
            text=True,
            check=True,
            cwd=HERE.parent,
            env=user_env(),
        )
        reference = json.loads(done.stdout)
        reference["seconds"] -= reference["imports"]  # the runs' conftest imports the libraries before the first test
        runs = {
            "per test": run_suite(folder, [], args.workers, "per-test"),
            "deferred": run_suite(folder, ["--llmeval-gate=aggregate"], args.workers, "deferred"),
        }
    words = (
        sum(len(json.loads(r)["retrieved_context"][0].split()) for r in rows(args.data, args.answers)) / args.answers
    )
    print(
        f"{args.answers} HaluEval summaries with their news article (mean {words:.0f} words of context), one "
        "assert_grounded "
        f"(defaults) each, {'-n ' + str(args.workers) if args.workers else 'no xdist'}; seconds (a run's model loads "
        "are in its span: its first test loads them)"
    )
    print(
        "| run | first to last test | s an answer | model loads | encode (sentences) | parse (texts) | evidence and "
        "harness | reference / run |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| hand-written: load, one encode, one nlp.pipe | {reference['seconds']:.2f} | "
        f"{reference['seconds'] / args.answers:.3f} | "
        f"{reference['load']:.2f} | {reference['encode']:.2f} ({reference['sentences']}) | {reference['parse']:.2f} "
        f"({reference['texts']}) | | |"
    )
    for name, run in runs.items():
        rest = "" if args.workers else f"{run['seconds'] - run['load'] - run['encode'] - run['parse']:.2f}"
        print(
            f"| {name} | {run['seconds']:.2f} | {run['seconds'] / args.answers:.3f} | {run['load']:.2f} | "
            f"{run['encode']:.2f} "
            f"({run['encoded']}) | {run['parse']:.2f} ({run['parsed']}) | {rest} | "
            f"**{reference['seconds'] / run['seconds']:.2f}** |"
        )
    if args.workers:
        print("(under -n the parts are summed over the workers, the span is the run's: what is left is not shown)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

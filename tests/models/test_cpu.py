"""Under pytest-xdist each worker's torch takes its share of the CPUs, unless the user chose a thread count."""

from __future__ import annotations

import os

import pytest

from pytest_llmeval.models.cpu import cpu_share, share_cpu_threads


def test_each_worker_gets_its_share_of_the_cpus():
    assert cpu_share({}, cpus=8) is None  # not under xdist: torch's own default
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "2"}, cpus=2) == 1
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "2"}, cpus=8) == 4
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "3"}, cpus=8) == 2
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "4"}, cpus=2) == 1  # never below one
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "nan"}, cpus=2) is None
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "0"}, cpus=2) is None


@pytest.mark.parametrize("chosen", ["OMP_NUM_THREADS", "MKL_NUM_THREADS"])
def test_a_thread_count_the_user_set_is_kept(chosen):
    assert cpu_share({"PYTEST_XDIST_WORKER_COUNT": "2", chosen: "2"}, cpus=2) is None


def test_torch_is_lowered_to_the_share_never_raised(monkeypatch):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", str(cpus))  # one CPU each
    try:
        torch.set_num_threads(2)
        assert share_cpu_threads(torch) == 1 and torch.get_num_threads() == 1
        assert share_cpu_threads(torch) is None  # already at its share
    finally:
        torch.set_num_threads(before)


def test_workers_that_load_a_model_share_the_cpus(model_stack, pytester, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    pytester.makepyfile("""
        import os
        import pytest
        from pytest_llmeval import assert_similar

        @pytest.mark.parametrize("n", range(4))
        def test_similar(n):
            assert_similar("The cat sat on the mat.", "A cat was sitting on the mat.", threshold=0.0)
            import torch
            cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
            assert torch.get_num_threads() == max(1, cpus // 2)
    """)
    pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-n", "2").assert_outcomes(passed=4)

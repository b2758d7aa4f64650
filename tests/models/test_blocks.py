"""Under ``pytest -n``, the workers share the embeddings of a cases() suite: each block of cases encoded once."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile

import pytest

from pytest_llmeval.models.blocks import SharedBlocks, block_bounds, block_of

from tests.run.test_prefetch import SUITE, _models, rows


def test_block_bounds_grow_from_32_to_256_and_cover_every_case():
    assert block_bounds(0) == []
    assert block_bounds(10) == [(0, 10)]
    assert block_bounds(300) == [(0, 32), (32, 96), (96, 224), (224, 300)]
    bounds = block_bounds(1000)
    assert [end - start for start, end in bounds] == [32, 64, 128, 256, 256, 256, 8]
    assert [block_of(bounds, p) for p in (0, 31, 32, 95, 96, 999)] == [0, 0, 1, 1, 2, 6]
    with pytest.raises(IndexError, match="position 1000 is in no block"):
        block_of(bounds, 1000)
    with pytest.raises(ValueError, match="'first' must be at least 1"):
        block_bounds(5, first=0)


class _Embedder:
    """Stands in for an embedder: a signature, and a model that may re-key it when it loads."""

    def __init__(self, signature="test-model|fp32|normalized", loads_as=None):
        self.signature = signature
        self.loads_as = loads_as

    def stats(self):
        return {"loaded": self.loads_as is None}

    @property
    def model(self):
        self.signature, self.loads_as = self.loads_as or self.signature, None
        return object()


def _unit(n: int):
    import numpy as np

    vectors = np.eye(4, dtype=np.float32)
    return {f"{i:064x}": vectors[i % 4] for i in range(n)}


def test_a_block_is_claimed_once_written_and_loaded(tmp_path):
    mine = SharedBlocks(str(tmp_path), "plan", _Embedder())
    theirs = SharedBlocks(str(tmp_path), "plan", _Embedder())
    assert mine.load(0) is None  # not written, not given up: wait or claim
    assert mine.claim(0) and not theirs.claim(0)
    assert not theirs.abandoned(0)  # its claimer (this process) is alive
    mine.save(0, _unit(3))
    loaded = theirs.load(0)
    assert sorted(loaded) == sorted(_unit(3)) and all(float(v @ v) == pytest.approx(1.0) for v in loaded.values())
    other_model = SharedBlocks(str(tmp_path), "plan", _Embedder("other|fp32|normalized"))
    assert other_model.load(0) == {}  # another model's vectors: never used, and not waited for
    assert sorted(theirs.load(0)) == sorted(_unit(3))  # nor deleted: the workers of this model still load them


def test_a_worker_whose_signature_is_still_a_prediction_loads_its_model_then_the_block(tmp_path):
    """Predicted fp16 (a GPU host), but torch runs on the CPU: the model's load settles the signature to the
    writer's."""
    writer = SharedBlocks(str(tmp_path), "plan", _Embedder())
    assert writer.claim(0)
    writer.save(0, _unit(2))
    predicted = _Embedder("test-model|fp16|normalized", loads_as="test-model|fp32|normalized")
    reader = SharedBlocks(str(tmp_path), "plan", predicted)
    assert sorted(reader.load(0)) == sorted(_unit(2)) and predicted.signature == "test-model|fp32|normalized"


def test_an_altered_shard_is_given_up_for_every_worker(tmp_path):
    blocks = SharedBlocks(str(tmp_path), "plan", _Embedder())
    assert blocks.claim(1)
    blocks.save(1, _unit(2))
    shard = blocks._path(1, ".npz")
    import numpy as np

    with np.load(shard) as saved:
        keys, vectors, meta = saved["keys"], saved["vectors"].copy(), saved["meta"]
    vectors[0] = vectors[1]  # still unit vectors: only the checksum tells
    with open(shard, "wb") as handle:
        np.savez(handle, keys=keys, vectors=vectors, meta=meta)
    assert blocks.load(1) == {}  # unreadable: given up, and deleted
    assert not os.path.exists(shard) and blocks.load(1) == {}  # the next worker does not wait either


def test_a_block_with_nothing_to_encode_is_given_up(tmp_path):
    blocks = SharedBlocks(str(tmp_path), "plan", _Embedder())
    assert blocks.claim(2)
    blocks.save(2, {})
    assert SharedBlocks(str(tmp_path), "plan", _Embedder()).load(2) == {}


def test_a_claim_whose_process_exited_is_abandoned(tmp_path):
    blocks = SharedBlocks(str(tmp_path), "plan", _Embedder())
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    os.makedirs(blocks.claims, exist_ok=True)
    with open(blocks._path(0, ".claim"), "w", encoding="utf-8") as handle:
        handle.write(f"{done.stdout.strip()} {socket.gethostname()}")
    assert blocks.abandoned(0)
    with open(blocks._path(1, ".claim"), "w", encoding="utf-8") as handle:
        handle.write(f"{done.stdout.strip()} some-other-machine")
    assert not blocks.abandoned(1)  # another machine's process: cannot tell, so wait (bounded)
    with open(blocks._path(2, ".claim"), "w", encoding="utf-8"):
        pass  # created, pid not yet written
    assert not blocks.abandoned(2)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="zombies are read from /proc")
def test_a_claimer_that_exited_but_is_not_yet_reaped_is_abandoned(tmp_path):
    import time

    blocks = SharedBlocks(str(tmp_path), "plan", _Embedder())
    child = subprocess.Popen([sys.executable, "-c", "pass"])  # not waited for: a zombie once it exits
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(f"/proc/{child.pid}/stat", encoding="utf-8") as handle:
                if handle.read().rpartition(")")[2].split()[0] == "Z":
                    break
            time.sleep(0.05)
        os.makedirs(blocks.claims, exist_ok=True)
        with open(blocks._path(0, ".claim"), "w", encoding="utf-8") as handle:
            handle.write(f"{child.pid} {socket.gethostname()}")
        assert blocks.abandoned(0)
    finally:
        child.wait()


@pytest.fixture
def own_tempdir(tmp_path, monkeypatch):
    """The controller's temporary folders go here, so a test can see that the shared folder is removed."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _scores(report):
    return {r["nodeid"]: r["metrics"] for r in report["results"]}


def test_workers_encode_each_block_once_and_score_as_one_process_does(model_stack, pytester, own_tempdir):
    count = 100  # blocks of 32 and 64 cases, then 4
    pytester.makefile(".jsonl", rows=rows(count))
    pytester.makepyfile(SUITE)
    args = ["-p", "no:randomly", "--llmeval-cache-dir=off"]
    pytester.runpytest(*args, "--llmeval-report=serial").assert_outcomes(passed=count)
    pytester.runpytest(*args, "--llmeval-report=shared", "-n", "2").assert_outcomes(passed=count)
    serial = json.loads((pytester.path / "serial" / "report.json").read_text())
    shared = json.loads((pytester.path / "shared" / "report.json").read_text())
    stats = _models(shared)
    encoded = sum(e["encoded"] for s in stats for e in s.get("embedders", []))
    assert encoded == 4 * count  # every sentence once, over both workers (2 answer and 2 context sentences a case)
    assert sum(s["prefetch"]["batches"] for s in stats) == 3  # one encode per block, whichever worker claimed it
    assert sum(s["prefetch"].get("shared_blocks_loaded", 0) for s in stats) >= 1  # a worker used another's block
    assert all(not s["prefetch"]["errors"] for s in stats)
    one, two = _scores(serial), _scores(shared)
    assert one.keys() == two.keys() and len(one) == count
    for nodeid, metrics in one.items():
        assert two[nodeid] == pytest.approx(metrics, abs=1e-5)  # other batches, same vectors
    assert not [p for p in own_tempdir.iterdir() if p.name.startswith("pytest-llmeval-shared-")]  # removed at the end


def test_blocks_claimed_by_a_live_worker_that_never_writes_them_do_not_hang_the_run(model_stack, pytester, own_tempdir):
    """Every claim is held by another live process that never writes: the workers wait (bounded), then encode their
    own."""
    pytester.makefile(".jsonl", rows=rows(40))
    pytester.makepyfile(SUITE)
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(trylast=True)
        def pytest_configure(config):
            if hasattr(config, "workerinput"):
                from pytest_llmeval.models import blocks
                from pytest_llmeval.harness.session import session_key

                blocks.SharedBlocks.claim = lambda self, block: False  # someone else holds every block
                config.stash[session_key].prefetcher.wait_limit = 0.2
    """)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "--llmeval-report=out", "-n", "2")
    result.assert_outcomes(passed=40)
    stats = _models(json.loads((pytester.path / "out" / "report.json").read_text()))
    assert sum(s["prefetch"]["batches"] for s in stats) == 0
    assert sum(e["encoded"] for s in stats for e in s.get("embedders", [])) == 4 * 40  # each test its own sentences
    waited = [s["prefetch"]["waited_s"] for s in stats if "waited_s" in s["prefetch"]]
    assert waited and all(0.2 <= w < 5 for w in waited)  # one bounded wait per block, then on

"""Models asked for from several threads at once (a judge check's cases scored together) load once, one at a time:
transformers' loading sets module-wide flags while it builds a model and is not thread-safe."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from pytest_llmeval.models.cache import ModelCache


def test_a_model_asked_for_by_many_threads_loads_once_and_loads_never_overlap():
    cache = ModelCache(device="cpu", cache_dir=None, announce=lambda line: None)
    active, most, built = [0], [0], []
    lock = threading.Lock()

    def build(name):
        def make():
            with lock:
                active[0] += 1
                most[0] = max(most[0], active[0])
            time.sleep(0.05)
            with lock:
                active[0] -= 1
            built.append(name)
            return object()

        return make

    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda i: cache.model(f"m{i % 2}", build(f"m{i % 2}")), range(16)))
    assert sorted(built) == ["m0", "m1"] and most[0] == 1
    assert len({id(model) for model in found}) == 2

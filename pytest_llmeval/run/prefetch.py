"""Work for the tests to come, done in batches: embeddings (always) and judge verdicts (opt-in).

A regression suite is mostly one test function parametrized over ``cases(...)``: the
inputs of the tests to come are known at collection. When an embedding check runs in
such a test, `Prefetcher` looks at the check's case: the fields it reads that
equal the test's ``Case`` parameter (the recorded answer, the context, ...) are known
in advance for the next tests of the same function too. It builds their cases from
those fields, asks the evaluator which texts it would encode (its own sentence
splitting: `planned_texts()`, which encodes
and scores nothing) and encodes them in one batched call; the checks that follow find
their vectors in the cache.

The window of tests looked at starts at 32 and doubles with each batch (up to
``most``, 256), which bounds the memory of one batch. Under ``pytest -n``, a worker
plans only the tests it has been sent (pytest-xdist's queue on the worker, read and
never changed), so no worker encodes another's; where that queue cannot be read, the
rest of the collection in order stands in. When the controller has given the workers
a shared folder (`blocks`), they instead split the cases into
blocks, each encoded once by whichever worker claims it and loaded by the others.

With ``llmeval_judge_prefetch`` on, a judge check whose every field is known in
advance has the next tests' verdicts asked together in the background (bounded by the
judge's concurrency); they land in the verdict cache, where those tests find them.
Their calls are counted in the session's judge totals, and a test that uses a
prefetched verdict counts it as replayed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..models.blocks import FIRST, MOST, SharedBlocks, block_bounds, block_of

if TYPE_CHECKING:
    import pytest

    from ..core.case import Case
    from ..core.evaluator import Evaluator

__all__ = ["Prefetcher", "known_fields"]


def known_fields(evaluator: Evaluator, check: Case, param: Case) -> tuple[str, ...]:
    """The fields ``evaluator`` reads whose value in the check equals the test's case parameter."""
    out = []
    for name in dict.fromkeys((*evaluator.requires, *evaluator.uses)):
        value = getattr(check, name, None)
        if value and value == getattr(param, name, None):
            out.append(name)
    return tuple(out)


@dataclass
class _Window:
    planned: set[int] = field(default_factory=set)  # the tests (collection indices) of the last batch
    size: int = FIRST
    disabled: bool = False
    #: Texts encoded and parsed when planning stopped because everything was cached; the tests' own encoding or
    #: parsing since (the rest of the suite changed) starts it again.
    quiet_at: int | None = None


@dataclass
class _Plan:
    """The shared blocks of one plan: the test function's cases in collection order, cut into blocks."""

    params: list[Case]  # the test function's case parameters, in collection order
    position: dict[int, int]  # collection index -> place among them
    bounds: list[tuple[int, int]]
    blocks: SharedBlocks
    done: set[int] = field(default_factory=set)  # blocks this worker has (encoded or loaded) or gave up
    others: set[int] = field(default_factory=set)  # blocks claimed by other workers
    parsed: set[int] = field(default_factory=set)  # blocks whose texts this worker has parsed


@dataclass
class Prefetcher:
    """Per worker process: one per session (``config.stash``), nothing at module level."""

    judge_prefetch: bool = False
    most: int = MOST
    share_dir: str | None = None  # under xdist: the run's folder where workers share encoded blocks
    wait_limit: float = 300.0  # seconds to wait for a block another live worker is encoding
    batches: int = 0
    prefetched_cases: int = 0
    shared_loaded: int = 0
    waited: float = 0.0
    errors: list[str] = field(default_factory=list)
    _windows: dict[tuple[Any, ...], _Window] = field(default_factory=dict)
    _index: dict[str, int] = field(default_factory=dict)
    _threads: list[threading.Thread] = field(default_factory=list)
    _plans: dict[tuple[Any, ...], _Plan] = field(default_factory=dict)

    def before_check(self, item: pytest.Item | None, evaluator: Evaluator, cases: Sequence[Case]) -> None:
        """Called before ``evaluator`` scores ``cases`` in test ``item``; never raises."""
        if item is None or len(cases) != 1:
            return
        embedding = bool(getattr(evaluator, "plans_texts", False))
        judged = bool(getattr(evaluator, "needs_judge", False)) and self.judge_prefetch
        if not (embedding or judged):
            return
        try:
            self._prefetch(item, evaluator, cases[0], judged=judged and not embedding)
        except Exception as exc:  # noqa: BLE001 - a prefetch is an optimisation: the check itself still runs
            self.errors.append(f"{evaluator.name}: {type(exc).__name__}: {exc}"[:300])

    def _prefetch(self, item: pytest.Item, evaluator: Evaluator, check: Case, *, judged: bool) -> None:
        found = _case_param(item)
        if found is None:
            return
        argname, param = found
        fields = known_fields(evaluator, check, param)
        if not fields or (judged and set(evaluator.requires) - set(fields)):
            return  # nothing known in advance (a judge needs every field it reads)
        items = item.session.items
        if not self._index:
            self._index = {it.nodeid: i for i, it in enumerate(items)}
        here = self._index.get(item.nodeid)
        if here is None:
            return
        function = getattr(item, "originalname", item.name)
        key = (evaluator.name, evaluator.signature().key, fields, argname, item.path, function)
        if self.share_dir and not judged:  # set on xdist workers only
            self._shared(item, evaluator, key, fields, here)
            return
        window = self._windows.setdefault(key, _Window())
        if window.disabled and window.quiet_at is not None and _work(evaluator) > window.quiet_at:
            window.disabled, window.quiet_at, window.planned = False, None, set()
        if window.disabled or here in window.planned:
            return
        window.size = min(window.size * 2, self.most) if window.planned else FIRST
        upcoming: list[Case] = []
        planned: set[int] = set()
        for index in _future(item, here, len(items)):
            if len(planned) >= window.size:
                break
            other = _same_plan(items[index], function, item.path, argname)
            if other is not None:
                planned.add(index)
                upcoming.append(_known_case(other, fields))
        window.planned = planned
        if not upcoming:
            return
        self.batches += 1
        self.prefetched_cases += len(upcoming)
        if judged:
            self._judge_ahead(evaluator, upcoming[1:])
            return
        try:
            texts = evaluator.planned_texts(upcoming)
        except Exception:
            window.disabled = True  # this check cannot be planned from partial cases: score as it comes
            raise
        before = _work(evaluator)
        if texts:
            evaluator.embedder.encode(list(dict.fromkeys(texts)))  # type: ignore[attr-defined]
        _parse_ahead(evaluator, upcoming)
        if _work(evaluator) == before:
            # Everything was cached (a rerun): planning ahead would only repeat the tests' work, until they encode
            # again.
            window.disabled, window.quiet_at = True, before

    def _shared(
        self, item: pytest.Item, evaluator: Evaluator, key: tuple[Any, ...], fields: tuple[str, ...], here: int
    ) -> None:
        """Make sure this worker has the block of the test at ``here``: load it, or encode it (or others) for all."""
        import hashlib
        import time

        plan = self._plans.get(key)
        if plan is None:
            _, _, _, argname, path, function = key
            members = [
                (index, param)
                for index, other in enumerate(item.session.items)
                if (param := _same_plan(other, function, path, argname)) is not None
            ]
            name = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()[:20]
            plan = self._plans[key] = _Plan(
                [param for _, param in members],
                {index: n for n, (index, _) in enumerate(members)},
                block_bounds(len(members), most=self.most),
                SharedBlocks(self.share_dir or "", name, evaluator.embedder),  # type: ignore[attr-defined]
            )
        if here not in plan.position:
            return
        block = block_of(plan.bounds, plan.position[here])
        waiting_since: float | None = None
        if block not in plan.parsed:  # each worker parses the blocks it meets (parses are cheap beside encodes)
            plan.parsed.add(block)
            start, end = plan.bounds[block]
            _parse_ahead(evaluator, [_known_case(param, fields) for param in plan.params[start:end]])
        while block not in plan.done:
            vectors = plan.blocks.load(block)
            if vectors is not None:
                evaluator.embedder.adopt(vectors)  # type: ignore[attr-defined]
                plan.done.add(block)
                self.shared_loaded += bool(vectors)
            elif plan.blocks.claim(block):
                self._encode_block(evaluator, plan, block, fields)
            elif (ahead := self._claim_ahead(plan, block)) is not None:
                self._encode_block(evaluator, plan, ahead, fields)  # useful work while the other worker finishes
                waiting_since = None
            elif plan.blocks.abandoned(block):
                plan.done.add(block)  # its claimer died: its tests encode their own sentences
            else:
                now = time.perf_counter()
                waiting_since = waiting_since or now
                if now - waiting_since > self.wait_limit:
                    plan.done.add(block)  # waited long enough: as above
                else:
                    time.sleep(0.005)
                    self.waited += time.perf_counter() - now

    def _claim_ahead(self, plan: _Plan, block: int) -> int | None:
        for ahead in range(block + 1, len(plan.bounds)):
            if ahead in plan.done or ahead in plan.others:
                continue
            if plan.blocks.claim(ahead):
                return ahead
            plan.others.add(ahead)
        return None

    def _encode_block(self, evaluator: Evaluator, plan: _Plan, block: int, fields: tuple[str, ...]) -> None:
        """Encode the claimed ``block`` and write it for the other workers; on any failure, give it up."""
        from ..models.stores import text_key

        plan.done.add(block)
        start, end = plan.bounds[block]
        cases = [_known_case(param, fields) for param in plan.params[start:end]]
        try:
            texts = list(dict.fromkeys(evaluator.planned_texts(cases)))
            matrix = evaluator.embedder.encode(texts) if texts else []  # type: ignore[attr-defined]
            plan.blocks.save(block, {text_key(text): row for text, row in zip(texts, matrix)})
        except BaseException:
            plan.blocks.give_up(block)
            plan.done.update(range(len(plan.bounds)))  # this check cannot be planned: score as it comes
            raise
        self.batches += 1
        self.prefetched_cases += len(cases)

    def _judge_ahead(self, evaluator: Evaluator, upcoming: list[Case]) -> None:
        """Ask the verdicts of ``upcoming`` in the background; they are cached for their tests."""
        if not upcoming:
            return
        runner = getattr(evaluator, "runner", None)
        concurrency = max(1, int(getattr(runner, "concurrency", 1)))
        from ..judges.runner import fan_out

        def work() -> None:
            try:
                fan_out([_scorer(evaluator, case) for case in upcoming], concurrency)
            except Exception as exc:  # noqa: BLE001 - the tests ask again for what is missing
                self.errors.append(f"{evaluator.name} prefetch: {type(exc).__name__}: {exc}"[:300])

        thread = threading.Thread(target=work, name="llmeval-judge-prefetch", daemon=True)
        thread.start()
        self._threads.append(thread)

    def wait(self, timeout: float = 60.0) -> None:
        """Let background judge prefetches finish (their verdicts are written to the cache)."""
        for thread in self._threads:
            thread.join(timeout)
        self._threads = [t for t in self._threads if t.is_alive()]

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"batches": self.batches, "cases": self.prefetched_cases, "errors": self.errors[:5]}
        if self.share_dir:
            out.update(shared_blocks_loaded=self.shared_loaded, waited_s=round(self.waited, 3))
        return out


def _scorer(evaluator: Evaluator, case: Case) -> Callable[[], Any]:
    return lambda: evaluator.score_batch([case])


def _future(item: pytest.Item, here: int, count: int) -> Iterator[int]:
    """Collection indices of the tests this process will run, in order, from ``here``.

    Under pytest-xdist a worker runs the tests the controller has sent it: they are in its
    queue (read, never changed). Elsewhere, or if the queue cannot be read, the rest of the
    collection in order.
    """
    queue = _worker_queue(item.config) if hasattr(item.config, "workerinput") else None
    if queue is None:
        yield from range(here, count)
        return
    yield here
    yield from (i for i in queue if isinstance(i, int) and 0 <= i < count and i != here)


def _worker_queue(config: pytest.Config) -> list[int] | None:
    """A snapshot of the xdist worker's next test and queue (pytest-xdist 3.x), else ``None``."""
    for plugin in config.pluginmanager.get_plugins():
        torun = getattr(plugin, "torun", None)
        if torun is None or not hasattr(torun, "lock"):
            continue
        try:
            with torun.lock() as queued:
                ahead = list(queued)
        except Exception:  # noqa: BLE001 - another xdist version: fall back to the collection order
            return None
        following = getattr(plugin, "nextitem_index", None)
        return ([following] if isinstance(following, int) else []) + [i for i in ahead if isinstance(i, int)]
    return None


def _same_plan(other: pytest.Item, function: str, path: Any, argname: str) -> Case | None:
    """``other``'s case parameter if it is a test of ``function`` in ``path`` parametrized by ``argname``."""
    if getattr(other, "originalname", other.name) != function or other.path != path:
        return None
    pair = _case_param(other)
    return pair[1] if pair is not None and pair[0] == argname else None


def _known_case(param: Case, fields: tuple[str, ...]) -> Case:
    """A case of just the ``fields`` known in advance, taken from a test's case parameter."""
    from ..core.case import Case

    return Case(**{name: getattr(param, name) for name in fields})


def _case_param(item: pytest.Item) -> tuple[str, Case] | None:
    """The test's ``Case`` parameter (from ``cases(...)``) and its argument name, if it has one."""
    from ..core.case import Case

    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    for name, value in callspec.params.items():
        if isinstance(value, Case):
            return name, value
    return None


def _work(evaluator: Evaluator) -> int:
    """How many texts ``evaluator``'s embedder has encoded and its fact layer parsed so far."""
    facts = getattr(evaluator, "facts", None)
    parser = facts.parser() if facts is not None else None
    parsed = int(parser.parsed) if parser is not None else 0
    return int(evaluator.embedder.encoded) + parsed  # type: ignore[attr-defined]


def _parse_ahead(evaluator: Evaluator, cases: Sequence[Case]) -> None:
    """Parse, in one batch, the texts the fact layer of ``evaluator`` will read for ``cases`` (cached for their
    tests)."""
    texts = getattr(evaluator, "parse_texts", None)
    facts = getattr(evaluator, "facts", None)
    if texts is None or facts is None:
        return
    wanted = list(dict.fromkeys(texts(cases)))
    if wanted:
        facts.parse(wanted)

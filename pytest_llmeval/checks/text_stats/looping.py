"""Statistics of the answer text itself: looping detection (catalog: Looping Detection Evaluator)."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import Result
from ...kit.text import split_sentences, utf8

if TYPE_CHECKING:
    import numpy as np

__all__ = ["assert_not_looping", "Looping", "longest_repeated_substring", "unique_sentence_ratio", "compression_ratio"]


def assert_not_looping(actual: str, **kwargs: Any) -> Result:
    """The answer does not repeat itself (unique sentences; optionally repeated substrings, compressibility)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(Looping, actual=actual, **kwargs)


#: Sentences shorter than this are ignored by the unique-sentences ratio (catalog).
MIN_SENTENCE_CHARS = 10


_P1, _B1 = 2_147_483_647, 911_382_323


_P2, _B2 = 2_147_483_629, 972_663_749


def unique_sentence_ratio(text: str) -> tuple[float, dict[str, Any]]:
    """Distinct sentences / all sentences, ignoring sentences under 10 characters."""
    sentences = [" ".join(s.split()) for s in split_sentences(text)]
    counted = [s for s in sentences if len(s) >= MIN_SENTENCE_CHARS]
    if not counted:
        return 1.0, {"sentences": 0, "unique": 0}
    seen: dict[str, int] = {}
    for sentence in counted:
        seen[sentence] = seen.get(sentence, 0) + 1
    repeated = max(seen.items(), key=lambda kv: kv[1])
    details: dict[str, Any] = {"sentences": len(counted), "unique": len(seen)}
    if repeated[1] > 1:
        details["most_repeated_sentence"] = repeated[0][:200]
        details["most_repeated_count"] = repeated[1]
    return len(seen) / len(counted), details


def compression_ratio(text: str) -> float:
    """zlib (level 9) compressed bytes / original bytes, capped at 1; 1.0 for empty text."""
    raw = utf8(text)  # any str: model output may hold lone surrogates
    if not raw:
        return 1.0
    return min(1.0, len(zlib.compress(raw, 9)) / len(raw))


def _powers(base: int, count: int, prime: int) -> np.ndarray:
    import numpy as np

    powers = np.empty(count, dtype=np.uint64)
    powers[0] = 1
    filled, step = 1, base % prime
    while filled < count:
        take = min(filled, count - filled)
        powers[filled : filled + take] = powers[:take] * np.uint64(step) % np.uint64(prime)
        step = step * step % prime
        filled += take
    return powers


def _window_hashes(codes: np.ndarray, length: int, prime: int, base: int, cache: dict[str, Any]) -> np.ndarray:
    import numpy as np

    key = f"{prime}"
    if key not in cache:
        n = len(codes)
        powers = _powers(base, n + 1, prime)
        inverse = _powers(pow(base, prime - 2, prime), n + 1, prime)
        terms = codes * powers[:n] % np.uint64(prime)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(terms, out=prefix[1:])
        prefix %= np.uint64(prime)
        cache[key] = (prefix, inverse)
    prefix, inverse = cache[key]
    count = len(codes) - length + 1
    spans = (prefix[length : length + count] + np.uint64(prime) - prefix[:count]) % np.uint64(prime)
    hashes: np.ndarray = spans * inverse[:count] % np.uint64(prime)  # numpy's operators are typed Any here
    return hashes


def _repeat_at(codes: np.ndarray, length: int, cache: dict[str, Any]) -> tuple[int, int] | None:
    """Two non-overlapping equal windows of ``length``, as start offsets, or None."""
    import numpy as np

    h1 = _window_hashes(codes, length, _P1, _B1, cache)
    h2 = _window_hashes(codes, length, _P2, _B2, cache)
    keys = (h1 << np.uint64(32)) | h2
    order = np.argsort(keys)
    ordered = keys[order]
    firsts = np.concatenate(([0], np.flatnonzero(ordered[1:] != ordered[:-1]) + 1))
    starts = np.minimum.reduceat(order, firsts)
    ends = np.maximum.reduceat(order, firsts)
    gaps = ends - starts
    hits = np.flatnonzero(gaps >= length)
    if not len(hits):
        return None
    group = hits[np.argmax(gaps[hits])]
    return int(starts[group]), int(ends[group])


def longest_repeated_substring(text: str) -> tuple[str, int]:
    """The longest substring that occurs at least twice without overlapping, and its count.

    Runs in O(n log² n) with rolling hashes (numpy), so a megabyte answer is fine.

    >>> longest_repeated_substring("abcabcabc")
    ('abc', 3)
    >>> longest_repeated_substring("abcd")
    ('', 0)
    """
    n = len(text)
    if n < 2:
        return "", 0
    import numpy as np

    codes = (
        np.array([ord(ch) for ch in text], dtype=np.uint64)
        if n < 4096
        else np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    )
    cache: dict[str, Any] = {}
    low, high, found = 0, n // 2, None
    while low < high:
        middle = (low + high + 1) // 2
        pair = _repeat_at(codes, middle, cache)
        if pair is not None and text[pair[0] : pair[0] + middle] == text[pair[1] : pair[1] + middle]:
            low, found = middle, pair
        else:
            high = middle - 1
    if not low or found is None:
        return "", 0
    substring = text[found[0] : found[0] + low]
    return substring, text.count(substring)


class Looping(Evaluator):
    """Did the generation go into a loop?

    Metrics (catalog formulas):

    - ``unique_sentences``: distinct / all sentences of 10+ characters (primary, higher is better);
    - ``longest_repeated_substring``: length of the longest non-overlapping repeated
      substring times its count, over the text length (lower is better);
    - ``compression_ratio``: zlib level-9 compressed / original bytes (higher is better).

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = Looping().evaluate([Case(actual="I am sorry, I cannot help. " * 5)])
    >>> round(r.score, 2), r.passed
    (0.2, False)
    """

    name = "looping"
    helper = "assert_not_looping"
    description = "Repeated sentences and substrings, compressibility of the answer"
    metrics = (
        MetricSpec("unique_sentences", "distinct / all sentences of 10+ characters", primary=True, threshold=0.75),
        MetricSpec(
            "longest_repeated_substring",
            "longest non-overlapping repeated substring x count / text length",
            higher_is_better=False,
            threshold=0.75,
        ),
        MetricSpec("compression_ratio", "zlib level-9 compressed / original bytes", threshold=0.75),
    )

    def score(self, case: Case) -> Score:
        text = case.actual or ""
        unique, details = unique_sentence_ratio(text)
        substring, count = longest_repeated_substring(text)
        lrs = len(substring) * count / len(text) if text else 0.0
        ratio = compression_ratio(text)
        details = {**details, "repeated_substring": substring[:200], "repeated_count": count, "length": len(text)}
        parts = [f"{details['unique']}/{details['sentences']} sentences unique"]
        if "most_repeated_sentence" in details:
            parts.append(f"{details['most_repeated_sentence'][:60]!r} x{details['most_repeated_count']}")
        if count > 1:
            parts.append(
                f"longest repeat {substring[:60]!r} ({len(substring)} chars) x{count} covers {lrs:.0%} of the text"
            )
        parts.append(f"compression ratio {ratio:.2f}")
        metrics = {"unique_sentences": unique, "longest_repeated_substring": min(1.0, lrs), "compression_ratio": ratio}
        return Score(metrics, "; ".join(parts), details)

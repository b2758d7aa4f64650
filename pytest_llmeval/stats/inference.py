"""Intervals and tests for small suites: what the leaderboard's error bars and the baseline gate compute.

Standard library only (numpy, a dependency, is imported for a Monte Carlo permutation test
alone), so the controller computes them without a scientific stack. The methods:

- a pass rate's interval is Wilson's score interval, right for small n where the normal
  approximation is not; when cases are repeated its n is the *effective* number of
  independent results (the cluster-robust variance's design effect, between the number of
  cases and the number of results);
- a score mean's interval is Student's t over the cluster-robust standard error (cases are the
  clusters; without repeats it is the plain t interval);
- a paired pass-rate difference gets the Bonett-Price adjusted Wald interval (one pseudo-case
  that flipped each way), a paired score difference the t interval over per-case differences;
- the paired test is McNemar's exact test when each case has one result in each run, else an
  exact or Monte Carlo sign-flip permutation test over per-case differences (the same test:
  sign-flipping differences of -1, 0, 1 is McNemar's);
- Holm's step-down adjustment controls the chance of any false regression over all rows.

>>> [round(v, 4) for v in wilson(8, 10)]
[0.4902, 0.9433]
>>> round(mcnemar_exact(1, 9), 4)
0.0215
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "z_value",
    "t_quantile",
    "wilson",
    "proportion_interval",
    "mean_interval",
    "mcnemar_exact",
    "sign_flip_test",
    "holm",
    "pass_at_k",
    "pass_hat_k",
    "Paired",
    "paired",
    "POWER",
]


#: The power the smallest detectable difference is stated at.
POWER = 0.8


#: The sign-flip test enumerates every sign pattern below this many non-zero differences, and takes the normal form of
#: its distribution above NORMAL_ABOVE; between, it draws MONTE_CARLO patterns.
EXACT_BELOW, NORMAL_ABOVE, MONTE_CARLO = 17, 5000, 20000


def z_value(alpha: float) -> float:
    """The two-sided normal critical value: 1.96 for ``alpha`` 0.05."""
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile (``scipy.stats.t.ppf``), by bisection on the CDF."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile: expected 0 < p < 1 and df > 0; got p={p!r}, df={df!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if _t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2.0


def wilson(successes: float, n: float, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson's score interval of a proportion (``statsmodels`` ``proportion_confint(method="wilson")``)."""
    if n <= 0:
        raise ValueError(f"wilson: expected n > 0; got {n!r}")
    z = z_value(alpha)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denominator
    half = z * math.sqrt(max(p * (1.0 - p) / n + z * z / (4.0 * n * n), 0.0)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _cluster_variance(clusters: Sequence[Sequence[float]]) -> tuple[float, float, int]:
    """(mean, cluster-robust variance of the mean, results): CR1, ``G/(G-1) * sum_g (sum_i (x - mean))^2 / N^2``."""
    n = sum(len(c) for c in clusters)
    mean = math.fsum(v for c in clusters for v in c) / n
    g = len(clusters)
    if g < 2:
        return mean, math.nan, n
    spread = math.fsum(math.fsum(v - mean for v in c) ** 2 for c in clusters)
    return mean, g / (g - 1) * spread / (n * n), n


def proportion_interval(clusters: Sequence[Sequence[float]], alpha: float = 0.05) -> tuple[float, float]:
    """The interval of a pass rate over results grouped by case (1.0 a pass, 0.0 not).

    One result per case: Wilson's interval. Repeated cases: Wilson's interval at the
    effective sample size ``n / design effect`` from the cluster-robust variance, kept
    between the number of cases and of results (all of a case's draws agreeing makes
    the case count once).
    """
    clusters = [c for c in clusters if c]
    if not clusters:
        raise ValueError("proportion_interval: expected at least one result")
    p, variance, n = _cluster_variance(clusters)
    g = len(clusters)
    if g == n:
        effective = float(n)
    elif p in (0.0, 1.0) or not variance > 0.0 or math.isnan(variance):
        effective = float(g)
    else:
        effective = min(float(n), max(float(g), p * (1.0 - p) / variance))
    return wilson(p * effective, effective, alpha)


def _binary(values: Sequence[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def mean_interval(clusters: Sequence[Sequence[float]], alpha: float = 0.05) -> tuple[float, float] | None:
    """The interval of a mean over values grouped by case; ``None`` below two cases (nothing to say how it varies).

    Values that are all 0 or 1 are a proportion (`proportion_interval()`); others get
    Student's t with ``cases - 1`` degrees of freedom over the cluster-robust standard error,
    kept within [0, 1] when every value is.
    """
    clusters = [c for c in clusters if c]
    values = [v for c in clusters for v in c]
    if not values:
        return None
    if _binary(values):
        return proportion_interval(clusters, alpha)
    if len(clusters) < 2:
        return None
    mean, variance, _ = _cluster_variance(clusters)
    half = t_quantile(1.0 - alpha / 2.0, len(clusters) - 1) * math.sqrt(variance)
    if all(0.0 <= v <= 1.0 for v in values):  # a score on the unit scale: its interval stays on it
        return max(0.0, mean - half), min(1.0, mean + half)
    return mean - half, mean + half


def mcnemar_exact(worse: int, better: int, alternative: str = "two-sided") -> float:
    """McNemar's exact p-value from the discordant pairs (a binomial test at 1/2): two-sided, or one-sided that the
    pairs that got worse outnumber the others (``alternative="worse"``) or the reverse (``"better"``)."""
    n = worse + better
    if n == 0:
        return 1.0
    if alternative != "two-sided":
        count = worse if alternative == "worse" else better
        return min(1.0, _binomial_tail(n, n - count))  # P(X >= count) = P(X <= n - count) at 1/2
    k = min(worse, better)
    if n <= 1000:
        tail: float = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    else:  # the same sum in logs: exact integers of thousands of digits cost more than they tell
        logs = [
            math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0) for i in range(k + 1)
        ]
        top = max(logs)
        tail = math.exp(top) * math.fsum(math.exp(v - top) for v in logs)
    return min(1.0, 2.0 * tail)


def _binomial_tail(n: int, k: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    if n <= 1000:
        return sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0) for i in range(k + 1)]
    top = max(logs)
    return float(math.exp(top) * math.fsum(math.exp(v - top) for v in logs))


def sign_flip_test(
    differences: Sequence[float],
    *,
    resamples: int = MONTE_CARLO,
    seed: int = 0,
    exact_below: int = EXACT_BELOW,
    normal_above: int = NORMAL_ABOVE,
    alternative: str = "two-sided",
) -> float:
    """p-value of a paired sign-flip permutation test of ``mean(differences) == 0``: two-sided, or one-sided that
    the mean is above 0 (``alternative="greater"``) or below it (``"less"``).

    Exact over every sign pattern when fewer than ``exact_below`` differences are non-zero,
    normal beyond ``normal_above`` of them, else Monte Carlo with ``resamples`` seeded draws
    (``(hits + 1) / (resamples + 1)``, never 0).
    """
    nonzero = [d for d in differences if d != 0.0]
    if alternative == "less":
        nonzero = [-d for d in nonzero]
    if not nonzero:
        return 1.0
    one_sided = alternative != "two-sided"
    total_sum = math.fsum(nonzero)
    observed = (total_sum if one_sided else abs(total_sum)) - 1e-9 * max(1.0, abs(total_sum))

    def beyond(value: float) -> bool:
        return value >= observed if one_sided else abs(value) >= observed

    if len(nonzero) > normal_above:
        # Thousands of differences: the sign-flip distribution of the sum is normal to well within the Monte Carlo's
        # own error (mean 0, variance the sum of squares), and drawing it would cost memory in proportion.
        z = total_sum / math.sqrt(math.fsum(d * d for d in nonzero))
        return min(1.0, 1.0 - NormalDist().cdf(z)) if one_sided else min(1.0, 2.0 * (1.0 - NormalDist().cdf(abs(z))))
    if len(nonzero) < exact_below:
        hits = 0
        total = 1 << len(nonzero)
        for pattern in range(total):
            s = math.fsum(d if (pattern >> i) & 1 else -d for i, d in enumerate(nonzero))
            hits += beyond(s)
        return hits / total
    import numpy as np

    rng = np.random.default_rng(seed)
    values = np.asarray(nonzero, dtype=float)
    hits = 0
    chunk = max(1, min(4096, (1 << 22) // len(values)))  # at most about 4 million signs at a time
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        signs = rng.integers(0, 2, size=(size, len(values)), dtype=np.int8) * 2 - 1
        sums = signs @ values
        hits += int(np.count_nonzero((sums if one_sided else np.abs(sums)) >= observed))
    return (hits + 1) / (resamples + 1)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (``statsmodels`` ``multipletests(method="holm")``), in the given order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def pass_at_k(n: int, passed: int, k: int) -> float:
    """The chance that at least one of ``k`` draws passes, unbiased from ``passed`` of ``n`` (Chen et al. 2021)."""
    if not 0 < k <= n or not 0 <= passed <= n:
        raise ValueError(f"pass_at_k: expected 0 < k <= n and 0 <= passed <= n; got n={n}, passed={passed}, k={k}")
    return 1.0 - math.comb(n - passed, k) / math.comb(n, k)


def pass_hat_k(n: int, passed: int, k: int) -> float:
    """pass^k: the chance that all ``k`` draws pass, unbiased from ``passed`` of ``n`` (Yao et al. 2024, tau-bench)."""
    if not 0 < k <= n or not 0 <= passed <= n:
        raise ValueError(f"pass_hat_k: expected 0 < k <= n and 0 <= passed <= n; got n={n}, passed={passed}, k={k}")
    return math.comb(passed, k) / math.comb(n, k)


@dataclass(frozen=True)
class Paired:
    """A paired difference (now minus before) over the cases both runs have."""

    cases: int
    before: float
    after: float
    difference: float
    low: float | None  # the difference's interval (None: fewer than two cases)
    high: float | None
    p_value: float
    test: str  # "McNemar exact", "sign-flip permutation (exact)", "sign-flip permutation (20000 draws)"
    detectable: float | None  # the smallest difference this suite detects at POWER (None: unknown)
    cases_for: int | None  # cases needed to detect ``target`` (None: unknown)
    repeats_for: int | None  # draws per case needed to detect ``target`` with these cases (None: repeats cannot)
    target: float
    discordant: tuple[int, int] = (0, 0)  # one result per case in each run: (passed then failed, failed then passed)
    #: One-sided p-values: that the values rose (after above before) and that they fell.
    p_rose: float = 1.0
    p_fell: float = 1.0


def _within(clusters: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """(mean within-case variance of one draw, mean draws per case) over repeated cases; None without repeats."""
    variances, sizes = [], []
    for values in clusters:
        if len(values) > 1:
            mean = math.fsum(values) / len(values)
            variances.append(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
        sizes.append(len(values))
    if not variances:
        return None
    return math.fsum(variances) / len(variances), sum(sizes) / len(sizes)


def paired(
    before: Sequence[Sequence[float]],
    after: Sequence[Sequence[float]],
    *,
    proportion: bool,
    alpha: float = 0.05,
    target: float = 0.05,
) -> Paired:
    """Compare two runs' values of the same cases (``before[i]`` and ``after[i]``: case i's draws, at least one each).

    ``proportion``: the values are passes (1.0) and failures (0.0). ``target``: the
    difference whose detectability is stated (cases and repeats it needs).
    """
    if len(before) != len(after) or not before or any(not b or not a for b, a in zip(before, after)):
        raise ValueError("paired: expected the same cases in both runs, each with at least one value")
    n = len(before)
    b_means = [math.fsum(v) / len(v) for v in before]
    a_means = [math.fsum(v) / len(v) for v in after]
    d = [a - b for a, b in zip(a_means, b_means)]
    difference = math.fsum(d) / n
    z = z_value(alpha)
    discordant = (0, 0)
    if proportion:
        single = all(len(v) == 1 for v in before) and all(len(v) == 1 for v in after)
        if single:
            discordant = (sum(x < 0 for x in d), sum(x > 0 for x in d))
            p_value, test = mcnemar_exact(*discordant), "McNemar exact"
            p_rose, p_fell = (
                mcnemar_exact(*discordant, alternative="better"),
                mcnemar_exact(*discordant, alternative="worse"),
            )
        else:
            p_value, test = _sign_flip(d)
            p_rose, p_fell = sign_flip_test(d, alternative="greater"), sign_flip_test(d, alternative="less")
        # Bonett-Price: one pseudo-case that got worse and one that got better.
        augmented = [*d, 1.0, -1.0]
        centre = math.fsum(augmented) / len(augmented)
        variance = math.fsum((x - centre) ** 2 for x in augmented) / len(augmented)
        se = math.sqrt(variance / len(augmented))
        low: float | None = max(-1.0, centre - z * se)
        high: float | None = min(1.0, centre + z * se)
        # The sizing below: the cases' own spread (the pseudo-cases would add spread that is not there), theirs if none.
        spread = math.fsum((x - difference) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
        unit_se = math.sqrt(spread if spread > 0 else variance)
    else:
        p_value, test = _sign_flip(d)
        p_rose, p_fell = sign_flip_test(d, alternative="greater"), sign_flip_test(d, alternative="less")
        if n >= 2:
            sd = math.sqrt(math.fsum((x - difference) ** 2 for x in d) / (n - 1))
            se = sd / math.sqrt(n)
            half = t_quantile(1.0 - alpha / 2.0, n - 1) * se
            low, high = difference - half, difference + half
            unit_se = sd
        else:
            low = high = None
            unit_se = math.nan
    detectable = cases_for = repeats_for = None
    if not math.isnan(unit_se) and unit_se > 0:
        factor = z + NormalDist().inv_cdf(POWER)
        detectable = factor * unit_se / math.sqrt(n)
        cases_for = max(n, math.ceil(n * (detectable / target) ** 2))
        # A case's difference varies between cases (a real change, which repeats do not average away) and within a
        # case (draw noise, which r draws per case divide by r): var = between + noise / r.
        total = unit_se**2
        runs = (_within(before), _within(after))
        known = [w for w in runs if w is not None]
        if known:
            # A run without repeats is taken to vary within a case as the repeated one does.
            filled = [w if w is not None else (known[0][0], 1.0) for w in runs]
            noise = math.fsum(w for w, _ in filled)  # one draw in each run
            between = max(0.0, total - math.fsum(w / draws for w, draws in filled))
        elif any(d):
            noise, between = total, 0.0  # one draw per case: the spread is taken to be draw noise
        else:
            noise, between = 0.0, total  # every case gave the same result in both runs: no sign that draws vary
        allowed = n * (target / factor) ** 2  # the variance of a case's difference that detects target with n cases
        if allowed > between and noise > 0:
            repeats_for = max(1, math.ceil(noise / (allowed - between)))
    return Paired(
        n,
        math.fsum(b_means) / n,
        math.fsum(a_means) / n,
        difference,
        low,
        high,
        p_value,
        test,
        detectable,
        cases_for,
        repeats_for,
        target,
        discordant,
        p_rose,
        p_fell,
    )


def _sign_flip(differences: Sequence[float]) -> tuple[float, str]:
    nonzero = sum(d != 0.0 for d in differences)
    p_value = sign_flip_test(differences)
    if nonzero < EXACT_BELOW:
        return p_value, "sign-flip permutation (exact)"
    return (
        p_value,
        "sign-flip permutation (normal)" if nonzero > NORMAL_ABOVE else f"sign-flip permutation ({MONTE_CARLO} draws)",
    )

"""pytest_llmeval.stats.inference against scipy / statsmodels (and brute force) on fixed data."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
scipy_stats = pytest.importorskip("scipy.stats")
sm = pytest.importorskip("statsmodels.api")
sm_proportion = pytest.importorskip("statsmodels.stats.proportion")
sm_contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
sm_multitest = pytest.importorskip("statsmodels.stats.multitest")

from pytest_llmeval.stats.inference import (  # noqa: E402 - after the optional imports
    holm,
    mcnemar_exact,
    mean_interval,
    paired,
    pass_at_k,
    pass_hat_k,
    proportion_interval,
    sign_flip_test,
    t_quantile,
    wilson,
    z_value,
)


def _cr1(clusters):
    """(mean, CR1 standard error of the mean): G/(G-1) * sum_g (sum_i (x - mean))^2 / N^2."""
    values = [v for c in clusters for v in c]
    n, g = len(values), len(clusters)
    mean = sum(values) / n
    spread = sum(sum(v - mean for v in c) ** 2 for c in clusters)
    return mean, math.sqrt(g / (g - 1) * spread / n**2)


def _scipy_sign_flip(values, **kwargs):
    return scipy_stats.permutation_test(
        (np.asarray(values, dtype=float),), np.mean, permutation_type="samples", alternative="two-sided", **kwargs
    ).pvalue


# --- t quantile -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 3.5, 10, 59, 500])
@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995, 0.025])
def test_t_quantile_matches_scipy(p, df):
    assert t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-8, abs=1e-12)


def test_t_quantile_median_and_symmetry():
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.1, 4) == pytest.approx(-t_quantile(0.9, 4), rel=1e-12)


@pytest.mark.parametrize("p, df", [(0.0, 5), (1.0, 5), (0.9, 0), (0.9, -1), (-0.1, 5), (1.5, 5)])
def test_t_quantile_rejects_bad_arguments(p, df):
    with pytest.raises(ValueError):
        t_quantile(p, df)


def test_z_value():
    assert z_value(0.05) == pytest.approx(scipy_stats.norm.ppf(0.975), rel=1e-12)
    assert z_value(0.1) == pytest.approx(scipy_stats.norm.ppf(0.95), rel=1e-12)


# --- Wilson -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("successes, n", [(0, 10), (10, 10), (8, 10), (1, 3), (45, 60), (7, 200)])
def test_wilson_matches_statsmodels(successes, n, alpha):
    expected = sm_proportion.proportion_confint(successes, n, alpha=alpha, method="wilson")
    assert wilson(successes, n, alpha) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_wilson_docstring_value():
    assert [round(v, 4) for v in wilson(8, 10)] == [0.4902, 0.9433]


@pytest.mark.parametrize("n", [0, -1])
def test_wilson_rejects_empty(n):
    with pytest.raises(ValueError):
        wilson(0, n)


# --- proportion_interval ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("values", [[1, 0, 1, 1, 0, 1, 1, 1], [0, 0, 0], [1] * 5, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_proportion_interval_singletons_is_wilson(values, alpha):
    clusters = [[float(v)] for v in values]
    assert proportion_interval(clusters, alpha) == pytest.approx(wilson(sum(values), len(values), alpha), abs=1e-12)


def test_proportion_interval_ignores_empty_clusters_and_rejects_none():
    assert proportion_interval([[1.0], [], [0.0], [1.0]]) == pytest.approx(wilson(2, 3), abs=1e-12)
    with pytest.raises(ValueError):
        proportion_interval([])
    with pytest.raises(ValueError):
        proportion_interval([[], []])


@pytest.mark.parametrize("cases", [[1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1, 0], [0, 0, 0, 0], [1, 1, 1]])
def test_proportion_interval_agreeing_draws_count_each_case_once(cases):
    clusters = [[float(v)] * 3 for v in cases]
    assert proportion_interval(clusters) == pytest.approx(wilson(sum(cases), len(cases)), abs=1e-12)


def _independent_clusters(seed=3, cases=30, draws=3, rate=0.6):
    rng = random.Random(seed)
    return [[float(rng.random() < rate) for _ in range(draws)] for _ in range(cases)]


def test_proportion_interval_width_between_cases_and_results():
    clusters = _independent_clusters()
    results = [v for c in clusters for v in c]
    p = sum(results) / len(results)
    lo, hi = proportion_interval(clusters)
    narrow = wilson(sum(results), len(results))
    wide = wilson(p * len(clusters), len(clusters))
    assert narrow[1] - narrow[0] - 1e-12 <= hi - lo <= wide[1] - wide[0] + 1e-12
    assert lo <= p <= hi
    # The effective sample size by hand: n / design effect = p(1-p) / CR1 variance, clamped to [cases, results].
    _, se = _cr1(clusters)
    effective = min(len(results), max(len(clusters), p * (1 - p) / se**2))
    assert (lo, hi) == pytest.approx(wilson(p * effective, effective), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_proportion_interval_contains_mean(seed):
    clusters = _independent_clusters(seed=seed, cases=12, draws=4, rate=0.3 + 0.1 * seed)
    values = [v for c in clusters for v in c]
    lo, hi = proportion_interval(clusters)
    assert lo <= sum(values) / len(values) <= hi


# --- mean_interval ----------------------------------------------------------------------------------------------------

SCORES = [0.31, 0.72, 0.55, 0.93, 0.12, 0.41, 0.66, 0.58, 0.27, 0.8]


@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("values", [SCORES, SCORES[:2], SCORES[:5], [2.0, 3.5, -1.0, 7.25]])
def test_mean_interval_singletons_is_t_interval(values, alpha):
    low, high = scipy_stats.t.interval(1 - alpha, len(values) - 1, loc=np.mean(values), scale=scipy_stats.sem(values))
    if all(0.0 <= v <= 1.0 for v in values):  # scores on the unit scale keep their interval on it
        low, high = max(0.0, low), min(1.0, high)
    assert mean_interval([[v] for v in values], alpha) == pytest.approx((low, high), rel=1e-9)


def test_mean_interval_binary_is_proportion_interval():
    clusters = [[1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    assert mean_interval(clusters) == proportion_interval(clusters)
    assert mean_interval([[1.0], [0.0], [1.0]], 0.1) == proportion_interval([[1.0], [0.0], [1.0]], 0.1)
    # a single binary case still gets Wilson's interval
    assert mean_interval([[1.0, 1.0]]) == proportion_interval([[1.0, 1.0]])


@pytest.mark.parametrize("clusters", [[], [[]], [[0.3]], [[0.3, 0.5, 0.9]], [[0.3, 0.5], []]])
def test_mean_interval_needs_two_cases(clusters):
    assert mean_interval(clusters) is None


CLUSTERED = [
    [0.31, 0.35, 0.28],
    [0.72, 0.8],
    [0.55, 0.51, 0.6, 0.49],
    [0.93],
    [0.12, 0.2, 0.15],
    [0.41, 0.47],
    [0.66, 0.61, 0.7],
    [0.58, 0.52],
]


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_mean_interval_clustered_is_cr1_t_interval(alpha):
    mean, se = _cr1(CLUSTERED)
    half = scipy_stats.t.ppf(1 - alpha / 2, len(CLUSTERED) - 1) * se
    assert mean_interval(CLUSTERED, alpha) == pytest.approx((mean - half, mean + half), rel=1e-9)


def test_cr1_matches_statsmodels_cluster_robust_ols():
    values = np.array([v for c in CLUSTERED for v in c])
    groups = np.array([g for g, c in enumerate(CLUSTERED) for _ in c])
    fit = sm.OLS(values, np.ones((len(values), 1))).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    mean, se = _cr1(CLUSTERED)
    n, g, k = len(values), len(CLUSTERED), 1
    assert fit.params[0] == pytest.approx(mean, rel=1e-12)
    # statsmodels' small-sample factor is G/(G-1) * (N-1)/(N-K): with one parameter (N-1)/(N-K) == 1, so its
    # cluster-robust SE of a mean is exactly CR1 (no (N-1)/N factor between them).
    meat = sum(sum(v - mean for v in c) ** 2 for c in CLUSTERED)
    assert fit.bse[0] ** 2 == pytest.approx(g / (g - 1) * (n - 1) / (n - k) * meat / n**2, rel=1e-10)
    assert fit.bse[0] == pytest.approx(se, rel=1e-10)
    # and its t interval (use_t=True) uses G - 1 degrees of freedom, as mean_interval does
    assert fit.df_resid_inference == g - 1
    assert tuple(fit.conf_int(0.05)[0]) == pytest.approx(mean_interval(CLUSTERED), rel=1e-9)


# --- McNemar ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("b, c", [(1, 9), (9, 1), (3, 3), (0, 5), (5, 0), (2, 7), (12, 4), (0, 1), (20, 31), (40, 60)])
def test_mcnemar_exact_matches_statsmodels_and_scipy(b, c):
    p = mcnemar_exact(b, c)
    assert p == pytest.approx(sm_contingency.mcnemar([[10, b], [c, 10]], exact=True).pvalue, rel=1e-10)
    assert p == pytest.approx(scipy_stats.binomtest(min(b, c), b + c, 0.5).pvalue, rel=1e-10)


def test_mcnemar_exact_no_discordant_pairs():
    assert mcnemar_exact(0, 0) == 1.0
    assert sm_contingency.mcnemar([[10, 0], [0, 10]], exact=True).pvalue == pytest.approx(1.0)


def test_mcnemar_exact_docstring_value():
    assert round(mcnemar_exact(1, 9), 4) == 0.0215


# --- sign-flip permutation test ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "diffs",
    [
        [0.5, -0.5, 0.5, 1.0, 0.0, 0.25, 0.25, -1.0, 0.75, 0.0],
        [1.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, -1.0],
        [0.3, 0.1, 0.2, 0.4, 0.15],
        [-0.2, 0.2],
        [2.0, 0.0],
        [0.1, -0.3, 0.2, 0.0, -0.05, 0.4, -0.1, 0.33, 0.0, 0.0, 0.25, -0.2],
    ],
)
def test_sign_flip_exact_matches_scipy(diffs):
    assert sign_flip_test(diffs) == pytest.approx(_scipy_sign_flip(diffs, n_resamples=np.inf), rel=1e-12)


def _exact_integer_sign_flip(values):
    """Exact two-sided p of the sign-flip test for integer differences, by convolving the sum's distribution."""
    counts = {0: 1}
    for v in values:
        nxt: dict[int, int] = {}
        for s, k in counts.items():
            nxt[s + v] = nxt.get(s + v, 0) + k
            nxt[s - v] = nxt.get(s - v, 0) + k
        counts = nxt
    observed = abs(sum(values))
    return Fraction(sum(k for s, k in counts.items() if abs(s) >= observed), 2 ** len(values))


@pytest.mark.parametrize("seed, exact", [(1, 0.0480775), (0, 0.1355299), (13, 0.4229561)])
def test_sign_flip_monte_carlo_near_exact_and_scipy(seed, exact):
    rng = random.Random(seed)
    diffs = [rng.choice([1, 2, 3]) * rng.choice([1, 1, -1]) for _ in range(40)] + [0, 0, 0]
    # 40 non-zero integer differences: the exact p by convolution (2^40 sign patterns are too many to list)
    assert float(_exact_integer_sign_flip([d for d in diffs if d])) == pytest.approx(exact, abs=1e-7)
    p = sign_flip_test([float(d) for d in diffs])
    assert p == pytest.approx(exact, abs=0.01)
    reference = (
        _scipy_sign_flip(diffs, n_resamples=99999, rng=np.random.default_rng(5))
        if _scipy_has_rng()
        else _scipy_sign_flip(diffs, n_resamples=99999, random_state=5)
    )
    assert p == pytest.approx(reference, abs=0.01)
    assert sign_flip_test([float(d) for d in diffs]) == p  # seeded: deterministic
    assert sign_flip_test(diffs, seed=1) == pytest.approx(exact, abs=0.01)


def _scipy_has_rng():
    import inspect

    return "rng" in inspect.signature(scipy_stats.permutation_test).parameters


def test_sign_flip_monte_carlo_never_zero():
    p = sign_flip_test([1.0] * 40)
    assert p == pytest.approx(1 / 20001)
    assert sign_flip_test([1.0] * 40, resamples=999) == pytest.approx(1 / 1000)


def test_sign_flip_exact_below_switch():
    diffs = [0.5, -0.1, 0.3, 0.2, 0.4, 0.25, -0.3, 0.6]
    exact = sign_flip_test(diffs)
    assert sign_flip_test(diffs, exact_below=3, resamples=50000) == pytest.approx(exact, abs=0.01)


@pytest.mark.parametrize("diffs", [[], [0.0], [0.0] * 30])
def test_sign_flip_all_zero(diffs):
    assert sign_flip_test(diffs) == 1.0


def test_sign_flip_single_difference():
    assert sign_flip_test([2.0]) == 1.0  # both sign patterns are as extreme
    assert sign_flip_test([1.0] * 5) == pytest.approx(2 / 32)


@pytest.mark.parametrize("worse, better", [(0, 1), (1, 9), (9, 1), (3, 3), (0, 6), (2, 7), (8, 8), (4, 12), (5, 0)])
@pytest.mark.parametrize("ties", [0, 5])
def test_sign_flip_of_unit_differences_is_mcnemar(worse, better, ties):
    diffs = [-1.0] * worse + [1.0] * better + [0.0] * ties
    random.Random(worse * 31 + better).shuffle(diffs)
    assert sign_flip_test(diffs) == pytest.approx(mcnemar_exact(worse, better), rel=1e-12)


# --- Holm -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pvalues",
    [
        [0.01, 0.04, 0.03, 0.005],
        [0.02, 0.02, 0.02, 0.5],
        [0.9, 0.99, 0.95, 1.0, 0.001],
        [0.3],
        [0.0, 0.0, 0.7, 0.7, 0.049],
        [0.011, 0.012, 0.013, 0.014, 0.2, 0.21, 0.6, 0.61],
    ],
)
def test_holm_matches_statsmodels(pvalues):
    expected = sm_multitest.multipletests(pvalues, method="holm")[1]
    assert holm(pvalues) == pytest.approx(list(expected), rel=1e-12, abs=1e-15)


def test_holm_empty():
    assert holm([]) == []


# --- pass@k / pass^k --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_and_pass_hat_k_by_enumeration(n):
    for passed in range(n + 1):
        draws = [1] * passed + [0] * (n - passed)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(draws, k))
            any_pass = Fraction(sum(any(s) for s in subsets), len(subsets))
            all_pass = Fraction(sum(all(s) for s in subsets), len(subsets))
            assert pass_at_k(n, passed, k) == pytest.approx(float(any_pass), abs=1e-12)
            assert pass_hat_k(n, passed, k) == pytest.approx(float(all_pass), abs=1e-12)


@pytest.mark.parametrize("function", [pass_at_k, pass_hat_k])
@pytest.mark.parametrize("n, passed, k", [(5, 2, 0), (5, 2, 6), (5, 6, 2), (5, -1, 2), (0, 0, 1), (3, 1, -1)])
def test_pass_k_rejects_bad_arguments(function, n, passed, k):
    with pytest.raises(ValueError):
        function(n, passed, k)


# --- paired -----------------------------------------------------------------------------------------------------------


def _single_runs(before_passes, after_passes):
    return [[float(v)] for v in before_passes], [[float(v)] for v in after_passes]


def _bonett_price(worse, better, n, z):
    p12, p21 = (worse + 1) / (n + 2), (better + 1) / (n + 2)
    diff = p21 - p12
    se = math.sqrt((p12 + p21 - (p12 - p21) ** 2) / (n + 2))
    return max(-1.0, diff - z * se), min(1.0, diff + z * se)


@pytest.mark.parametrize(
    "pairs",
    [
        # (before, after) counts: (1, 1), (1, 0) worse, (0, 1) better, (0, 0)
        (20, 7, 2, 6),
        (10, 1, 9, 5),
        (3, 0, 0, 2),
        (0, 4, 0, 0),
        (0, 0, 5, 0),
        (12, 3, 3, 12),
    ],
)
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_paired_proportion_single_draw_is_mcnemar_with_bonett_price(pairs, alpha):
    both, worse, better, neither = pairs
    before = [1] * both + [1] * worse + [0] * better + [0] * neither
    after = [1] * both + [0] * worse + [1] * better + [0] * neither
    order = list(range(len(before)))
    random.Random(sum(pairs)).shuffle(order)
    b, a = _single_runs([before[i] for i in order], [after[i] for i in order])
    result = paired(b, a, proportion=True, alpha=alpha)
    n = len(before)
    assert result.test == "McNemar exact"
    assert result.cases == n
    assert result.discordant == (worse, better)
    assert result.p_value == mcnemar_exact(worse, better)
    assert result.before == pytest.approx(sum(before) / n)
    assert result.after == pytest.approx(sum(after) / n)
    assert result.difference == pytest.approx((better - worse) / n)
    assert (result.low, result.high) == pytest.approx(_bonett_price(worse, better, n, z_value(alpha)), abs=1e-12)
    assert -1.0 <= result.low <= result.high <= 1.0


def test_paired_proportion_interval_covers_the_difference():
    for seed in range(8):
        rng = random.Random(seed)
        before = [float(rng.random() < 0.7) for _ in range(40)]
        after = [float(rng.random() < 0.6) for _ in range(40)]
        result = paired([[v] for v in before], [[v] for v in after], proportion=True)
        assert result.low <= result.difference <= result.high


def _repeated(seed, cases, draws, before_rate, drop):
    rng = random.Random(seed)
    rates = [rng.uniform(before_rate - 0.25, before_rate + 0.25) for _ in range(cases)]
    before = [[float(rng.random() < r) for _ in range(draws)] for r in rates]
    after = [[float(rng.random() < r - drop) for _ in range(draws)] for r in rates]
    return before, after


def test_paired_proportion_with_repeats_is_sign_flip():
    before, after = _repeated(seed=2, cases=10, draws=3, before_rate=0.6, drop=0.1)
    result = paired(before, after, proportion=True)
    assert result.test.startswith("sign-flip")
    assert result.discordant == (0, 0)
    d = [sum(a) / len(a) - sum(b) / len(b) for b, a in zip(before, after)]
    assert result.p_value == pytest.approx(sign_flip_test(d), rel=1e-12)
    assert result.difference == pytest.approx(sum(d) / len(d))
    assert result.low <= result.difference <= result.high


def test_paired_clear_drop_is_significant():
    before, after = _repeated(seed=1, cases=60, draws=3, before_rate=0.85, drop=0.15)
    result = paired(before, after, proportion=True)
    assert result.test == "sign-flip permutation (20000 draws)"
    assert result.difference == pytest.approx(-0.15)
    assert result.p_value < 0.01
    assert result.high < 0


@pytest.mark.parametrize("proportion", [True, False])
def test_paired_identical_runs(proportion):
    before, _ = _repeated(seed=4, cases=20, draws=3, before_rate=0.5, drop=0.0)
    result = paired(before, before, proportion=proportion)
    assert result.difference == 0.0
    assert result.p_value == 1.0
    assert result.low <= 0.0 <= result.high
    single = [[c[0]] for c in before]
    assert paired(single, single, proportion=proportion).p_value == 1.0


SCORE_BEFORE = [0.61, 0.72, 0.55, 0.83, 0.47, 0.66, 0.7, 0.52, 0.78, 0.59, 0.64, 0.49]
SCORE_AFTER = [0.58, 0.69, 0.57, 0.74, 0.41, 0.66, 0.62, 0.5, 0.71, 0.6, 0.55, 0.45]


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_paired_scores_t_interval_and_permutation(alpha):
    result = paired([[v] for v in SCORE_BEFORE], [[v] for v in SCORE_AFTER], proportion=False, alpha=alpha)
    d = np.array(SCORE_AFTER) - np.array(SCORE_BEFORE)
    expected = scipy_stats.t.interval(1 - alpha, len(d) - 1, loc=d.mean(), scale=scipy_stats.sem(d))
    assert (result.low, result.high) == pytest.approx(expected, rel=1e-9)
    assert result.difference == pytest.approx(d.mean(), rel=1e-12)
    assert result.test == "sign-flip permutation (exact)"
    assert result.p_value == pytest.approx(_scipy_sign_flip(d, n_resamples=np.inf), rel=1e-9)
    assert result.discordant == (0, 0)


def test_paired_scores_with_repeats_use_case_means():
    rng = random.Random(9)
    before = [[rng.gauss(0.6, 0.1) for _ in range(3)] for _ in range(25)]
    after = [[rng.gauss(0.55, 0.1) for _ in range(3)] for _ in range(25)]
    result = paired(before, after, proportion=False)
    d = np.array([np.mean(a) - np.mean(b) for b, a in zip(before, after)])
    expected = scipy_stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=scipy_stats.sem(d))
    assert (result.low, result.high) == pytest.approx(expected, rel=1e-9)
    assert result.test == "sign-flip permutation (20000 draws)"
    reference = (
        _scipy_sign_flip(d, n_resamples=99999, rng=np.random.default_rng(1))
        if _scipy_has_rng()
        else _scipy_sign_flip(d, n_resamples=99999, random_state=1)
    )
    assert result.p_value == pytest.approx(reference, abs=0.01)


def test_paired_single_case_scores_have_no_interval():
    result = paired([[0.5]], [[0.7]], proportion=False)
    assert result.low is None and result.high is None
    assert result.detectable is None and result.cases_for is None and result.repeats_for is None
    assert result.difference == pytest.approx(0.2)


def test_paired_sizing_is_sane():
    before, after = _repeated(seed=5, cases=30, draws=3, before_rate=0.6, drop=0.05)
    small = paired(before, after, proportion=True, target=0.05)
    large = paired(before * 4, after * 4, proportion=True, target=0.05)
    for result in (small, large):
        assert result.detectable is not None and result.detectable > 0
        assert result.cases_for is not None and result.cases_for >= result.cases
        assert result.repeats_for is None or result.repeats_for >= 1
        assert result.target == 0.05
    assert large.detectable < small.detectable
    # same per-case spread, four times the cases: about half the detectable difference (the sample spread's n - 1)
    assert small.detectable / 2.1 < large.detectable < small.detectable / 1.9
    factor = z_value(0.05) + scipy_stats.norm.ppf(0.8)
    for result, (b, a) in ((small, (before, after)), (large, (before * 4, after * 4))):
        d = [sum(y) / len(y) - sum(x) / len(x) for x, y in zip(b, a)]  # the cases' own spread, no pseudo-cases
        assert result.detectable == pytest.approx(factor * np.std(d, ddof=1) / math.sqrt(result.cases), rel=1e-9)
    # a target already detectable needs no more cases
    easy = paired(before, after, proportion=True, target=small.detectable * 1.5)
    assert easy.cases_for == easy.cases
    assert easy.repeats_for == 1

    scores = paired([[v] for v in SCORE_BEFORE], [[v] for v in SCORE_AFTER], proportion=False, target=0.01)
    d = np.array(SCORE_AFTER) - np.array(SCORE_BEFORE)
    factor = z_value(0.05) + scipy_stats.norm.ppf(0.8)
    assert scores.detectable == pytest.approx(factor * d.std(ddof=1) / math.sqrt(len(d)), rel=1e-9)
    assert scores.cases_for == math.ceil(len(d) * (scores.detectable / 0.01) ** 2)


def test_paired_zero_variance_differences_have_no_detectable():
    before = [[v] for v in SCORE_BEFORE]
    after = [[v + 0.1] for v in SCORE_BEFORE]
    result = paired(before, after, proportion=False)
    assert result.difference == pytest.approx(0.1)
    assert result.detectable is None and result.cases_for is None and result.repeats_for is None
    assert result.p_value == pytest.approx(2 / 2 ** len(SCORE_BEFORE))


@pytest.mark.parametrize(
    "before, after", [([[1.0], [0.0]], [[1.0]]), ([], []), ([[1.0], []], [[1.0], [0.0]]), ([[1.0], [0.0]], [[1.0], []])]
)
def test_paired_rejects_mismatched_runs(before, after):
    with pytest.raises(ValueError):
        paired(before, after, proportion=True)


# --- properties -------------------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 300), data=st.data(), alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_wilson_contains_the_proportion(n, data, alpha):
    successes = data.draw(st.integers(0, n))
    lo, hi = wilson(successes, n, alpha)
    assert 0.0 <= lo <= hi <= 1.0
    assert lo - 1e-12 <= successes / n <= hi + 1e-12


@settings(max_examples=150, deadline=None)
@given(
    clusters=st.lists(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=5), min_size=1, max_size=25),
    alpha=st.sampled_from([0.05, 0.1]),
)
def test_proportion_interval_contains_the_mean(clusters, alpha):
    values = [v for c in clusters for v in c]
    lo, hi = proportion_interval(clusters, alpha)
    assert 0.0 <= lo <= hi <= 1.0
    assert lo - 1e-12 <= sum(values) / len(values) <= hi + 1e-12
    cases = wilson(sum(values) / len(values) * len(clusters), len(clusters), alpha)
    results = wilson(sum(values), len(values), alpha)
    assert results[1] - results[0] - 1e-9 <= hi - lo <= cases[1] - cases[0] + 1e-9


def test_large_samples_take_the_exact_tests_fast_forms():
    """Thousands of discordant pairs: McNemar's sum in logs; thousands of differences: the sign-flip test's normal
    form."""
    for worse, better in ((600, 500), (5100, 4900), (2000, 1)):
        assert mcnemar_exact(worse, better) == pytest.approx(
            scipy_stats.binomtest(better, worse + better, 0.5).pvalue, rel=1e-9, abs=1e-300
        )
    rng = np.random.default_rng(11)
    d = rng.choice([-1.0, -0.5, 0.5, 1.0], size=6000) + 0.01
    reference = scipy_stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=4000, random_state=1
    ).pvalue
    assert sign_flip_test(d.tolist()) == pytest.approx(reference, abs=0.03)
    assert paired([[v] for v in d], [[0.0]] * len(d), proportion=False).test == "sign-flip permutation (normal)"

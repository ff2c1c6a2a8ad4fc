"""Long statistical validation (``make validate``): simulated deal-mode runs
against the exact values of tests/exact_heavenly.py (which shares no code
with the simulator). Tolerances come from standard errors of the exact
probabilities, never from a lucky run: |estimate - exact| < 4 standard
errors, and chi-square p-values > 1e-4 for whole distributions.

Runs: 4,000,000 ningbo-3baida deals, 2,000,000 ningbo-7baida deals and
1,000,000 ninghai deals, through the whole pipeline (simulate -> Parquet ->
report tables)."""
from __future__ import annotations

from math import sqrt

import numpy as np
import polars as pl
import pytest
from scipy.stats import chisquare, poisson

from nbsim.analysis.report import report as R
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM

import exact_heavenly as E

pytestmark = pytest.mark.validate

RUNS = {"ningbo-3baida": ("3baida", 4_000_000), "ningbo-7baida": ("7baida", 2_000_000),
        "ninghai": ("none", 1_000_000)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("validate")
    out = {}
    for i, (name, (wilds, n)) in enumerate(RUNS.items()):
        res = SIM.simulate(name, deals=n, seed=20240 + i, out=base / name,
                           shard_size=250_000, workers=2)
        assert res.deals_done == n
        out[name] = (wilds, n, res.out, R.summarize(res.out))
    return out


def _z(k, n, p):
    return (k / n - p) / sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("name", ["ningbo-3baida", "ningbo-7baida"])
def test_heavenly_probability_within_4_se(runs, name):
    wilds, n, _, rep = runs[name]
    h = rep.tables["heavenly"].df.row(0, named=True)
    p = float(E.heavenly_probability(wilds))
    z = _z(h["complete"], n, p)
    print(f"{name}: simulated {h['complete']}/{n} = {h['p']:.4e} "
          f"(Wilson {h['ci_low']:.3e}..{h['ci_high']:.3e}); exact {p:.6e}; z = {z:+.2f}")
    assert abs(z) < 4


def test_ninghai_heavenly_count_is_plausible(runs):
    wilds, n, _, rep = runs["ninghai"]
    k = rep.tables["heavenly"].df["complete"][0]
    mu = n * float(E.heavenly_probability("none"))
    # two-sided Poisson tail: far too rare for a 4-standard-error test
    assert poisson.sf(k - 1, mu) > 1e-4 and poisson.cdf(k, mu) > 1e-4


def _chi2(obs, exp):
    obs = np.asarray(obs, float)
    exp = np.asarray(exp, float)
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(exp[keep], exp[~keep].sum())
    if e[-1] == 0:
        o, e = o[:-1], e[:-1]
    return chisquare(o, e * o.sum() / e.sum()).pvalue


@pytest.mark.parametrize("name", ["ningbo-3baida", "ningbo-7baida"])
def test_wilds_held_match_the_closed_form(runs, name):
    wilds, n, out, rep = runs[name]
    table = rep.tables["wilds_per_seat"].df
    for seat, hand in (("E", 14), ("S", 13), ("W", 13), ("N", 13)):
        dist = E.wilds_distribution(wilds, hand)
        ws = range(max(dist) + 1)
        got = dict(zip(table["wilds"].to_list(), table[seat].to_list(), strict=False))
        obs = [round(got.get(w, 0.0) * n) for w in ws]
        exp = [float(dist.get(w, 0)) * n for w in ws]
        assert _chi2(obs, exp) > 1e-4, (seat, obs, exp)
        for w in ws:
            p = float(dist.get(w, 0))
            if 0 < p < 1 and n * p >= 10:
                assert abs(_z(obs[w], n, p)) < 4, (seat, w)


@pytest.mark.parametrize("name", ["ningbo-3baida", "ningbo-7baida"])
def test_heavenly_by_dealer_wilds(runs, name):
    wilds, n, _, rep = runs[name]
    by = E.heavenly_by_dealer_wilds(wilds)
    df = rep.tables["heavenly_by_wilds"].df
    for row in df.iter_rows(named=True):
        pw, pc = by[row["dealer_wilds"]]
        p = float(pc / pw)
        if row["deals"] * p >= 10:
            assert abs(_z(row["complete"], row["deals"], p)) < 4, row


def test_every_row_of_a_run_is_consistent(runs):
    """The hands in the Parquet files: 14/13 tiles, wilds column matches."""
    wilds, n, out, _ = runs["ningbo-7baida"]
    lf = FILES.scan_run(out)
    bad = (lf.select(
        (pl.col("hand_e").str.len_bytes() - pl.col("hand_e").str.count_matches("[mpszf]")
         != 14).sum().alias("e"),
        (pl.col("hand_s").str.len_bytes() - pl.col("hand_s").str.count_matches("[mpszf]")
         != 13).sum().alias("s"),
    ).collect())
    assert bad.row(0) == (0, 0)

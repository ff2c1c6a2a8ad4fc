"""The calibration of the deal-in chances (docs/results/calibration.md): the
measurement's statistics on a constructed case, the immediate deal-in of
a world (``playout.discard_wins``), and a visible flush threat whose
honour waits advise must not call safe."""
from __future__ import annotations

import numpy as np
import pytest
from test_lookahead import position

from benchmarks.calibrate_dealin import calibration, cluster_mean, refine_of
from nbsim.kernels import codes as C
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import parse_tile

# South shows four melds of p and holds one tile: ready on it, an honour
# as legal a single wait as a p tile (a half flush then). 2z: three copies
# unseen by East, none let go by.
THREAT_MELDS = {1: [(C.MELD_PUNG, "2p", 0), (C.MELD_CHOW, "4p", 0), (C.MELD_PUNG, "8p", 2),
                    (C.MELD_PUNG, "9p", 3)]}
THREAT_PONDS = {0: "9s1z", 1: "1z3m9s", 2: "2s6z1z", 3: "4z9m9s"}
THREAT_HAND = "159m258s1z5p7m3s6m4s2z6z"


def test_calibration_of_a_constructed_case():
    # eight predictions in two deals: four at 0 (one dealt in), four at 0.5
    # (two dealt in)
    pred = np.array([0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5])
    obs = np.array([0, 0, 0, 1, 1, 0, 1, 0], bool)
    deal = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    c = calibration(pred, obs, deal, ref=np.full(8, 0.25))
    assert c.n == 8
    assert c.brier == pytest.approx((1.0 + 4 * 0.25) / 8)
    # against 0.25 everywhere: squared errors 0.0625 x5 and 0.5625 x3
    assert c.diff == pytest.approx(c.brier - (5 * 0.0625 + 3 * 0.5625) / 8)
    lo, hi = c.bins[0], c.bins[-1]
    assert len(c.bins) == 2
    assert (lo.n, lo.predicted, lo.observed) == (4, 0.0, 0.25)
    assert (hi.n, hi.predicted, hi.observed) == (4, 0.5, 0.5)
    assert lo.obs_lo < 0.25 < lo.obs_hi and hi.hi == 1.0
    # the deals' squared errors sum to 0.5 and 1.5: mean 0.25, se from
    # the clusters' deviations (0.5 - 4 x 0.25, 1.5 - 4 x 0.25)
    mean, se = cluster_mean((pred - obs) ** 2, deal)
    assert mean == pytest.approx(0.25)
    assert se == pytest.approx(np.sqrt((0.25 + 0.25) * 2 / 1) / 8)
    with pytest.raises(ValueError, match="predictions"):
        calibration(pred, obs[:4], deal)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        calibration(pred + 0.6, obs, deal)
    with pytest.raises(ValueError, match="allowed a number 0 to 3"):
        refine_of("5h")


def test_discard_wins_reads_the_worlds_hands():
    """``playout.discard_wins``: South, holding only 2z beside its four p
    melds, wins on 2z and on nothing else."""
    from nbsim.kernels import rng
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    rs = load_rules("ningbo-3baida")
    pos = position(THREAT_HAND, melds=THREAT_MELDS, ponds=THREAT_PONDS, tiles_left=20,
                   indicator="8s")
    view = view_of(rs, pos)
    sr = ES.new_search(1, 2)
    g = ES.search_game(sr)
    rng.stream_init(np.uint64(1), np.int64(0), rng.STREAM_USER, sr.st)
    assert PL.build_world(view, g, sr.st, sr.pool, sr.unseen, np.int64(0), sr.out) == 0
    g.hands[1][:] = 0
    g.hands[1][parse_tile("2z")] = 1
    wins = np.zeros(C.N_KINDS, np.bool_)
    PL.discard_wins(view, g, sr.out, wins)
    assert wins[parse_tile("2z")]
    south = [k for k in range(C.N_KINDS) if PL.wins_on(view, g, 1, k, 0, sr.out)]
    assert south == [parse_tile("2z")]
    counts = np.zeros(C.N_KINDS)
    assert PL.discard_win_counts(view, sr, np.int64(2), np.uint64(1), np.int64(0), wins,
                                 counts) == 2
    assert counts.max() <= 2
    # a flower that is not wild wins nothing, and asking touches no count
    # past the 34 natural kinds (a copy of wins_on compiled with bounds checks)
    import numba
    bounded = numba.njit(boundscheck=True)(PL.wins_on.py_func)
    for k in range(C.FLOWER0, C.N_KINDS):
        assert not view.wild[k] and not bounded(view, g, np.int64(1), np.int64(k), np.int64(0),
                                                sr.out)


def test_flush_threat_honour_wait_is_not_called_safe():
    """Advise's worlds (the default opponent model) give South's legal
    single waits on honours a deal-in chance comparable to uniform hands'
    (``opponents`` 0, where only the tile counts speak): before the deal
    ends, 2z deals in to South 0.026 .. 0.040 of the time with uniform
    hands and 0.027 .. 0.040 with the default on 8 seeds of 8 (1 .. 8,
    1,000 samples); with a refined flush target that lets every honour go
    (model 3 without ``playout.FLUSH_HONOURS``) 0.004 .. 0.008."""
    from nbsim.play.evaluation import evaluate
    rs = load_rules("ningbo-3baida")
    pos = position(THREAT_HAND, melds=THREAT_MELDS, ponds=THREAT_PONDS, tiles_left=20,
                   indicator="8s")
    honour = parse_tile("2z")
    default = evaluate(rs, pos, samples=1000, seed=3, kinds=[honour]).candidates[0]
    uniform = evaluate(rs, pos, samples=1000, seed=3, kinds=[honour],
                       opponents=0).candidates[0]
    assert uniform.p_deal_in_to[1] > 0.02
    assert default.p_deal_in_to[1] > 0.5 * uniform.p_deal_in_to[1]

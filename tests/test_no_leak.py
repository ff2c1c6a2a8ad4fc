"""No hidden information reaches a policy.

At sampled decision points of real deals (every policy, every variant), the
engine answers the decision twice: once as played, and once after shuffling
everything the deciding seat cannot see, consistently with what it can: the
other seats' concealed tiles (each keeps its count; no non-wild flower enters a
hand) and the order of the undrawn wall (``engine.PR_*``,
``games.probe_batch``). Every answer must be the same. A policy reads only
its ``View`` (nbsim/kernels/policies/view.py), so a difference would mean the
view leaks a hidden tile.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nbsim.kernels import rng
from nbsim.kernels.engine import games as KG
from nbsim.kernels.engine import loop as KE
from nbsim.kernels.engine import probe as EP
from nbsim.kernels.engine import state as ES
from nbsim.kernels.policies.catalog import NAMES, SEARCH
from nbsim.policy_specs import as_policies, kernel_arrays
from nbsim.rules.ruleset import load_rules

LOOKAHEAD_PROBED = "lookahead:samples=6:gap=1000:claims=1:kongs=1:confirm=6:opponents=3"
SHIPPED = sorted(p.stem for p in (Path(__file__).parents[1] / "configs").glob("*.toml"))


def _probes(n_deals: int, max_decision: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    probes = np.zeros((n_deals, EP.PROBE_LEN), np.int64)
    probes[:, EP.PR_AT] = rng.integers(0, max_decision, n_deals)
    probes[:, EP.PR_SEED] = rng.integers(0, 2**62, n_deals)
    return probes


@pytest.mark.parametrize("variant", SHIPPED)
def test_decisions_ignore_hidden_tiles(variant, tables):
    rs = load_rules(variant)
    # the search policy searches every discard, claim and kong here (gap=1000,
    # claims=1, kongs=1), on few samples, and on fewer deals: its playouts make it slow
    names = [LOOKAHEAD_PROBED if p in SEARCH else p for p in NAMES]
    mixes = [tuple([p] * 4) for p in names] + [("defend", "value", "random", "greedy")]
    kinds = np.zeros(4, np.int64)
    moved = 0
    for j, mix in enumerate(mixes):
        pols = kernel_arrays(as_policies(mix), rs.array, tables)
        probes = _probes(40 if mix[0] == LOOKAHEAD_PROBED else 150, 120, 100 + j)
        bad = KG.probe_batch(rs.array, tables, np.uint64(77), np.int64(1000 * j), pols,
                              ES.new_state(), probes)
        hit = probes[:, EP.PR_KIND] >= 0
        assert bad == 0, (variant, mix, probes[hit & (probes[:, EP.PR_ANSWER]
                                                     != probes[:, EP.PR_SHUFFLED])][:3])
        for q in range(4):
            kinds[q] += int((probes[hit, EP.PR_KIND] == q).sum())
        moved += int(probes[hit, EP.PR_MOVED].sum())
    # the probes reached every kind of decision and really moved hidden tiles
    assert kinds[EP.Q_DISCARD] > 100 and kinds[EP.Q_CLAIM] > 10 and kinds[EP.Q_WIN] > 0, kinds
    assert moved > 1000


def test_shuffle_moves_only_hidden_tiles(tables):
    """The probe's shuffle keeps everything the deciding seat sees and
    really moves what it cannot (so the check above can fail)."""
    rs = load_rules("ningbo-3baida")
    pols = kernel_arrays(as_policies("value"), rs.array, tables)
    g = ES.new_state()
    out = np.zeros(ES.OUT_LEN, np.int64)
    hands = np.zeros((4, 42), np.int8)
    flowers = np.zeros(4, np.uint8)
    # stop the deal early: the probe at decision 30 restores the state, so
    # play it, then shuffle the final state of a deal that went long
    for deal in range(20):
        KE.play_deal(rs.array, tables, np.uint64(5), deal, 0, False, pols, g, out,
                     np.zeros((0, 6), np.int32), hands, flowers, np.zeros(0, np.int64))
        if out[ES.O_TILES_LEFT] > 30:
            break
    before_hands = g.hands.copy()
    before_wall = g.wall.copy()
    lo, hi = int(g.ws[0]), int(g.ws[1])
    seat = 2
    rng.stream_init(np.uint64(9), 0, rng.STREAM_USER, g.probe_rng)
    moved = EP.shuffle_hidden(g, seat)
    assert moved > 0
    assert (g.hands[seat] == before_hands[seat]).all()
    assert (g.hands.sum(axis=1) == before_hands.sum(axis=1)).all()
    for k in range(34, 42):
        if not g.wild[k]:
            assert not g.hands[:, k].any()      # no set-aside kind of flower enters a hand

    def kinds(hs, wall):
        from nbsim.kernels.wall import tile_kind
        c = np.zeros(42, np.int64)
        for s in range(4):
            if s != seat:
                c += hs[s]
        for p in range(lo, hi + 1):
            c[tile_kind(int(wall[p]))] += 1
        return c
    assert (kinds(g.hands, g.wall) == kinds(before_hands, before_wall)).all()
    assert (g.wall[:lo] == before_wall[:lo]).all()
    assert (g.wall[hi + 1:] == before_wall[hi + 1:]).all()
    EP.restore_hidden(g)
    assert (g.hands == before_hands).all() and (g.wall == before_wall).all()


def test_kong_search_ignores_hidden_tiles(tables):
    """``lookahead:kongs=1``'s own-turn kong answers (its playouts of each
    kong) come from the view alone: probes land on kong questions and none
    sees a hidden tile move the answer (gap=0: few discard searches)."""
    rs = load_rules("ningbo-7baida")
    pols = kernel_arrays(as_policies(("lookahead:samples=6:gap=0:kongs=1",) * 4),
                         rs.array, tables)
    probes = _probes(400, 120, 5)
    assert KG.probe_batch(rs.array, tables, np.uint64(77), np.int64(0), pols, ES.new_state(),
                          probes) == 0
    assert int((probes[:, EP.PR_KIND] == EP.Q_KONG).sum()) > 0

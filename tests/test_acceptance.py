"""defend's tile acceptance (``policies.defend.acceptances``) against trying
every draw on every candidate discard: its shortcuts (a draw that leaves its
group's fit class alone, draw classes looked up once for the whole hand,
draws giving a group the same class, all pungs by the held count) must give
the same counts on any hand, target, wild set and number of declared melds.

docs/rules.md §3 (wilds) and §10 (shanten).
"""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels.policies import common as PC
from nbsim.kernels.policies import defend as D
from nbsim.kernels.policies.view import MEMO_W, N_WORK

SETTINGS = dict(derandomize=True, deadline=None, max_examples=400,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
TARGETS = list(range(PC.N_TARGETS))


@njit(cache=True)
def _slow(tables, wild, nat, w, n_melds, target, s_ref, unseen):
    """Unseen tiles whose draw brings the hand ``nat`` (3k + 1 naturals with
    ``w`` wilds) closer than ``s_ref``: every kind tried."""
    n = 0
    for t in range(C.N_PLAY):
        if unseen[t] == 0 or wild[t] or nat[t] >= 4 or not PC.kind_in_target(target, t):
            continue
        nat[t] += 1
        j0, j1, j2, j3 = H.group_indices(nat)
        if PC.shanten_toward(target, nat, w, n_melds, j0, j1, j2, j3, tables) < s_ref:
            n += unseen[t]
        nat[t] -= 1
    for k in range(C.N_KINDS):
        if wild[k]:
            n += unseen[k]
    return n


@njit(cache=True)
def _counts(tables, hand, wild, n_melds, target, unseen, fast, slow):
    """Each candidate discard of ``hand`` (int8[42], 3k + 2 tiles) at the
    best shanten toward ``target``: its acceptance by ``acceptances``
    (``fast``) and by trying every draw (``slow``); -1 elsewhere."""
    nat = np.zeros(C.N_PLAY, np.int8)
    w = PC.split_hand(hand, wild, nat)
    i0, i1, i2, i3 = H.group_indices(nat)
    sh = np.zeros(N_WORK, np.int64)
    best = PC.BIG
    for k in range(C.N_KINDS):
        sh[k] = PC.BIG
        if hand[k] == 0:
            continue
        ww = w - 1 if wild[k] else w
        if not wild[k]:
            nat[k] -= 1
        j0, j1, j2, j3 = H.group_indices(nat)
        sh[k] = PC.shanten_toward(target, nat, ww, n_melds, j0, j1, j2, j3, tables)
        if not wild[k]:
            nat[k] += 1
        best = min(best, sh[k])
    acc = np.zeros(C.N_KINDS, np.float64)
    kinds = np.zeros(C.N_KINDS, np.int64)       # the held kinds, ascending
    n_kinds = 0
    for k in range(C.N_KINDS):
        if hand[k] > 0:
            kinds[n_kinds] = k
            n_kinds += 1
    top = D.acceptances(tables, wild, nat, w, n_melds, target, best, sh, i0, i1, i2, i3,
                        unseen, acc, sh, kinds, n_kinds, np.zeros(4 * MEMO_W, np.int8))
    for k in range(C.N_KINDS):
        fast[k] = -1.0
        slow[k] = -1.0
        if hand[k] == 0 or sh[k] != best:
            continue
        fast[k] = acc[k]
        if wild[k]:
            slow[k] = _slow(tables, wild, nat, w - 1, n_melds, target, best, unseen)
        else:
            nat[k] -= 1
            slow[k] = _slow(tables, wild, nat, w, n_melds, target, best, unseen)
            nat[k] += 1
    return top


def _check(tables, hand, wild, n_melds, target, unseen):
    fast = np.zeros(C.N_KINDS)
    slow = np.zeros(C.N_KINDS)
    top = _counts(tables, hand, wild, n_melds, target, unseen, fast, slow)
    assert (fast == slow).all(), (fast, slow)
    assert top == max(0.0, slow.max())
    return fast


@st.composite
def situations(draw, targets=TARGETS, pool_kinds=None):
    """A hand of 3k + 2 tiles (naturals + wilds) from a 4-copy wall, a wild
    set of one or two kinds, a target (from ``targets``) and the unseen
    copies of each kind; ``pool_kinds``: draw the naturals from that many
    kinds only (pairs, pungs and fours)."""
    n_melds = draw(st.integers(0, 4))
    k = 4 - n_melds
    n_wild_kinds = draw(st.integers(0, 2))
    wild_kinds = draw(st.lists(st.integers(0, 33), min_size=n_wild_kinds,
                               max_size=n_wild_kinds, unique=True))
    w = draw(st.integers(0, min(3, 3 * k + 2))) if wild_kinds else 0
    narrow = draw(st.booleans())           # few kinds: fours and isolated tiles
    pool = [t for t in (range(0, 34, 3) if narrow else range(34)) if t not in wild_kinds]
    if pool_kinds is not None:
        pool = draw(st.lists(st.sampled_from(pool), min_size=pool_kinds, max_size=pool_kinds,
                             unique=True))
    nat = np.zeros(34, dtype=np.int8)
    for _ in range(3 * k + 2 - w):
        free = [t for t in pool if nat[t] < 4]
        nat[draw(st.sampled_from(free))] += 1
    wild = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild[wild_kinds] = True
    unseen = np.array([draw(st.integers(0, 4 - min(4, int(nat[t]) if t < 34 else 0)))
                       for t in range(C.N_KINDS)], dtype=np.int64)
    hand = np.zeros(C.N_KINDS, dtype=np.int8)
    hand[:34] = nat
    for i in range(w):
        hand[wild_kinds[i % len(wild_kinds)]] += 1
    return hand, n_melds, draw(st.sampled_from(targets)), wild, unseen


@settings(**SETTINGS)
@given(situations())
def test_acceptances_count_what_trying_every_draw_counts(tables, sit):
    hand, n_melds, target, wild, unseen = sit
    _check(tables, hand, wild, n_melds, target, unseen)


@settings(**{**SETTINGS, "max_examples": 200})
@given(situations(targets=[PC.TG_ALL_PUNGS], pool_kinds=6))
def test_all_pungs_acceptances_from_held_counts(tables, sit):
    """Toward all pungs from few kinds (pairs, pungs and fours held):
    discarding from any held count moves the unseen copies between the
    held-count buckets exactly as trying every draw does."""
    hand, n_melds, target, wild, unseen = sit
    _check(tables, hand, wild, n_melds, target, unseen)


def test_isolated_draws_count_when_a_group_is_empty(tables):
    """Four complete melds and a wild wait on anything: every unseen tile
    counts, the isolated kinds included; without the wild, only the pair."""
    from nbsim.rules.tiles import parse_counts
    wild = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild[33] = True                                     # red dragon is wild
    unseen = np.full(C.N_KINDS, 2, dtype=np.int64)
    hand = parse_counts("123m456m789m111p9s7z").copy()  # 7z: the wild
    acc = _check(tables, hand, wild, 0, PC.TG_OPEN, unseen)
    assert acc[C.SOU0 + 8] >= 2 * 33                    # 9s out: every natural kind but a full one
    hand2 = parse_counts("123m456m789m111p5s9s").copy()
    acc2 = _check(tables, hand2, wild, 0, PC.TG_OPEN, unseen)
    assert acc2[C.SOU0 + 8] == 2 + 2                    # 9s out: 5s for the pair, and the wild

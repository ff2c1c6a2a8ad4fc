"""defend's tile acceptance (``policies.defend.acceptance``) against trying
every kind: its shortcuts (a draw that leaves its group's fit class alone,
one isolated kind tried for all, all pungs by the held count) must give the
same count on any hand, target, wild set and number of declared melds.

RULES.md section 3 (wilds), section 10 (shanten); docs/rules.md section 10.
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

SETTINGS = dict(derandomize=True, deadline=None, max_examples=400,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
TARGETS = list(range(PC.N_TARGETS))


@njit(cache=True)
def _counts(tables, wild, nat, w, n_melds, target, unseen):
    """(acceptance, every kind tried) of the hand ``nat`` (3k + 1 naturals
    with ``w`` wilds), both against the hand's own shanten toward target."""
    i0, i1, i2, i3 = H.group_indices(nat)
    s_ref = PC.shanten_toward(target, nat, w, n_melds, i0, i1, i2, i3, tables)
    fast = D.acceptance(tables, wild, nat, w, n_melds, target, s_ref, i0, i1, i2, i3, unseen)
    slow = 0
    for t in range(C.N_PLAY):
        if unseen[t] == 0 or wild[t] or nat[t] >= 4 or not PC.kind_in_target(target, t):
            continue
        nat[t] += 1
        j0, j1, j2, j3 = H.group_indices(nat)
        if PC.shanten_toward(target, nat, w, n_melds, j0, j1, j2, j3, tables) < s_ref:
            slow += unseen[t]
        nat[t] -= 1
    for k in range(C.N_KINDS):
        if wild[k]:
            slow += unseen[k]
    return fast, slow


@st.composite
def situations(draw):
    """A hand of 3k + 1 tiles (naturals + wilds) from a 4-copy wall, a wild
    set of one or two kinds, a target and the unseen copies of each kind."""
    n_melds = draw(st.integers(0, 4))
    k = 4 - n_melds
    n_wild_kinds = draw(st.integers(0, 2))
    wild_kinds = draw(st.lists(st.integers(0, 33), min_size=n_wild_kinds,
                               max_size=n_wild_kinds, unique=True))
    w = draw(st.integers(0, min(3, 3 * k + 1))) if wild_kinds else 0
    narrow = draw(st.booleans())           # few kinds: fours and isolated tiles
    pool = [t for t in (range(0, 34, 3) if narrow else range(34)) if t not in wild_kinds]
    nat = np.zeros(34, dtype=np.int8)
    for _ in range(3 * k + 1 - w):
        free = [t for t in pool if nat[t] < 4]
        nat[draw(st.sampled_from(free))] += 1
    wild = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild[wild_kinds] = True
    unseen = np.array([draw(st.integers(0, 4 - min(4, int(nat[t]) if t < 34 else 0)))
                       for t in range(C.N_KINDS)], dtype=np.int64)
    return nat, w, n_melds, draw(st.sampled_from(TARGETS)), wild, unseen


@settings(**SETTINGS)
@given(situations())
def test_acceptance_counts_what_trying_every_kind_counts(tables, sit):
    nat, w, n_melds, target, wild, unseen = sit
    fast, slow = _counts(tables, wild, nat.copy(), w, n_melds, target, unseen)
    assert fast == slow


def test_isolated_draws_count_when_a_group_is_empty(tables):
    """Four complete melds and a wild wait on anything: every unseen tile
    counts, the isolated kinds included; without the wild, only the pair."""
    from nbsim.tiles import parse_counts
    nat = parse_counts("123m456m789m111p")[:34].copy()
    wild = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild[33] = True                                     # red dragon is wild
    unseen = np.full(C.N_KINDS, 2, dtype=np.int64)
    fast, slow = _counts(tables, wild, nat.copy(), 1, 0, PC.TG_OPEN, unseen)
    assert fast == slow
    assert fast >= 2 * 33                               # every natural kind but a full one
    nat2 = parse_counts("123m456m789m111p5s")[:34].copy()
    fast2, slow2 = _counts(tables, wild, nat2.copy(), 0, 0, PC.TG_OPEN, unseen)
    assert fast2 == slow2 == 2 + 2                      # 5s for the pair, and the red dragon

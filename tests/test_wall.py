"""Wall, dice, indicator, deal and flower replacement (nbsim/kernels/wall.py)
against docs/rules.md §2-§3, with a plain-Python reference of the deal."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from nbsim.kernels import codes as C
from nbsim.kernels import wall as W
from nbsim.kernels.wilds import wild_kinds
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import parse_tile

CONFIGS = ["ningbo-3baida", "ningbo-3baida-tianyi", "ningbo-7baida",
           "ningbo-tongchengyou", "ninghai"]


@pytest.fixture(scope="module", params=CONFIGS)
def rules(request):
    return load_rules(request.param).array


def kind_of(tile: int) -> int:
    return tile // 4 if tile < 136 else 34 + tile - 136


def reference_deal(wall, ind_pos, wild_set):
    """Plain-Python deal from a draw-order wall: 4-4-4 rounds E S W N, one
    each, the dealer's 14th, then the flower replacement dealer first from
    the tail (positions 143, 142, ...; the indicator skipped).
    Returns (hands as Counters of kinds, flowers set aside as sets, tail
    positions used, live positions used)."""
    order = [s for _ in range(3) for s in range(4) for _ in range(4)] + [0, 1, 2, 3, 0]
    live = [p for p in range(144) if p != ind_pos][:53]
    hands = [Counter() for _ in range(4)]
    for s, p in zip(order, live, strict=False):
        hands[s][kind_of(int(wall[p]))] += 1
    tail = [p for p in range(143, -1, -1) if p != ind_pos]
    used_tail = []
    flowers = [set() for _ in range(4)]
    for s in range(4):
        while True:
            fl = [k for k in hands[s] if k >= 34 and hands[s][k] and k not in wild_set]
            if not fl:
                break
            for k in fl:
                flowers[s].add(k)
                hands[s][k] = 0
            for _ in fl:
                p = tail.pop(0)
                used_tail.append(p)
                hands[s][kind_of(int(wall[p]))] += 1
    return hands, flowers, used_tail, live


def test_full_wall_is_a_permutation(rules):
    for deal in range(50):
        d = W.deal_one(rules, 11, deal)
        assert sorted(int(x) for x in d["wall"]) == list(range(144))
        assert sorted(int(x) for x in d["ring"]) == list(range(144))


def test_deal_mode_wall_equals_full_wall(rules):
    for deal in range(200):
        part = W.deal_one(rules, 3, deal, full=False)
        full = W.deal_one(rules, 3, deal, full=True)
        slots = list(range(53)) + list(range(132, 144))
        assert (part["wall"][slots] == full["wall"][slots]).all()
        assert (part["hands"] == full["hands"]).all()
        assert (part["flowers"] == full["flowers"]).all()
        assert (part["ws"][:W.WS_FILLED] == full["ws"][:W.WS_FILLED]).all()
        W.complete_shuffle(part["st"], part["work"], part["wall"], part["ws"])
        assert (part["wall"] == full["wall"]).all()


def test_wall_invariants_and_reference_deal(rules):
    flowers_seen = 0
    indicator_skipped = 0
    for seed in (0, 1, 2**63 + 5):
        for deal in range(300):
            d = W.deal_one(rules, seed, deal)
            wall, ws, hands, wild = d["wall"], d["ws"], d["hands"], d["wild"]
            ind_pos = int(ws[W.WS_INDICATOR])
            wild_set = {k for k in range(42) if wild[k]}
            # 14 / 13 tiles; no non-wild flower in a hand
            assert hands[0].sum() == 14 and (hands[1:].sum(axis=1) == 13).all()
            for s in range(4):
                for k in range(34, 42):
                    assert hands[s, k] == 0 or k in wild_set
            # same result as the plain reference, which draws replacements from the tail
            rh, rf, used_tail, live = reference_deal(wall, ind_pos, wild_set)
            for s in range(4):
                assert {k: int(hands[s, k]) for k in range(42) if hands[s, k]} == \
                    {k: c for k, c in rh[s].items() if c}
                mask = int(d["flowers"][s])
                assert {34 + f for f in range(8) if mask >> f & 1} == rf[s]
                assert not rf[s] & wild_set
                flowers_seen += len(rf[s])
            assert int(ws[W.WS_LIVE]) == 53
            n_tail = len(used_tail)
            assert int(ws[W.WS_TAIL]) == (min(used_tail) - 1 if used_tail else 143)
            assert all(p >= 132 for p in used_tail)
            if used_tail and min(used_tail) < ind_pos:
                indicator_skipped += 1          # the tail draws went past the indicator
            # every tile exactly once: hands + flowers set aside + undrawn wall + indicator
            drawn = set(live[:53]) | set(used_tail)
            undrawn = [p for p in range(144) if p not in drawn and p != ind_pos]
            assert len(drawn) == 53 + n_tail and len(undrawn) == W.tiles_left(ws)
            acc = Counter()
            for s in range(4):
                for k in range(42):
                    acc[k] += int(hands[s, k])
                for k in rf[s]:
                    acc[k] += 1
            for p in undrawn:
                acc[kind_of(int(wall[p]))] += 1
            if ind_pos >= 0:
                assert ind_pos not in drawn
                acc[kind_of(int(wall[ind_pos]))] += 1
            assert acc == Counter({k: (4 if k < 34 else 1) for k in range(42)})
    assert flowers_seen > 0
    assert indicator_skipped > 0 or rules[C.R_WILDS] == C.WILDS_NONE


def test_wild_kinds_follow_the_indicator(rules):
    mode = int(rules[C.R_WILDS])
    for deal in range(300):
        d = W.deal_one(rules, 5, deal)
        ind = d["indicator"]
        if mode == C.WILDS_NONE:
            assert ind == -1 and not d["wild"].any() and d["ws"][W.WS_INDICATOR] == -1
            continue
        assert ind == kind_of(int(d["wall"][d["ws"][W.WS_INDICATOR]]))
        assert [k for k in range(42) if d["wild"][k]] == wild_kinds(rules, ind)
        n = 3 if mode == C.WILDS_3BAIDA else 7
        assert int(d["ws"][W.WS_N_WILDS]) == n


def test_seven_baida_flower_indicator_and_wrap():
    r7 = load_rules("ningbo-7baida").array
    assert wild_kinds(r7, parse_tile("9m")) == [parse_tile("1m"), parse_tile("9m")]
    assert wild_kinds(r7, parse_tile("4z")) == [parse_tile("1z"), parse_tile("4z")]
    assert wild_kinds(r7, parse_tile("1f")) == [k for k in range(35, 42)]
    r3 = load_rules("ningbo-3baida").array
    assert wild_kinds(r3, parse_tile("6f")) == [38, 40, 41]


def _ring_check(d, throws):
    """Physical reading of the ring (module doc): side counted counterclockwise
    from the dealer, stacks from the side's right end, indicator from the tail."""
    ws, ring, wall = d["ws"], d["ring"], d["wall"]
    dice = [int(x) for x in ws[W.WS_DICE:W.WS_DICE + 2 * throws]]
    b = dice[0] + dice[1]
    rel = (b - 1) % 4                            # 1, 5, 9: the dealer's side
    cw = {0: 0, 1: 3, 2: 2, 3: 1}[rel]          # clockwise: E, N, W, S sides
    # larger die: stacks; Ninghai: tiles
    brk = 36 * cw + 2 * max(dice) if throws == 1 else 36 * cw + b + dice[2] + dice[3]
    assert int(ws[W.WS_SIDE]) == rel and int(ws[W.WS_BREAK]) == brk % 144
    assert int(ring[brk % 144]) == int(wall[0])           # first live tile
    assert int(ring[(brk - 1) % 144]) == int(wall[143])   # the tail end
    if throws == 1 and ws[W.WS_INDICATOR] >= 0:
        tail_stack = ((brk - 1) % 144) // 2
        q = (tail_stack - (min(dice) - 1)) % 72
        assert int(ring[2 * q]) == int(wall[ws[W.WS_INDICATOR]])    # top tile


def test_dice_break_and_indicator_on_the_ring():
    r3 = load_rules("ningbo-3baida").array
    rh = load_rules("ninghai").array
    sides = Counter()
    for deal in range(400):
        d = W.deal_one(r3, 8, deal)
        assert int(d["ws"][W.WS_N_DICE]) == 2
        assert all(1 <= d["ws"][W.WS_DICE + k] <= 6 for k in range(2))
        _ring_check(d, 1)
        sides[int(d["ws"][W.WS_SIDE])] += 1
        h = W.deal_one(rh, 8, deal)
        assert int(h["ws"][W.WS_N_DICE]) == 4 and h["ws"][W.WS_INDICATOR] == -1
        _ring_check(h, 2)
        # the same seed and deal give the same shuffled tiles in every variant
        assert (h["wall"] == d["wall"]).all()
    assert set(sides) == {0, 1, 2, 3}


def test_draws_skip_the_indicator_until_exhausted():
    r3 = load_rules("ningbo-3baida").array
    rh = load_rules("ninghai").array
    for rules, n_total in ((r3, 143), (rh, 144)):
        wall, work, st, ws, wild = W.new_arrays()
        W.wall_setup(rules, np.uint64(4), 0, True, wall, work, st, ws, wild)
        seen = []
        i = 0
        while True:
            p = W.draw_live(ws) if i % 3 else W.draw_tail(ws)
            i += 1
            if p == W.DRAW_EXHAUSTED:
                break
            assert p >= 0
            seen.append(int(p))
            assert W.tiles_left(ws) == n_total - len(seen)
        assert len(seen) == n_total == len(set(seen))
        assert int(ws[W.WS_INDICATOR]) not in seen
        assert W.draw_live(ws) == W.DRAW_EXHAUSTED and W.draw_tail(ws) == W.DRAW_EXHAUSTED


def test_deal_mode_wall_refuses_unshuffled_positions():
    r3 = load_rules("ningbo-3baida").array
    wall, work, st, ws, wild = W.new_arrays()
    W.wall_setup(r3, np.uint64(4), 0, False, wall, work, st, ws, wild)
    ws[W.WS_LIVE] = 53
    assert W.draw_live(ws) == W.DRAW_UNFILLED
    W.complete_shuffle(st, work, wall, ws)
    assert W.draw_live(ws) == 53


def test_ninghai_reserve():
    rh = load_rules("ninghai").array
    r3 = load_rules("ningbo-3baida").array
    d = W.deal_one(rh, 1, 0)
    left = W.tiles_left(d["ws"])
    assert left == 144 - 53 - (143 - int(d["ws"][W.WS_TAIL]))
    assert W.drawable_left(rh, d["ws"], 0) == left - 18
    assert W.drawable_left(rh, d["ws"], 2) == left - 22
    d3 = W.deal_one(r3, 1, 0)
    assert W.drawable_left(r3, d3["ws"], 3) == W.tiles_left(d3["ws"])


def test_event_log_of_the_deal():
    r3 = load_rules("ningbo-3baida").array
    for deal in range(30):
        d = W.deal_one(r3, 21, deal, log_rows=200)
        log = d["log"]
        acts = log[:, C.EV_ACTION]
        assert list(acts[:2]) == [C.A_DICE, C.A_DICE] and acts[2] == C.A_INDICATOR
        deals = log[acts == C.A_DEAL]
        assert len(deals) == 53 and list(deals[:, C.EV_POS]) == list(range(53))
        reps = log[acts == C.A_REPLACE]
        assert len(reps) == (acts == C.A_FLOWER).sum()
        for row in list(deals) + list(reps):
            assert row[C.EV_TILE] == kind_of(int(d["wall"][row[C.EV_POS]]))
        assert all(p >= 132 for p in reps[:, C.EV_POS])

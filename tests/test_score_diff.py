"""The Numba scorer must agree with the slow reference (tests/reference_scorer.py)
on random winning situations of every variant: tai, items, win/why, fan, fu,
points, silver and payments (docs/rules.md §3, §5-§8, §10).

Situations come from tests/situations.py driven by hypothesis (derandomized,
bounded example counts): 0 to 7 wilds, flower indicators, 7-baida wraps,
declared melds and kongs, every context, fed counts, kong feeders; about one
in ten is not complete. Extra configs with --set overrides cover the cap,
wait_needs_single_kind, forbid_any_wild_use, three_wilds_self_draw_only,
scrambled tai values (which exercise the reading choice and its tie-break)
and a Ninghai variant with wilds.

The reference itself is checked against a third enumerator that substitutes
every kind for each wild (feasible up to two wilds).
"""
import itertools
import json
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nbsim.errors import NbsimError
from nbsim.rules.ruleset import load_rules
from nbsim.rules.scorer import score_hand

from reference_scorer import group_kinds, identities_with, reference_score
from situations import random_situation

SCRAMBLED = tuple(f"scoring.tai.{k}={v}" for k, v in dict(
    chicken_hand=2, all_chows=3, edge_wait=0, closed_wait=2, single_wait=4, dual_pung_wait=1,
    big_single_wait=2, all_pungs=1, half_flush=9, all_honors=1, full_flush=3, dragon_pung=2,
    seat_wind_pung=3, prevalent_wind_pung=0, wild_single_wait=2, wild_drawn=1, flower_set=5,
    all_flowers=1, seat_flower=2, self_drawn=0, three_wilds=1, no_wilds=2).items())

CONFIGS = [
    # (id, config, overrides, examples, wild weights for 0..7 wilds or None)
    ("3baida", "ningbo-3baida", (), 500, None),
    ("tianyi", "ningbo-3baida-tianyi", (), 400, None),
    ("7baida", "ningbo-7baida", (), 400, None),
    ("tongchengyou", "ningbo-tongchengyou", (), 300, None),
    ("ninghai", "ninghai", (), 400, None),
    ("3baida-cap-single-kind", "ningbo-3baida",
     ("payments.cap=40", "win.wait_needs_single_kind=true", "win.three_wilds_self_draw_only=true",
      "win.min_tai=5"), 300, None),
    ("tianyi-any-wild-use", "ningbo-3baida-tianyi",
     ("payments.cap=25", "win.discard_win_wild_rule=forbid_any_wild_use", "win.min_tai=0",
      "win.allowed_patterns=['all_pungs', 'half_flush']"), 300, None),
    ("3baida-scrambled", "ningbo-3baida", SCRAMBLED, 400, None),
    ("7baida-scrambled-many-wilds", "ningbo-7baida",
     SCRAMBLED[:-3] + ("win.wait_needs_single_kind=false", "win.self_draw_only=false"),
     150, [1, 1, 1, 2, 3, 3, 3, 3]),
    ("7baida-many-wilds", "ningbo-7baida", (), 150, [0, 0, 1, 1, 2, 3, 3, 3]),
    ("ninghai-wilds", "ninghai",
     ("wilds.wilds=3baida", "scoring.points.points_scheme=yao_ban_liu",
      "scoring.points.fan_cap=2"), 200, None),
]


def test_every_shipped_config_is_compared(shipped_config):
    """Every configs/*.toml has an entry without overrides in CONFIGS, so a
    new variant cannot miss the differential test below."""
    assert any(c[1] == shipped_config and not c[2] for c in CONFIGS), shipped_config


def _kernel(rs, sit):
    try:
        d = score_hand(rs, **sit).to_dict()
    except NbsimError as e:
        return {"error": str(e)}
    d.pop("config")
    return d


def _diff(k, r):
    return {f: (k.get(f), r.get(f)) for f in set(k) | set(r) if k.get(f) != r.get(f)}


@pytest.mark.parametrize("cid,config,overrides,examples,weights", CONFIGS,
                         ids=[c[0] for c in CONFIGS])
def test_kernel_agrees_with_reference(cid, config, overrides, examples, weights):
    rs = load_rules(config, overrides)
    rd = rs.to_dict()
    seen = {"wilds": set(), "complete": 0, "win": 0}

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.randoms(use_true_random=False))
    def check(rng):
        sit = random_situation(rng, rd, wild_weights=weights)
        k = _kernel(rs, sit)
        r = reference_score(rd, **sit)
        assert ("error" in k) == ("error" in r), (json.dumps(sit), k, r)
        if "error" in k:
            return
        assert k == r, f"{cid} {json.dumps(sit)}: kernel vs reference {_diff(k, r)}"
        seen["wilds"].add(k["wilds"])
        seen["complete"] += k["complete"]
        seen["win"] += k["win"]

    check()
    # the generator really produced winning hands with wilds
    assert seen["complete"] > examples // 2
    assert seen["win"] > 0
    if rd["wilds"]["wilds"] != "none":
        assert len(seen["wilds"]) >= 3


# ---------------------------------------------------------------- random tai tables
# Random item values change which reading is best, so readings that the
# default tables never prefer (a natural winning tile moved into a group of
# wilds, a wild in a natural group's slot, suits for groups of wilds in an
# all-honors hand) must be enumerated too.
TABLE_ITEMS = ("chicken_hand", "all_chows", "edge_wait", "closed_wait", "single_wait",
               "dual_pung_wait", "big_single_wait", "all_pungs", "half_flush", "all_honors",
               "full_flush", "dragon_pung", "seat_wind_pung", "prevalent_wind_pung",
               "wild_single_wait", "wild_drawn", "no_wilds", "self_drawn", "three_wilds")
_RS: dict = {}


def _rules(config, overrides):
    key = (config, overrides)
    if key not in _RS:
        _RS[key] = load_rules(config, overrides)
    return _RS[key]


def test_kernel_agrees_with_reference_random_tai_tables():
    @settings(max_examples=500, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.randoms(use_true_random=False))
    def check(rng):
        config = rng.choice(["ningbo-3baida", "ningbo-7baida", "ningbo-3baida-tianyi"])
        ov = [f"scoring.tai.{k}={rng.randint(0, 9)}" for k in TABLE_ITEMS if rng.random() < 0.7]
        ov.append(f"win.wait_needs_single_kind={rng.choice(['true', 'false'])}")
        ov.append("win.discard_win_wild_rule="
                  + rng.choice(["forbid_wild_pair", "forbid_any_wild_use", "allow"]))
        ov.append("win.self_draw_only=false")
        rs = _rules(config, tuple(ov))
        rd = rs.to_dict()
        sit = random_situation(rng, rd, honors_only=rng.random() < 0.15,
                               wild_weights=rng.choice([None, [0, 1, 2, 3, 3, 3, 3, 3],
                                                        [1, 1, 1, 2]]))
        k = _kernel(rs, sit)
        r = reference_score(rd, **sit)
        assert ("error" in k) == ("error" in r), (json.dumps(sit), k, r)
        if "error" not in k:
            assert k == r, f"{config} {ov} {json.dumps(sit)}: {_diff(k, r)}"

    check()


def test_kernel_agrees_with_reference_zero_tai_tables():
    """Many items worth 0 tai: readings tie on tai and item tai and differ in
    which 0-tai items apply, so the presence vector decides (docs/rules.md
    §10.3); kernel and reference must list the same items."""
    seen = {"zero_present": 0}

    @settings(max_examples=200, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.randoms(use_true_random=False))
    def check(rng):
        config = rng.choice(["ningbo-3baida", "ningbo-7baida", "ningbo-3baida-tianyi"])
        ov = [f"scoring.tai.{k}={rng.choice([0, 0, 1])}" for k in TABLE_ITEMS
              if rng.random() < 0.8]
        ov.append("win.self_draw_only=false")
        rs = _rules(config, tuple(ov))
        rd = rs.to_dict()
        sit = random_situation(rng, rd, wild_weights=rng.choice([None, [1, 1, 1, 2]]))
        k = _kernel(rs, sit)
        r = reference_score(rd, **sit)
        assert ("error" in k) == ("error" in r), (json.dumps(sit), k, r)
        if "error" not in k:
            assert k == r, f"{config} {ov} {json.dumps(sit)}: {_diff(k, r)}"
            assert set(k["items"]) <= set(k["present"])
            seen["zero_present"] += any(i not in k["items"] for i in k["present"])

    check()
    assert seen["zero_present"] > 50


# Random Ninghai fan and fu tables, with and without wilds: few distinct values
# make readings tie on points, fan and fu, so the fan and fu item vectors
# decide (docs/rules.md §10.4), and kernel and reference must agree on them.
FAN_FU_ITEMS = [("fan", i) for i in ("seat_flower", "flower_set", "dragon_pung", "full_flush",
                                     "all_honors", "half_flush", "all_pungs")] + \
    [("fu", i) for i in ("exposed_pung_terminal", "exposed_pung_simple",
                         "concealed_pung_terminal", "concealed_pung_simple",
                         "exposed_kong_terminal", "exposed_kong_simple",
                         "concealed_kong_terminal", "concealed_kong_simple", "flower",
                         "self_drawn", "closed_wait")]


def test_kernel_agrees_with_reference_random_fan_fu_tables():
    seen = {"fu_items": 0, "fan_items": 0}

    @settings(max_examples=250, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.randoms(use_true_random=False))
    def check(rng):
        ov = [f"scoring.{fam}.{k}={rng.choice([0, 1, 2, 4] if fam == 'fan' else [0, 2, 4, 8])}"
              for fam, k in FAN_FU_ITEMS if rng.random() < 0.7]
        ov.append(f"scoring.points.fan_cap={rng.choice([2, 3, 5])}")
        ov.append("scoring.points.points_scheme="
                  + rng.choice(["yao_ban_san", "yao_ban_liu", "yao_er_liu", "tui_dao_ba"]))
        if rng.random() < 0.4:
            ov.append(f"wilds.wilds={rng.choice(['3baida', '7baida'])}")
        rs = _rules("ninghai", tuple(ov))
        rd = rs.to_dict()
        sit = random_situation(rng, rd, wild_weights=rng.choice([None, [3, 2, 1, 1]]))
        k = _kernel(rs, sit)
        r = reference_score(rd, **sit)
        assert ("error" in k) == ("error" in r), (json.dumps(sit), k, r)
        if "error" not in k:
            assert k == r, f"{ov} {json.dumps(sit)}: {_diff(k, r)}"
            if k["complete"]:
                assert sum(k["fu_items"].values()) == k["fu"]
                assert min(sum(k["fan_items"].values()), rd["scoring"]["points"]["fan_cap"]) \
                    == k["fan"]
                seen["fu_items"] += bool(k["fu_items"])
                seen["fan_items"] += bool(k["fan_items"])

    check()
    assert seen["fu_items"] > 100 and seen["fan_items"] > 20


# situations found by running kernels with one reading path removed against
# the reference (each needs that path)
REGRESSIONS = [
    # natural winning 4m moved into a group of wilds (chow 4m + wilds) while
    # the other 4m pairs with a wild: chicken_hand 4 beats dual_pung_wait 3
    ("ningbo-3baida-tianyi",
     ("scoring.tai.chicken_hand=4", "scoring.tai.dual_pung_wait=3",
      "win.wait_needs_single_kind=false"),
     dict(hand="4m1f2f4f", win_tile="4m", melds=["pung:3p3p3p", "pung:2z2z2z", "chow:5m6m7m"],
          win_by="self_draw", seat="N", round_wind="S", indicator="3f", flowers="7f",
          context=["last_tile"]),
     dict(tai=11, chicken_hand=4)),
    # discarded wild winning tile in the natural chow's 4m slot, the natural
    # 4m moved into the pair of wilds: closed_wait 3 with the dragon pung
    # 55z + wild (without that path: closed without the dragon, or single)
    ("ningbo-3baida-tianyi", ("win.wait_needs_single_kind=false", "scoring.tai.closed_wait=3"),
     dict(hand="3m4m5m3p3p5z5z", win_tile="3p", melds=["chow:6m7m8m", "pung:5s5s5s"],
          win_by="discard", seat="E", round_wind="S", indicator="3p", flowers="1f4f5f",
          discarder="S"),
     dict(tai=6, closed_wait=3, dragon_pung=1)),
    # honors-only melds and a pair of two wilds: as a suited pair it makes a
    # half flush (9 here) instead of all honors (8)
    ("ningbo-3baida", ("scoring.tai.half_flush=9",),
     dict(hand="7p", win_tile="7p", melds=["pung:5z5z5z", "ckong:4z4z4z4z", "pung:3z3z3z",
                                          "pung:1z1z1z"],
          win_by="self_draw", seat="S", round_wind="S", indicator="7p", flowers="2f4f",
          fed={"E": 3}),
     dict(tai=16, half_flush=9, all_honors=0)),
]


@pytest.mark.parametrize("config,overrides,sit,expect", REGRESSIONS,
                         ids=[f"regression-{i}" for i in range(len(REGRESSIONS))])
def test_regressions(config, overrides, sit, expect):
    rs = load_rules(config, overrides)
    k = _kernel(rs, sit)
    assert k == reference_score(rs.to_dict(), **sit)
    assert k["tai"] == expect["tai"]
    for item, v in expect.items():
        if item != "tai":
            assert k["items"].get(item, 0) == v


# ---------------------------------------------------------------- substitution brute force
@cache
def _concrete(nat, wil, kw, win_nat, win_wild, melds, pairs):
    """Readings of tiles with concrete kinds: nat/wil counts of naturals and
    of wilds already given a kind, the winning tile of kind kw (natural or
    wild). Same outcome format as reference_scorer.readings."""
    cand = [k for k in range(34) if nat[k] or wil[k]]
    if win_nat or win_wild:
        cand.append(kw)
    if not cand:
        return frozenset([((), None)]) if melds == 0 and pairs == 0 else frozenset()
    i = min(cand)
    out = set()
    for g in identities_with(i):
        t, b = g
        if t == "pair" and pairs == 0 or t != "pair" and melds == 0:
            continue
        ks = group_kinds(g)
        # every way to give each slot a tile: n natural, w wild, * winning natural, @ winning wild
        for cls in itertools.product("nw*@", repeat=len(ks)):
            if i not in [ks[p] for p in range(len(ks))]:
                continue
            n = list(nat)
            w = list(wil)
            wn, ww = win_nat, win_wild
            host = None
            host_wild = False
            other_wild = False
            ok = True
            for p, c in enumerate(cls):
                j = ks[p]
                if c == "n":
                    if n[j] == 0:
                        ok = False
                        break
                    n[j] -= 1
                elif c == "w":
                    if w[j] == 0:
                        ok = False
                        break
                    w[j] -= 1
                    other_wild = True
                elif c == "*":
                    if not (wn and kw == j):
                        ok = False
                        break
                    wn = False
                    host = p
                else:
                    if not (ww and kw == j):
                        ok = False
                        break
                    ww = False
                    host = p
                    host_wild = True
            if not ok:
                continue
            # the lowest tile must be used: kind i's count must drop
            before = nat[i] + wil[i] + (1 if (win_nat or win_wild) and kw == i else 0)
            after = n[i] + w[i] + (1 if (wn or ww) and kw == i else 0)
            if after == before:
                continue
            for others, win in _concrete(tuple(n), tuple(w), kw, wn, ww, melds - (t != "pair"),
                                         pairs - (t == "pair")):
                if host is not None:
                    if win is None:
                        out.add((others, (g, host, host_wild, other_wild)))
                else:
                    out.add((tuple(sorted(others + (g,))), win))
    return frozenset(out)


def substitution_readings(nat, kwin, win_nat, wilds, win_wild, melds, pairs):
    """Every kind for every wild (the winning wild too), then concrete readings."""
    out = set()
    for subs in itertools.combinations_with_replacement(range(34), wilds):
        wil = [0] * 34
        for k in subs:
            wil[k] += 1
        for kw in (range(34) if win_wild else [kwin]):
            out |= _concrete(tuple(nat), tuple(wil), kw, win_nat, win_wild, melds, pairs)
    return frozenset(x for x in out if x[1] is not None)


@pytest.mark.parametrize("config,overrides,examples,max_w", [
    ("ningbo-3baida", (), 120, 1),
    ("ningbo-3baida-tianyi", (), 60, 1),
    ("ningbo-7baida", (), 80, 1),
    ("ningbo-3baida", SCRAMBLED, 80, 1),
    ("ningbo-3baida", (), 25, 2),
    ("ningbo-7baida", SCRAMBLED[:-3] + ("win.wait_needs_single_kind=false",), 20, 2),
], ids=["3baida", "tianyi", "7baida", "3baida-scrambled", "3baida-two-wilds",
        "7baida-two-wilds"])
def test_reference_agrees_with_substitution(config, overrides, examples, max_w):
    rd = load_rules(config, overrides).to_dict()
    weights = [1] * (max_w + 1)

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.randoms(use_true_random=False))
    def check(rng):
        sit = random_situation(rng, rd, wild_weights=weights)
        a = reference_score(rd, **sit)
        if "error" in a:
            return
        b = reference_score(rd, enumerator=substitution_readings, **sit)
        assert a == b, f"{json.dumps(sit)}: {_diff(a, b)}"

    check()


# ---------------------------------------------------------------- wait set
def test_wait_info_matches_hand_wait_mask():
    """waits.wait_info (early exit, candidate filter) gives the same wait set
    size (capped at 3) and first kinds as hand.wait_mask on random 13-tile
    hands with 0-4 wilds (docs/rules.md §10 exclusions)."""
    import random

    import numpy as np

    from nbsim.kernels.hand import wait_mask
    from nbsim.kernels.scoring.scratch import IW_LEN, O_MELD_COUNT, O_NAT13
    from nbsim.kernels.scoring.validation import wild_set
    from nbsim.kernels.scoring.waits import wait_info
    from nbsim.rules.lookups import load_tables
    tables = load_tables()
    rules = load_rules("ningbo-7baida").array
    rng = random.Random(5)
    iw = np.zeros(IW_LEN, np.int64)
    n_seen = [0, 0, 0, 0]
    for _ in range(3000):
        ind = rng.randrange(34)
        wa, wb, fm, _n = wild_set(rules, ind)
        hand = np.zeros(42, np.int8)
        # mostly ready-looking hands: 4 groups + 1 tile, then noise
        kinds = []
        for _group in range(4):
            b = rng.randrange(34)
            if b < 27 and b % 9 < 7 and rng.random() < 0.6:
                kinds += [b, b + 1, b + 2]
            else:
                kinds += [b] * 3
        kinds.append(rng.randrange(34))
        for _t in range(rng.randrange(3)):
            kinds[rng.randrange(13)] = rng.randrange(34)
        if any(kinds.count(k) > 4 for k in kinds):
            continue
        for k in kinds:
            hand[k] += 1
        n_w = 0
        for k in range(34):
            if k in (wa, wb):
                n_w += hand[k]
        nat = np.array([0 if k in (wa, wb) else hand[k] for k in range(34)], np.int64)
        iw[O_NAT13:O_NAT13 + 34] = nat
        iw[O_MELD_COUNT:O_MELD_COUNT + 34] = 0
        excl = np.array([k in (wa, wb) or hand[k] + (k == ind) >= 4 for k in range(34)])
        out = np.zeros(34, np.bool_)
        n_ref = wait_mask(nat, n_w, excl, tables, out)
        kinds_ref = list(np.flatnonzero(out))
        n, k0, k1 = wait_info(iw, hand, ind, wa, wb, fm, n_w, tables)
        assert n == min(n_ref, 3)
        assert [k for k in (k0, k1) if k >= 0] == kinds_ref[:2]
        n_seen[min(n, 3)] += 1
    assert all(n_seen), n_seen

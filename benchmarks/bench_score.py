"""Full scorings of winning hands per second on one core (target: >= 1,000,000/s)
with the ratio to the ``mahjong`` package's HandCalculator (riichi scoring)
on comparable hands without wilds, measured in the same run.

The batch: complete hands built from 4 random groups (70% chows, 30% pungs)
and a pair, 0-3 of them declared as melds, then 0-3 concealed tiles turned
into wilds (55% / 33% / 10% / 2%: a player holds 0.3 of the 3 wilds on
average after the deal, and wilds make winning hands), a random winning tile
among the 14 concealed ones, random win
kind, seat, round and flowers. ``score_batch`` scores them in one jitted
loop (nbsim.kernels.scoring.score), so the figure is the kernel's, not Python's.
The HandCalculator baseline scores the no-wild concealed hands of the same
batch (riichi declared so every hand has a yaku and is fully evaluated).
"""
from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Result, best_rate
from nbsim.kernels import codes as C


def make_batch(n: int, seed: int = 1, *, wild_probs=(0.55, 0.33, 0.10, 0.02),
               meld_probs=(0.6, 0.25, 0.1, 0.05), config: str = "ningbo-3baida"):
    """n winning situations as the arrays of ``score_batch``'s records (dict)."""
    from nbsim.rules.ruleset import load_rules
    rs = load_rules(config)
    rng = np.random.default_rng(seed)
    allow_chow = rs.config.claims.allow_chow
    out = {
        "hands": np.zeros((n, C.N_KINDS), np.int8), "melds": np.zeros((n, 4, 3), np.int8),
        "n_melds": np.zeros(n, np.int8), "flowers": np.zeros((n, 8), np.int8),
        "win_tile": np.zeros(n, np.int8), "win_by": np.zeros(n, np.int8),
        "ctx": np.zeros(n, np.int8), "seat": np.zeros(n, np.int8),
        "round_wind": np.zeros(n, np.int8), "indicator": np.zeros(n, np.int8),
        "discarder": np.zeros(n, np.int8), "fed": np.zeros((n, 4), np.int8),
        "fed_by_winner": np.zeros((n, 4), np.int8), "kong_from": np.full(n, -1, np.int8),
        "liable": np.full(n, -1, np.int8),
    }
    i = 0
    while i < n:
        ind = int(rng.integers(0, 34))
        used = np.zeros(34, np.int64)
        used[ind] = 4   # natural groups avoid the wild kind; wilds come in below
        groups = []
        ok = True
        for _g in range(4):
            for _try in range(20):
                if allow_chow and rng.random() < 0.7:
                    s = int(rng.integers(0, 3))
                    b = s * 9 + int(rng.integers(0, 7))
                    ks = [b, b + 1, b + 2]
                    typ = C.MELD_CHOW
                else:
                    b = int(rng.integers(0, 34))
                    ks = [b, b, b]
                    typ = C.MELD_PUNG
                if all(used[k] + ks.count(k) <= 4 for k in set(ks)):
                    for k in ks:
                        used[k] += 1
                    groups.append((typ, b, ks))
                    break
            else:
                ok = False
        p = int(rng.integers(0, 34))
        if not ok or used[p] + 2 > 4:
            continue
        used[p] += 2
        n_m = int(rng.choice(4, p=meld_probs))
        melds = groups[:n_m]
        conc = [k for g in groups[n_m:] for k in g[2]] + [p, p]
        rng.shuffle(conc)
        n_w = int(rng.choice(4, p=wild_probs))
        # turn n_w natural tiles into the indicator's kind (wilds)
        for j in range(min(n_w, len(conc))):
            conc[j] = ind
        win_pos = int(rng.integers(0, len(conc)))
        win = conc.pop(win_pos)
        h = out["hands"][i]
        for k in conc:
            h[k] += 1
        for m, (typ, b, _ks) in enumerate(melds):
            out["melds"][i, m] = (typ, b, -1)
        out["n_melds"][i] = len(melds)
        out["win_tile"][i] = win
        out["indicator"][i] = ind
        seat = int(rng.integers(0, 4))
        out["seat"][i] = seat
        out["round_wind"][i] = int(rng.integers(0, 4))
        r = rng.random()
        if r < 0.4 or win == ind:
            out["win_by"][i] = C.WIN_SELF_DRAW
            out["discarder"][i] = -1
        elif r < 0.95:
            out["win_by"][i] = C.WIN_DISCARD
            out["discarder"][i] = (seat + int(rng.integers(1, 4))) % 4
        else:
            out["win_by"][i] = C.WIN_ROBBING_KONG
            out["discarder"][i] = (seat + int(rng.integers(1, 4))) % 4
        out["flowers"][i] = rng.random(8) < 0.12
        i += 1
    return rs, out


def batch_args(rs, tables, b, res) -> tuple:
    """``score_batch``'s arguments for the arrays ``b`` of ``make_batch``."""
    from nbsim.kernels.scoring.score import HandTiles, Win
    return (rs.array, tables, HandTiles(b["hands"], b["melds"], b["n_melds"], b["flowers"]),
            Win(b["win_tile"], b["win_by"], b["ctx"], b["seat"], b["round_wind"], b["indicator"],
                b["discarder"], b["fed"], b["fed_by_winner"], b["kong_from"], b["liable"]), res)


def _to_136(counts):
    tiles = []
    for k in range(34):
        tiles += [k * 4 + c for c in range(int(counts[k]))]
    return tiles


def bench(quick: bool = False) -> list[Result]:
    from nbsim.kernels.scoring.score import score_batch
    from nbsim.rules.lookups import load_tables

    n = 20_000 if quick else 200_000
    rs, b = make_batch(n, seed=7)
    tables = load_tables()
    res = np.zeros((n, C.RES_LEN), np.int64)
    args = batch_args(rs, tables, b, res)
    n_err = score_batch(*args)
    assert n_err == 0, f"{n_err} invalid situations in the benchmark batch"
    assert res[:, C.RES_COMPLETE].all()
    rate = best_rate(lambda: score_batch(*args), n, repeat=2 if quick else 3)
    wild_share = float((res[:, C.RES_WILDS] > 0).mean())

    # mahjong HandCalculator on the no-wild concealed hands of the batch
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig
    calc = HandCalculator()
    sel = np.flatnonzero((res[:, C.RES_WILDS] == 0) & (b["n_melds"] == 0))[:300 if quick else 2000]
    cases = []
    for i in sel:
        counts = b["hands"][i, :34].astype(int).copy()
        counts[b["win_tile"][i]] += 1
        tiles = _to_136(counts)
        win136 = int(b["win_tile"][i]) * 4
        cfg = HandConfig(is_tsumo=bool(b["win_by"][i] == C.WIN_SELF_DRAW), is_riichi=True)
        cases.append((tiles, win136, cfg))
    t0 = time.perf_counter()
    for tiles, w, cfg in cases:
        calc.estimate_hand_value(tiles, w, config=cfg)
    base = len(cases) / (time.perf_counter() - t0)

    # the same kernel on the no-wild concealed subset only (like for like)
    sub = {k: v[sel] for k, v in b.items()}
    res2 = np.zeros((len(sel), C.RES_LEN), np.int64)
    args2 = batch_args(rs, tables, sub, res2)
    score_batch(*args2)
    rate2 = best_rate(lambda: score_batch(*args2), len(sel), repeat=2 if quick else 3)

    out = [
        Result("full scoring, ningbo-3baida, 0-3 wilds", rate, "hands/s",
               "mahjong HandCalculator (no wilds)", base,
               f"{n:,} winning hands, {wild_share:.0%} with wilds; target >= 1,000,000/s"),
        Result("full scoring, same hands without wilds or melds", rate2, "hands/s",
               "mahjong HandCalculator (same hands)", base, f"{len(sel):,} hands"),
    ]
    # variants with a wait set (wait_needs_single_kind) and 7-baida wilds
    for cfg_name, wp in (("ningbo-3baida-tianyi", (0.5, 0.3, 0.15, 0.05)),
                         ("ninghai", (1.0, 0.0, 0.0, 0.0))):
        rs3, b3 = make_batch(n // 4, seed=11, wild_probs=wp, config=cfg_name)
        if cfg_name == "ninghai":
            b3["indicator"][:] = -1
        res3 = np.zeros((n // 4, C.RES_LEN), np.int64)
        args3 = batch_args(rs3, tables, b3, res3)
        assert score_batch(*args3) == 0
        r3 = best_rate(lambda a=args3: score_batch(*a), n // 4, repeat=2)
        out.append(Result(f"full scoring, {cfg_name}", r3, "hands/s", "", float("nan"),
                          "wait set per hand (wait_needs_single_kind)"))
    return out

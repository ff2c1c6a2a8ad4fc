"""Hand kernels: complete checks, shanten and waits per second on one core.

Hands: 14 tiles, a mix of
  * random draws from a shuffled wall with wilds (half 3-baida: the indicator
    is set aside and its 3 other copies are wild; half 7-baida: also the 4
    copies of the next kind), 75 %;
  * hands built complete from random melds + a pair, then 0-3 of their tiles
    turned into wilds, 25 %.
"Without wilds" means the same 14 tiles read at face value (a wild as its own
kind), which is what the ``mahjong`` package can check.

Figures (targets from the task: complete with wilds >= 25 M/s, shanten with
wilds >= 15 M/s per core):
  * is_complete_batch with wilds vs a plain recursive Numba check without
    tables (benchmarks/baseline_hand.py) on the same hands;
  * is_complete_batch without wilds vs mahjong ``Agari.is_agari`` (per-hand
    rate on a smaller sample);
  * shanten_batch with wilds, and without wilds, vs mahjong
    ``Shanten.calculate_shanten_for_regular_hand`` (smaller sample);
  * wait_mask on 13-tile hands (the 14-tile hands minus their last tile).
Every figure checks its answers against the other implementation first.
"""
from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Result, best_rate


def make_hands(n: int, seed: int):
    """(face int8[n, 34], natural int8[n, 34], wilds int64[n]) for n hands."""
    rng = np.random.default_rng(seed)
    face = np.zeros((n, 34), dtype=np.int8)
    nat = np.zeros((n, 34), dtype=np.int8)
    wilds = np.zeros(n, dtype=np.int64)
    all_tiles = np.repeat(np.arange(34), 4)
    for i in range(n):
        ind = int(rng.integers(0, 34))
        wild_kinds = [ind]
        if i % 2:
            if ind < 27:
                wild_kinds.append((ind // 9) * 9 + (ind % 9 + 1) % 9)
            elif ind < 31:
                wild_kinds.append(27 + (ind - 27 + 1) % 4)
            else:
                wild_kinds.append({31: 33, 32: 31, 33: 32}[ind])   # 7z6z5z cycle
        if i % 4 != 3:
            wall = np.delete(all_tiles, ind * 4)         # the indicator is not drawn
            tiles = rng.choice(wall, 14, replace=False)
        else:
            tiles = []
            while True:
                tiles = []
                for _ in range(4):
                    if rng.random() < 0.5:
                        s, r = int(rng.integers(0, 3)), int(rng.integers(0, 7))
                        tiles += [9 * s + r, 9 * s + r + 1, 9 * s + r + 2]
                    else:
                        tiles += [int(rng.integers(0, 34))] * 3
                tiles += [int(rng.integers(0, 34))] * 2
                if np.bincount(tiles, minlength=34).max() <= 4:
                    break
            tiles = np.array(tiles)
        b = np.bincount(tiles, minlength=34)
        face[i] = b
        nb = b.copy()
        if i % 4 != 3:
            for k in wild_kinds:
                wilds[i] += nb[k]
                nb[k] = 0
        else:                                             # turn 0-3 tiles into wilds
            for _ in range(int(rng.integers(0, 4))):
                held = np.flatnonzero(nb)
                k = int(rng.choice(held))
                nb[k] -= 1
                wilds[i] += 1
        nat[i] = nb
    return face, nat, wilds


def _per_hand_rate(fn, hands, min_time: float) -> float:
    best = 0.0
    for _ in range(2):
        t0 = time.perf_counter()
        loops = 0
        while True:
            for h in hands:
                fn(h)
            loops += 1
            dt = time.perf_counter() - t0
            if dt >= min_time:
                break
        best = max(best, loops * len(hands) / dt)
    return best


def bench(quick: bool = False) -> list[Result]:
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    from benchmarks.baseline_hand import recursive_complete_batch
    from nbsim.kernels import hand as H
    from nbsim.rules.lookups import load_tables

    tables = load_tables()
    n = 20_000 if quick else 200_000
    n_py = 300 if quick else 3_000
    min_time = 0.1 if quick else 0.3
    face, nat, wilds = make_hands(n, seed=2024)
    zeros = np.zeros(n, dtype=np.int64)
    ob = np.zeros(n, dtype=np.bool_)
    ob2 = np.zeros(n, dtype=np.bool_)
    oi = np.zeros(n, dtype=np.int64)
    note = f"{n:,} hands, {wilds.mean():.2f} wilds/hand, {int((wilds > 0).sum()):,} with wilds"
    out = []

    # -- complete check with wilds vs the recursive baseline
    H.is_complete_batch(nat, wilds, tables, ob)
    recursive_complete_batch(nat, wilds, ob2)
    if not np.array_equal(ob, ob2):
        raise RuntimeError("is_complete_batch disagrees with the recursive baseline")
    r_tab = best_rate(lambda: H.is_complete_batch(nat, wilds, tables, ob), n, min_time=min_time)
    r_rec = best_rate(lambda: recursive_complete_batch(nat, wilds, ob2), n, min_time=min_time)
    out.append(Result("is_complete_batch, 14 tiles with wilds", r_tab, "hands/s",
                      "recursive Numba, no tables", r_rec,
                      note + f"; {int(ob.sum()):,} complete; target >= 25M/s"))

    # -- complete check without wilds vs mahjong Agari.is_agari
    H.is_complete_batch(face, zeros, tables, ob)
    sample = [face[i].tolist() for i in range(n_py)]
    for i, h in enumerate(sample):
        seven_pairs = all(x in (0, 2) for x in h)
        if bool(Agari.is_agari(h)) != bool(ob[i]) and not seven_pairs:
            raise RuntimeError(f"is_complete disagrees with mahjong on hand {i}")
    r_face = best_rate(lambda: H.is_complete_batch(face, zeros, tables, ob), n, min_time=min_time)
    r_mj = _per_hand_rate(Agari.is_agari, sample, min_time)
    out.append(Result("is_complete_batch, same hands without wilds", r_face, "hands/s",
                      "mahjong Agari.is_agari", r_mj, f"mahjong timed on {n_py:,} hands"))

    # -- shanten with and without wilds vs mahjong regular-hand shanten
    H.shanten_batch(face, zeros, zeros, tables, oi)
    for i, h in enumerate(sample):
        if Shanten.calculate_shanten_for_regular_hand(h) != oi[i]:
            raise RuntimeError(f"shanten disagrees with mahjong on hand {i}")
    r_sh_face = best_rate(lambda: H.shanten_batch(face, zeros, zeros, tables, oi), n,
                          min_time=min_time)
    H.shanten_batch(nat, wilds, zeros, tables, oi)
    r_sh = best_rate(lambda: H.shanten_batch(nat, wilds, zeros, tables, oi), n,
                     min_time=min_time)
    r_mj_sh = _per_hand_rate(Shanten.calculate_shanten_for_regular_hand, sample, min_time)
    out.append(Result("shanten_batch, 14 tiles with wilds", r_sh, "hands/s",
                      "mahjong regular shanten (no wilds)", r_mj_sh,
                      "target >= 15M/s; mahjong on the face-value hands"))
    out.append(Result("shanten_batch, same hands without wilds", r_sh_face, "hands/s",
                      "mahjong regular shanten (no wilds)", r_mj_sh,
                      f"mahjong timed on {n_py:,} hands"))

    # -- waits of 13-tile hands (drop the highest natural tile)
    nat13 = nat.copy()
    for i in range(n):
        held = np.flatnonzero(nat13[i])
        if len(held):
            nat13[i, held[-1]] -= 1
    w13 = np.where(nat13.sum(axis=1) + wilds == 13, wilds, wilds - 1)
    excluded = np.zeros(34, dtype=np.bool_)
    wm = np.zeros(34, dtype=np.bool_)

    from numba import njit

    @njit
    def waits_batch(c2, w1, ex, tables, o):
        tot = 0
        for i in range(c2.shape[0]):
            tot += H.wait_mask(c2[i], w1[i], ex, tables, o)
        return tot

    n_waits = waits_batch(nat13, w13, excluded, tables, wm)
    r_w = best_rate(lambda: waits_batch(nat13, w13, excluded, tables, wm), n, min_time=min_time)
    out.append(Result("wait_mask, 13 tiles with wilds", r_w, "hands/s", note=
                      f"{n_waits / n:.2f} waiting kinds per hand (all 34 kinds tried)"))
    return out

"""Game-mode throughput: played deals per second on one core, per policy and
variant, with the ratio to a plain-Python game loop measured in the same run.

The baseline (``python_random_deals``) is the straightforward way to write a
game loop in Python: shuffle, deal, flower replacement, then draw / win check
/ random discard / win checks of the others until the wall is exhausted, with
a recursive complete-hand check. It does less than the engine (no claims, no
kongs, no wilds, no scoring or payments), so the ratios understate the
engine's advantage. Targets: >= 10,000 deals/s with greedy and
>= 5,000 with value, per core, without event logs.
"""
from __future__ import annotations

import random
import time

import numpy as np

from benchmarks.common import Result

VARIANTS = ("ningbo-3baida", "ningbo-3baida-tianyi", "ningbo-7baida", "ningbo-tongchengyou",
            "ninghai")


def _complete(counts: list[int]) -> bool:
    """Plain recursive standard-form check (no wilds) on 34 kind counts."""
    def melds(c, i):
        while i < 34 and c[i] == 0:
            i += 1
        if i == 34:
            return True
        if c[i] >= 3:
            c[i] -= 3
            ok = melds(c, i)
            c[i] += 3
            if ok:
                return True
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            ok = melds(c, i)
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1
            if ok:
                return True
        return False

    if sum(counts) % 3 != 2:
        return False
    for p in range(34):
        if counts[p] >= 2:
            counts[p] -= 2
            ok = melds(counts, 0)
            counts[p] += 2
            if ok:
                return True
    return False


def python_random_deals(n: int, seed: int = 1) -> int:
    """Play n deals with the plain-Python loop; returns the number of wins."""
    wins = 0
    for d in range(n):
        rnd = random.Random(seed * 1_000_003 + d)
        wall = list(range(144))
        rnd.shuffle(wall)
        kinds = [t // 4 if t < 136 else 34 + t - 136 for t in wall]
        live, tail = 0, 143
        hands = [[0] * 42 for _ in range(4)]
        for s in range(4):
            for _ in range(14 if s == 0 else 13):
                hands[s][kinds[live]] += 1
                live += 1
        for s in range(4):
            while any(hands[s][34:]):
                for f in range(34, 42):
                    while hands[s][f]:
                        hands[s][f] -= 1
                        hands[s][kinds[tail]] += 1
                        tail -= 1
        cur = 0
        first = True
        while True:
            if not first:
                if live > tail:
                    break
                k = kinds[live]
                live += 1
                while k >= 34:
                    if live > tail:
                        break
                    k = kinds[tail]
                    tail -= 1
                if k >= 34:
                    break
                hands[cur][k] += 1
            first = False
            if _complete(hands[cur][:34]):
                wins += 1
                break
            held = [k for k in range(34) if hands[cur][k]]
            t = rnd.choice(held)
            hands[cur][t] -= 1
            won = False
            for o in range(1, 4):
                h = hands[(cur + o) % 4]
                h[t] += 1
                won = _complete(h[:34])
                h[t] -= 1
                if won:
                    break
            if won:
                wins += 1
                break
            cur = (cur + 1) % 4
    return wins


def _engine_rate(rs, tables, policy: str, n: int) -> float:
    """Whole deals per second of ``policy`` in every seat (``_engine_run``)."""
    return _engine_run(rs, tables, policy, n)[0]


def _engine_run(rs, tables, policy: str, n: int) -> tuple[float, int]:
    """(whole deals per second, the best of three runs; the discards made in
    one run) of the first ``n`` deals of seed 1 with ``policy`` in every
    seat, on one core, without event logs (``games.game_batch``)."""
    from nbsim.kernels.engine import games as KG
    from nbsim.kernels.engine import state as ES
    from nbsim.policy_specs import as_policies, kernel_arrays
    from nbsim.run.frames import PER_DEAL, PER_EVENT, _alloc

    a = _alloc(n, False)
    pols = kernel_arrays(as_policies(policy), rs.array, tables)
    rows = KG.DealRows(*(a[k] for k in PER_DEAL))
    ev = KG.EventRows(*(a[k] for k in PER_EVENT))
    state = ES.new_state()

    def run():
        KG.game_batch(rs.array, tables, np.uint64(1), np.int64(0), pols, state, False, rows, ev)

    run()                                 # compile / load the cache
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        run()
        best = max(best, n / (time.perf_counter() - t0))
    return best, int(a["out"][:, ES.O_TURNS].sum())


def bench(quick: bool = False) -> list[Result]:
    from nbsim.kernels.policies.catalog import NAMES, SEARCH
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules

    tables = load_tables()
    nb = 100 if quick else 400
    t0 = time.perf_counter()
    python_random_deals(nb)
    base = nb / (time.perf_counter() - t0)
    n = 2_000 if quick else 10_000
    out = []
    for v in (VARIANTS[:1] if quick else VARIANTS):
        rs = load_rules(v)
        for pol in (p for p in NAMES if p not in SEARCH):   # search: bench_lookahead
            rate = _engine_rate(rs, tables, pol, n)
            out.append(Result(f"game deals/s, {v}, {pol} x4", rate, "deals/s",
                              "plain-Python random-play loop (no claims/scoring)", base,
                              note=f"{n:,} deals, one thread, no event log"))
    return out

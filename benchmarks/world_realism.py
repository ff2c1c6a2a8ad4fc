"""How close the lookahead's sampled opponents are to the real ones.

    python -m benchmarks.world_realism [--variant ningbo-tongchengyou] [--deals 30]
                                       [--worlds 20] [--seed 1] [--policy defend]

Replays deals 0 .. ``--deals``-1 of ``--seed`` with ``--policy`` in every
seat (``nbsim.play.replays.replay``, with event logs). At every third
discard of East from its fourth on, it rebuilds East's view of the table
(``divergence.state_at``, as ``nbsim advise`` reads it) and deals
``--worlds`` worlds from it with each opponent model of the evaluator
(``playout.build_world`` with ``refine`` 0 to 3: ``lookahead:opponents``).
For every opponent it compares the world's hidden hand with the real one
(wild kinds left out) and prints, per model, the mean share of the real
hand's tiles the world's hand also holds, and the world's share of tiles
in the real hand's main suit and honours (the real hands' own share
first). It also prints how often ``playout.read_suit`` names the real
hand's main suit. docs/lookahead.md, "Reading the discards, a guard, and
claims on 同城游", has its figures. It is not part of ``make test`` or
``make bench``.
"""
from __future__ import annotations

import argparse

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels.engine import state as ES
from nbsim.kernels.search import playout as PL
from nbsim.play.divergence import east_positions
from nbsim.play.replays import hands_at
from nbsim.rules.ruleset import as_rules

REFINES = (0, 1, 2, 3)


def _natural(counts: np.ndarray, wild: np.ndarray) -> np.ndarray:
    """A hand's natural tiles by kind (float64[N_PLAY]) from its counts by
    kind (length >= N_PLAY); wild kinds 0."""
    h = np.asarray(counts[:C.N_PLAY], dtype=np.float64).copy()
    h[wild[:C.N_PLAY]] = 0.0
    return h


def _main_share(h: np.ndarray, suit: int) -> float:
    """Share of the tiles of ``h`` in ``suit`` and the honours."""
    return float((h[9 * suit:9 * suit + 9].sum() + h[27:].sum()) / h.sum())


def measure(variant: str, deals: int, worlds: int, seed: int, policy: str) -> dict:
    """The figures printed by ``main`` (see the module doc) as a dict."""
    rs = as_rules(variant)
    sr = ES.new_search(1, 1)
    g = ES.search_game(sr)
    st = np.zeros(rng.RNG_LEN, np.uint64)
    shared: dict[int, list[float]] = {r: [] for r in REFINES}
    main: dict[int, list[float]] = {r: [] for r in REFINES}
    real_main: list[float] = []
    hits: list[bool] = []
    n_pos = 0
    for d, row, ev, i, view in east_positions(rs, seed, deals, policy, every=3):
        real = hands_at(row, ev, i)
        n_pos += 1
        for name in ("S", "W", "N"):
            s = C.SEAT_NAMES.index(name)
            rh = _natural(np.bincount(np.asarray(real[name], dtype=np.int64),
                                      minlength=C.N_KINDS), view.wild)
            if rh.sum() == 0:
                continue
            suit = int(np.argmax([rh[9 * u:9 * u + 9].sum() for u in range(3)]))
            real_main.append(_main_share(rh, suit))
            rng.stream_init(np.uint64(seed), np.int64(len(hits)), rng.STREAM_USER, st)
            hits.append(int(PL.read_suit(view, st, np.int64(s))) == suit)
            for r in REFINES:
                sh, mn = [], []
                for j in range(worlds):
                    rng.stream_init(np.uint64(7 + 1000 * d + i), np.int64(j),
                                    rng.STREAM_USER, st)
                    if PL.build_world(view, g, st, sr.pool, sr.unseen, np.int64(r), sr.out):
                        continue
                    wh = _natural(g.hands[s], view.wild)
                    if wh.sum() == 0:
                        continue
                    sh.append(float(np.minimum(wh, rh).sum() / rh.sum()))
                    mn.append(_main_share(wh, suit))
                shared[r].append(float(np.mean(sh)))
                main[r].append(float(np.mean(mn)))
    return {"positions": n_pos, "hands": len(real_main), "real_main": float(np.mean(real_main)),
            "read_hits": float(np.mean(hits)), "shared": shared, "main": main}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="ningbo-tongchengyou")
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--worlds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", default="defend")
    a = ap.parse_args(argv)
    m = measure(a.variant, a.deals, a.worlds, a.seed, a.policy)
    print(f"{a.variant}: {m['positions']} positions of E, {m['hands']} opponent hands, "
          f"{a.worlds} worlds each")
    print(f"real hands: share in their main suit and honours {m['real_main']:.3f}; "
          f"read_suit names the main suit {m['read_hits']:.3f}")
    for r in REFINES:
        sh, mn = np.array(m["shared"][r]), np.array(m["main"][r])
        print(f"opponents {r}: tiles shared with the real hand {sh.mean():.3f} "
              f"(se {sh.std(ddof=1) / np.sqrt(len(sh)):.3f}); share in the real main suit "
              f"and honours {mn.mean():.3f} (se {mn.std(ddof=1) / np.sqrt(len(mn)):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

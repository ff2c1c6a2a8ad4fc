"""Measure the constants of defend's threat and win-chance models.

    python -m benchmarks.calibrate_threat [--variant ningbo-3baida] [--deals 2000]
                                          [--policy value] [--seed 12345]

Plays ``--deals`` deals with ``--policy`` in every seat (with event logs) and
replays each log, keeping every seat's concealed tiles. At every discard it
records, for each other seat, what shows (melds, discards, recent discards of
the tile just drawn, the suits of its melds) and the truth (is it ready, does
the discard complete its hand, was the discard won on), and for the
discarder its shanten after the discard and whether it won the deal. It
prints:

* the logistic fit of P(ready) on melds, discards and recent drawn-tile
  discards (``threat.READY_*``);
* P(complete | ready) by rank, unseen copies, own discard and suit pattern
  (``threat.WAIT_*``), and P(won on | complete) by meld suits
  (``threat.LEGAL_*``);
* P(win) by the discarder's shanten and the tiles left (``defend.WIN_TABLE``).

The kernels keep the constants as code (they are compiled in); this script
is how they were measured. It is not part of ``make test`` or ``make bench``.
"""
from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from scipy.optimize import minimize

from nbsim.kernels import hand as H
from nbsim.rules.lookups import load_tables
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import KIND_NAMES
from nbsim.run.game_mode import game_frame

KIND = {n: i for i, n in enumerate(KIND_NAMES)}
SEAT = {"E": 0, "S": 1, "W": 2, "N": 3}


def _natural(hand, wild, nat):
    w = 0
    for k in range(42):
        if k in wild:
            w += int(hand[k])
        elif k < 34:
            nat[k] = hand[k]
    for k in wild:
        if k < 34:
            nat[k] = 0
    return w


def collect(variant: str, policy: str, deals: int, seed: int):
    """(opponent rows, discarder rows) as polars frames (see the module doc)."""
    rs = load_rules(variant)
    tables = load_tables()
    reserve = 2 * rs.config.wall.reserve_stacks
    df, ev = game_frame(rs, seed, 0, deals, (policy,) * 4, tables, with_events=True)
    winner = dict(zip(df["deal"].to_list(), df["winner"].to_list(), strict=False))
    wilds = dict(zip(df["deal"].to_list(), df["wild_kinds"].to_list(), strict=False))
    opp, own = [], []
    nat = np.zeros(34, np.int8)
    for (deal,), g in ev.group_by("deal", maintain_order=True):
        wild = {KIND[t] for t in wilds[deal]}
        hands = np.zeros((4, 42), np.int8)
        melds = [[] for _ in range(4)]
        pond = [[] for _ in range(4)]
        passed = [set() for _ in range(4)]
        last = [-1] * 4
        visible = np.zeros(42, np.int16)
        drawn_total = 0
        n_kongs = 0
        evl = list(g.iter_rows(named=True))
        for i, e in enumerate(evl):
            a, s = e["action"], SEAT.get(e["seat"], -1)
            t = KIND.get(e["tile"], -1) if e["tile"] else -1
            if a == "indicator":
                visible[t] += 1
            elif a in ("deal", "draw", "replace"):
                hands[s, t] += 1
                last[s] = t
                drawn_total += 1
            elif a == "flower":
                hands[s, t] -= 1
                visible[t] += 1
            elif a == "discard":
                hands[s, t] -= 1
                visible[t] += 1
                per_kong = 2 * rs.config.wall.reserve_stacks_per_kong
                tiles_left = 143 - drawn_total - reserve - per_kong * n_kongs
                w = _natural(hands[s], wild, nat)
                own.append(dict(deal=deal, tiles_left=tiles_left, melds=len(melds[s]),
                                shanten=int(H.shanten(nat, w, len(melds[s]), tables)),
                                won=winner[deal] == "ESWN"[s]))
                j = i + 1
                while j < len(evl) and evl[j]["action"] == "pass_win":
                    j += 1
                for d in (1, 2, 3):
                    o = (s + d) % 4
                    w = _natural(hands[o], wild, nat)
                    sh = H.shanten(nat, w, len(melds[o]), tables)
                    comp = False
                    if sh == 0 and t < 34:
                        if t in wild:
                            comp = H.is_complete(nat, w + 1, tables)
                        else:
                            nat[t] += 1
                            comp = H.is_complete(nat, w, tables)
                            nat[t] -= 1
                    won_on = (j < len(evl) and evl[j]["action"] == "win"
                              and SEAT.get(evl[j]["seat"]) == o)
                    opp.append(dict(
                        o_melds=len(melds[o]), o_discards=len(pond[o]),
                        o_recent_drawn=sum(x for _, x in pond[o][-2:]), ready=sh == 0,
                        complete=bool(comp), dealt_in=bool(won_on), tile=t,
                        wild=t in wild, in_pond=any(k == t for k, _ in pond[o]),
                        passed=t in passed[o],
                        unseen=int(4 - visible[t] - hands[s, t]) if t < 34 else 0,
                        o_suits=",".join(sorted({m for m in melds[o]}))))
                pond[s].append((t, last[s] == t))
                last[s] = -1
                passed[s] = set()
                for d in (1, 2, 3):
                    passed[(s + d) % 4].add(t)
            elif a in ("pung", "kong", "chow"):
                if a == "pung":
                    hands[s, t] -= 2
                    visible[t] += 2
                elif a == "kong":
                    hands[s, t] -= 3
                    visible[t] += 3
                    n_kongs += 1
                else:
                    lo = KIND[e["meld"].split(":")[1][0] + e["meld"][-1]]
                    for x in (lo, lo + 1, lo + 2):
                        if x != t:
                            hands[s, x] -= 1
                            visible[x] += 1
                melds[s].append("z" if t >= 27 else "mps"[t // 9])
            elif a == "added_kong":
                hands[s, t] -= 1
                visible[t] += 1
                n_kongs += 1
            elif a == "concealed_kong":
                hands[s, t] -= 4
                n_kongs += 1
                melds[s].append("z" if t >= 27 else "mps"[t // 9])
    return pl.DataFrame(opp), pl.DataFrame(own)


def fit_ready(opp: pl.DataFrame) -> np.ndarray:
    """Logistic regression of ready on (1, melds, discards, recent drawn)."""
    x = np.column_stack([np.ones(opp.height), opp["o_melds"].to_numpy(),
                         opp["o_discards"].to_numpy(),
                         opp["o_recent_drawn"].to_numpy()]).astype(float)
    y = opp["ready"].to_numpy().astype(float)

    def nll(b):
        z = x @ b
        return float(np.sum(np.logaddexp(0, z) - y * z))

    def grad(b):
        return x.T @ (1 / (1 + np.exp(-(x @ b))) - y)

    return minimize(nll, np.zeros(4), jac=grad, method="BFGS").x


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="ningbo-3baida")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--policy", default="value")
    ap.add_argument("--seed", type=int, default=12345)
    args = ap.parse_args(argv)
    pl.Config.set_tbl_rows(40)
    pl.Config.set_tbl_cols(16)
    opp, own = collect(args.variant, args.policy, args.deals, args.seed)
    b = fit_ready(opp)
    print(f"P(ready) = logistic({b[0]:+.3f} {b[1]:+.3f} melds {b[2]:+.3f} discards "
          f"{b[3]:+.3f} recent drawn discards)")
    ready = opp.filter(pl.col("ready") & ~pl.col("wild"))
    rank = (pl.when(pl.col("tile") >= 27).then(pl.lit("honor"))
            .otherwise((pl.col("tile") % 9 + 1).cast(pl.String)))
    print("P(complete | ready), mean", round(ready["complete"].mean(), 4))
    for name, key in (("rank", rank), ("unseen", pl.col("unseen")),
                      ("own discard", pl.col("in_pond")), ("passed", pl.col("passed"))):
        print(ready.group_by(key.alias(name)).agg(pl.len(), pl.col("complete").mean(),
                                                  pl.col("dealt_in").mean()).sort(name))
    comp = opp.filter(pl.col("complete"))
    print("P(won on | complete), mean", round(comp["dealt_in"].mean(), 4))
    print(comp.group_by("o_melds", "o_suits").agg(pl.len(), pl.col("dealt_in").mean())
          .filter(pl.col("len") >= 50).sort("o_melds", "o_suits"))
    table = (own.with_columns((pl.col("tiles_left").clip(0, 95) // 8).clip(0, 11).alias("b"))
             .group_by("shanten", "b").agg(pl.col("won").mean().round(3))
             .filter(pl.col("shanten") <= 6)
             .pivot(on="b", index="shanten", values="won", sort_columns=True).sort("shanten"))
    print("P(win) by shanten after the discard (rows) and tiles left // 8 (columns)")
    print(table)


if __name__ == "__main__":
    main()

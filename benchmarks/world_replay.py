"""Does a table rebuilt from a played deal hold everything the engine's
decisions read? Real discards played on from the rebuilt table with the
real hidden tiles, against the real outcome.

    python -m benchmarks.world_replay [--variants V,V,...] [--deals 40]
        [--seed 1]

Replays deals 0 .. ``--deals``-1 of ``--seed`` with defend in every seat
(``nbsim.play.replays.replay``). At every discard of East from its fourth
on it rebuilds East's table (``divergence.state_at``, as ``nbsim advise``
reads it) and plays East's real discard on with the real hidden hands,
face-down kongs and the wall's real next tiles
(``nbsim.play.divergence.replay_discard``). defend draws no random numbers, so
every position must end as the real deal did; it prints, per variant, the
positions played and those that did, and lists the others (deal, event).
docs/lookahead.md, "Calibration of the worlds", has its figures. It is not
part of ``make test`` or ``make bench`` (tests/test_worlds.py plays a few
of these positions).
"""
from __future__ import annotations

import argparse

from nbsim.kernels.engine import state as ES
from nbsim.play.divergence import east_positions, replay_discard
from nbsim.rules.ruleset import as_rules

VARIANTS = ("ningbo-3baida", "ningbo-3baida-tianyi", "ningbo-tongchengyou", "ningbo-7baida",
            "ninghai")


def check(variant: str, deals: int, seed: int) -> tuple[int, int, list[tuple[int, int]]]:
    """(positions played, those that reached the real outcome, the others
    as (deal, event index)) for East's discards from its fourth on."""
    rs = as_rules(variant)
    sr = ES.new_search(1, 2)
    played = same = 0
    misses = []
    for d, row, ev, i, view in east_positions(rs, seed, deals):
        want = (row["winner"], [row["pay_e"], row["pay_s"], row["pay_w"], row["pay_n"]])
        played += 1
        if replay_discard(row, ev, i, view, sr) == want:
            same += 1
        else:
            misses.append((d, i))
    return played, same, misses


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    total = [0, 0]
    for v in a.variants.split(","):
        played, same, misses = check(v, a.deals, a.seed)
        total[0] += played
        total[1] += same
        print(f"{v}: {same} of {played} positions reach the real outcome"
              + (f"; not: {', '.join(f'deal {d} event {i}' for d, i in misses)}" if misses
                 else ""), flush=True)
    print(f"all: {total[1]} of {total[0]}")


if __name__ == "__main__":
    main()

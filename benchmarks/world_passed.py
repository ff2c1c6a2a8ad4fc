"""How often do the evaluator's sampled worlds contradict what the other
seats let go by? A seat that let a kind go by since its own last discard
(``View.passed``) holds a hand that cannot legally win on it (players take
every legal win). ``playout.build_world`` deals such a world again when
asked to (``playout.RESPECT_PASSED``, as ``nbsim advise`` and
``evaluate`` do); the ``lookahead`` policy's worlds do not ask.

    python -m benchmarks.world_passed [--variant ningbo-3baida]
        [--opponents 3] [--respect-passed] [--deals 60] [--worlds 40]
        [--seed 1]

Replays deals 0 .. ``--deals``-1 of ``--seed`` with defend in every seat.
At every third discard of East from its fourth on where another seat has
let something go by, it rebuilds East's table (``divergence.state_at``)
and deals ``--worlds`` worlds with opponent model ``--opponents``
(``nbsim.play.worlds.OPPONENT_MODELS``; with ``--respect-passed`` as
advise deals them), and counts the worlds in which some other seat's
hand would legally win on a kind it let go by (scored as a win on a
discard by the next seat; ``playout.contradicts_passed``).
docs/lookahead.md, "Calibration of the worlds", has its figures. Not part
of ``make test`` or ``make bench``.
"""
from __future__ import annotations

import argparse

import numpy as np

from nbsim.kernels import rng
from nbsim.kernels.engine import state as ES
from nbsim.kernels.search import playout as PL
from nbsim.play.divergence import east_positions
from nbsim.play.worlds import check_opponents
from nbsim.rules.ruleset import as_rules


def count(variant: str, opponents: int, deals: int, worlds: int, seed: int,
          respect: bool = False) -> tuple[int, int, int]:
    """(positions, worlds dealt, worlds that contradict what was let go by);
    ``respect``: worlds dealt as advise deals them."""
    rs = as_rules(variant)
    refine = np.int64(check_opponents(opponents) | (PL.RESPECT_PASSED if respect else 0))
    sr = ES.new_search(1, 2)
    g = ES.search_game(sr)
    n_pos = n_worlds = n_bad = 0
    for _, _, _, _, view in east_positions(rs, seed, deals, every=3):
        if not view.passed[1:].any():
            continue
        n_pos += 1
        for j in range(worlds):
            rng.stream_init(np.uint64(5), np.int64(j), rng.STREAM_USER, sr.st)
            if PL.build_world(view, g, sr.st, sr.pool, sr.unseen, refine, sr.out):
                continue
            n_worlds += 1
            n_bad += bool(PL.contradicts_passed(view, g, sr.out))
    return n_pos, n_worlds, n_bad


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="ningbo-3baida")
    ap.add_argument("--opponents", type=int, default=3)
    ap.add_argument("--respect-passed", action="store_true",
                    help="deal the worlds as advise does (none contradicts what was let go by)")
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    n_pos, n_worlds, n_bad = count(a.variant, a.opponents, a.deals, a.worlds, a.seed,
                                   a.respect_passed)
    print(f"{a.variant}, opponents model {a.opponents}"
          f"{' (respecting what was let go by)' if a.respect_passed else ''}: "
          f"{n_pos} positions, {n_worlds} worlds; "
          f"{n_bad} ({n_bad / max(n_worlds, 1):.2%}) give a seat a hand that would have won "
          f"on a kind it let go by")


if __name__ == "__main__":
    main()

"""``nbsim advise``'s race against every candidate on the same deals: on a
few positions of ningbo-3baida, the moves named "within the noise" of the
best and the seconds taken (wall and CPU time of the thread), by the
default race (``advise``: 50 deals for every candidate, then new common
deals for those whose paired 95% interval to the best still reaches 0, up
to 3200 deals or 2 s of computing) and by every candidate on the same 400
deals (``first`` = ``samples`` = 400), measured one after the other in one
process (the lookahead kernels compiled first).

Run: ``.venv/bin/python -m benchmarks.advise_race [SEED]``; prints one
line per position and setting.
"""
from __future__ import annotations

import sys
import time
from typing import Any

# (name, table state): the players' guide position, plain ready hands, a hand two
# tiles from ready and a claim
POSITIONS = (
    ("readme", dict(hand="123m456p789s1155z3p", drawn="3p", indicator="9m",
                    discards=["E:19m", "S:9s1z", "W:5p", "N:2z(7z)"],
                    melds=["W:pung:777z"])),
    ("ready-6m9m", dict(hand="234m567m111z78m99s5z", drawn="5z", indicator="9m",
                        discards=["E:1p", "S:9s1z", "W:5p", "N:2z"])),
    ("plain-13", dict(hand="123m456p789s34s55z1z", drawn="1z", indicator="9m")),
    ("ready-flush", dict(hand="123p456p789p23p55p8s", drawn="8s", indicator="9m",
                         discards=["E:1s", "S:9s", "W:5m", "N:2z"])),
    ("two-away", dict(hand="134m258p3679s115z2z", drawn="2z", indicator="9m",
                      discards=["E:9p", "S:1s", "W:4z", "N:3z"])),
    ("claim-5z", dict(hand="123m456p789s155z3p", indicator="9m", seat="S",
                      discards=["E:19m"], offered="5z", offered_from="E")),
)


def measure(seed: int = 1) -> list[tuple[str, str, int, int, float, float, int]]:
    """(position, setting, moves within the noise, candidates, wall seconds,
    CPU seconds, deals for the best) per position and setting."""
    from nbsim.play.advice.advise import advise
    from nbsim.play.advice.state import position_from_options
    from nbsim.warmup import ensure_compiled
    ensure_compiled("lookahead")
    rs = "ningbo-3baida"
    out = []
    for name, state in POSITIONS:
        pos = position_from_options(rs, **state)
        advise(rs, pos, samples=2, seed=seed)           # the candidates' scorer, warm
        settings: tuple[tuple[str, dict[str, Any]], ...] = (
            ("same 400 deals", dict(samples=400, first=400)), ("race (default)", {}))
        for setting, kw in settings:
            t, cpu = time.perf_counter(), time.thread_time()
            adv = advise(rs, pos, seed=seed, **kw)
            dt, dcpu = time.perf_counter() - t, time.thread_time() - cpu
            sim = [c for c in adv.candidates if c.mean_pay is not None]
            out.append((name, setting, len(adv.close), len(sim), dt, dcpu, adv.samples))
    return out


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    for name, setting, close, n, dt, cpu, deals in measure(seed):
        print(f"{name:12s} {setting:15s} within the noise {close:2d} of {n:2d} moves, "
              f"{dt:5.2f} s ({cpu:4.2f} s CPU), {deals} deals for the best")


if __name__ == "__main__":
    main()

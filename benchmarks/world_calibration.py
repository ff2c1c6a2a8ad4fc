"""Are the lookahead's sampled worlds calibrated? Its forecasts of how a
deal ends, against how the real deals ended.

    python -m benchmarks.world_calibration [--variant ningbo-tongchengyou]
        [--deals 200] [--samples 200] [--seed 1] [--every 3]

Replays deals 0 .. ``--deals``-1 of ``--seed`` with defend in every seat
(``nbsim.play.replays.replay``). At every ``--every``-th discard of East
from its fourth on, it rebuilds East's view (``divergence.state_at``, as
``nbsim advise`` reads it) and plays East's real discard on ``--samples``
worlds to the end of the deal, defend at its defaults in every seat, as
the real deal was played (``playout.evaluate_into`` with ``refine`` 0 to 3:
``lookahead:opponents``; "3p": model 3 whose worlds never give a seat a
hand that would have won on a kind it let go by; "3ph": the same with
a refined flush target that keeps the honours, as ``nbsim advise``
deals them (``benchmarks.calibrate_dealin.refine_of``); and "oracle":
the real hidden hands and face-down kongs, only the wall order sampled;
``--models`` picks the rows). The evaluator forecasts East's payment,
P(East wins), P(East deals in), P(the wall is exhausted) and P(another
seat wins).

The real deal is one draw of what the forecast describes: the hidden tiles
the view allows, played by the same policies. So if the worlds were drawn
as the real hidden tiles are, the mean of (real outcome - forecast) over
the positions would be 0 for every figure, up to chance; the "oracle" row
shows that this harness finds 0 where it should. Intervals are 95%, from
the spread of the deals' summed residuals (positions of one deal are not
independent). docs/lookahead.md, "Calibration of the worlds", has its
figures. It is not part of ``make test`` or ``make bench``.
"""
from __future__ import annotations

import argparse

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels.engine import state as ES
from nbsim.kernels.policies.catalog import code_of
from nbsim.kernels.search import playout as PL
from nbsim.play.divergence import east_positions
from nbsim.play.replays import hidden_at
from nbsim.play.worlds import play_defend, real_world
from nbsim.rules.ruleset import as_rules
from nbsim.rules.tiles import parse_tile

MODELS = ("0", "1", "2", "3", "3p", "3ph", "oracle")
FIGURES = ("payment", "E wins", "E deals in", "exhausted", "another wins")


def _oracle(view, sr, k: int, samples: int, key, real, kongs) -> np.ndarray:
    """The forecast (FIGURES) of discarding ``k`` on ``samples`` worlds with
    the real hidden hands ``real`` and face-down kongs ``kongs`` (seat ->
    kinds), the wall order sampled (``worlds.real_world``)."""
    g = ES.search_game(sr)
    seat = view.seat
    sums = np.zeros(len(FIGURES))
    n = 0
    for j in range(samples):
        rng.stream_init(key, np.int64(j), rng.STREAM_USER, sr.st)
        if not real_world(view, g, sr.st, sr, real, kongs=kongs):
            continue
        out = play_defend(view, sr, k, key, j)
        if out[ES.O_ERROR] != 0:
            continue
        winner = int(out[ES.O_WINNER])
        sums += (float(out[ES.O_SCORE + C.RES_PAY + seat]), winner == seat,
                 winner >= 0 and winner != seat and int(out[ES.O_DISCARDER]) == seat,
                 winner < 0, winner >= 0 and winner != seat)
        n += 1
    return sums / max(n, 1)


def _refine(model: str) -> int:
    """``evaluate_into``'s refine of a row: the model's number, with
    ``playout.RESPECT_PASSED`` for a "p" after it and ``FLUSH_HONOURS``
    for an "h" ("3ph": advise's worlds; ``calibrate_dealin.refine_of``)."""
    from benchmarks.calibrate_dealin import refine_of
    return refine_of(model)


def _forecast(view, sr, k: int, samples: int, key, refine: int) -> np.ndarray:
    """The forecast (FIGURES) of discarding ``k`` with opponent model ``refine``."""
    sr.cands[0] = k
    PL.evaluate_into(view, sr, np.int64(1), np.int64(samples), key, np.int64(code_of("defend")),
                     np.int64(-1), np.int64(-1), -1.0, np.int64(refine))
    st = sr.stats[0]
    m = max(st[PL.ST_N], 1.0)
    return np.array((st[PL.ST_PAY], st[PL.ST_WIN], st[PL.ST_DEAL_IN], st[PL.ST_EXHAUSTED],
                     st[PL.ST_N] - st[PL.ST_WIN] - st[PL.ST_EXHAUSTED])) / m


def measure(variant: str, deals: int, samples: int, seed: int, every: int,
            models: tuple[str, ...] = MODELS) -> dict:
    """Per model, per deal: the summed residuals (real - forecast) of its
    positions, float64[deals, FIGURES]; and the real outcomes' means."""
    rs = as_rules(variant)
    sr = ES.new_search(1, samples)
    # every seat plays defend at its defaults (hold 0.15), as in the real deals
    resid = {m: np.zeros((deals, len(FIGURES))) for m in models}
    counts = np.zeros(deals, np.int64)          # positions per deal
    real_all = []
    for d, row, ev, i, view in east_positions(rs, seed, deals, every=every):
        winner = row["winner"]
        real = np.array((float(row["pay_e"]), winner == "E",
                         winner is not None and winner != "E" and row["discarder"] == "E",
                         winner is None, winner is not None and winner != "E"), float)
        k = parse_tile(ev[i]["tile"])
        key = np.uint64(rng.deal_key(np.uint64(seed), np.int64(1000 * d + i)))
        hands, kongs = hidden_at(row, ev, i)
        for m in models:
            f = (_oracle(view, sr, k, samples, key, hands, kongs) if m == "oracle"
                 else _forecast(view, sr, k, samples, key, _refine(m)))
            resid[m][d] += real - f
        real_all.append(real)
        counts[d] += 1
    n_pos = int(counts.sum())
    return {"positions": n_pos, "real": np.mean(real_all, axis=0), "counts": counts,
            "resid": resid}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="ningbo-tongchengyou")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--models", default=",".join(MODELS),
                    help="the rows to measure, comma-separated (default: all)")
    a = ap.parse_args(argv)
    models = tuple(x.strip() for x in a.models.split(",") if x.strip())
    bad = [x for x in models if x not in MODELS]
    if bad:
        ap.error(f"--models {','.join(bad)}: allowed {','.join(MODELS)}")
    m = measure(a.variant, a.deals, a.samples, a.seed, a.every, models)
    n = m["positions"]
    print(f"{a.variant}: {n} positions of East in {a.deals} deals (seed {a.seed}), "
          f"{a.samples} worlds each; defend in every seat")
    print("real outcomes from those positions (mean): "
          + ", ".join(f"{f} {v:.3f}" for f, v in zip(FIGURES, m["real"], strict=True)))
    print("real - forecast, mean over positions [95% interval]:")
    for model in models:
        r = m["resid"][model]                  # [deals, figures]: summed per deal
        mean = r.sum(axis=0) / n
        # the ratio estimator's se over deals (the cluster is the deal)
        k = r.shape[0]
        dev = r - np.outer(m["counts"], mean)
        se = np.sqrt((dev ** 2).sum(axis=0) * k / (k - 1)) / n
        cells = [f"{f} {mu:+.3f} [{mu - 1.96 * s:+.3f}, {mu + 1.96 * s:+.3f}]"
                 for f, mu, s in zip(FIGURES, mean, se, strict=True)]
        print(f"  opponents {model}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Are the evaluator's deal-in chances calibrated? Each opponent model's
predicted chance of dealing in with each tile, against what the real hidden
hands of played deals say.

    python -m benchmarks.calibrate_dealin [--variant ningbo-3baida] [--deals 60]
        [--worlds 100] [--seed 1] [--every 3] [--samples 0]
        [--models 0,1,2,3,3p,3ph] [--plot docs/results/calibration.png]

Replays deals 0 .. ``--deals``-1 of ``--seed`` with defend in every seat
(``nbsim.play.replays.replay``). At every ``--every``-th discard of East
from its fourth on it rebuilds East's view (``divergence.state_at``, as
``nbsim advise`` reads it; ``divergence.east_positions``) and, for every
kind East holds:

* the event (observed for every tile): some other seat's real hidden hand
  would legally win on the tile if East discarded it now, the immediate
  deal-in (``playout.discard_wins`` on the real hidden hands,
  ``worlds.real_world``);
* each model's prediction: the share of ``--worlds`` sampled worlds in
  which that happens (``playout.discard_win_counts``).

Models (``--models``): 0 to 3 are ``nbsim.play.worlds.OPPONENT_MODELS``
(``lookahead:opponents``, the worlds of the ``lookahead`` policy); a "p"
after the number deals again a world that gives a seat a hand that would
have won on a kind it let go by (``playout.RESPECT_PASSED``), an "h" keeps
the honours in a refined flush target (``playout.FLUSH_HONOURS``); "3ph"
is how ``nbsim advise`` deals its worlds with ``--opponents 3``.

With ``--samples N`` > 0 it also forecasts, per model, East's chance of
dealing in before the deal ends with the discard it really made (``N``
worlds played to the end by defend, ``playout.evaluate_into``, as
``benchmarks/world_calibration.py`` does) against whether it did.

For each model it prints the Brier score (mean squared difference of
prediction and outcome) with a 95% interval, its difference to the first
model's on the same tiles (paired), and the calibration bins: per bin of
predicted chance, the tiles, their mean prediction and the share that
dealt in (Wilson 95% interval). Intervals of means are from the spread
of the deals' sums (the tiles of one deal are not independent).
``--plot`` draws the bins (matplotlib PNG, the version, date and command
in its footer). docs/results/calibration.md has the figures. Not part of
``make test`` or ``make bench``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MODELS = ("0", "1", "2", "3", "3p", "3ph")
# right edges of the bins of predicted chance (the last bin ends at 1)
EDGES = (0.0025, 0.01, 0.03, 0.1, 0.3, 1.0)
_MODEL = re.compile(r"^([0-3])(p?)(h?)$")


def refine_of(model: str) -> int:
    """``playout.build_world``'s ``refine`` of a model name (module doc):
    the number, with ``RESPECT_PASSED`` for "p" and ``FLUSH_HONOURS`` for
    "h". Raises ValueError for another name."""
    from nbsim.kernels.search import playout as PL
    m = _MODEL.match(model)
    if m is None:
        raise ValueError(f"model {model!r}: allowed a number 0 to 3, then 'p', then 'h' "
                         f"(e.g. 3ph)")
    return (int(m.group(1)) | (PL.RESPECT_PASSED if m.group(2) else 0)
            | (PL.FLUSH_HONOURS if m.group(3) else 0))


def cluster_mean(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """(mean, standard error) of ``values`` (float64[n]) whose entries
    sharing a ``clusters`` label (int[n]) are not independent: the ratio
    estimator's error from the spread of the clusters' sums (at least two
    clusters; else the error is nan)."""
    values = np.asarray(values, np.float64)
    labels, idx = np.unique(np.asarray(clusters), return_inverse=True)
    mean = float(values.mean())
    k = len(labels)
    if k < 2:
        return mean, float("nan")
    sums = np.bincount(idx, weights=values, minlength=k)
    counts = np.bincount(idx, minlength=k)
    dev = sums - counts * mean
    return mean, float(np.sqrt((dev ** 2).sum() * k / (k - 1)) / len(values))


@dataclass(frozen=True)
class Bin:
    """One calibration bin: predictions in [lo, hi), ``n`` of them, their
    mean ``predicted``, the share ``observed`` of events among them and its
    Wilson 95% interval [obs_lo, obs_hi]."""
    lo: float
    hi: float
    n: int
    predicted: float
    observed: float
    obs_lo: float
    obs_hi: float


@dataclass(frozen=True)
class Calibration:
    """One model's calibration: the Brier score with its standard error
    (clusters: deals), its paired difference to a reference model's
    (``diff``, ``diff_se``; 0 for the reference itself), the bins and the
    number of predictions."""
    brier: float
    brier_se: float
    diff: float
    diff_se: float
    bins: tuple[Bin, ...]
    n: int


def calibration(pred: np.ndarray, obs: np.ndarray, clusters: np.ndarray,
                ref: np.ndarray | None = None,
                edges: Sequence[float] = EDGES) -> Calibration:
    """Brier score and bins of the predicted chances ``pred`` (float64[n]
    in [0, 1]) of the events ``obs`` (bool[n]); ``clusters`` (int[n]):
    which predictions are not independent (the deal); ``ref``: another
    model's predictions of the same events, for the paired difference of
    the Brier scores (this minus ``ref``). ``edges``: the right edges of
    the bins, increasing, the last 1 (the bin [last-but-one, 1] includes 1).
    Raises ValueError for inputs of different lengths, none at all, or
    predictions outside [0, 1]."""
    from nbsim.stats import wilson
    pred = np.asarray(pred, np.float64)
    y = np.asarray(obs, bool).astype(np.float64)
    if not len(pred) or len(pred) != len(y) or len(pred) != len(clusters):
        raise ValueError(f"calibration: {len(pred)} predictions, {len(y)} outcomes and "
                         f"{len(clusters)} clusters; allowed: the same number, at least one")
    if pred.min() < 0.0 or pred.max() > 1.0:
        raise ValueError("calibration: predictions must lie in [0, 1]")
    sq = (pred - y) ** 2
    brier, se = cluster_mean(sq, clusters)
    diff, dse = 0.0, 0.0
    if ref is not None:
        diff, dse = cluster_mean(sq - (np.asarray(ref, np.float64) - y) ** 2, clusters)
    bins = []
    lo = 0.0
    for j, hi in enumerate(edges):
        last = j == len(edges) - 1
        inside = (pred >= lo) & ((pred <= hi) if last else (pred < hi))
        n = int(inside.sum())
        if n:
            k = int(y[inside].sum())
            wlo, whi = wilson(k, n)
            bins.append(Bin(lo, hi, n, float(pred[inside].mean()), k / n, wlo, whi))
        lo = hi
    return Calibration(brier, se, diff, dse, tuple(bins), len(pred))


def flush_threat(view, s: int) -> bool:
    """Does seat ``s`` show a flush threat: two or more declared melds
    (face-down kongs apart), every suited one of them in one suit?"""
    from nbsim.kernels import codes as C
    suits = {int(view.melds[s, m, C.MELD_KIND]) // 9 for m in range(int(view.n_melds[s]))
             if view.melds[s, m, C.MELD_TYPE] != C.MELD_CKONG}
    n = sum(1 for m in range(int(view.n_melds[s]))
            if view.melds[s, m, C.MELD_TYPE] != C.MELD_CKONG)
    return n >= 2 and len(suits - {3}) == 1


def measure(variant: str, deals: int, worlds: int, seed: int, every: int,
            models: Sequence[str] = MODELS, samples: int = 0) -> dict:
    """The predictions and outcomes (module doc). Returns a dict: "tiles"
    with float64[n] per model ("pred"), bool[n] "obs", int[n] "deal" and
    bool[n] "threat" (some other seat shows a flush threat,
    ``flush_threat``); "whole" the same per position for the discard
    played (empty with ``samples`` 0); "positions" their number."""
    from benchmarks.world_calibration import _forecast
    from nbsim.kernels import codes as C
    from nbsim.kernels import rng
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.search import playout as PL
    from nbsim.play.divergence import east_positions
    from nbsim.play.replays import hidden_at
    from nbsim.play.worlds import real_world
    from nbsim.rules.ruleset import as_rules
    from nbsim.rules.tiles import parse_tile

    rs = as_rules(variant)
    refines = {m: refine_of(m) for m in models}
    sr = ES.new_search(1, max(worlds, samples, 2))
    g = ES.search_game(sr)
    wins = np.zeros(C.N_KINDS, np.bool_)
    counts = np.zeros(C.N_KINDS, np.float64)
    tiles: dict = {"pred": {m: [] for m in models}, "obs": [], "deal": [], "threat": []}
    whole: dict = {"pred": {m: [] for m in models}, "obs": [], "deal": [], "threat": []}
    n_pos = 0
    for d, row, ev, i, view in east_positions(rs, seed, deals, every=every):
        hands, kongs = hidden_at(row, ev, i)
        key = np.uint64(rng.deal_key(np.uint64(seed), np.int64(1000 * d + i)))
        rng.stream_init(key, np.int64(0), rng.STREAM_USER, sr.st)
        if not real_world(view, g, sr.st, sr, hands, kongs=kongs):
            continue
        PL.discard_wins(view, g, sr.out, wins)
        real = wins.copy()
        held = [k for k in range(C.FLOWER0) if view.hand[k] > 0]
        threat = any(flush_threat(view, s) for s in range(4) if s != view.seat)
        n_pos += 1
        for m in models:
            n = PL.discard_win_counts(view, sr, np.int64(worlds), key, np.int64(refines[m]),
                                      wins, counts)
            tiles["pred"][m].extend(counts[held] / max(n, 1))
        tiles["obs"].extend(real[held])
        tiles["deal"].extend([d] * len(held))
        tiles["threat"].extend([threat] * len(held))
        if samples > 0:
            k = parse_tile(ev[i]["tile"])
            winner = row["winner"]
            for m in models:
                whole["pred"][m].append(_forecast(view, sr, k, samples, key, refines[m])[2])
            whole["obs"].append(winner is not None and winner != "E" and row["discarder"] == "E")
            whole["deal"].append(d)
            whole["threat"].append(threat)
    for part in (tiles, whole):
        part["pred"] = {m: np.asarray(v, np.float64) for m, v in part["pred"].items()}
        for c in ("obs", "deal", "threat"):
            part[c] = np.asarray(part[c])
    return {"tiles": tiles, "whole": whole, "positions": n_pos}


def table(part: dict, models: Sequence[str], subset: np.ndarray | None = None) -> str:
    """The text table of ``measure``'s ``part`` ("tiles" or "whole"),
    restricted to ``subset`` (bool mask) if given: per model the Brier
    score, its paired difference to the first model's, and the bins."""
    mask = np.ones(len(part["obs"]), bool) if subset is None else subset
    if not mask.any():
        return "  (no predictions)"
    obs, deal = part["obs"][mask], part["deal"][mask]
    ref = part["pred"][models[0]][mask]
    lines = [f"  {int(mask.sum())} predictions, {len(np.unique(deal))} deals, "
             f"{obs.mean():.4f} dealt in"]
    for m in models:
        c = calibration(part["pred"][m][mask], obs, deal, ref)
        cells = "; ".join(f"[{b.lo:g},{b.hi:g}) n {b.n} pred {b.predicted:.4f} obs "
                          f"{b.observed:.4f} [{b.obs_lo:.4f}, {b.obs_hi:.4f}]" for b in c.bins)
        lines.append(f"  model {m}: Brier {c.brier:.5f} [{c.brier - 1.96 * c.brier_se:.5f}, "
                     f"{c.brier + 1.96 * c.brier_se:.5f}]; minus model {models[0]} "
                     f"{c.diff:+.5f} [{c.diff - 1.96 * c.diff_se:+.5f}, "
                     f"{c.diff + 1.96 * c.diff_se:+.5f}]\n    {cells}")
    return "\n".join(lines)


def plot(m: dict, models: Sequence[str], path: str, footer: str) -> None:
    """The calibration bins of each model (predicted against observed,
    square-root axes, Wilson intervals), one panel per measured part, to
    the PNG ``path``, ``footer`` under it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    parts = [("tiles", "immediate deal-in, every tile East holds")]
    if len(m["whole"]["obs"]):
        parts.append(("whole", "deal-in before the deal ends, discard played"))
    fig, axes = plt.subplots(1, len(parts), figsize=(6.5 * len(parts), 6), squeeze=False)
    sq = (np.sqrt, np.square)
    for ax, (name, title) in zip(axes[0], parts, strict=True):
        part = m[name]
        top = 0.0
        for j, model in enumerate(models):
            c = calibration(part["pred"][model], part["obs"], part["deal"])
            x = np.array([b.predicted for b in c.bins]) * (1 + 0.01 * j)
            y = np.array([b.observed for b in c.bins])
            err = np.array([[b.observed - b.obs_lo for b in c.bins],
                            [b.obs_hi - b.observed for b in c.bins]])
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3,
                        label=f"model {model} (Brier {c.brier:.4f})")
            top = max(top, float(x.max()), float(max(b.obs_hi for b in c.bins)))
        ax.plot([0, top], [0, top], color="grey", lw=1, ls="--", label="calibrated")
        ax.set_xscale("function", functions=sq)
        ax.set_yscale("function", functions=sq)
        ax.set_xlim(0, top * 1.05)
        ax.set_ylim(0, top * 1.05)
        ax.set_xlabel("predicted chance (mean of the bin)")
        ax.set_ylabel("observed share (Wilson 95%)")
        ax.set_title(f"{title}\n{len(part['obs'])} predictions")
        ax.legend(fontsize=8)
    fig.text(0.01, 0.005, footer, fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="ningbo-3baida")
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--samples", type=int, default=0,
                    help="worlds played to the end per position and model for the whole-deal "
                         "deal-in of the discard played (0: not measured)")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated; the first is the reference of the differences")
    ap.add_argument("--plot", default=None, help="write the calibration plot (PNG) here")
    a = ap.parse_args(argv)
    models = tuple(x.strip() for x in a.models.split(",") if x.strip())
    for x in models:
        try:
            refine_of(x)
        except ValueError as e:
            ap.error(str(e))
    import nbsim
    m = measure(a.variant, a.deals, a.worlds, a.seed, a.every, models, a.samples)
    print(f"{a.variant}: {m['positions']} positions of East in {a.deals} deals (seed {a.seed}), "
          f"{a.worlds} worlds per model; defend in every seat")
    print("immediate deal-in, every tile East holds:")
    print(table(m["tiles"], models))
    print("the same, positions where another seat shows a flush threat:")
    print(table(m["tiles"], models, m["tiles"]["threat"]))
    if a.samples:
        print(f"deal-in before the deal ends with the discard played ({a.samples} worlds):")
        print(table(m["whole"], models))
    if a.plot:
        cmd = "python -m benchmarks.calibrate_dealin " + " ".join(
            sys.argv[1:] if argv is None else argv)
        footer = (f"nbsim {nbsim.__version__}, {dt.date.today().isoformat()}, {a.variant}, "
                  f"{m['positions']} positions; {cmd}")
        plot(m, models, a.plot, footer)
        print(f"plot: {a.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

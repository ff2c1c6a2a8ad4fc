"""``nbsim duel``: duplicate play of two policies on the same walls.

Two seatings, both of duplicate deals (every play of deal i has the same
wall and the same per-seat random streams):

- ``2v2`` (the default): the deal is played twice, seats (A, B, A, B) and
  then (B, A, B, A) (seats from the dealer). Each policy so sits in every
  seat once per deal. The statistic per deal is

      d_i = (sum of A's 4 payments - sum of B's 4 payments) / 4

- ``1v3``: the deal is played five times: all four seats B, then A in seat
  s and B in the three others, for s = E, S, W, N. The statistic is

      d_i = mean over s of (payment of seat s with A there
                            - payment of seat s when every seat plays B)

  the gain of one seat switching from B to A at a table of B players. A
  play with A in one seat is the all-B play until A's first different
  decision, so the part of the deal before it adds no noise; when A is
  rarely different from B (a search player over its base policy), d_i has
  a smaller spread than under 2v2 for the same number of A-seat plays.

  With ``among`` C (a third policy), the three other seats play C and
  seat s plays A in one play and B in another (eight plays a deal):

      d_i = mean over s of (payment of seat s with A there
                            - payment of seat s with B there), others C

  the difference between two one-seat policies at a table of C players
  (e.g. two settings of lookahead among defend players).

Both are in points per deal and seat; the mean over the deals with a 95% t
interval (scipy) says which policy earns more. Duplicate play removes most
of the luck of the deal.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from scipy import stats

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.policy_specs import parse_policy
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.run.files import MAX_DEALS
from nbsim.run.game_mode import game_frame
from nbsim.run.simulate import default_workers

SEAT_PAY = ("pay_e", "pay_s", "pay_w", "pay_n")
SEATINGS = ("2v2", "1v3")


@dataclass(frozen=True)
class DuelResult:
    """Duplicate-play result: a and b (policy names), deals, mean of d_i
    (points per deal and seat, A minus B), its standard error and 95%
    interval, the two-sided p-value of mean = 0 (t test), the seating
    ('2v2' or '1v3') and the win rates: under 2v2 the share of the
    2 x deals plays won by each policy's two seats; under 1v3 the share of
    the 4 x deals one-seat plays won by A's seat, and of the same seats'
    plays won in the all-B play; ``among``: under 1v3 the policy of the
    three other seats when it is not B (then win_rate_b is the share of
    the one-seat plays won by B's seat), "" otherwise. Where the deals
    come from: ``seed`` and ``first`` (deals first .. first + deals - 1),
    and for a pool of separate ranges ``parts`` (text, e.g. 'seed 2: deals
    0 .. 999; seed 6: deals 0 .. 5,999'; seed None when the parts have
    several seeds); ``rules_hash``: the RuleSet's hash (overrides
    included), so that parts played under other rules are not pooled
    (``nbsim.play.pools``). ``a_full``, ``b_full``, ``among_full``: the
    same policies with every parameter written out (``Policy.full``; ""
    for ``among_full`` when there is no ``among``, and for all three in a
    result of an older nbsim, which did not record them): ``a`` and ``b``
    drop the parameters
    at their defaults, so they name other play once a default changes,
    while the full forms keep meaning what was played."""
    config: str
    a: str
    b: str
    deals: int
    mean: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float
    win_rate_a: float
    win_rate_b: float
    seating: str = "2v2"
    among: str = ""
    seed: int | None = None
    first: int = 0
    parts: str = ""
    rules_hash: str = ""
    a_full: str = ""
    b_full: str = ""
    among_full: str = ""

    def where(self) -> str:
        """Which deals were played: '' for deals 0 .. deals - 1 of one seed
        (or no seed recorded), else e.g. ' (deals 1,000 .. 1,999 of seed
        2)' or, for a pool of several ranges, ' (seed 2: deals 0 .. 3,999;
        seed 6: deals 0 .. 5,999)'."""
        if self.parts:
            return f" ({self.parts})"
        if self.first and self.seed is not None:
            return (f" (deals {self.first:,} .. {self.first + self.deals - 1:,} of seed "
                    f"{self.seed})")
        return ""

    def text(self) -> str:
        """What ``nbsim duel`` prints (points per deal and seat): the duel,
        A minus B and the shares of plays won, each wrapped to
        ``stats.TEXT_WIDTH`` columns."""
        from nbsim.stats import fill
        if self.seating == "1v3":
            head = (f"{self.deals:,} duplicate deals{self.where()}, one {self.a} seat among "
                    f"{self.among or self.b} players"
                    + (f" against one {self.b} seat among them" if self.among else ""))
            wins = (f"share of plays won by the seat: {self.a} there {self.win_rate_a:.4f}, "
                    f"{self.b} there {self.win_rate_b:.4f}")
        else:
            head = f"{self.deals:,} duplicate deals{self.where()}"
            wins = (f"share of plays won (each policy holds 2 of the 4 seats): "
                    f"{self.a} {self.win_rate_a:.4f}, {self.b} {self.win_rate_b:.4f}")
        return fill(f"{self.config}: {self.a} vs {self.b}, {head}\n"
                    f"mean payment per deal and seat, {self.a} minus {self.b}: "
                    f"{self.mean:+.3f} points (95% CI {self.ci_low:+.3f} .. "
                    f"{self.ci_high:+.3f}, se {self.se:.3f}, {_p_text(self.p_value)})\n" + wins,
                    indent="  ")


def _p_text(p: float) -> str:
    """'p = 0.0123', or 'p < 1e-16' below double precision (the t test's
    p-value underflows to 0 for very large differences)."""
    return "p < 1e-16" if p < 1e-16 else f"p = {p:.3g}"


def duel(config: RuleSet | str | Path, a: str, b: str, deals: int, seed: int, tables=None,
         chunk: int | None = None, progress=None, seating: str = "2v2",
         among: str | None = None, first: int = 0, workers: int | None = None) -> DuelResult:
    """Play ``deals`` duplicate deals of ``config`` (a RuleSet, a shipped
    variant's name or a TOML path) with policies ``a`` and ``b``
    (policy specs such as ``defend:caution=0.8``, ``nbsim.policy_specs``),
    seated as ``seating`` ('2v2' or '1v3', module docstring); ``among``: under
    1v3, the policy of the three other seats (default ``b``). ``first``: the
    index of the first deal, so deals ``first .. first + deals - 1`` of the
    seed's walls are played (a long duel split into ranges, each run on its
    own, pools exactly: ``nbsim.play.pools``). ``chunk``: deals per
    kernel call, a whole number 1 or more (progress is reported after each);
    default 50,000, or 100 when a policy is a search policy (about a minute
    of play). ``progress``: None, or a function called with the number of
    deals each chunk finished (e.g. a tqdm bar's ``update``). ``tables``:
    ``nbsim.rules.lookups.load_tables()`` (default: loaded here). ``workers``:
    threads playing at once (default: every core this process may use);
    each chunk's plays are split into ranges of deals so that every worker
    has one, and the result does not depend on it (a deal's play depends
    on its index only).

    Raises RunError for an unknown policy, parameter or seating, ``among``
    with the 2v2 seating, fewer than 2 deals or more than ``MAX_DEALS``, a
    range past deal ``MAX_DEALS - 1``, a seed outside 0 .. 2**64 - 1,
    workers or chunk below 1, a ``progress`` that is not a function, or
    ``tables`` that are not the lookup tables."""
    from nbsim.args import whole_number
    rs = as_rules(config)
    pa, pb = parse_policy(a), parse_policy(b)
    a, b = pa.spec, pb.spec
    pc = pb if among is None else parse_policy(among)
    if among is not None and seating != "1v3":
        raise RunError(f"--among {among}: the other seats' policy applies to --seating 1v3 "
                       f"only, not {seating}")
    deals = whole_number(deals, "--deals", error=RunError)
    seed = whole_number(seed, "--seed", error=RunError)
    if not 2 <= deals <= MAX_DEALS:
        raise RunError(f"--deals must be 2 .. {MAX_DEALS:,} (at least 2 for an interval), "
                       f"got {deals}")
    if not 0 <= seed < 2**64:
        raise RunError(f"--seed must be 0 .. 2**64 - 1, got {seed}")
    first = whole_number(first, "--first", error=RunError)
    if not 0 <= first <= MAX_DEALS - deals:
        raise RunError(f"--first must be 0 .. {MAX_DEALS - deals:,} (the {deals:,} deals from "
                       f"the first must end by deal {MAX_DEALS - 1:,}), got {first}")
    workers = default_workers() if workers is None else whole_number(workers, "--workers",
                                                                      error=RunError)
    if workers < 1:
        raise RunError(f"--workers must be 1 or more, got {workers}")
    from nbsim.kernels.policies.catalog import SEARCH
    search = bool(SEARCH & {pa.name, pb.name, pc.name})
    chunk = ((100 if search else 50_000) if chunk is None
             else whole_number(chunk, "chunk", 1, MAX_DEALS, error=RunError))
    if progress is not None and not callable(progress):
        raise RunError(f"progress must be None or a function taking a number of deals "
                       f"(e.g. a tqdm bar's update), got {progress!r}")
    if seating not in SEATINGS:
        raise RunError(f"--seating must be one of {', '.join(SEATINGS)}, got {seating!r}")
    from nbsim.rules.lookups import Tables, load_tables
    if tables is None:
        tables = load_tables()
    elif not isinstance(tables, Tables):
        raise RunError(f"tables must be nbsim.rules.lookups.load_tables()'s Tables (or None), "
                       f"got {type(tables).__name__}")
    from concurrent.futures import ThreadPoolExecutor

    from nbsim.warmup import ensure_compiled
    ensure_compiled("game")              # says so before a first compile
    if search:
        ensure_compiled("lookahead")     # the engine with a search policy
    pool = ThreadPoolExecutor(max_workers=workers)   # plays at once (nogil kernels)
    if seating == "1v3" and pc.spec != b:
        def play(plays, pa, pb):
            return _plays_1v3_among(plays, pa, pb, pc)
    else:
        play = _plays_1v3 if seating == "1v3" else _plays_2v2
    # running sums of d_i and d_i**2 (float64; |d_i| is a few hundred points
    # at most), so any number of deals fits in memory
    s1 = 0.0
    s2 = 0.0
    win_a = 0
    win_b = 0
    halt = threading.Event()             # Ctrl-C: the plays stop between kernel calls
    try:
        for start in range(first, first + deals, chunk):
            stop = min(start + chunk, first + deals)
            frames = partial(_frames, pool, workers, rs, seed, start, stop, tables, halt.is_set)
            d, wa, wb = play(frames, pa, pb)
            s1 += float(d.sum())
            s2 += float((d * d).sum())
            win_a += wa
            win_b += wb
            if progress is not None:
                progress(stop - start)
    finally:
        halt.set()
        pool.shutdown(wait=False, cancel_futures=True)
    plays = 4 * deals if seating == "1v3" else 2 * deals
    with_among = seating == "1v3" and pc.spec != b
    return summary(rs.name, a, b, deals, s1, s2, win_a / plays, win_b / plays, seating,
                   pc.spec if with_among else "", seed, first, "", rs.hash,
                   (pa.full, pb.full, pc.full if with_among else ""))


def summary(config, a, b, deals, s1, s2, win_rate_a, win_rate_b, seating, among, seed, first,
            parts, rules_hash, full=("", "", "")) -> DuelResult:
    """A DuelResult from the running sums s1 = sum d_i and s2 = sum d_i**2
    over ``deals`` deals: the mean, its standard error, the 95% t interval
    and the two-sided one-sample t test of mean = 0 (scipy). ``full``: the
    full forms of a, b and among (DuelResult's ``a_full`` ..)."""
    mean = s1 / deals
    sd = math.sqrt(max(s2 - deals * mean * mean, 0.0) / (deals - 1))
    se = sd / math.sqrt(deals)
    dof = float(deals - 1)
    if se > 0:
        lo, hi = stats.t.interval(0.95, dof, loc=mean, scale=se)
        p = float(2.0 * stats.t.sf(abs(mean) / se, dof))
    else:
        lo = hi = mean
        p = 1.0 if mean == 0 else 0.0
    return DuelResult(config, a, b, deals, mean, se, float(lo), float(hi), p,
                      win_rate_a, win_rate_b, seating, among, seed, first, parts, rules_hash,
                      *full)


def _pay(df) -> np.ndarray:
    """(deals, 4) float64 payments in points, seats from the dealer."""
    return df.select(SEAT_PAY).to_numpy().astype(np.float64)


def _frames(pool, workers, rs, seed, start, stop, tables, halt, *seatings):
    """Each seating's (4 policies, from the dealer) game frame of deals
    ``start .. stop - 1`` of ``seed``, in order, played on ``pool``: each
    seating's deals split into ranges so that every one of ``workers``
    threads has one (a deal's play depends on its index only, so the split
    changes no row); all ranges are submitted before any is awaited.
    ``halt``: once it returns True the plays stop between kernel calls
    (``nbsim.run.frames.Pace``; the duel is then being abandoned)."""
    import polars as pl
    n = stop - start
    pieces = min(n, -(-workers // len(seatings)))
    cuts = [start + n * j // pieces for j in range(pieces + 1)]
    futures = [[pool.submit(game_frame, rs, seed, lo, hi, pols, tables, False, None, halt)
                for lo, hi in zip(cuts, cuts[1:], strict=False)] for pols in seatings]
    return [pl.concat([_result(f)[0] for f in fs]) for fs in futures]


def _result(future, poll_s: float = 0.05):
    """``future.result()``, waited for in short steps: a signal that reaches
    another thread than the main one (a process's signal goes to any of its
    threads) is then seen within ``poll_s`` seconds, where a wait without a
    timeout would last until the play ends."""
    while True:
        try:
            return future.result(timeout=poll_s)
        except TimeoutError:
            continue


def _plays_2v2(plays, pa, pb):
    """The chunk's deals seated A,B,A,B and B,A,B,A: (d_i float64
    array, plays won by A's seats, plays won by B's seats)."""
    df1, df2 = plays((pa, pb, pa, pb), (pb, pa, pb, pa))
    p1, p2 = _pay(df1), _pay(df2)
    a_sum = p1[:, 0] + p1[:, 2] + p2[:, 1] + p2[:, 3]
    b_sum = p1[:, 1] + p1[:, 3] + p2[:, 0] + p2[:, 2]
    w1 = df1["winner"].to_list()
    w2 = df2["winner"].to_list()
    win_a = sum(w in ("E", "W") for w in w1) + sum(w in ("S", "N") for w in w2)
    win_b = sum(w in ("S", "N") for w in w1) + sum(w in ("E", "W") for w in w2)
    return (a_sum - b_sum) / 4.0, win_a, win_b


def _one_seat_plays(pa, pc):
    """The four seatings with A in seat s (s = E, S, W, N) and C in the others."""
    return [tuple(pa if t == s else pc for t in range(4)) for s in range(4)]


def _one_seat(frames):
    """From the four one-seat plays' frames (``_one_seat_plays``): (float64
    (deals,) mean over s of seat s's payment, plays won by the one seat)."""
    pay = np.zeros(frames[0].height)
    won = 0
    for s, df in enumerate(frames):
        pay += _pay(df)[:, s]
        won += sum(w == C.SEAT_NAMES[s] for w in df["winner"].to_list())
    return pay / 4.0, won


def _plays_1v3(plays, pa, pb):
    """The chunk's deals played all B and with A in each seat in turn:
    (d_i float64 array, one-seat plays won by A's seat, the same seats'
    wins in the all-B play)."""
    df0, *ones = plays((pb,) * 4, *_one_seat_plays(pa, pb))
    a_pay, win_a = _one_seat(ones)
    b_pay = _pay(df0).mean(axis=1)
    win_b = sum(w in C.SEAT_NAMES for w in df0["winner"].to_list())
    return a_pay - b_pay, win_a, win_b


def _plays_1v3_among(plays, pa, pb, pc):
    """The chunk's deals with A, then B, in each seat in turn among C
    players: (d_i float64 array, plays won by A's seat, by B's seat)."""
    frames = plays(*_one_seat_plays(pa, pc), *_one_seat_plays(pb, pc))
    a_pay, win_a = _one_seat(frames[:4])
    b_pay, win_b = _one_seat(frames[4:])
    return a_pay - b_pay, win_a, win_b

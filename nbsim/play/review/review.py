"""``nbsim review`` and ``nbsim.review``: every decision of one seat in a
played deal rated against the best move (docs/guide/players.md).

The deal comes from a run made with ``--events`` (a run folder, a deal and
a seat), from ``nbsim replay`` (a variant, the deal's seed, deal and
policies: played again to its event log) or from a record written by hand
(``record``: a JSON file, a dict or a ``Record``). Its decisions
(``decisions``) are rated one by one (``rate``) from the seat's view of the
table alone, the hidden tiles sampled by the lookahead evaluator as ``nbsim
advise`` samples them.
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbsim.errors import NbsimError, RunError
from nbsim.play.review.decisions import decisions
from nbsim.play.review.rate import Rating, rate
from nbsim.play.review.record import Record, parse_record, read_record, record_from_events
from nbsim.play.worlds import ADVICE_OPPONENTS
from nbsim.rules.ruleset import RuleSet, as_rules

__all__ = ["Review", "review", "load_record", "DEFAULT_SAMPLES", "COSTLIEST"]

DEFAULT_SAMPLES = 200     # sampled deals per move at most, per decision (the race's cap)
COSTLIEST = 3             # the decisions the summary shows with their table


@dataclass(frozen=True)
class Review:
    """A deal's review for one seat.

    record: the deal as the seat saw it (``record.Record``); variant: the
    rules' name; ratings: one ``rate.Rating`` per decision reviewed, in
    order; found: the decisions in the record (more than ``ratings`` when
    interrupted; a decision with one legal move or no tile left to draw is
    not rated); samples, budget, seed, base, opponents: the precision and
    the evaluator's settings (samples: the most sampled deals per move of
    a decision; budget: seconds of computing per decision, None: none);
    seconds: the time it took; interrupted: Ctrl-C stopped it (the
    ratings are those finished before); unread: the decisions left unrated
    because the advice's table notation cannot express their table, each
    with the reason (e.g. two claimed tiles of one discarder that its
    matching of melds to discards pairs the other way)."""
    record: Record
    variant: str
    ratings: tuple[Rating, ...]
    found: int
    samples: int | None
    budget: float | None
    seed: int
    base: str
    opponents: int
    seconds: float = 0.0
    interrupted: bool = False
    unread: tuple[str, ...] = ()

    @property
    def agreement(self) -> float:
        """The share of the rated decisions whose move made is the best (nan
        with none rated)."""
        n = len(self.ratings)
        return sum(r.made == r.best for r in self.ratings) / n if n else math.nan

    @property
    def total_loss(self) -> tuple[float, float, float]:
        """The expected loss of the whole deal (points per deal: the sum of
        the decisions' losses) with its 95% interval, the decisions taken
        as independent (each is rated on its own sampled deals)."""
        from nbsim.play.advice.fits import Z95
        loss = sum(r.loss for r in self.ratings)
        se = math.sqrt(sum(((r.high - r.low) / (2 * Z95)) ** 2 for r in self.ratings))
        return loss, loss - Z95 * se, loss + Z95 * se

    @property
    def flagged(self) -> tuple[Rating, ...]:
        """The decisions whose loss interval lies above 0."""
        return tuple(r for r in self.ratings if r.flagged)

    def costliest(self, n: int = COSTLIEST) -> tuple[Rating, ...]:
        """The ``n`` decisions with the largest expected loss (> 0), the
        largest first."""
        rows = sorted((r for r in self.ratings if r.loss > 0), key=lambda r: -r.loss)
        return tuple(rows[:n])


def load_record(source: Any, *, seat: str | int | None = None, deal: int | None = None,
                replay_seed: int | None = None,
                policies: str | Sequence[str] | None = None) -> tuple[RuleSet, Record]:
    """The rules and the record of ``source``:

    * a ``Record``, a dict (the JSON format of ``record``) or a path to a
      ``.json`` record file;
    * a run folder made with ``nbsim simulate --mode game --events``, with
      ``deal`` (its index in the run) and ``seat`` (E S W N, or 0..3 from
      the dealer);
    * a variant (a shipped name, a TOML path or a RuleSet) with
      ``replay_seed``, ``deal``, ``seat`` and ``policies`` (one spec, or
      four from the dealer; default the default policy): the deal ``nbsim
      replay`` plays.

    Raises HandError for a bad record, RunError for a run without events or
    with no such deal, a missing seat or deal, ConfigError for a bad
    variant."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 4 or (
            isinstance(seat, str) and seat.strip() in ("0", "1", "2", "3")):
        seat = "ESWN"[int(seat)]
    if isinstance(source, Record):
        return _rules_of(source), source
    if isinstance(source, Mapping):
        rec = parse_record(source)
        return _rules_of(rec), rec
    if isinstance(source, (str, Path)) and not isinstance(source, RuleSet):
        p = Path(source)
        if p.suffix.lower() == ".json":
            if not p.is_file():
                raise RunError(f"record file {str(p)!r} does not exist")
            rec = read_record(p)
            return _rules_of(rec), rec
        if p.is_dir():
            return _from_run(p, seat, deal)
    if isinstance(source, (str, Path)):
        from nbsim.rules.ruleset import shipped_configs
        if not Path(source).exists() and str(source) not in shipped_configs():
            raise RunError(f"{source}: no run folder, .json record or TOML file of that name, "
                           f"and no shipped variant ({', '.join(shipped_configs())})")
    if replay_seed is None or deal is None or seat is None:
        raise RunError(f"{source}: a variant is reviewed on the deal nbsim replay plays: give "
                       f"its seed, deal and seat (--run-seed, --deal, --seat); or give a run "
                       f"folder made with --events, or a .json record")
    from nbsim.play.replays import replay
    rs = as_rules(source)
    played = replay(rs, replay_seed, deal, policies)
    text = f"nbsim replay {rs.name} --seed {replay_seed} --deal {deal}"
    return rs, record_from_events(str(source) if not isinstance(source, RuleSet) else rs.name,
                                  played.row, played.events, seat, source=text,
                                  rules=rs.to_dict() if isinstance(source, RuleSet) else None)


def _rules_of(rec: Record) -> RuleSet:
    if rec.rules is not None:
        from nbsim.rules.ruleset import from_dict
        return from_dict(rec.rules, source=rec.source or rec.variant)
    return as_rules(rec.variant)


def _from_run(run: Path, seat, deal) -> tuple[RuleSet, Record]:
    import polars as pl

    from nbsim.args import whole_number
    from nbsim.rules.ruleset import from_dict
    from nbsim.run.files import read_run_manifest, shard_paths
    if deal is None or seat is None:
        raise RunError(f"{run}: give the deal (--deal, its index in the run) and the seat "
                       f"(--seat E S W N) to review")
    deal = whole_number(deal, "--deal", 0, None, RunError)
    m = read_run_manifest(run)
    if m.get("mode") != "game" or not m.get("events"):
        raise RunError(f"{run}: a review needs a game-mode run made with --events (nbsim "
                       f"simulate --mode game --events); this one has no event log")
    shard = next((s for s in m.get("shards", [])
                  if s["first_deal"] <= deal < s["first_deal"] + s["deals"]), None)
    if shard is None or not shard.get("events_file"):
        raise RunError(f"{run}: no finished deal {deal}; the run holds deals 0 .. "
                       f"{int(m.get('deals_done') or 0) - 1}")
    shard_paths(run, m)                   # the files listed are there
    row = pl.read_parquet(run / shard["file"]).filter(pl.col("deal") == deal).row(0, named=True)
    ev = (pl.read_parquet(run / shard["events_file"]).filter(pl.col("deal") == deal)
          .sort("step").drop("deal").to_dicts())
    rs = from_dict(m["rules"], source=f"{run}/manifest.json")
    name = (m.get("config") or {}).get("name") or rs.name
    return rs, record_from_events(name, row, ev, seat, source=f"{run} deal {deal}",
                                  rules=m["rules"])


def review(source: Any, *, seat: str | int | None = None, deal: int | None = None,
           replay_seed: int | None = None, policies: str | Sequence[str] | None = None,
           samples: int | None = None, budget: float | None = None, seed: int = 0,
           base: str = "defend", opponents: int = ADVICE_OPPONENTS,
           progress: bool | None = None) -> Review:
    """Every decision of one seat in a played deal, rated against the best.

    ``source`` (``load_record``): a record (a ``Record``, a dict in the
    JSON format of docs/guide/players.md, a ``.json`` path), a run folder made
    with ``--events`` with ``deal`` and ``seat``, or a variant with
    ``replay_seed``, ``deal``, ``seat`` and ``policies`` (the deal ``nbsim
    replay`` plays).

    For each decision (a discard, a kong, a claim or a pass, a win or a
    pass; ``decisions``) the seat's view of the table at that moment (its
    hand, the melds, discards and flowers; never the hidden tiles) goes to
    the advice (``nbsim.advise``): the legal moves raced on common sampled
    deals played out by ``base`` with the opponent model ``opponents``,
    a legal win scored; the move made and the best are then played again
    on fresh common sampled deals (seed + 1). The Rating gives the move
    made, the best move and the expected loss of the move made in points
    per deal for the seat, with its 95% interval (paired on those deals),
    flagged when the interval lies above 0 (``rate``; docs/rules.md
    §2-§6).

    Precision: ``samples`` the most sampled deals a move of a decision is
    played on (default ``DEFAULT_SAMPLES``, the seed then fixing the
    answer), ``budget`` seconds of computing per decision (a clock, read
    between the race's rounds); ``seed`` the sampled deals' seed.
    ``progress``: a tqdm bar on stderr (None: when stderr is a terminal).
    Ctrl-C stops the review and returns what was rated (``interrupted``).

    Returns a ``Review`` (losses in points per deal). Raises HandError for
    a record that does not fit the rules (one message per inconsistency:
    a tile count that does not add up, a fifth copy, a claim that was not
    possible, a draw after the wall ran out), RunError for a bad source,
    samples (2 .. 100,000), budget, seed, base or opponents, ConfigError
    for a bad variant."""
    import sys

    from tqdm import tqdm

    from nbsim.args import stderr_is_terminal, whole_number
    from nbsim.play.advice.advise import advise
    from nbsim.play.advice.state import position_from_state
    from nbsim.play.evaluation import check_race
    from nbsim.warmup import ensure_compiled

    if samples is not None:
        samples = whole_number(samples, "samples", 2, 100_000, RunError)
    check_race(None, budget)
    seed = whole_number(seed, "seed", 0, 2**64 - 1, RunError)
    cap = DEFAULT_SAMPLES if samples is None and budget is None else samples
    rs, rec = load_record(source, seat=seat, deal=deal, replay_seed=replay_seed,
                          policies=policies)
    found = decisions(rs, rec)
    show = stderr_is_terminal() if progress is None else bool(progress)
    ensure_compiled("advice", clock=show)
    start = time.perf_counter()
    rated: list[Rating] = []
    unread: list[str] = []
    interrupted = False
    with tqdm(total=len(found), unit="decision", disable=not show, file=sys.stderr,
              mininterval=0.25, desc="review") as bar:
        try:
            for dec in found:
                try:
                    pos = position_from_state(rs, dec.state)
                except NbsimError as e:
                    # the record passed its own checks (``record.Table``): a table the
                    # advice's notation cannot express is left unrated, and said so
                    unread.append(f"decision {dec.number} (play action {dec.step}): {e}")
                    bar.update(1)
                    continue
                if pos.tiles_left >= 1:
                    adv = advise(rs, pos, samples=cap, budget=budget, seed=seed, base=base,
                                 opponents=opponents)
                    r = rate(rs, dec, adv, samples=cap or max(int(adv.samples), 2),
                             seed=(seed + 1) % 2**64, base=base, opponents=opponents)
                    if r is not None:
                        rated.append(r)
                bar.update(1)
        except KeyboardInterrupt:
            interrupted = True
    return Review(rec, rs.name, tuple(rated), len(found), cap, budget, seed, base, opponents,
                  time.perf_counter() - start, interrupted, tuple(unread))

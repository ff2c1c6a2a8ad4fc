"""The targets of ``nbsim tune`` (docs/tune.md): ``--target STAT=LOW..HIGH``
parsed and checked against the variant (``parse_targets`` -> ``Target``),
a target's verdict on a 95% interval ("meets", "may meet", "misses"), and
a run's standing against the targets (``evaluate``: the objective the
study minimises; ``prune_gap``: the pruning rule's gap). The statistics are
the game-mode ``STATS`` of ``nbsim.analysis.compare.estimates``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from nbsim.errors import ConfigError, RunError

__all__ = ["MEETS", "MAY_MEET", "MISSES", "Target", "parse_targets", "evaluate", "prune_gap",
           "prune_interval", "as_float"]

MEETS, MAY_MEET, MISSES = "meets", "may meet", "misses"
_FLOAT_RANGE = re.compile(r"^\s*(?P<lo>[-+0-9.eE]*?)\s*\.\.\s*(?P<hi>[-+0-9.eE]*)\s*$")


# ------------------------------------------------------------------ targets
@dataclass(frozen=True)
class Target:
    """One target: the statistic ``key`` (a ``nbsim.analysis.compare.estimates`` STATS key)
    should lie in [low, high] (None: no bound on that side). ``kind`` is
    'rate' (a fraction in 0..1) or 'mean' (in the statistic's unit)."""
    key: str
    low: float | None
    high: float | None
    label: str = ""
    kind: str = "mean"

    def text(self) -> str:
        """'win_rate in [0.9, 0.95]', 'mean_score >= 5', 'win_rate <= 0.95'."""
        if self.low is not None and self.high is not None:
            return f"{self.key} in [{self.low:g}, {self.high:g}]"
        if self.low is not None:
            return f"{self.key} >= {self.low:g}"
        return f"{self.key} <= {self.high:g}"

    @property
    def scale(self) -> float:
        """The unit of the objective's gaps for this target: the range's
        width, or for a one-sided target a tenth of its bound (at least
        0.01), so that targets in different units weigh alike."""
        if self.low is not None and self.high is not None and self.high > self.low:
            return self.high - self.low
        bound = self.low if self.low is not None else self.high
        return max(abs(bound or 0.0) / 10, 0.01)

    def overhang(self, ci_low: float, ci_high: float) -> float:
        """How far the interval [ci_low, ci_high] sticks out of the range,
        in units of ``scale`` (0 when it lies inside)."""
        out = 0.0
        if self.high is not None:
            out += max(0.0, ci_high - self.high)
        if self.low is not None:
            out += max(0.0, self.low - ci_low)
        return out / self.scale

    def gap(self, ci_low: float, ci_high: float) -> float:
        """Positive when the interval lies wholly outside the range (by how
        much, in units of ``scale``), else 0 or below."""
        g = -math.inf
        if self.high is not None:
            g = max(g, ci_low - self.high)
        if self.low is not None:
            g = max(g, self.low - ci_high)
        return g / self.scale

    def verdict(self, ci_low: float, ci_high: float) -> str:
        """'meets' (interval inside the range), 'may meet' (overlaps it) or
        'misses' (wholly outside)."""
        if ci_low != ci_low or ci_high != ci_high:      # no interval (no wins, ...)
            return MISSES
        if self.overhang(ci_low, ci_high) == 0:
            return MEETS
        return MISSES if self.gap(ci_low, ci_high) > 0 else MAY_MEET

    def centre_distance(self, estimate: float) -> float:
        """|estimate - middle of the range| / width for a two-sided target
        (0 for a one-sided one): the tie-break between trials that meet."""
        if self.low is None or self.high is None:
            return 0.0
        return abs(estimate - (self.low + self.high) / 2) / self.scale


def _stat_defs(mode: str = "game") -> dict:
    from nbsim.analysis.compare.estimates import STATS
    return {s.key: s for s in STATS[mode]}


def _number(text: str, what: str) -> float | None:
    text = text.strip()
    if text == "":
        return None
    try:
        v = float(text)
    except ValueError:
        raise ConfigError(f"{what}: {text!r} is not a number") from None
    if v != v or math.isinf(v):
        raise ConfigError(f"{what}: {text!r} is not a finite number")
    return v


# statistics that are one and the same number, or complements (a + b = 1):
# targets on both must agree (docs/tune.md)
_SAME = {frozenset({"mean_score", "mean_tai"})}
_COMPLEMENT = {frozenset({"win_rate", "wall_exhausted_rate"})}


def parse_targets(targets, rules) -> list[Target]:
    """``--target STAT=LOW..HIGH`` options (one string, a list of them, or
    a mapping STAT -> 'LOW..HIGH' / [LOW, HIGH]) -> Targets for the game-mode
    statistics of ``nbsim.analysis.compare.estimates.STATS``. LOW or HIGH may be left out
    (``win_rate=..0.95``, ``mean_score=5..``). ``rules`` (a RuleSet) tells
    which statistics the variant has (tai against Ninghai fan/fu).

    Raises ConfigError: malformed option, unknown statistic (the message
    lists them), a statistic the variant does not have, LOW > HIGH, a rate
    range outside 0..1, a statistic given twice, or targets that contradict
    each other (the same statistic under two names; win and
    wall-exhausted rates, which add up to 1; the four seats' net points,
    which add up to 0; the four seats' win rates, which add up to the win
    rate; with ranges that cannot all hold), a range of width 0."""
    defs = _stat_defs()
    items: list[tuple[str, str]] = []
    if isinstance(targets, dict):
        for k, v in targets.items():
            if isinstance(v, (list, tuple)) and len(v) == 2:
                v = f"{'' if v[0] is None else v[0]}..{'' if v[1] is None else v[1]}"
            items.append((str(k), str(v)))
    else:
        from nbsim.args import text_items
        for t in text_items(targets, "--target", "'win_rate=0.90..0.95'", ConfigError):
            if "=" not in t:
                raise ConfigError(f"--target {t!r}: expected STAT=LOW..HIGH, e.g. "
                                  f"win_rate=0.90..0.95 (LOW or HIGH may be left out)")
            k, v = t.split("=", 1)
            items.append((k.strip(), v))
    if not items:
        raise ConfigError("tune needs at least one --target STAT=LOW..HIGH, e.g. "
                          "win_rate=0.90..0.95")
    run = _rules_run(rules)
    names = _rule_columns(rules)
    out: list[Target] = []
    for key, rng in items:
        what = f"--target {key}={rng}"
        if key not in defs:
            raise ConfigError(f"{what}: unknown statistic {key!r}; allowed: {', '.join(defs)}")
        st = defs[key]
        if st.value(names, run) is None:
            have = [k for k, s in defs.items() if s.value(names, run) is not None]
            raise ConfigError(f"{what}: {rules.name} has no statistic {key!r} (its scoring is "
                              f"{run.system}); allowed: {', '.join(have)}")
        m = _FLOAT_RANGE.match(rng)
        if not m:
            raise ConfigError(f"{what}: expected LOW..HIGH with numbers, e.g. {key}=0.90..0.95 "
                              f"(LOW or HIGH may be left out: {key}=..0.95)")
        lo, hi = _number(m["lo"], what), _number(m["hi"], what)
        if lo is None and hi is None:
            raise ConfigError(f"{what}: give LOW, HIGH or both, e.g. {key}=0.90..0.95")
        if lo is not None and hi is not None and lo > hi:
            raise ConfigError(f"{what}: LOW {lo:g} is above HIGH {hi:g}")
        if lo is not None and lo == hi:
            raise ConfigError(f"{what}: LOW and HIGH are both {lo:g}: a range of width 0 "
                              f"never holds a 95% interval, so no setting could meet it; give "
                              f"a range, e.g. {key}={lo:g}..{hi + max(abs(hi) / 20, 0.01):g}")
        if st.kind == "rate" and ((lo is not None and lo > 1) or (hi is not None and hi < 0)):
            raise ConfigError(f"{what}: {key} is a rate, a fraction 0..1 (e.g. 0.90 for 90%); "
                              f"the range holds no rate")
        if any(t.key == key for t in out):
            raise ConfigError(f"{what}: {key} has a target already; give each statistic once")
        out.append(Target(key, lo, hi, st.label, st.kind))
    _check_consistent(out)
    _check_sums(out)
    return out


def _check_consistent(targets: list[Target]) -> None:
    by = {t.key: t for t in targets}
    for pair in _SAME | _COMPLEMENT:
        a, b = sorted(pair)
        if a not in by or b not in by:
            continue
        ta, tb = by[a], by[b]
        if pair in _COMPLEMENT:     # b = 1 - a: b's range as a range of a
            tb_lo = None if tb.high is None else 1 - tb.high
            tb_hi = None if tb.low is None else 1 - tb.low
            why = f"{a} + {b} = 1 (every deal is won or exhausted)"
        else:
            tb_lo, tb_hi = tb.low, tb.high
            why = f"{a} and {b} are the same statistic in tai variants"
        lo = max(v for v in (ta.low, tb_lo, -math.inf) if v is not None)
        hi = min(v for v in (ta.high, tb_hi, math.inf) if v is not None)
        if lo > hi:
            raise ConfigError(f"contradictory targets: {ta.text()} and {tb.text()} cannot both "
                              f"hold ({why})")


_SEATS = "ESWN"


def _check_sums(targets: list[Target]) -> None:
    """Statistics that add up: the four seats' mean net points add up to 0
    (payments sum to zero); the four seats' win rates add up to the win
    rate (1 - the wall-exhausted rate). Ranges whose sums cannot meet are
    contradictory."""
    by = {t.key: t for t in targets}
    inf = math.inf

    def check(parts: list[str], lo_default: float, hi_default: float, total: tuple,
              given: list[Target], why: str) -> None:
        got = [by[p] for p in parts if p in by]
        if not got:
            return
        lows = [by[p].low if p in by else None for p in parts]
        highs = [by[p].high if p in by else None for p in parts]
        lo = math.fsum(lo_default if v is None else v for v in lows)
        hi = math.fsum(hi_default if v is None else v for v in highs)
        if lo > total[1] or hi < total[0]:
            names = " and ".join(t.text() for t in got + given)
            raise ConfigError(f"contradictory targets: {names} cannot all hold ({why}: the "
                              f"ranges allow a sum of {lo:g} .. {hi:g} only)")

    check([f"net_{s}" for s in _SEATS], -inf, inf, (0.0, 0.0), [],
          "net_E + net_S + net_W + net_N = 0: the payments sum to zero")
    wr_lo, wr_hi, given = 0.0, 1.0, []
    if "win_rate" in by:
        t = by["win_rate"]
        wr_lo, wr_hi = max(wr_lo, t.low or 0.0), min(wr_hi, 1.0 if t.high is None else t.high)
        given.append(t)
    if "wall_exhausted_rate" in by:
        t = by["wall_exhausted_rate"]
        wr_lo = max(wr_lo, 1 - (1.0 if t.high is None else t.high))
        wr_hi = min(wr_hi, 1 - (t.low or 0.0))
        given.append(t)
    check([f"win_{s}" for s in _SEATS], 0.0, 1.0, (wr_lo, wr_hi), given,
          "win_E + win_S + win_W + win_N = win_rate = 1 - wall_exhausted_rate")


def _rules_run(rules):
    """A stand-in ``comparison_stats.Run`` carrying only the rules (for Stat.value)."""
    from nbsim.analysis.compare.estimates import Run
    return Run(Path("."), {"mode": "game", "rules": rules.to_dict()}, rules.name, None)


def _rule_columns(rules) -> list[str]:
    from nbsim.run.schema import column_order
    return column_order("game", rules)


# ------------------------------------------------------------------ a run against the targets
def _target_rows(stats: pl.DataFrame, targets: list[Target]) -> dict[str, dict]:
    """Each target's row of ``stats``; RunError when the run lacks one."""
    out = {}
    for t in targets:
        m = stats.filter(pl.col("key") == t.key)
        if not m.height:
            raise RunError(f"the run has no statistic {t.key!r}")
        out[t.key] = m.row(0, named=True)
    return out


def as_float(v) -> float:
    """A statistic's value as a float: NaN for None (no value)."""
    return math.nan if v is None else float(v)


def evaluate(stats: pl.DataFrame, targets: list[Target]) -> dict:
    """A trial's standing from its run's statistics (``run_stats``):
    {'stats': {key: [estimate, ci_low, ci_high]}, 'verdicts': {key: verdict},
    'objective': sum of the intervals' overhangs (0 = every interval inside
    its range), 'centre': sum of the estimates' distances from the middle
    of two-sided ranges (the tie-break)}."""
    rows = _target_rows(stats, targets)
    res: dict[str, Any] = {"stats": {}, "verdicts": {}, "objective": 0.0, "centre": 0.0}
    for t in targets:
        r = rows[t.key]
        est, lo, hi = as_float(r["estimate"]), as_float(r["ci_low"]), as_float(r["ci_high"])
        res["stats"][t.key] = [est, lo, hi]
        res["verdicts"][t.key] = t.verdict(lo, hi)
        res["objective"] += t.overhang(lo, hi) if lo == lo and hi == hi else 1e6
        res["centre"] += t.centre_distance(est) if est == est else 1e6
    return res


def prune_interval(row: dict, confidence: float) -> tuple[float, float] | None:
    """A statistic's interval at ``confidence`` from its ``run_stats`` row:
    Wilson for a rate (valid at 0 and 1, as ``nbsim.stats.wilson``), t for a
    mean (``nbsim.stats.t_interval``); None when the row has none."""
    from nbsim.stats import t_interval, wilson
    n, est = row.get("n"), row.get("estimate")
    if not n or est is None or est != est:
        return None
    if row.get("kind") == "rate" and row.get("count") is not None:
        lo, hi = wilson(int(row["count"]), int(n), confidence)
    else:
        se = row.get("se")
        if se is None or se != se:
            return None
        lo, hi = t_interval(int(n), float(est), float(se) * math.sqrt(n), confidence)
    return None if lo != lo or hi != hi else (lo, hi)


def prune_gap(stats: pl.DataFrame, targets: list[Target], confidence: float) -> float:
    """The largest gap between a target range and the pruning interval
    (``prune_interval`` at ``confidence``), in units of the target's scale:
    positive when some target is clearly missed. A target whose 95%
    interval (the row's ci_low, ci_high) overlaps its range never counts as
    missed, whatever the pruning interval says."""
    rows = _target_rows(stats, targets)
    gaps = []
    for t in targets:
        r = rows[t.key]
        ci = prune_interval(r, confidence)
        if ci is None:
            continue
        g = t.gap(*ci)
        lo, hi = as_float(r["ci_low"]), as_float(r["ci_high"])
        if lo == lo and hi == hi:
            g = min(g, t.gap(lo, hi))
        gaps.append(g)
    return max(gaps) if gaps else -math.inf

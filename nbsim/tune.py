"""``nbsim tune CONFIG --target STAT=LOW..HIGH --vary KEY=LOW..HIGH|V1,V2,...``:
rule design by search. Which settings of a few rule options (docs/rules.md
§9: tai item values, ``win.min_tai``, payment caps, wilds, claims, ...) put
the statistics a designer cares about (any key ``nbsim compare`` computes:
win rate, wall-exhausted rate, mean tai of wins, deal-in rate, ...) inside
the ranges the designer asks for?

How it searches (docs/tune.md):
    * an Optuna study in a SQLite file (``OUT/study.db``): stopped and
      resumed (``--resume``), and read by Optuna's own tools;
    * one trial = one setting of the varied keys = one ordinary run folder
      ``OUT/runs/<key=value,...>/`` (``nbsim simulate`` layout), every trial
      with the same seed (common random numbers: deal i has the same wall in
      every trial, so trials differ by the rules alone);
    * the objective is how far the trial's 95% intervals stick out of the
      target ranges (0: every interval inside its range);
    * pruning on partial shards: a trial is played in ``steps`` looks (one
      more shard each, the run extended like ``simulate --resume``); after
      each partial look it reports the largest gap between a Bonferroni
      interval (95% over every look and target) and a target range to
      Optuna's ``ThresholdPruner``, which stops it when that gap is
      positive: the trial is clearly outside a target. Its run folder is
      kept as a complete run of fewer deals;
    * the search's best settings (``confirm_top``) and the variant's own
      settings are then played again on a fresh seed with more deals
      (``confirm_deals``), and only those runs are reported: the search's
      best estimate of a setting is biased towards the targets (the
      winner's curse), the confirmation's is not.

Verdicts (per target and trial): "meets" when the 95% interval lies
inside the range, "may meet" when it overlaps it, "misses" otherwise. When
no trial meets or may meet every target, the targets are said to be
infeasible within the searched ranges, and the closest trial is named.

Layout of the study folder ``OUT``:
    OUT/study.db                  the Optuna study (every trial's settings,
                                  objective, state and statistics)
    OUT/runs/<key=value,...>/     one run folder per setting tried
    OUT/confirm/own/              the variant's own settings, fresh seed
    OUT/confirm/<key=value,...>/  the best settings, fresh seed
    OUT/tune.md, tune.json        the trials, the confirmation, the verdicts
    OUT/tune.html, tune.png       the same, self-contained; trials against
                                  each target and each varied key
    OUT/tune.toml                 the recommended settings as a config that
                                  ``nbsim simulate`` runs as it is
"""
from __future__ import annotations

import itertools
import json
import math
import re
import threading
import tomllib
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from nbsim.errors import ConfigError, RunError, RunInterrupted

STUDY_DB = "study.db"
STUDY_NAME = "nbsim-tune"
RUNS_DIR = "runs"
CONFIRM_DIR = "confirm"
OWN = "own"
TUNE_MD = "tune.md"
TUNE_JSON = "tune.json"
TUNE_HTML = "tune.html"
TUNE_PNG = "tune.png"
TUNE_TOML = "tune.toml"
MEETS, MAY_MEET, MISSES = "meets", "may meet", "misses"
MAX_ASKS = 5                  # trials asked at most per setting of the budget (repeats)
PRUNE_ALPHA = 0.05            # family-wise error of the pruning rule over looks and targets
SPEC_KEYS = ("config", "target", "vary", "policy", "set", "trials", "deals", "seed",
             "steps", "confirm_deals", "confirm_seed", "confirm_top")
_RANGE = re.compile(r"^\s*(?P<lo>[^.]*?)\s*\.\.\s*(?P<hi>[^.:]*?)\s*(?::\s*(?P<step>\S+))?\s*$")
_FLOAT_RANGE = re.compile(r"^\s*(?P<lo>[-+0-9.eE]*?)\s*\.\.\s*(?P<hi>[-+0-9.eE]*)\s*$")


# ------------------------------------------------------------------ targets
@dataclass(frozen=True)
class Target:
    """One target: the statistic ``key`` (a ``nbsim.comparison`` STATS key)
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
    from nbsim.comparison import STATS
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
    statistics of ``nbsim.comparison.STATS``. LOW or HIGH may be left out
    (``win_rate=..0.95``, ``mean_score=5..``). ``rules`` (a RuleSet) tells
    which statistics the variant has (tai against Ninghai fan/fu).

    Raises ConfigError: malformed option, unknown statistic (the message
    lists them), a statistic the variant does not have, LOW > HIGH, a rate
    range outside 0..1, a statistic given twice, or targets that contradict
    each other (the same statistic under two names, or win and
    wall-exhausted rates, which add up to 1, with ranges that cannot both
    hold)."""
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
        if st.kind == "rate" and ((lo is not None and lo > 1) or (hi is not None and hi < 0)):
            raise ConfigError(f"{what}: {key} is a rate, a fraction 0..1 (e.g. 0.90 for 90%); "
                              f"the range holds no rate")
        if any(t.key == key for t in out):
            raise ConfigError(f"{what}: {key} has a target already; give each statistic once")
        out.append(Target(key, lo, hi, st.label, st.kind))
    _check_consistent(out)
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


def _rules_run(rules):
    """A stand-in ``comparison.Run`` carrying only the rules (for Stat.value)."""
    from nbsim.comparison import Run
    return Run(Path("."), {"mode": "game", "rules": rules.to_dict()}, rules.name, None)


def _rule_columns(rules) -> list[str]:
    from nbsim.schema import column_order
    return column_order("game", rules)


# ------------------------------------------------------------------ the varied keys
@dataclass(frozen=True)
class SearchKey:
    """One varied rule option: an integer range (``low``..``high`` by
    ``step``) or a list of ``choices`` (TOML value texts: ``3``, ``true``,
    ``"7baida"``). ``own``: the variant's own value (TOML text)."""
    key: str
    kind: str                      # "int" or "choice"
    low: int = 0
    high: int = 0
    step: int = 1
    choices: tuple[str, ...] = ()
    own: str = ""

    @property
    def values(self) -> list[str]:
        """Every value of the key, as TOML text."""
        if self.kind == "int":
            return [str(v) for v in range(self.low, self.high + 1, self.step)]
        return list(self.choices)

    def suggest(self, trial) -> str:
        """The trial's value of this key (TOML text), asked of Optuna."""
        if self.kind == "int":
            return str(trial.suggest_int(self.key, self.low, self.high, step=self.step))
        return str(trial.suggest_categorical(self.key, list(self.choices)))

    def text(self) -> str:
        """'win.min_tai=3..8', 'payments.cap=50..500:50' or 'claims.allow_chow=true,false'."""
        if self.kind == "int":
            return f"{self.key}={self.low}..{self.high}" + (f":{self.step}" if self.step > 1
                                                             else "")
        return f"{self.key}={','.join(self.choices)}"


def _lookup(data: dict, key: str):
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _toml_text(value) -> str:
    import tomli_w
    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _kind_text(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, str):
        return f"text (now {value!r})"
    if isinstance(value, list):
        return f"a list (now {_toml_text(value)})"
    return type(value).__name__


def parse_search(vary, config, overrides=()) -> list[SearchKey]:
    """``--vary`` options -> SearchKeys, each value checked by the config
    schema (``nbsim.rules.load_rules`` with the base ``overrides``) before
    any trial runs.

    Forms: 'KEY=LOW..HIGH' or 'KEY=LOW..HIGH:STEP' (whole numbers: an
    integer option such as ``win.min_tai`` or ``payments.cap``, a tai item
    value such as ``scoring.tai.all_pungs``) and 'KEY=V1,V2,...' (TOML
    values: numbers, ``true``/``false``, words such as ``7baida``); a list
    of such strings, or a mapping KEY -> 'LOW..HIGH' or [V1, V2, ...].

    Raises ConfigError: malformed option, unknown key (from the schema), a
    range on an option that is not a whole number (or a range of
    non-integers), LOW >= HIGH, a step that is not a positive whole number,
    a value the schema refuses, a key given twice, fewer than two values."""
    from nbsim.rules import load_rules
    from nbsim.sweeps import parse_vary

    entries: list[str] = []
    if isinstance(vary, dict):
        for k, v in vary.items():
            if isinstance(v, (list, tuple)):
                entries.append(f"{k}=" + ",".join(_toml_text(x) for x in v))
            else:
                entries.append(f"{k}={v}")
    else:
        from nbsim.args import text_items
        entries = list(text_items(vary, "--vary", "'win.min_tai=3..8'", ConfigError))
    if not entries:
        raise ConfigError("tune needs at least one --vary KEY=LOW..HIGH or KEY=V1,V2,..., e.g. "
                          "win.min_tai=3..8")
    base = load_rules(config, overrides).to_dict()
    out: list[SearchKey] = []
    for e in entries:
        if "=" not in e:
            raise ConfigError(f"--vary {e!r}: expected KEY=LOW..HIGH or KEY=V1,V2,..., e.g. "
                              f"win.min_tai=3..8 or claims.allow_chow=true,false")
        key, rest = (x.strip() for x in e.split("=", 1))
        if any(k.key == key for k in out):
            raise ConfigError(f"--vary {key} is given twice; give each option once")
        own = _lookup(base, key)
        if own is None:              # an unknown key or table: the schema's own message
            from nbsim.rules import apply_overrides
            apply_overrides({}, [e], source="--vary")
        if ".." in rest:
            sk = _int_range(e, key, rest, own)
        else:
            [(key, values)] = parse_vary([f"{key}={rest}"])
            if len(values) < 2:
                raise ConfigError(f"--vary {e!r}: give two or more values to search, e.g. "
                                  f"{key}=V1,V2 or {key}=LOW..HIGH")
            sk = SearchKey(key, "choice", choices=tuple(values))
        sk = SearchKey(sk.key, sk.kind, sk.low, sk.high, sk.step, sk.choices,
                       _toml_text(own) if own is not None else "")
        for v in ([sk.values[0], sk.values[-1]] if sk.kind == "int" else sk.values):
            try:
                load_rules(config, [*overrides, f"{key}={v}"])
            except ConfigError as err:
                raise ConfigError(f"--vary {e}: the config schema refuses {key}={v}: "
                                  f"{_schema_reason(err)}") from None
        out.append(sk)
    return out


def _schema_reason(err: ConfigError) -> str:
    """The schema's own words from a load_rules error about one override."""
    m = re.search(r"--set '[^']*': (.*)$", str(err))
    return m.group(1) if m else str(err)


def _int_range(entry: str, key: str, rest: str, own) -> SearchKey:
    m = _RANGE.match(rest)
    if own is not None and (isinstance(own, bool) or not isinstance(own, int)):
        raise ConfigError(f"--vary {entry}: a range LOW..HIGH needs a whole-number option, and "
                          f"{key} is {_kind_text(own)}; list its values instead, e.g. "
                          f"{key}=V1,V2")
    try:
        if not m:
            raise ValueError
        lo, hi = int(m["lo"]), int(m["hi"])
        step = int(m["step"]) if m["step"] else 1
    except (TypeError, ValueError):
        raise ConfigError(f"--vary {entry}: a range is LOW..HIGH or LOW..HIGH:STEP of whole "
                          f"numbers (rule options are integers), e.g. {key}=3..8 or "
                          f"{key}=0..500:50; for other values list them: {key}=V1,V2") from None
    if lo >= hi:
        raise ConfigError(f"--vary {entry}: LOW {lo} must be below HIGH {hi}")
    if step < 1:
        raise ConfigError(f"--vary {entry}: STEP must be a whole number >= 1, got {step}")
    if (hi - lo) % step:
        raise ConfigError(f"--vary {entry}: HIGH - LOW ({hi - lo}) is not a multiple of STEP "
                          f"{step}")
    return SearchKey(key, "int", lo, hi, step)


def point_overrides(keys: list[SearchKey], values: dict[str, str]) -> list[str]:
    """The ``--set`` overrides of one setting, in the keys' order."""
    return [f"{k.key}={values[k.key]}" for k in keys]


def _point_name(keys: list[SearchKey], values: dict[str, str]) -> str:
    from nbsim.sweeps import point_name
    return point_name([(k.key, values[k.key]) for k in keys])


# ------------------------------------------------------------------ the study spec
@dataclass
class TuneSpec:
    """A validated tune request (what ``--resume`` checks against the study)."""
    config: str
    targets: list[Target]
    keys: list[SearchKey]
    policies: tuple[str, ...]
    overrides: tuple[str, ...]
    trials: int
    deals: int
    seed: int
    steps: int
    confirm_deals: int
    confirm_seed: int
    confirm_top: int

    def identity(self) -> dict:
        """The keys that decide the trials' rows and objective (stored in the
        study; a resumed study must match them)."""
        return {"config": self.config, "rules_hash": _rules_hash(self.config, self.overrides),
                "targets": [t.text() for t in self.targets],
                "vary": [k.text() for k in self.keys], "policies": list(self.policies),
                "overrides": list(self.overrides), "deals": self.deals, "seed": self.seed,
                "steps": self.steps}

    @property
    def shard_size(self) -> int:
        """Deals per look (and shard) of a trial."""
        return -(-self.deals // self.steps)

    @property
    def space_size(self) -> int:
        """Number of settings in the searched ranges."""
        return math.prod(len(k.values) for k in self.keys)


def _rules_hash(config, overrides) -> str:
    from nbsim.rules import load_rules
    return load_rules(config, overrides).hash


def read_spec_file(path) -> dict:
    """A tune request from a TOML file: the keys of ``SPEC_KEYS`` (``target``
    and ``vary`` as lists of 'STAT=LOW..HIGH' / 'KEY=...' strings or as
    tables; ``set`` a list of overrides). Raises ConfigError naming an
    unreadable file or an unknown key."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"--file {str(p)!r}: cannot read ({e.strerror or e})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"--file {str(p)!r}: TOML syntax error: {e}") from None
    bad = [k for k in data if k not in SPEC_KEYS]
    if bad:
        raise ConfigError(f"--file {str(p)!r}: unknown key {bad[0]!r}; allowed: "
                          f"{', '.join(SPEC_KEYS)}")
    return data


def make_spec(config, targets, vary, *, trials, deals, seed=1, policy=None, overrides=(),
              steps=4, confirm_deals=None, confirm_seed=None, confirm_top=3) -> TuneSpec:
    """Validate a tune request (see ``tune``). Raises ConfigError / RunError."""
    from nbsim.args import config_name, text_items, whole_number
    from nbsim.policies import as_policies
    from nbsim.rules import load_rules
    from nbsim.runfiles import MAX_DEALS, MAX_SEED

    config = str(config_name(config))
    overrides = text_items(overrides, "overrides", "['win.min_tai=5']", ConfigError)
    rules = load_rules(config, overrides)
    tg = parse_targets(targets, rules)
    keys = parse_search(vary, config, overrides)
    clash = [k.key for k in keys if any(o.split("=", 1)[0].strip() == k.key for o in overrides)]
    if clash:
        raise ConfigError(f"--vary {clash[0]} is also set by --set; vary it or set it, not both")
    pols = tuple(p.full for p in as_policies(policy))
    trials = whole_number(trials, "--trials", 1, 100_000, RunError)
    deals = whole_number(deals, "--deals", 2, MAX_DEALS, RunError)
    seed = whole_number(seed, "--seed", 0, MAX_SEED, RunError)
    steps = whole_number(steps, "--steps", 1, 100, RunError)
    if steps > deals // 2:
        raise RunError(f"--steps {steps} needs at least {2 * steps} --deals (two deals per look)")
    cd = 4 * deals if confirm_deals is None else confirm_deals
    cd = whole_number(cd, "--confirm-deals", 2, MAX_DEALS, RunError)
    cs = (seed + 1) % (MAX_SEED + 1) if confirm_seed is None else confirm_seed
    cs = whole_number(cs, "--confirm-seed", 0, MAX_SEED, RunError)
    if cs == seed:
        raise RunError(f"--confirm-seed {cs} is the search's --seed: the confirmation needs "
                       f"fresh deals (another seed)")
    top = whole_number(confirm_top, "--confirm-top", 1, 20, RunError)
    return TuneSpec(config, tg, keys, pols, tuple(overrides), trials, deals, seed, steps, cd,
                    cs, top)


# ------------------------------------------------------------------ result
@dataclass
class TuneResult:
    """What ``tune`` did and found.

    spec: the request. trials: one row per finished trial (number, state
    'complete' or 'pruned', deals played, the varied keys' values as TOML
    text, per target ``<stat>``, ``<stat>_ci_low``, ``<stat>_ci_high``
    (Float64) and ``<stat>_verdict``, ``objective`` (Float64: the
    intervals' overhang out of the target ranges, 0 = inside; for a pruned
    trial, that of its partial run), ``run_dir``). feasible: some trial meets or may meet
    every target. closest: the trial row the confirmation started from.
    candidates: the confirmed settings ({key: TOML text}), best first;
    recommended: the best of them by the confirmation. confirmation: the
    ``nbsim.comparison.Comparison`` of the variant's own settings (run 1)
    and the candidates on the fresh seed. verdicts: target key -> verdict of
    the recommended settings in the confirmation. n_trials: the study's
    finished trials, repeats of a setting included (``trials`` has one row
    per setting). text: as printed; files: written."""
    spec: TuneSpec
    trials: pl.DataFrame
    feasible: bool
    candidates: list[dict]
    recommended: dict
    confirmation: Any
    verdicts: dict[str, str]
    closest: dict = field(default_factory=dict)
    n_trials: int = 0
    text: str = ""
    files: list[Path] = field(default_factory=list)


# ------------------------------------------------------------------ one trial
def _z_prune(spec: TuneSpec) -> float:
    """z of the pruning intervals: two-sided PRUNE_ALPHA split (Bonferroni)
    over every partial look and target."""
    from scipy.stats import norm
    looks = max(1, spec.steps - 1) * len(spec.targets)
    return float(norm.ppf(1 - PRUNE_ALPHA / (2 * looks)))


def _target_rows(stats: pl.DataFrame, targets: list[Target]) -> dict[str, dict]:
    out = {}
    for t in targets:
        m = stats.filter(pl.col("key") == t.key)
        if not m.height:
            raise RunError(f"the run has no statistic {t.key!r}")
        out[t.key] = m.row(0, named=True)
    return out


def _nan(v) -> float:
    return math.nan if v is None else float(v)


def evaluate(stats: pl.DataFrame, targets: list[Target]) -> dict:
    """A trial's standing from its run's statistics (``comparison.run_stats``):
    {'stats': {key: [estimate, ci_low, ci_high]}, 'verdicts': {key: verdict},
    'objective': sum of the intervals' overhangs (0 = every interval inside
    its range), 'centre': sum of the estimates' distances from the middle
    of two-sided ranges (the tie-break)}."""
    rows = _target_rows(stats, targets)
    res: dict[str, Any] = {"stats": {}, "verdicts": {}, "objective": 0.0, "centre": 0.0}
    for t in targets:
        r = rows[t.key]
        est, lo, hi = _nan(r["estimate"]), _nan(r["ci_low"]), _nan(r["ci_high"])
        res["stats"][t.key] = [est, lo, hi]
        res["verdicts"][t.key] = t.verdict(lo, hi)
        res["objective"] += t.overhang(lo, hi) if lo == lo and hi == hi else 1e6
        res["centre"] += t.centre_distance(est) if est == est else 1e6
    return res


def prune_gap(stats: pl.DataFrame, targets: list[Target], z: float) -> float:
    """The largest gap between a target range and the estimate +- z x se
    (the pruning interval), in units of the target's scale: positive when
    some target is clearly missed."""
    rows = _target_rows(stats, targets)
    gaps = []
    for t in targets:
        r = rows[t.key]
        if r["estimate"] is None or r["se"] is None or r["se"] != r["se"]:
            continue
        gaps.append(t.gap(r["estimate"] - z * r["se"], r["estimate"] + z * r["se"]))
    return max(gaps) if gaps else -math.inf


class _Trials:
    """Runs trials: one run folder per setting, locked while a trial plays
    it (two trials of one setting share the folder, one after the other)."""

    def __init__(self, spec: TuneSpec, out: Path, workers: int, cluster: str | None,
                 stop: threading.Event):
        self.spec, self.out, self.workers, self.cluster, self.stop = (spec, out, workers,
                                                                      cluster, stop)
        self.z = _z_prune(spec)
        self.guard = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.first: dict[str, int] = {}      # setting -> the trial that played it first
        self.repeats: set[int] = set()       # trials of a setting played before

    def known(self, study) -> None:
        """Learn the settings the study's finished trials played."""
        from optuna.trial import TrialState
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,
                                                          TrialState.PRUNED)):
            if "setting" in t.user_attrs and "repeat_of" not in t.user_attrs:
                self.first.setdefault(t.user_attrs["setting"], t.number)

    def _lock(self, name: str) -> threading.Lock:
        with self.guard:
            return self.locks.setdefault(name, threading.Lock())

    def run(self, trial) -> float:
        """The objective of one Optuna trial: play its setting look by look
        (pruning between looks), store its statistics in the trial's user
        attributes, return the objective. Raises optuna.TrialPruned."""
        import optuna

        from nbsim.comparison import run_stats
        from nbsim.runs import read_manifest, run_status, simulate

        spec = self.spec
        values = {k.key: k.suggest(trial) for k in spec.keys}
        name = _point_name(spec.keys, values)
        folder = self.out / RUNS_DIR / name
        ovs = [*spec.overrides, *point_overrides(spec.keys, values)]
        trial.set_user_attr("run_dir", str(folder))
        trial.set_user_attr("values", values)
        trial.set_user_attr("setting", name)
        with self.guard:
            first = self.first.setdefault(name, trial.number)
            if first != trial.number:          # the sampler proposed it again: its run reused
                self.repeats.add(trial.number)
                trial.set_user_attr("repeat_of", first)
        size = spec.shard_size
        with self._lock(name):
            kw = dict(deals=spec.deals, seed=spec.seed, out=folder, mode="game",
                      overrides=ovs, policies=spec.policies, shard_size=size)
            status = run_status(spec.config, **kw)
            planned = read_manifest(folder).get("deals", 0) if status == "partial" else 0
            looks = [min(spec.deals, k * size) for k in range(1, spec.steps + 1)]
            looks = [n for n in looks if n >= planned] or [spec.deals]
            for i, n in enumerate([] if status == "complete" else looks):
                if self.stop.is_set():
                    raise RunInterrupted("stopped")
                simulate(spec.config, deals=n, seed=spec.seed, out=folder, mode="game",
                         policies=spec.policies, overrides=ovs, shard_size=size,
                         workers=self.workers, cluster=self.cluster, progress=False,
                         resume=status != "different" or i > 0,
                         overwrite=status == "different" and i == 0)
                if n < spec.deals:
                    stats = run_stats(folder)
                    gap = prune_gap(stats, spec.targets, self.z)
                    trial.report(max(gap, -1e6), n)
                    if trial.should_prune():
                        ev = evaluate(stats, spec.targets)
                        trial.set_user_attr("deals", n)
                        trial.set_user_attr("eval", ev)
                        raise optuna.TrialPruned(f"clearly outside a target after {n} deals")
            stats = run_stats(folder)
        ev = evaluate(stats, spec.targets)
        trial.set_user_attr("deals", spec.deals)
        trial.set_user_attr("eval", ev)
        return ev["objective"]


# ------------------------------------------------------------------ the study
def _storage(out: Path):
    import optuna
    return optuna.storages.RDBStorage(f"sqlite:///{out / STUDY_DB}",
                                      engine_kwargs={"connect_args": {"timeout": 60}})


def _sampler(spec: TuneSpec):
    import optuna
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # constant_liar is marked experimental
        return optuna.samplers.TPESampler(seed=spec.seed, constant_liar=True,
                                          n_startup_trials=min(10, max(2, spec.trials // 2)))


def _open_study(spec: TuneSpec, out: Path, resume: bool, overwrite: bool):
    """The study of ``out`` (created, or loaded with ``resume``); trials a
    killed process left running are failed and their settings queued again."""
    import optuna
    from optuna.trial import TrialState

    db = out / STUDY_DB
    if overwrite and resume:
        raise RunError("give either --overwrite (start the study again) or --resume (continue "
                       "it), not both")
    if db.exists() and not (resume or overwrite):
        raise RunError(f"--out {str(out)!r} already holds a study ({STUDY_DB}); use --resume to "
                       f"continue it, --overwrite to start again, or choose another folder")
    if overwrite and db.exists():
        db.unlink()
    pruner = optuna.pruners.ThresholdPruner(upper=0.0)
    storage = _storage(out)
    ident = spec.identity()
    if db.exists() and resume:
        try:
            study = optuna.load_study(study_name=STUDY_NAME, storage=storage,
                                      sampler=_sampler(spec), pruner=pruner)
        except KeyError:
            raise RunError(f"--resume: {db} holds no nbsim tune study") from None
        have = study.user_attrs.get("identity", {})
        diffs = [f"{k} is {ident[k]!r}, the study's is {have.get(k)!r}" for k in ident
                 if have.get(k) != ident[k]]
        if diffs:
            raise RunError(f"--resume: {out} holds a different study: " + "; ".join(diffs)
                           + " (use the study's own arguments, or --overwrite)")
        done = {json.dumps(t.params, sort_keys=True) for t in study.get_trials(
            deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.WAITING))}
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.FAIL)):
            if t.state == TrialState.RUNNING:        # its process was killed
                storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
            key = json.dumps(t.params, sort_keys=True)
            if t.params and len(t.params) == len(spec.keys) and key not in done:
                study.enqueue_trial(t.params, user_attrs={"resumed_from": t.number})
                done.add(key)
    else:
        study = optuna.create_study(study_name=STUDY_NAME, storage=storage,
                                    sampler=_sampler(spec), pruner=pruner, direction="minimize")
        study.set_user_attr("identity", ident)
        done = set()
    if spec.space_size <= spec.trials:      # every setting fits in the budget: each once
        for combo in itertools.product(*[k.values for k in spec.keys]):
            params = {k.key: int(v) if k.kind == "int" else v
                      for k, v in zip(spec.keys, combo, strict=True)}
            key = json.dumps(params, sort_keys=True)
            if key not in done and not _tried(study, params):
                study.enqueue_trial(params)
                done.add(key)
    return study


def _tried(study, params: dict) -> bool:
    from optuna.trial import TrialState
    return any(t.params == params for t in study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.WAITING)))


def _n_trials(study) -> int:
    from optuna.trial import TrialState
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)))


def _budget(spec: TuneSpec) -> int:
    """Trials the study runs: ``trials``, or every setting once when the
    searched ranges hold fewer settings."""
    return min(spec.trials, spec.space_size)


def _finished(study) -> int:
    """Settings the study has played to the end or pruned (repeats once)."""
    from optuna.trial import TrialState
    return len({t.user_attrs.get("setting", t.number) for t in study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))})


def _optimize(study, spec: TuneSpec, out: Path, workers: int, cluster: str | None,
              progress: bool) -> None:
    """Ask and tell until the study has played ``_budget(spec)`` settings:
    ``workers`` trials at a time on local threads (each trial's simulate on
    one thread; the kernels release the GIL), or one at a time with
    ``cluster`` (each look's shards on the cluster). A trial of a setting
    played before (the sampler may propose one again) reuses its run and
    does not count; after ``MAX_ASKS`` x budget trials the search stops
    however many settings it has played. Ctrl-C stops the running trials at
    their next look (their run folders kept, their trials failed and queued
    again by --resume) and raises RunInterrupted."""
    import optuna
    from optuna.trial import TrialState
    from tqdm import tqdm

    stop = threading.Event()
    jobs = 1 if cluster is not None else workers
    runner = _Trials(spec, out, workers if cluster is not None else 1, cluster, stop)
    runner.known(study)
    count, asking = threading.Lock(), threading.Lock()
    done, running = [_finished(study)], [0]
    asks = [len(study.trials) + MAX_ASKS * _budget(spec)]
    errors: list[BaseException] = []
    budget = _budget(spec)
    bar = tqdm(total=budget, initial=done[0], unit="setting", disable=not progress,
               desc=f"tune {spec.config}", file=__import__("sys").stderr)

    def loop():
        while not stop.is_set():
            with count:
                if done[0] + running[0] >= budget or asks[0] <= 0:
                    return
                running[0] += 1
                asks[0] -= 1
            with asking:            # two threads must not take the same queued trial
                trial = study.ask()
            try:
                value = runner.run(trial)
            except optuna.TrialPruned:
                study.tell(trial, state=TrialState.PRUNED)
            except BaseException as e:  # noqa: BLE001 - told to the study, then raised
                study.tell(trial, state=TrialState.FAIL)
                stop.set()
                errors.append(e)
                return
            else:
                study.tell(trial, value)
            with count:
                running[0] -= 1
                if trial.number not in runner.repeats:
                    done[0] += 1
                    bar.update(1)

    pool = ThreadPoolExecutor(max_workers=max(1, jobs - 1), thread_name_prefix="nbsim-tune")
    futures = [pool.submit(loop) for _ in range(jobs - 1)]
    try:
        loop()                                  # the main thread plays trials too
        for f in futures:
            f.result()
    except KeyboardInterrupt:
        stop.set()
        errors.append(RunInterrupted("interrupted"))
    finally:
        stop.set()
        pool.shutdown(wait=True)
        bar.close()
    if errors:
        e = errors[0]
        if isinstance(e, (RunInterrupted, KeyboardInterrupt)):
            raise RunInterrupted(f"interrupted: {_finished(study)} of {budget} settings "
                                 f"finished; the study ({out / STUDY_DB}) and the run folders "
                                 f"are kept: continue with --resume") from None
        raise e


def _trial_table(study, spec: TuneSpec) -> pl.DataFrame:
    from optuna.trial import TrialState
    rows = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)):
        ev = t.user_attrs.get("eval")
        if not ev or "repeat_of" in t.user_attrs:
            continue
        values = t.user_attrs.get("values") or {k: str(v) for k, v in t.params.items()}
        row: dict[str, Any] = {"trial": t.number,
                               "state": "complete" if t.state == TrialState.COMPLETE
                               else "pruned",
                               "deals": t.user_attrs.get("deals")}
        for k in spec.keys:
            row[k.key] = str(values.get(k.key))
        for tg in spec.targets:
            est, lo, hi = ev["stats"][tg.key]
            row[tg.key] = est
            row[f"{tg.key}_ci_low"] = lo
            row[f"{tg.key}_ci_high"] = hi
            row[f"{tg.key}_verdict"] = ev["verdicts"][tg.key]
        row["objective"] = t.value if t.state == TrialState.COMPLETE else ev["objective"]
        row["centre"] = ev["centre"]
        row["run_dir"] = t.user_attrs.get("run_dir")
        rows.append(row)
    schema: dict[str, Any] = {"trial": pl.Int64, "state": pl.String, "deals": pl.Int64}
    schema |= {k.key: pl.String for k in spec.keys}
    for tg in spec.targets:
        schema |= {tg.key: pl.Float64, f"{tg.key}_ci_low": pl.Float64,
                   f"{tg.key}_ci_high": pl.Float64, f"{tg.key}_verdict": pl.String}
    schema |= {"objective": pl.Float64, "centre": pl.Float64, "run_dir": pl.String}
    return pl.DataFrame(rows, schema=schema).sort("trial")


def _ranked(trials: pl.DataFrame, spec: TuneSpec) -> list[dict]:
    """The settings best first: complete trials by objective, then centre;
    after them the pruned ones by the objective of their partial run."""
    done = trials.with_columns((pl.col("state") != "complete").alias("_pruned")).sort(
        ["_pruned", "objective", "centre", "trial"]).drop("_pruned")
    seen, out = set(), []
    for r in done.iter_rows(named=True):
        key = tuple(r[k.key] for k in spec.keys)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _feasible(row: dict, spec: TuneSpec) -> bool:
    return all(row[f"{t.key}_verdict"] != MISSES for t in spec.targets)


def _play(jobs: list[tuple[Path, list[str]]], spec: TuneSpec, workers: int,
          cluster: str | None) -> None:
    """The confirmation runs (fresh seed, ``confirm_deals``), reused when
    finished, completed when partial: ``workers`` runs at a time locally,
    one at a time on a cluster."""
    from nbsim.runs import run_status, simulate

    def one(job):
        folder, ovs = job
        kw = dict(deals=spec.confirm_deals, seed=spec.confirm_seed, out=folder, mode="game",
                  overrides=ovs, policies=spec.policies)
        status = run_status(spec.config, **kw)
        if status != "complete":
            simulate(spec.config, **kw, workers=workers if cluster else 1, cluster=cluster,
                     progress=False, resume=status == "partial",
                     overwrite=status == "different")

    if cluster is not None or workers == 1:
        for j in jobs:
            one(j)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nbsim-confirm") as pool:
        for f in [pool.submit(one, j) for j in jobs]:
            f.result()


def tune(config, targets, vary, *, trials: int, deals: int, out, seed: int = 1,
         policy=None, overrides=(), steps: int = 4, confirm_deals: int | None = None,
         confirm_seed: int | None = None, confirm_top: int = 3, workers: int | None = None,
         cluster: str | None = None, resume: bool = False, overwrite: bool = False,
         progress: bool | None = None) -> TuneResult:
    """Search the rule options ``vary`` for settings whose statistics meet
    ``targets``, confirm the best on fresh deals and write the study folder
    (docs/tune.md; the options: docs/rules.md §9).

    Args:
        config: shipped config name or TOML path (the variant searched from).
        targets: 'STAT=LOW..HIGH' strings (``parse_targets``): game-mode
            statistics of ``nbsim.comparison`` (rates as fractions 0..1,
            means in their unit: tai, points, turns, ...).
        vary: 'KEY=LOW..HIGH[:STEP]' / 'KEY=V1,V2,...' strings
            (``parse_search``).
        trials: settings the study should play to the end or prune (a
            setting the sampler proposes again is a trial that reuses its
            run and does not count; the searched ranges may hold fewer
            settings: each is played once); a resumed study plays the
            missing ones.
        deals: deals per trial (game mode, independent deals), all with
            ``seed`` (common random numbers).
        policy: the play style of every seat (a policy spec, default defend).
        overrides: ``--set`` strings applied to every trial first.
        steps: looks per trial (1 .. 100): pruning is checked after each of
            the first steps - 1 (deals / steps deals each).
        confirm_deals (default 4 x deals), confirm_seed (default seed + 1),
            confirm_top (default 3): the confirmation of the best settings.
        workers: trials played at once on local threads (default: every
            core); with ``cluster`` ('local' or 'tcp://HOST:PORT', as
            ``nbsim simulate``) the trials run one at a time and each look's
            shards on the cluster.
        resume / overwrite: continue the study in ``out`` / start it again.
        progress: a bar of finished trials on stderr (None: when stderr is
            a terminal).
    Returns:
        TuneResult.
    Raises:
        ConfigError (unknown key or statistic, a range of the wrong type, a
        value the schema refuses, contradictory targets; all before any
        run), RunError (bad counts, a folder holding another study or a
        run, ``--resume`` of a different study), RunInterrupted (Ctrl-C:
        the study and run folders are kept; ``resume=True`` continues).
    """
    import optuna

    from nbsim.args import stderr_is_terminal
    from nbsim.runs import MAX_WORKERS, default_workers
    from nbsim.sweeps import folder_of_runs

    spec = make_spec(config, targets, vary, trials=trials, deals=deals, seed=seed,
                     policy=policy, overrides=overrides, steps=steps,
                     confirm_deals=confirm_deals, confirm_seed=confirm_seed,
                     confirm_top=confirm_top)
    from nbsim.args import whole_number
    workers = default_workers() if workers is None else whole_number(
        workers, "--workers", 1, MAX_WORKERS, RunError)
    if cluster is not None:
        from nbsim.cluster import check_cluster_address
        check_cluster_address(cluster)
    out = folder_of_runs(out, "a tune study", "its study, one run folder per setting and the "
                                              "confirmation runs")
    if progress is None:
        progress = stderr_is_terminal()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot create the folder ({e.strerror or e})") \
            from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = _open_study(spec, out, resume, overwrite)
    _optimize(study, spec, out, workers, cluster, progress)
    table = _trial_table(study, spec)
    ranked = _ranked(table, spec)
    feasible = any(_feasible(r, spec) for r in ranked)
    cands = [r for r in ranked if _feasible(r, spec)] if feasible else ranked
    cands = cands[:spec.confirm_top]
    cvals = [{k.key: r[k.key] for k in spec.keys} for r in cands]
    conf = out / CONFIRM_DIR
    jobs = [(conf / OWN, list(spec.overrides))]
    jobs += [(conf / _point_name(spec.keys, v), [*spec.overrides,
                                                 *point_overrides(spec.keys, v)]) for v in cvals]
    _play(jobs, spec, workers, cluster)
    from nbsim.comparison import compare, run_stats
    comp = compare([j[0] for j in jobs])
    evs = [evaluate(run_stats(j[0]), spec.targets) for j in jobs[1:]]
    order = sorted(range(len(cvals)), key=lambda i: (evs[i]["objective"], evs[i]["centre"], i))
    best = order[0]
    res = TuneResult(spec=spec, trials=table, feasible=feasible, candidates=cvals,
                     recommended=cvals[best], confirmation=comp,
                     verdicts=evs[best]["verdicts"], closest=cands[0],
                     n_trials=_n_trials(study))
    res.text = _text(res, evs, best)
    res.files = _write(res, out, evs, best)
    return res


# ------------------------------------------------------------------ output
def _settings_label(values: dict, spec: TuneSpec) -> str:
    return ", ".join(f"{k.key}={values[k.key]}" for k in spec.keys)


def trials_view(res: TuneResult) -> pl.DataFrame:
    """The trials as printed: trial, state, deals, the keys' values, each
    target as 'estimate [low, high] verdict', the objective."""
    from nbsim.stats import interval_cell
    t, spec = res.trials, res.spec
    cols: dict[str, list] = {"trial": t["trial"].to_list(), "state": t["state"].to_list(),
                             "deals": t["deals"].to_list()}
    for k in spec.keys:
        cols[k.key] = t[k.key].to_list()
    for tg in spec.targets:
        cols[tg.key] = [f"{interval_cell(e, lo, hi)} {v}" for e, lo, hi, v in zip(
            t[tg.key], t[f"{tg.key}_ci_low"], t[f"{tg.key}_ci_high"], t[f"{tg.key}_verdict"],
            strict=True)]
    cols["objective"] = t["objective"].to_list()
    return pl.DataFrame(cols, strict=False)


def confirmation_view(res: TuneResult, evs: list[dict]) -> pl.DataFrame:
    """The confirmation table: one row per varied key (the settings), then
    one per target (estimate [95% interval] and verdict); columns: the
    variant's own settings, then each confirmed setting."""
    from nbsim.stats import interval_cell
    spec = res.spec
    labels = ["own"] + [f"#{i + 1}" for i in range(len(res.candidates))]
    rows: list[dict] = []
    for k in spec.keys:
        row = {"": k.key, "target": "", labels[0]: k.own or "(absent)"}
        for lab, v in zip(labels[1:], res.candidates, strict=True):
            row[lab] = v[k.key]
        rows.append(row)
    stats = res.confirmation.stats
    runs = [r["label"] for r in res.confirmation.runs]
    for tg in spec.targets:
        row = {"": tg.key, "target": tg.text().split(" ", 1)[1]}
        for lab, run in zip(labels, runs, strict=True):
            m = stats.filter((pl.col("key") == tg.key) & (pl.col("run") == run))
            if not m.height:
                row[lab] = "-"
                continue
            e, lo, hi = m.select("estimate", "ci_low", "ci_high").row(0)
            row[lab] = f"{interval_cell(e, lo, hi)} {tg.verdict(_nan(lo), _nan(hi))}"
        rows.append(row)
    return pl.DataFrame(rows, schema={c: pl.String for c in ["", "target", *labels]})


def _verdict_line(res: TuneResult, evs: list[dict], best: int) -> list[str]:
    spec = res.spec
    rec = _settings_label(res.recommended, spec)
    v = res.verdicts
    cd = f"{spec.confirm_deals:,} fresh deals (seed {spec.confirm_seed})"
    if not res.feasible:
        c = res.closest
        miss = [t.text() for t in spec.targets if c[f"{t.key}_verdict"] == MISSES]
        return [f"INFEASIBLE within the searched ranges: no trial meets or may meet every "
                f"target ({', '.join(miss)} missed even by the closest).",
                f"closest in the search: trial {c['trial']} ({_settings_label(c, spec)}, "
                f"{c['state']}), objective {c['objective']:.3g}; closest on {cd}: {rec}."]
    if all(x == MEETS for x in v.values()):
        head = f"recommended: {rec}: meets every target on {cd}."
    elif all(x != MISSES for x in v.values()):
        may = [k for k, x in v.items() if x == MAY_MEET]
        head = (f"recommended: {rec}: may meet {', '.join(may)} on {cd} (the interval overlaps "
                f"the range; more --confirm-deals would tell), meets the rest.")
    else:
        miss = [k for k, x in v.items() if x == MISSES]
        head = (f"recommended: {rec}: looked close in the search, but misses "
                f"{', '.join(miss)} on {cd}: the search's estimate was lucky (winner's "
                f"curse); treat the targets as not met.")
    return [head]


def _text(res: TuneResult, evs: list[dict], best: int) -> str:
    from nbsim.report import policy_text
    from nbsim.stats import text_table
    spec = res.spec
    n_pruned = res.trials.filter(pl.col("state") == "pruned").height
    head = [f"tune of {', '.join(k.text() for k in spec.keys)} on {spec.config}"
            + (f" (--set {', '.join(spec.overrides)})" if spec.overrides else "")
            + f", policy {policy_text(list(spec.policies))}",
            f"targets: {'; '.join(t.text() for t in spec.targets)}",
            f"{res.trials.height} settings tried ({n_pruned} pruned) in {res.n_trials} trials"
            f"{' (repeats reuse their run)' if res.n_trials > res.trials.height else ''} of "
            f"{spec.deals:,} deals, seed "
            f"{spec.seed} (the same walls in every trial), {spec.steps} looks per trial",
            "", "Trials (95% intervals; meets: inside the range, may meet: overlaps it):",
            text_table(trials_view(res)), "",
            f"Confirmation on {spec.confirm_deals:,} fresh deals, seed {spec.confirm_seed} "
            f"(own = the variant's own settings):",
            text_table(confirmation_view(res, evs)), ""]
    return "\n".join(head + _verdict_line(res, evs, best))


def recommended_toml(res: TuneResult) -> str:
    """The recommended settings as a whole config TOML (every option
    resolved, the name '<variant>-tuned'), with a comment header giving the
    targets and the confirmation's estimates; ``nbsim simulate`` runs it."""
    import tomli_w

    from nbsim.rules import load_rules
    spec = res.spec
    ovs = [*spec.overrides, *point_overrides(spec.keys, res.recommended)]
    rs = load_rules(spec.config, ovs)
    data = rs.to_dict()
    data["name"] = f"{rs.name}-tuned"
    data["description"] = (f"{rs.name} with {', '.join(ovs)} (nbsim tune: "
                           f"{'; '.join(t.text() for t in spec.targets)})")
    stats = res.confirmation.stats
    run = res.confirmation.runs[1 + res.candidates.index(res.recommended)]["label"]
    lines = [f"# {rs.name} tuned by nbsim tune (docs/tune.md): {', '.join(ovs)}",
             f"# searched: {', '.join(k.text() for k in spec.keys)}; policy "
             f"{','.join(spec.policies)}; {spec.deals:,} deals per trial, seed {spec.seed}",
             f"# confirmation on {spec.confirm_deals:,} deals, seed {spec.confirm_seed} "
             f"(95% intervals):"]
    for t in spec.targets:
        m = stats.filter((pl.col("key") == t.key) & (pl.col("run") == run))
        e, lo, hi = m.select("estimate", "ci_low", "ci_high").row(0)
        lines.append(f"#   {t.text()}: {e:.4g} [{lo:.4g}, {hi:.4g}] "
                     f"{res.verdicts[t.key]}")
    if not res.feasible:
        lines.append("# INFEASIBLE: no trial met the targets; these are the closest settings")
    return "\n".join(lines) + "\n" + tomli_w.dumps(data)


def _write(res: TuneResult, out: Path, evs: list[dict], best: int) -> list[Path]:
    from nbsim import html as H
    from nbsim import plots
    from nbsim.comparison import comparison_html
    from nbsim.stats import json_safe, markdown_table
    spec = res.spec
    from nbsim.report import policy_text
    caption = (f"{spec.config}{''.join(f' --set {o}' for o in spec.overrides)}; policy "
               f"{policy_text(list(spec.policies))}; seed {spec.seed}; {spec.deals:,} deals per "
               f"trial")
    try:
        png = plots.plot_tune(res.trials, spec.targets, [k.key for k in spec.keys],
                              out / TUNE_PNG, recommended=res.recommended, caption=caption)
        (out / TUNE_TOML).write_text(recommended_toml(res), encoding="utf-8")
        tv, cv = trials_view(res), confirmation_view(res, evs)
        verdict = _verdict_line(res, evs, best)
        data = {"spec": {**spec.identity(), "trials": spec.trials,
                         "confirm_deals": spec.confirm_deals,
                         "confirm_seed": spec.confirm_seed, "confirm_top": spec.confirm_top},
                "feasible": res.feasible, "recommended": res.recommended,
                "candidates": res.candidates, "verdicts": res.verdicts, "summary": verdict,
                "trials": [{k: json_safe(v) for k, v in r.items()}
                           for r in res.trials.to_dicts()],
                "confirmation": [{k: json_safe(v) for k, v in r.items()}
                                 for r in res.confirmation.stats.to_dicts()]}
        (out / TUNE_JSON).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
        md = [f"# nbsim tune: {', '.join(k.key for k in spec.keys)}", "",
              *res.text.split("\n\n", 1)[0].splitlines(), "", *verdict, "",
              "## Confirmation: the best settings against the variant's own", "",
              markdown_table(cv), "", "## Trials", "", markdown_table(tv), "",
              f"![tune]({TUNE_PNG})", "",
              f"Recommended config: `{TUNE_TOML}` (`nbsim simulate {out / TUNE_TOML} --mode "
              f"game ...`). Study: `{STUDY_DB}` (Optuna, SQLite)."]
        (out / TUNE_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
        note = ("95% intervals: Wilson for rates, t for means. meets: the interval lies "
                "inside the target range; may meet: it overlaps the range; misses: it lies "
                "outside.")
        targets = "Targets: " + "; ".join(t.text() for t in spec.targets) + ". "
        extra = [H.section("verdict", "Recommendation", None, targets + " ".join(verdict)),
                 H.section("confirm", "Confirmation: the best settings against the variant's "
                           "own (fresh seed)", cv, note),
                 H.section("trials", "Trials (same seed: the same walls in every trial)", tv,
                           note + " A pruned trial stopped early, its interval clearly "
                           "outside a target range; its row shows its partial run.", [png])]
        (out / TUNE_HTML).write_text(comparison_html(
            res.confirmation, {}, title=f"nbsim tune: {', '.join(k.key for k in spec.keys)}",
            extra_sections=extra), encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the study's results "
                       f"({e.strerror or e})") from None
    return [out / TUNE_MD, out / TUNE_JSON, out / TUNE_HTML, png, out / TUNE_TOML,
            out / STUDY_DB]

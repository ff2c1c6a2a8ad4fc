"""The request of ``nbsim tune`` (docs/tune.md), validated before any run:
the varied rule options (``--vary KEY=LOW..HIGH[:STEP]`` or
``KEY=V1,V2,...`` -> ``SearchKey``, every value checked by the config
schema, docs/rules.md §9), a setting's ``--set`` overrides and folder name,
the request file (``read_spec_file``) and the whole request (``make_spec``
-> ``TuneSpec``, what ``--resume`` checks against the study).
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbsim.analysis.tune.targets import Target, parse_targets
from nbsim.errors import ConfigError, RunError

__all__ = ["SPEC_KEYS", "SearchKey", "parse_search", "point_overrides", "setting_name",
           "TuneSpec", "read_spec_file", "make_spec", "parse_styles"]

SPEC_KEYS = ("config", "target", "vary", "policy", "set", "trials", "deals", "seed",
             "steps", "confirm_deals", "confirm_seed", "confirm_top", "styles", "style_deals")
_RANGE = re.compile(r"^\s*(?P<lo>[^.]*?)\s*\.\.\s*(?P<hi>[^.:]*?)\s*(?::\s*(?P<step>\S+))?\s*$")


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
    schema (``nbsim.rules.ruleset.load_rules`` with the base ``overrides``) before
    any trial runs.

    Forms: 'KEY=LOW..HIGH' or 'KEY=LOW..HIGH:STEP' (whole numbers: an
    integer option such as ``win.min_tai`` or ``payments.cap``, a tai item
    value such as ``scoring.tai.all_pungs``) and 'KEY=V1,V2,...' (TOML
    values: numbers, ``true``/``false``, words such as ``7baida``); a list
    of such strings, or a mapping KEY -> 'LOW..HIGH' or [V1, V2, ...].

    Raises ConfigError: malformed option, unknown key (from the schema), a
    label such as ``name`` or ``description`` (it changes no play), a
    range on an option that is not a whole number (or a range of
    non-integers), LOW >= HIGH, a step that is not a positive whole number,
    a value the schema refuses, a key given twice, fewer than two values."""
    from nbsim.analysis.sweeps import parse_vary
    from nbsim.rules.ruleset import load_rules

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
        tables = [k for k, v in base.items() if isinstance(v, dict)]
        if key.split(".")[0] in base and key.split(".")[0] not in tables:
            raise ConfigError(f"--vary {key}: a label of the config, not a rule option: it "
                              f"changes neither play nor scoring; vary an option of "
                              f"{', '.join(tables)} (docs/rules.md §9)")
        own = _lookup(base, key)
        if own is None:              # an unknown key or table: the schema's own message
            from nbsim.rules.ruleset import apply_overrides
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


def setting_name(keys: list[SearchKey], values: dict[str, str]) -> str:
    """The folder name of one setting, ``key=value,...`` in the keys' order
    (``nbsim.analysis.sweeps.point_name``)."""
    from nbsim.analysis.sweeps import point_name
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
    styles: tuple[str, ...] = ()          # play styles the recommendation is checked under
    style_deals: tuple[int, ...] = ()     # deals of each style's check

    @property
    def search_style(self) -> str | None:
        """The policy spec every seat plays in the search (None when the
        seats play different styles)."""
        return self.policies[0] if len(set(self.policies)) == 1 else None

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
    from nbsim.rules.ruleset import load_rules
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
              steps=4, confirm_deals=None, confirm_seed=None, confirm_top=3, styles=None,
              style_deals=None) -> TuneSpec:
    """Validate a tune request (see ``tune``). Raises ConfigError / RunError."""
    from nbsim.args import config_name, text_items, whole_number
    from nbsim.policy_specs import as_policies
    from nbsim.rules.ruleset import load_rules
    from nbsim.run.files import MAX_DEALS, MAX_SEED

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
    st, sd = parse_styles(styles, style_deals, cd)
    return TuneSpec(config, tg, keys, pols, tuple(overrides), trials, deals, seed, steps, cd,
                    cs, top, st, sd)


def parse_styles(styles, style_deals, confirm_deals: int) -> tuple[tuple[str, ...],
                                                                   tuple[int, ...]]:
    """The play styles the recommendation is checked under and the deals of
    each: ``styles`` is None (the band's styles, ``nbsim.policy_specs.DEFAULT_STYLES``:
    value, defend, defend:caution=0.9), ``"none"`` or an empty list (no
    check beyond the search's own style), a comma-separated string or a
    list of policy specs, each optionally ``SPEC@DEALS``
    (``lookahead@600``). A style without ``@DEALS`` plays ``style_deals``
    deals (default ``confirm_deals``); a search style (``lookahead``, about
    one deal per second per core) needs its deals given, by ``@DEALS`` or
    ``style_deals``. Returns (full policy specs, deals), in the order
    given, each style once. Raises RunError: an unknown policy or bad
    parameter, a bad deal count, a search style without deals, a style
    given twice."""
    from nbsim.args import whole_number
    from nbsim.kernels.policies.catalog import SEARCH
    from nbsim.policy_specs import DEFAULT_STYLES, parse_policy
    from nbsim.run.files import MAX_DEALS

    if styles is None:
        items = list(DEFAULT_STYLES)
    elif isinstance(styles, str):
        items = [] if styles.strip().lower() in ("", "none") else styles.split(",")
    else:
        items = [str(x) for x in styles]
    default = None if style_deals is None else whole_number(
        style_deals, "--style-deals", 2, MAX_DEALS, RunError)
    specs: list[str] = []
    deals: list[int] = []
    for item in (x.strip() for x in items):
        text, _, n = item.partition("@")
        pol = parse_policy(text)
        if pol.full in specs:
            raise RunError(f"--styles: {text!r} is given twice; give each style once")
        if n:
            try:
                count = int(n)
            except ValueError:
                raise RunError(f"--styles {item!r}: the deals after @ must be a whole number, "
                               f"e.g. {text}@600") from None
            count = whole_number(count, f"--styles {item}: deals", 2, MAX_DEALS, RunError)
        elif default is not None:
            count = default
        elif pol.name in SEARCH:
            raise RunError(f"--styles {item!r}: {pol.name} searches at every decision (about "
                           f"one deal per second per core): give its deals, e.g. "
                           f"{text}@600, or --style-deals")
        else:
            count = confirm_deals
        specs.append(pol.full)
        deals.append(count)
    return tuple(specs), tuple(deals)


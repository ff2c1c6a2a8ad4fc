"""Bot policies by name and parameters: parse, validate, describe.

Everything here is read from the one policy table,
``nbsim/kernels/policies/catalog.py`` (names, kernel modules, parameters with
defaults and ranges), so the command line, the manifest, the docs and the
engine agree. A policy is written ``NAME`` or ``NAME:key=value[:key=value]``
(``defend:caution=0.8``); ``--policies`` takes four of them separated by
commas, one per seat from the dealer (E,S,W,N). Parameters are validated
like config options (pydantic: unknown keys and values out of range are
refused with the allowed ones named).

A parsed ``Policy`` has a short text (``spec``: only the parameters that
differ from their defaults, for labels) and a full text (``full``: every
parameter, recorded in run manifests and in the ``policy_e .. policy_n``
columns, so a run says exactly how it was played).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import pydantic

from nbsim.errors import RunError
from nbsim.kernels.policies.catalog import (
    DEFAULT_POLICY,
    MAX_PARAMS,
    NAMES,
    POLICY_TABLE,
    Policies,
    PolicySpec,
    code_of,
)

# the play styles of the band (``nbsim band``) and of tune's checks under
# other styles (``nbsim tune --styles``), from weakest to strongest
DEFAULT_STYLES = ("value", "defend", "defend:caution=0.9")

__all__ = ["Policy", "parse_policy", "parse_policies", "as_policies", "kernel_arrays", "describe"]


@dataclass(frozen=True)
class Policy:
    """A policy with every parameter resolved: ``name`` (a row of the policy
    table) and ``params`` ((key, value) pairs in the table's order)."""
    name: str
    params: tuple[tuple[str, float], ...] = ()

    @property
    def code(self) -> int:
        """The kernel code (index in the policy table)."""
        return code_of(self.name)

    @property
    def spec(self) -> str:
        """Short text: the name and the parameters that differ from their
        defaults (``defend:caution=0.8``)."""
        spec = _spec(self.name)
        changed = [f"{k}={_num(v)}" for (k, v), p in zip(self.params, spec.params, strict=False)
                   if v != p.default]
        return ":".join([self.name, *changed])

    @property
    def full(self) -> str:
        """Full text: the name and every parameter (``defend:caution=0.3:bind=1:speed=1``)."""
        return ":".join([self.name, *(f"{k}={_num(v)}" for k, v in self.params)])

    def __str__(self) -> str:
        return self.spec


def _num(v: float) -> str:
    return f"{v:g}"


def _spec(name: str) -> PolicySpec:
    return POLICY_TABLE[code_of(name)]


@cache
def _model(name: str) -> type[pydantic.BaseModel]:
    """The pydantic model of a policy's parameters (ranges from the table)."""
    fields = {p.name: (int if p.whole else float,
                       pydantic.Field(p.default, ge=p.lo, le=p.hi, description=p.doc))
              for p in _spec(name).params}
    return pydantic.create_model(f"{name}_params",  # type: ignore[call-overload]
                                 __config__=pydantic.ConfigDict(extra="forbid"), **fields)


def _allowed_names() -> str:
    return ", ".join(NAMES)


def parse_policy(text: str | Policy) -> Policy:
    """Parse ``NAME`` or ``NAME:key=value[:key=value ...]``.

    Raises RunError naming the unknown policy (and the allowed names), an
    unknown parameter (and the policy's parameters), or a value that is not a
    number, out of range (and the range) or a fraction where the kernels
    read a whole number (``catalog.Param.whole``: counts, switches,
    choices)."""
    if isinstance(text, Policy):
        return text
    if not isinstance(text, str) or not text.strip():
        raise RunError(f"a policy must be a name such as {DEFAULT_POLICY!r} "
                       f"(allowed: {_allowed_names()}), got {text!r}")
    name, *parts = [t.strip() for t in text.strip().split(":")]
    if name not in NAMES:
        raise RunError(f"unknown policy {name!r}; allowed: {_allowed_names()}")
    spec = _spec(name)
    given: dict[str, str] = {}
    for part in parts:
        if "=" not in part:
            raise RunError(f"policy {text!r}: parameter {part!r} must be key=value, e.g. "
                           f"{_example(spec)}")
        k, v = (s.strip() for s in part.split("=", 1))
        if k in given:
            raise RunError(f"policy {text!r}: parameter {k!r} given twice")
        given[k] = v
    allowed = ", ".join(p.name for p in spec.params) or "none"
    for k in given:
        if k not in {p.name for p in spec.params}:
            raise RunError(f"policy {name!r} has no parameter {k!r}; its parameters: {allowed}")
    try:
        values = _model(name)(**given)
    except pydantic.ValidationError as e:
        err = e.errors()[0]
        key = err["loc"][0] if err["loc"] else "?"
        p = next(q for q in spec.params if q.name == key)
        kind = "a whole number" if p.whole else "a number"
        raise RunError(f"policy {text!r}: {key} must be {kind} {_num(p.lo)} .. {_num(p.hi)} "
                       f"(default {_num(p.default)}), got {given.get(str(key))!r}") from None
    return Policy(name, tuple((p.name, float(getattr(values, p.name))) for p in spec.params))


def parse_written(text: str) -> Policy:
    """A policy spec as a run manifest wrote it, in the full form of this version: a
    parameter the spec does not name (one added since the run was written)
    takes its ``before`` value, which plays as the policy did before the
    parameter existed (``catalog.Param``), not its default. Raises
    RunError as ``parse_policy`` does."""
    name = text.split(":", 1)[0].strip()
    if name not in NAMES:
        return parse_policy(text)
    named = {part.split("=", 1)[0].strip() for part in text.split(":")[1:]}
    extra = [f"{p.name}={p.before}" for p in _spec(name).params
             if p.before is not None and p.name not in named]
    return parse_policy(":".join([text.strip(), *extra]))


def _example(spec: PolicySpec) -> str:
    if not spec.params:
        return spec.name
    p = spec.params[0]
    return f"{spec.name}:{p.name}={_num(p.default)}"


def parse_policies(policy: str | None = None, policies: str | None = None) -> tuple[Policy, ...]:
    """Policies per seat (from the dealer: E, S, W, N) from ``--policy SPEC``
    (all seats) or ``--policies A,B,C,D``. Default: ``DEFAULT_POLICY`` in
    every seat. Raises RunError (both given, not four, a bad spec)."""
    if policy and policies:
        raise RunError("give either --policy or --policies, not both")
    if policies:
        names = [p.strip() for p in policies.split(",")]
        if len(names) != 4:
            raise RunError(f"--policies {policies!r}: give 4 policies separated by commas, one "
                           f"per seat from the dealer (E,S,W,N), e.g. defend,value,value,value")
        return tuple(parse_policy(n) for n in names)
    return (parse_policy(policy or DEFAULT_POLICY),) * 4


def as_policies(value: str | Policy | Iterable[str | Policy] | None,
                n: int = 4) -> tuple[Policy, ...]:
    """Normalise the ``policies`` argument of the Python API to ``n``
    Policies: None (the default policy everywhere), one spec or Policy (every
    seat), a comma-separated string of n specs, or a sequence of n specs or
    Policies. Raises RunError otherwise (a string is never split into
    characters)."""
    if value is None:
        return (parse_policy(DEFAULT_POLICY),) * n
    if isinstance(value, Policy):
        return (value,) * n
    if isinstance(value, str):
        if "," in value:
            names = [v.strip() for v in value.split(",")]
            if len(names) != n:
                raise RunError(f"policies {value!r}: give {n} policies separated by commas")
            return tuple(parse_policy(v) for v in names)
        return (parse_policy(value),) * n
    if not isinstance(value, Sequence) and not isinstance(value, Iterable):
        raise RunError(f"policies must be a policy name or a sequence of {n}, got {value!r}")
    items = list(value)
    if len(items) != n:
        raise RunError(f"policies: give {n} policies (one per seat from the dealer), "
                       f"got {len(items)}: {items!r}")
    return tuple(parse_policy(v) for v in items)


def kernel_arrays(pols: Sequence[Policy], rules: np.ndarray, tables) -> Policies:
    """The kernels' policy record (``engine.play_deal``;
    ``kernels.policies.catalog.Policies``): int64[n] policy codes,
    float64[n, MAX_PARAMS] parameter rows, and the entries of the policies'
    compiled decisions and of the engine
    (``kernels.engine.loop.policy_record``: it compiles them, or loads them
    from the cache, the first time in a process). ``rules`` (the
    int64[R_LEN] rules array) and ``tables``
    (``nbsim.rules.lookups.load_tables()``) are those the kernels will be
    given."""
    from nbsim.kernels.engine.loop import policy_record
    codes = np.array([p.code for p in pols], dtype=np.int64)
    params = np.zeros((len(pols), MAX_PARAMS), dtype=np.float64)
    for i, p in enumerate(pols):
        for j, (_, v) in enumerate(p.params):
            params[i, j] = v
    return policy_record(codes, params, rules, tables)


def describe() -> str:
    """The policies and their parameters as text (``nbsim policies``),
    each line wrapped to ``stats.TEXT_WIDTH`` columns."""
    from nbsim.stats import fill
    lines = []
    for spec in POLICY_TABLE:
        mark = " (default)" if spec.name == DEFAULT_POLICY else ""
        lines.append(f"{spec.name}{mark}: {spec.summary}")
        for p in spec.params:
            lines.append(f"    {p.name} = {_num(p.default)} "
                         f"({'whole number ' if p.whole else ''}{_num(p.lo)} .. "
                         f"{_num(p.hi)}): {p.doc}")
    return fill("\n".join(lines), indent="  ")


def label(pols: Sequence[Policy | str]) -> str:
    """A short label of the policies of a run: one spec when every seat has
    it, else the four specs E,S,W,N."""
    specs = [parse_policy(p).spec if not isinstance(p, Policy) else p.spec for p in pols]
    return specs[0] if len(set(specs)) == 1 else ",".join(specs)

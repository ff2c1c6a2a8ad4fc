"""Parts of a duel played separately, pooled as one (``nbsim pool-duels``).

A duel of a search player takes hours, so it is played in ranges of one
seed's deals (``nbsim duel --first F``) or on several seeds, and the parts
are pooled here. Every deal i of a seed is the same deal in every run, and
d_i (``nbsim.play.duel``) depends on that deal only, so parts on disjoint
deals are independent samples of the same statistic. Each part's sums of
d_i and d_i**2 follow from its deals n, mean m and standard error se:

    sum d_i = n m,    sum d_i**2 = (n - 1) n se**2 + n m**2

so the pool is exactly the duel of all the parts' deals played at once (up
to float rounding): the same mean, standard error, 95% t interval and
p-value. Win shares are weighted by deals. A part read from JSON is checked
first (``read_result``): strict types, finite numbers, shares in 0..1,
deal indices and seeds in range, no unknown or missing key.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from nbsim.errors import RunError
from nbsim.play.duel import DuelResult, summary
from nbsim.run.files import MAX_DEALS

# a payment per deal and seat is a few hundred points at most: far inside this
MAX_POINTS = 1e6


class _Record(BaseModel):
    """The JSON object ``nbsim duel --json`` prints, as ``pool-duels`` accepts it."""
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)
    config: str
    a: str
    b: str
    deals: int = Field(ge=2, le=MAX_DEALS)
    mean: float = Field(ge=-MAX_POINTS, le=MAX_POINTS)
    se: float = Field(ge=0.0, le=MAX_POINTS)
    ci_low: float
    ci_high: float
    p_value: float = Field(ge=0.0, le=1.0)
    win_rate_a: float = Field(ge=0.0, le=1.0)
    win_rate_b: float = Field(ge=0.0, le=1.0)
    seating: Literal["2v2", "1v3"]
    among: str
    seed: int | None = Field(ge=0, le=2**64 - 1)
    first: int = Field(ge=0, le=MAX_DEALS - 2)
    parts: str
    rules_hash: str
    # an older nbsim's result has none (read as "")
    a_full: str = ""
    b_full: str = ""
    among_full: str = ""


def read_result(data, source: str) -> DuelResult:
    """A DuelResult from ``data``, the object ``nbsim duel --json`` prints
    (a dict parsed from JSON; ``source`` names it in errors). Raises
    RunError naming the missing, unknown or wrong keys, or a policy that is
    not one (``policy_specs.parse_written``)."""
    from nbsim.args import json_kind
    from nbsim.run.manifest import manifest_problems
    if not isinstance(data, Mapping):
        raise RunError(f"{source}: expected the JSON object `nbsim duel --json` prints, got "
                       f"{json_kind(data)}")
    try:
        rec = _Record.model_validate(dict(data))
    except ValidationError as e:
        raise RunError(f"{source}: not a duel result of `nbsim duel --json`: "
                       f"{manifest_problems(e)}") from None
    from nbsim.policy_specs import parse_written
    for key in ("a", "b", "among") if rec.among else ("a", "b"):
        try:
            parse_written(getattr(rec, key))
        except RunError as e:
            raise RunError(f"{source}: {key}: {e}") from None
    if rec.first + rec.deals > MAX_DEALS:
        raise RunError(f"{source}: deals {rec.first:,} .. {rec.first + rec.deals - 1:,} go past "
                       f"the last deal index, {MAX_DEALS - 1:,}")
    return DuelResult(**rec.model_dump())


_SAME = (("config", "config"), ("rules_hash", "rules (a --set override or an edited config "
                                              "file; rules hash)"),
         ("a", "policy A"), ("b", "policy B"), ("seating", "seating"), ("among", "--among"))
# compared where both parts record them (a result of an older nbsim does
# not): the policies with every parameter, which tell apart play that
# the short names (defaults dropped) confuse once a default has changed
_SAME_FULL = (("a_full", "policy A's parameters"), ("b_full", "policy B's parameters"),
              ("among_full", "the --among policy's parameters"))


def pool(results: Iterable[DuelResult | Mapping], names: Iterable[str] | None = None
         ) -> DuelResult:
    """One duel from parts played on disjoint deals (module doc): the same
    config and rules (``rules_hash``), policies, seating and ``among``,
    each part a range of one seed's deals; ranges of one seed must not
    overlap. ``results``: DuelResults, or dicts as ``nbsim duel --json``
    prints them; ``names``: what to call each part in messages (default
    'result 1', 'result 2', ...). Returns the pooled DuelResult (points per
    deal and seat): with ``seed`` and ``first`` when its deals are one
    block of one seed, else ``parts`` naming its ranges.

    Raises RunError for no results (or ``results`` that is not a list of
    them), parts that differ in any of those (or
    in a policy's full form, every parameter written out, among the parts
    that record it), a part without a seed or rules hash (an older nbsim's
    result), a pool of separate ranges given as a part, or two parts that
    share deals."""
    if isinstance(results, (str, bytes, Mapping, DuelResult)) or not isinstance(results,
                                                                               Iterable):
        raise RunError(f"results: expected a list of duel results (DuelResults, or dicts as "
                       f"nbsim duel --json prints them), got {type(results).__name__}")
    items = list(results)
    labels = list(names) if names is not None else []
    labels += [f"result {i + 1}" for i in range(len(labels), len(items))]
    if not items:
        raise RunError("nothing to pool: give one or more duel results")
    parts = [r if isinstance(r, DuelResult) else read_result(r, labels[i])
             for i, r in enumerate(items)]
    head = parts[0]
    for i, r in enumerate(parts):
        if r.parts:
            raise RunError(f"cannot pool {labels[i]}: it is itself a pool of separate ranges "
                           f"({r.parts}); pool the parts it was made of instead")
        if r.seed is None or not r.rules_hash:
            raise RunError(f"cannot pool {labels[i]}: it records no seed or rules hash (a "
                           f"result of an older nbsim), so its deals and rules cannot be "
                           f"checked against the others'")
        for key, what in _SAME:
            if getattr(r, key) != getattr(head, key):
                raise RunError(f"cannot pool {labels[0]} and {labels[i]}: they differ in "
                               f"{what}: {_shown(getattr(head, key))} and "
                               f"{_shown(getattr(r, key))}")
    full = []          # the pool's full forms: those of the parts that record them
    for key, what in _SAME_FULL:
        # each part against the first that records the full form (an older
        # part records none, so the head may not)
        known = [(labels[i], getattr(r, key)) for i, r in enumerate(parts) if getattr(r, key)]
        for label, y in known[1:]:
            if y != known[0][1]:
                raise RunError(f"cannot pool {known[0][0]} and {label}: they differ in "
                               f"{what}: {known[0][1]!r} and {y!r} (the same name stood for "
                               f"other play when they were run: a default has changed)")
        full.append(known[0][1] if known else "")
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for r, label in zip(parts, labels, strict=False):
        spans.setdefault(r.seed or 0, []).append((r.first, r.first + r.deals, label))
    for seed, ranges in spans.items():
        ranges.sort()
        for (_, a1, x), (b0, b1, y) in pairwise(ranges):
            if b0 < a1:
                raise RunError(f"cannot pool {x} and {y}: both hold deals {b0:,} .. "
                               f"{min(a1, b1) - 1:,} of seed {seed}")
    n = sum(r.deals for r in parts)
    s1 = sum(r.deals * r.mean for r in parts)
    s2 = sum((r.deals - 1) * r.deals * r.se ** 2 + r.deals * r.mean ** 2 for r in parts)
    win_a = sum(r.deals * r.win_rate_a for r in parts) / n
    win_b = sum(r.deals * r.win_rate_b for r in parts) / n
    one_seed = next(iter(spans)) if len(spans) == 1 else None
    ranges = spans[one_seed] if one_seed is not None else []
    if one_seed is not None and all(b0 == a1 for (_, a1, _), (b0, _, _) in pairwise(ranges)):
        where = ""
    else:
        where = "; ".join(f"seed {seed}: " + ", ".join(f"deals {a0:,} .. {a1 - 1:,}"
                                                        for a0, a1, _ in rs)
                          for seed, rs in sorted(spans.items()))
    first = ranges[0][0] if one_seed is not None else 0
    return summary(head.config, head.a, head.b, n, s1, s2, win_a, win_b, head.seating,
                   head.among, one_seed, first, where, head.rules_hash, tuple(full))


def _shown(value: str) -> str:
    return repr(value) if value else "(none)"

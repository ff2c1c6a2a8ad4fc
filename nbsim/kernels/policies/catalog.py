"""The policy table: every bot policy nbsim has, with its parameters.

This is the one registry of policies. The engine (``registry.py`` builds its
dispatch from it, in this order: a policy's code is its index here), the
command line (``--policy`` / ``--policies`` choices and ``NAME:key=value``
parameters), the run manifest and the documentation all read it. It is plain
Python (no numba), so the command line can read it without loading the
kernels.

Adding a policy: write ``nbsim/kernels/policies/<module>.py`` with the four
decisions (``want_win``, ``choose_kong``, ``choose_claim``,
``choose_discard``, each ``@nrt_free(kernel_only=True)``, taking
the View and the policy scratch as Refs that ``ref.deref`` reads;
signatures in ``registry.py``) and add one
``PolicySpec`` row below. Nothing else changes.

Parameters are floats passed to the kernels at run time (one float64 row
per seat, ``MAX_PARAMS`` long, in the order listed here), never compiled-in
constants: tuning a parameter needs no recompilation.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np


class Param(NamedTuple):
    """One policy parameter: name, default, allowed range [lo, hi], meaning,
    ``before``: the value that plays as the policy did before the parameter
    existed, for run manifests written then
    (``nbsim.policy_specs.parse_written``; None: the default does), and
    ``whole``: the kernels read it as a whole number (a count, a switch or a
    choice), so a fraction is refused rather than cut."""
    name: str
    default: float
    lo: float
    hi: float
    doc: str
    before: float | None = None
    whole: bool = False


class PolicySpec(NamedTuple):
    """One policy: its name (what users type), the kernel module in
    ``nbsim/kernels/policies/``, a one-line summary and its parameters.
    ``base``: for a search policy (one that plays the rest of the deal from
    inside its decisions), the policy that stands for it inside its own
    playouts; None for the others. A search policy's parameter ``playout``
    is the code of the policy every seat plays in its playouts
    (``engine.loop.policy_record`` compiles those too)."""
    name: str
    module: str
    summary: str
    params: tuple[Param, ...] = ()
    base: str | None = None


MAX_PARAMS = 20

# defend's parameters; lookahead takes them too, for its own defend
DEFEND_PARAMS: tuple[Param, ...] = (
    Param("caution", 0.3, 0.0, 1.0,
          "0 pushes like value (defence off); 1 folds as soon as a threat shows; "
          "the default is the strongest setting found by duels"),
    Param("bind", 0.5, 0.0, 2.0,
          "weight of bound-pair (三包) liability, for and against this player "
          "(0 ignores bound pairs)"),
    Param("speed", 1.0, 0.0, 2.0,
          "weight of tile acceptance (tiles that improve the hand) when discards "
          "are otherwise equal (0: value's tie-break)"),
    Param("short", 1.5, 0.0, 5.0,
          "target choice: cost per tai a target falls short of the minimum "
          "(value: 1.5)"),
    Param("worth", 0.1, 0.0, 1.0,
          "target choice: cost saved per tai a target is worth (value: 0.1)"),
    Param("hold", 0.15, 0.0, 2.0,
          "points charged for discarding a single honour tile whose pung scores (a "
          "dragon, the seat's or the round's wind), a lesson of lookahead's search "
          "(docs/lookahead.md, \"What defend learned\"); 0: no charge",
          before=0.0),
)

POLICY_TABLE: tuple[PolicySpec, ...] = (
    PolicySpec(
        "random", "random_play",
        "a uniformly random legal action at every decision (the baseline, and a fuzzer "
        "for the engine)"),
    PolicySpec(
        "greedy", "greedy",
        "minimises shanten (tiles from ready), breaks ties by tile usefulness, claims "
        "whatever lowers shanten, always wins"),
    PolicySpec(
        "value", "value",
        "plays for the tai minimum: picks a target (open hand, a flush, all pungs) by "
        "shanten and the tai it would score, discards toward it, always wins"),
    PolicySpec(
        "defend", "defend",
        "the strongest policy: value's targets plus tile acceptance, honours, winds, "
        "seat flowers and bound pairs (三包) on offence; reads each opponent's "
        "threat from what shows and pushes or folds by expected value",
        DEFEND_PARAMS),
    PolicySpec(
        "lookahead", "lookahead",
        "the expert reference: defend's candidates, and where the best ones are close, "
        "each played to the end of the deal on sampled hidden tiles (Monte Carlo, common "
        "random numbers); the discard with the highest expected payment",
        DEFEND_PARAMS + (
         Param("samples", 48, 4, 1024,
               "sampled deals (hidden tiles and the rest of the play) per candidate", whole=True),
         Param("top_k", 3, 2, 8, "candidates searched: defend's best ones", whole=True),
         Param("gap", 1.0, 0.0, 1000.0,
               "search only when defend's runner-up is within this much of its best "
               "(defend's value, points); 1000 searches every discard"),
         Param("z", 1.0, 0.0, 5.0,
               "leave defend's choice only when the paired gain exceeds z standard errors"),
         Param("playout", 3, 1, 3,
               "policy of every seat in the playouts: 3 defend, 2 value, 1 greedy", whole=True),
         Param("claims", 0, 0, 1,
               "1: every claim offered (pass, pung, kong, each chow) is played out on the "
               "sampled deals like the close discards, and defend's answer is replaced "
               "when another pays more by z standard errors; 0: defend's claims",
               before=0.0, whole=True),
         Param("playout_hold", 0.0, 0.0, 2.0,
               "defend's hold in the playouts (every seat's, this one's later turns too); "
               "0 searches best (docs/lookahead.md, \"Holding in the playouts\")",
               before=0.0),
         Param("kongs", 0, 0, 1,
               "1: every own-turn kong question (no kong, each concealed or added kong "
               "offered) is played out on the sampled deals, and defend's answer is "
               "replaced when another pays more by z standard errors; 0: defend's kongs",
               before=0.0, whole=True),
         Param("confirm", 96, 0, 1024,
               "worlds of a second, fresh playout of a challenger that beat defend's "
               "answer: it is played only if it wins again by z standard errors (0: no "
               "second stage; docs/lookahead.md, \"The second stage\")", before=0.0,
               whole=True),
         Param("opponents", -1, -1, 3,
               "hidden hands of the sampled worlds: -1 (default) by the rules: 3 where "
               "win.allowed_patterns restricts the winning hands (同城游), else 0; "
               "0 uniformly random; 1 each opponent "
               "draws and discards once per discard it has made, keeping pairs and "
               "connected tiles; 2 the same, letting go first of the tiles outside the "
               "target a value player would pick (a flush, all pungs or open hand; "
               "playout.refine_hands); 3 as 2, a flush target in the suit the opponent's "
               "melds and discards point to (playout.read_suit)", before=0.0, whole=True),
         Param("guard", 1000.0, 0.0, 1000.0,
               "a discard more dangerous than defend's choice by more than this (defend's "
               "danger model: expected points lost by dealing in) is not searched; 1000: "
               "no guard (docs/lookahead.md, \"Reading the discards, a guard, and claims on "
               "同城游\")", before=1000.0)),
        base="defend"),
)

NAMES: tuple[str, ...] = tuple(p.name for p in POLICY_TABLE)
SEARCH: frozenset[str] = frozenset(p.name for p in POLICY_TABLE if p.base is not None)
DEFAULT_POLICY = "defend"


# the four decisions every policy module implements (``registry.py``), in
# the order of a ``Policies.decisions`` row
DECISIONS: tuple[str, ...] = ("want_win", "choose_kong", "choose_claim", "choose_discard")
D_WIN, D_KONG, D_CLAIM, D_DISCARD = range(len(DECISIONS))


class Policies(NamedTuple):
    """The seats' policies as the engine takes them (one record type for
    every run, so the engine compiles once).

    codes: int64[n] policy codes (index in POLICY_TABLE), by seat (n = 4,
    seat 0 the dealer) or, for whole matches, by player; params:
    float64[n, MAX_PARAMS] each one's parameter row; decisions:
    int64[len(POLICY_TABLE), len(DECISIONS), 2], the compiled decisions
    of every policy by code, each an entry pair (address, tag) that the
    engine calls (``nbsim.kernels.entry``; (0, 0) for a policy not compiled
    for this record: calling it raises); engine: int64[2], the entry pair of
    the engine's turn loop that plays this record's deals and a search
    policy's playouts (``engine.loop.play_from``); scorer: int64[2], the
    entry pair of the scorer the turn loop calls (``engine.wins.try_win``:
    the engine compiles apart from it). Built by
    ``engine.loop.policy_record``. Pickled (a process pool's argument), it
    carries its entries by name and compiles or loads them again in the
    other process."""
    codes: np.ndarray
    params: np.ndarray
    decisions: np.ndarray
    engine: np.ndarray
    scorer: np.ndarray

    def __reduce__(self):
        from nbsim.kernels.entry import entry_at
        entries = [[entry_at(a) for a in row[:, 0]] for row in self.decisions]
        return (_policies_from, (self.codes, self.params, entries, entry_at(self.engine[0]),
                                 entry_at(self.scorer[0])))


def _policies_from(codes, params, entries, engine, scorer):
    """A pickled ``Policies`` record in this process: the entry pairs of
    ``entries`` (``KernelEntry`` or None, by code and decision), of
    ``engine`` and of ``scorer``."""
    import numpy as np
    decisions = np.zeros((len(entries), len(DECISIONS), 2), np.int64)
    for c, row in enumerate(entries):
        for d, e in enumerate(row):
            if e is not None:
                decisions[c, d] = e.pair
    pairs = [e.pair if e is not None else np.zeros(2, np.int64) for e in (engine, scorer)]
    return Policies(codes, params, decisions, *pairs)


def code_of(name: str) -> int:
    """The kernel code (index in POLICY_TABLE) of a policy name; KeyError if unknown."""
    for i, p in enumerate(POLICY_TABLE):
        if p.name == name:
            return i
    raise KeyError(name)


def played_codes(codes, params) -> list[int]:
    """The codes of the policies a record plays, ascending: ``codes`` (ints,
    by seat or player) and, for each one of a search policy (a row with a
    ``base``), the code its ``playout`` parameter names in its row of
    ``params`` (float64[n, MAX_PARAMS])."""
    played = {int(c) for c in codes}
    for i, c in enumerate(codes):
        spec = POLICY_TABLE[int(c)]
        if spec.base is not None:
            played.add(int(params[i][param_index(spec.name, "playout")]))
    return sorted(played)


def param_index(policy: str, param: str) -> int:
    """Position of a parameter in its policy's float64 parameter row."""
    spec = POLICY_TABLE[code_of(policy)]
    for i, p in enumerate(spec.params):
        if p.name == param:
            return i
    raise KeyError(f"{policy}:{param}")


assert all(len(p.params) <= MAX_PARAMS for p in POLICY_TABLE)

"""Discard and claim advice for a player at the table: ``nbsim advise`` and
``nbsim.advise`` (this module is ``advice``, so that the package attribute
``nbsim.advise`` stays the function).

A player gives the table as it stands, in tile notation (docs/rules.md §1):
the own concealed tiles, every seat's melds and discards, the flowers set
aside, the indicator, the seat and round winds and the tiles left. This
module turns that into a ``nbsim.position.Position`` (checking it against
the rules: docs/rules.md §2-§4), and for every candidate

* a discard, when the seat holds 3k + 2 tiles (its turn), or
* pass / pung / kong / chow, when a discard is offered to it (a claim),

reports the shanten and the tile acceptance toward each target the bots
play for (``nbsim/kernels/policies/common.py``: the open hand, the full and
half flushes by suit, all pungs; shanten as in docs/rules.md §10.2), and from
the lookahead evaluator (``nbsim.lookahead.evaluate``) the chance to win,
the expected payment with its 95% interval, the chance of dealing in to
each opponent and the paired difference to the best candidate; for a
discard that leaves the hand ready, the exact chance of completing it with
the seat's own remaining draws alone (``nbsim.lookahead.exact_own_draws``,
no opponents). The recommendation is the best candidate; candidates whose
paired difference to it has a 95% interval containing 0 are "within the
noise".

The table state (``--state FILE.json``, or the same keys from the
command's options; every key optional but ``hand``)::

    {"seat": "S", "round": "E", "indicator": "5m", "wall_left": 40,
     "hand": "123m456p789s5z",            # 13 - 3 x 1 meld: a claim of the offered 4s
     "offered": "4s", "from": "E",        # or, to discard: 14 - 3 x melds tiles, "drawn"
     "melds": {"S": ["pung:777z@W"], "N": ["chow:345s", "ckong"]},
     "discards": {"E": "19m3s*", "S": "9s1z", "W": "5p(7z)(4s)", "N": "2z"},
     "flowers": {"E": "1f", "S": "2f6f"}}

* melds: ``TYPE:TILES`` as ``nbsim score --meld`` writes them (chow:345s,
  pung:777z, kong:7777z, ckong:9999s), optionally ``@SEAT``, the seat whose
  discard was claimed (default: the seat before the meld's owner, the only
  one a chow can come from). Another seat's concealed kong lies face down:
  ``ckong`` without tiles.
* discards: each seat's pond in order. A tile in parentheses was claimed
  by a meld (it is counted once, in the meld); a claimed meld whose tile is
  not marked gets it added to the end of its source's pond. ``*`` after a
  tile marks a discard of the tile just drawn (摸打).
* offered: the tile just discarded by ``from`` (default: the seat before
  ``seat``), not written in its discards. It is the claim decision: the
  hand then holds 13 - 3 x melds tiles, else 14 - 3 x melds.
* wall_left: the tiles that can still be drawn (Ninghai's reserve left
  out); by default all that the table as given leaves unseen.

Units: payments are points per deal for the seat (the variant's scoring:
tai with its base points, Ninghai points), probabilities are per deal.
"""
from __future__ import annotations

import json
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nbsim.errors import HandError, RunError, TileError
from nbsim.kernels import codes as C
from nbsim.position import MAX_POND, Position
from nbsim.rules import RuleSet, as_rules
from nbsim.scoring import display_width
from nbsim.tiles import KIND_NAMES, format_tiles, parse_meld, parse_tile, parse_tiles

__all__ = ["Advice", "CandidateAdvice", "TargetFit", "STATE_KEYS", "TARGETS", "advise",
           "advice_json", "build_advice", "format_advice", "plot_advice", "position_from_json",
           "position_from_options", "position_from_state", "position_to_state", "read_state",
           "table_state"]

SEATS = C.SEAT_NAMES
Z95 = 1.959963984540054          # the normal 97.5% quantile: a 95% interval is +- Z95 x se
STATE_KEYS = ("seat", "round", "indicator", "wall_left", "hand", "drawn", "offered", "from",
              "melds", "discards", "flowers")

# the targets of nbsim/kernels/policies/common.py (TG_*), by name
TARGETS = (("open", 0), ("full_flush_m", 1), ("full_flush_p", 2), ("full_flush_s", 3),
           ("half_flush_m", 4), ("half_flush_p", 5), ("half_flush_s", 6), ("all_pungs", 7))
TARGET_LABELS = {"open": "open hand", "full_flush": "full flush", "half_flush": "half flush",
                 "all_pungs": "all pungs"}
_POND_DRAWN = 1          # nbsim.kernels.policies.view.POND_DRAWN
_POND_CLAIMED = 2        # nbsim.kernels.policies.view.POND_CLAIMED
_CLAIM_PASS, _CLAIM_PUNG, _CLAIM_KONG, _CLAIM_CHOW = 0, 1, 2, 3   # common.CLAIM_*


# ================================================================ the table state
def _is_seat_value(value) -> bool:
    return isinstance(value, str) and value.strip().upper() in SEATS


def _seat(value, what: str) -> int:
    """'E' 'S' 'W' 'N' (any case) -> 0..3; HandError naming ``what`` otherwise."""
    if isinstance(value, str) and value.strip().upper() in SEATS:
        return SEATS.index(value.strip().upper())
    raise HandError(f"{what}: unknown seat {value!r}; seats are E S W N "
                    f"(E the dealer, then S W N in turn order)")


_SEAT_PREFIX = re.compile(r"^\s*([A-Za-z])\s*:(.*)$", re.S)


def _split_seat(text: str, default: str | None, what: str) -> tuple[str, str]:
    """'S:pung:555p' -> ('S', 'pung:555p'); a text without a one-letter
    prefix belongs to ``default`` (the deciding seat; None: a seat is
    required)."""
    m = _SEAT_PREFIX.match(text)
    if m:
        _seat(m.group(1), f"{what} {text!r}")
        return m.group(1).upper(), m.group(2).strip()
    if default is None:
        raise HandError(f"{what} {text!r}: start with the seat, e.g. 'S:{text}' "
                        f"(seats E S W N)")
    return default, text.strip()


def _group_by_seat(values, what: str, default: str | None, *, many: bool
                   ) -> dict[str, Any]:
    """``[SEAT:]TEXT`` option values -> {seat: text} (``many``: {seat: [texts]},
    several values of one seat kept in order; a value may hold several,
    comma-separated)."""
    out: dict[str, Any] = {}
    for v in values:
        seat, rest = _split_seat(v, default, what)
        if many:
            out.setdefault(seat, []).extend(p.strip() for p in rest.split(",") if p.strip())
        else:
            if seat in out:
                raise HandError(f"{what}: seat {seat} given twice ({out[seat]!r} and "
                                f"{rest!r}); give each seat's tiles once, in order")
            out[seat] = rest
    return out


def table_state(base: Mapping[str, Any] | None = None, *, hand: str | None = None,
                melds: Sequence[str] = (), discards: Sequence[str] = (),
                seat: str | None = None, round_wind: str | None = None,
                indicator: str | None = None, wall_left: int | None = None,
                flowers: Sequence[str] = (), drawn: str | None = None,
                offered: str | None = None, offered_from: str | None = None
                ) -> dict[str, Any]:
    """The table state dict (the ``--state`` JSON format, module doc) of the
    ``nbsim advise`` options, over ``base`` (a state read from a file): an
    option given replaces that key. ``melds``, ``discards`` and ``flowers``
    take ``[SEAT:]TEXT`` values (without a seat: the deciding seat's), e.g.
    ``["S:pung:555p@W", "chow:345s"]``, ``["E:19m(5p)3s", "S:9s1z"]``,
    ``["S:2f6f"]``; several melds of a seat may be comma-separated."""
    state: dict[str, Any] = dict(base or {})
    if seat is not None:
        state["seat"] = seat
    own = state.get("seat", "E")
    own = own.strip().upper() if _is_seat_value(own) else "E"
    for key, value in (("hand", hand), ("round", round_wind), ("indicator", indicator),
                       ("wall_left", wall_left), ("drawn", drawn), ("offered", offered),
                       ("from", offered_from)):
        if value is not None:
            state[key] = value
    if melds:
        state["melds"] = _group_by_seat(melds, "--melds", own, many=True)
    if discards:
        state["discards"] = _group_by_seat(discards, "--discards", own, many=False)
    if flowers:
        state["flowers"] = _group_by_seat(flowers, "--flowers", own, many=False)
    return state


def read_state(path_or_dict: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A table state from a JSON file (or a dict, copied). Raises HandError
    when the file cannot be read or is not a JSON object."""
    if isinstance(path_or_dict, Mapping):
        return dict(path_or_dict)
    try:
        data = json.loads(Path(path_or_dict).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise HandError(f"state file {str(path_or_dict)!r}: cannot read: "
                        f"{getattr(e, 'strerror', None) or e}") from None
    except json.JSONDecodeError as e:
        raise HandError(f"state file {str(path_or_dict)!r}: bad JSON: {e.msg} "
                        f"(line {e.lineno}, column {e.colno})") from None
    if not isinstance(data, dict):
        raise HandError(f"state file {str(path_or_dict)!r}: expected a JSON object with keys "
                        f"{', '.join(STATE_KEYS)}, got {type(data).__name__}")
    return data


# ---------------------------------------------------------------- notation pieces
_POND_TOKEN = re.compile(r"(\d+[a-zA-Z])|([()*])|(\S)")


def _parse_pond(text, what: str) -> list[tuple[int, int]]:
    """'19m(5p)3s*' -> [(kind, flags)]: a tile in parentheses was claimed
    (POND_CLAIMED), ``*`` after a tile marks it as the tile just drawn
    (POND_DRAWN)."""
    if not isinstance(text, str):
        raise HandError(f"{what}: expected tile notation such as '19m(5p)3s', got {text!r}")
    out: list[tuple[int, int]] = []
    claimed = False
    for m in _POND_TOKEN.finditer("".join(text.split())):
        group, mark, other = m.groups()
        if group:
            for k in parse_tiles(group, max_copies=None, what=f"{what} {text!r}"):
                out.append((k, _POND_CLAIMED if claimed else 0))
        elif mark == "(":
            if claimed:
                raise HandError(f"{what} {text!r}: '(' inside parentheses; write each "
                                f"claimed tile as (5p)")
            claimed = True
        elif mark == ")":
            if not claimed:
                raise HandError(f"{what} {text!r}: ')' without '('")
            claimed = False
        elif mark == "*":
            if not out:
                raise HandError(f"{what} {text!r}: '*' marks the tile before it as just "
                                f"drawn, and no tile comes before it")
            out[-1] = (out[-1][0], out[-1][1] | _POND_DRAWN)
        elif other.isdigit():
            raise TileError(f"{what} {text!r}: digits have no suit letter (write e.g. "
                            f"'19m(5p)3s'; suits: m p s z f)")
        else:
            raise TileError(f"{what} {text!r}: unexpected {other!r}; discards are tiles in "
                            f"notation, (5p) for a claimed one, * after a tile just drawn")
    if claimed:
        raise HandError(f"{what} {text!r}: '(' is not closed")
    return out


def _format_pond(kinds, flags) -> str:
    """Inverse of ``_parse_pond``, in order: runs of one suit share their
    letter ('19m5z'), a claimed tile stands alone in parentheses, ``*``
    follows a tile just drawn."""
    out: list[str] = []
    run, suit = "", ""

    def flush() -> None:
        nonlocal run, suit
        if run:
            out.append(run + suit)
        run, suit = "", ""
    for k, f in zip(kinds, flags, strict=True):
        name = KIND_NAMES[int(k)]
        if f & _POND_CLAIMED:
            flush()
            out.append(f"({name})" + ("*" if f & _POND_DRAWN else ""))
            continue
        if name[1] != suit:
            flush()
            suit = name[1]
        run += name[0]
        if f & _POND_DRAWN:
            out.append(run + suit + "*")
            run, suit = "", ""
    flush()
    return "".join(out)


@dataclass
class _Meld:
    owner: int
    typ: int
    kind: int            # -1: another seat's concealed kong (face down)
    frm: int | None      # claimed from (None: not given), -1 for a concealed kong
    text: str

    def kinds(self) -> list[int]:
        if self.kind < 0:
            return []
        if self.typ == C.MELD_CHOW:
            return [self.kind, self.kind + 1, self.kind + 2]
        return [self.kind] * (3 if self.typ == C.MELD_PUNG else 4)

    @property
    def claimed(self) -> bool:
        return self.typ in (C.MELD_CHOW, C.MELD_PUNG, C.MELD_KONG)


def _parse_meld_text(text, owner: int, me: int, wild: np.ndarray, rs: RuleSet) -> _Meld:
    what = f"meld {SEATS[owner]}:{text}" if isinstance(text, str) else "meld"
    if not isinstance(text, str):
        raise HandError(f"{what}: expected text such as 'pung:777z@W', got {text!r}")
    body, frm = text.strip(), None
    if "@" in body:
        body, _, src = body.rpartition("@")
        frm = _seat(src, f"{what}: the seat after @")
        body = body.strip()
    if body.lower() in ("ckong", "ckong:"):
        if owner == me:
            raise HandError(f"{what}: your own concealed kong: give its tiles, e.g. "
                            f"'ckong:9999s'")
        if frm is not None:
            raise HandError(f"{what}: a concealed kong is made of the player's own tiles; "
                            f"it names no seat after @")
        return _Meld(owner, C.MELD_CKONG, -1, -1, text)
    typ, _, tiles = body.partition(":")
    typ = typ.strip().lower()
    try:
        kinds = parse_tiles(tiles, max_copies=None, what=what) if tiles else []
    except TileError:
        kinds = []          # parse_meld below names the problem
    if any(k >= C.FLOWER0 for k in kinds):
        raise HandError(f"{what}: flowers are set aside (--flowers), never part of a chow, "
                        f"pung or kong")
    if typ == "chow" and kinds and any(k >= C.HONOR0 for k in kinds):
        raise HandError(f"{what}: winds and dragons (z tiles) form no chows; honours make "
                        f"pungs and kongs only (a chow is 3 consecutive ranks of m, p or s)")
    t, kind = parse_meld(body)
    m = _Meld(owner, t, kind, frm, text)
    if t == C.MELD_CKONG:
        if owner != me:
            raise HandError(f"{what}: another player's concealed kong lies face down; write "
                            f"'{SEATS[owner]}:ckong' without its tiles")
        if frm is not None:
            raise HandError(f"{what}: a concealed kong is made of the player's own tiles; "
                            f"it names no seat after @")
        m.frm = -1
    bad = sorted({k for k in m.kinds() if wild[k]})
    if bad:
        raise HandError(f"{what}: holds {', '.join(KIND_NAMES[k] for k in bad)}, a wild "
                        f"tile with indicator {_wild_text(wild)}; wilds cannot be part of a "
                        f"chow, pung or kong (docs/rules.md §3)")
    if t == C.MELD_CHOW and not rs.config.claims.allow_chow:
        raise HandError(f"{what}: chow melds are not allowed in {rs.name} "
                        f"(claims.allow_chow = false); melds are pungs and kongs")
    if frm is not None and frm == owner:
        raise HandError(f"{what}: a meld is claimed from another player's discard; @ names "
                        f"one of the other seats")
    if t == C.MELD_CHOW and frm is not None and frm != (owner + 3) % 4:
        raise HandError(f"{what}: a chow is claimed from the player before "
                        f"{SEATS[owner]}, {SEATS[(owner + 3) % 4]} (docs/rules.md §4), "
                        f"not {SEATS[frm]}")
    return m


def _wild_text(wild: np.ndarray) -> str:
    return " ".join(KIND_NAMES[k] for k in np.flatnonzero(wild)) or "none"


def _mapping(value, what: str, example: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HandError(f"{what}: expected an object seat -> {example}, got {value!r}")
    out: dict[str, Any] = {}
    for k, v in value.items():
        s = SEATS[_seat(k, f"{what} seat")]
        if s in out:
            raise HandError(f"{what}: seat {s} given twice")
        out[s] = v
    return out


def _optional_tile(value, what: str) -> int:
    if value is None or value == "":
        return -1
    if not isinstance(value, str):
        raise HandError(f"{what}: expected one tile such as '5p', got {value!r}")
    return parse_tile(value, what=what)


# ---------------------------------------------------------------- state -> Position
def position_from_state(rules: RuleSet | str | Path, state: Mapping[str, Any]) -> Position:
    """The ``Position`` of a table state (the JSON format of the module doc).

    Checks, each a ``HandError`` (or ``TileError`` for bad notation) naming
    what is wrong and what is allowed: unknown keys and seats, an indicator
    in a variant without wilds or none in one with wilds, a flower or a wild
    in a meld, a chow of honours or in a variant without chows, more than 4
    melds for a seat, a hand of the wrong size (14 - 3 x melds to discard,
    13 - 3 x melds when a discard is offered), a fifth copy of a kind across
    everything visible (hand, melds, discards, flowers, indicator), a flower
    held or discarded that is not wild, a wild flower or the indicator set
    aside, a pond longer than MAX_POND, and a wall_left that is negative or
    more than the unseen tiles can hold (docs/rules.md §1-§4)."""
    rs = as_rules(rules)
    if not isinstance(state, Mapping):
        raise HandError(f"table state: expected an object with keys {', '.join(STATE_KEYS)}, "
                        f"got {state!r}")
    unknown = [k for k in state if k not in STATE_KEYS]
    if unknown:
        raise HandError(f"table state: unknown key {unknown[0]!r}; allowed: "
                        f"{', '.join(STATE_KEYS)}")
    me = _seat(state.get("seat", "E"), "seat")
    round_wind = _seat(state.get("round", "E"), "round")
    from nbsim.kernels.wilds import wild_mask
    ind = _optional_tile(state.get("indicator"), "indicator")
    has_wilds = rs.config.wilds.wilds != "none"
    if ind >= 0 and not has_wilds:
        raise HandError(f"indicator {KIND_NAMES[ind]}: {rs.name} has no wilds "
                        f"(wilds.wilds = \"none\"), so no indicator is turned up; give none")
    if ind < 0 and has_wilds:
        raise HandError(f"{rs.name} plays with wilds ({rs.config.wilds.wilds}): give the "
                        f"indicator tile (--indicator, e.g. 5m; docs/rules.md §3)")
    wild = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild_mask(rs.array, ind, wild)

    # own concealed tiles
    hand_text = state.get("hand")
    if not isinstance(hand_text, str) or not hand_text.strip():
        raise HandError("hand: give the concealed tiles in notation, e.g. --hand 123m456p789s1155z"
                        if hand_text is None or isinstance(hand_text, str) else
                        f"hand: expected tile notation text such as '123m55z', got {hand_text!r}")
    hand_kinds = parse_tiles(hand_text, max_copies=None, what="hand")
    bad = sorted({k for k in hand_kinds if k >= C.FLOWER0 and not wild[k]})
    if bad:
        raise HandError(f"hand holds {', '.join(KIND_NAMES[k] for k in bad)}: flowers are set "
                        f"aside when drawn (give them with --flowers); only a wild flower is "
                        f"held (docs/rules.md §2-§3)")

    # melds
    melds_by_seat = _mapping(state.get("melds"), "melds", "a list such as ['pung:777z@W']")
    melds: list[list[_Meld]] = [[] for _ in range(4)]
    for s_name, items in melds_by_seat.items():
        s = SEATS.index(s_name)
        if isinstance(items, str):
            items = [p for p in items.split(",") if p.strip()]
        if not isinstance(items, (list, tuple)):
            raise HandError(f"melds of {s_name}: expected a list such as ['pung:777z@W'], "
                            f"got {items!r}")
        for text in items:
            melds[s].append(_parse_meld_text(text, s, me, wild, rs))
        if len(melds[s]) > C.MAX_MELDS:
            raise HandError(f"melds of {s_name}: {len(melds[s])} melds given; a player "
                            f"declares at most {C.MAX_MELDS} (4 melds + a pair win)")

    # the decision: a discard (3k + 2 tiles) or a claim of an offered discard (3k + 1)
    drawn = _optional_tile(state.get("drawn"), "drawn")
    offered = _optional_tile(state.get("offered"), "offered")
    frm_given = state.get("from")
    if offered < 0 and frm_given is not None:
        raise HandError("from: names the seat that discarded the offered tile; give the tile "
                        "too (--offered 4s --from W)")
    discarder = me
    if offered >= 0:
        discarder = (me + 3) % 4 if frm_given is None else _seat(frm_given, "from")
        if discarder == me:
            raise HandError(f"from {SEATS[me]}: the offered tile is another player's discard; "
                            f"from names one of the other seats")
        if drawn >= 0:
            raise HandError("drawn and offered exclude each other: a seat decides on a discard "
                            "after its draw, or on a claim of another player's discard")
        if offered >= C.FLOWER0 and not wild[offered]:
            raise HandError(f"offered {KIND_NAMES[offered]}: a flower is set aside, never "
                            f"discarded (only a wild flower can be)")
    n_own = len(melds[me])
    need = (13 if offered >= 0 else 14) - 3 * n_own
    if len(hand_kinds) != need:
        n = len(hand_kinds)
        raise HandError(
            f"hand holds {n} tile{'' if n == 1 else 's'} with {n_own} meld"
            f"{'' if n_own == 1 else 's'}: "
            + (f"when a discard is offered the hand holds 13 - 3 x {n_own} = {need} tiles "
               f"(to discard after a draw: {need + 1})" if offered >= 0 else
               f"to discard, the hand holds 14 - 3 x {n_own} = {need} tiles, the drawn tile "
               f"included (when a discard is offered, --offered: {need - 1})")
            + " (kongs count 3)")
    if drawn >= 0 and drawn not in hand_kinds:
        raise HandError(f"drawn {KIND_NAMES[drawn]}: the drawn tile is part of the hand, and "
                        f"the hand holds no {KIND_NAMES[drawn]}")

    # flowers set aside
    flowers = np.zeros(4, dtype=np.uint8)
    for s_name, text in _mapping(state.get("flowers"), "flowers", "flower notation "
                                 "such as '2f6f'").items():
        if not isinstance(text, str):
            raise HandError(f"flowers of {s_name}: expected flower notation such as '2f6f', "
                            f"got {text!r}")
        for k in parse_tiles(text, max_copies=None, what=f"flowers of {s_name}"):
            if k < C.FLOWER0:
                raise HandError(f"flowers of {s_name} {text!r}: {KIND_NAMES[k]} is not a "
                                f"flower (flowers are 1f-8f)")
            if wild[k] or k == ind:
                raise HandError(f"flowers of {s_name}: {KIND_NAMES[k]} is "
                                f"{'a wild' if wild[k] else 'the indicator'}; wild flowers "
                                f"are held, not set aside, and the indicator is never drawn "
                                f"(docs/rules.md §2-§3)")
            bit = np.uint8(1 << (k - C.FLOWER0))
            if any(flowers[o] & bit for o in range(4)):
                raise HandError(f"flowers: {KIND_NAMES[k]} is set aside twice; each flower "
                                f"is a single tile")
            flowers[SEATS.index(s_name)] |= bit

    # ponds, and the claimed tiles matched to the melds that claimed them
    ponds: list[list[list[int]]] = [[] for _ in range(4)]     # [kind, flags, matched]
    for s_name, text in _mapping(state.get("discards"), "discards",
                                 "tile notation such as '19m(5p)3s'").items():
        s = SEATS.index(s_name)
        for k, f in _parse_pond(text, f"discards of {s_name}"):
            if k >= C.FLOWER0 and not wild[k]:
                raise HandError(f"discards of {s_name}: {KIND_NAMES[k]} is a flower; flowers "
                                f"are set aside (--flowers), only a wild flower is discarded")
            ponds[s].append([k, f, 0])
    _match_claims(melds, ponds)
    if offered >= 0:
        ponds[discarder].append([offered, 0, 0])
    for s in range(4):
        if len(ponds[s]) > MAX_POND:
            extra = " (the offered tile included)" if offered >= 0 and s == discarder else ""
            raise HandError(f"discards of {SEATS[s]}: {len(ponds[s])} tiles{extra}; a pond "
                            f"holds at most MAX_POND = {MAX_POND} discards")

    hand = np.zeros(C.N_KINDS, dtype=np.int8)
    for k in hand_kinds:
        hand[k] += 1
    marr = np.zeros((4, C.MAX_MELDS, 3), dtype=np.int8)
    n_melds = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for i, m in enumerate(melds[s]):
            frm = -1 if m.typ == C.MELD_CKONG else int(m.frm if m.frm is not None else -1)
            marr[s, i] = (m.typ, m.kind, frm)
        n_melds[s] = len(melds[s])
    pond = np.zeros((4, MAX_POND), dtype=np.int8)
    pond_flags = np.zeros((4, MAX_POND), dtype=np.int8)
    n_pond = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for i, (k, f, _) in enumerate(ponds[s]):
            pond[s, i] = k
            pond_flags[s, i] = f
        n_pond[s] = len(ponds[s])
    _check_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    most = _max_wall_left(rs, me, hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    if most < 0:
        raise HandError(f"the table as given holds {C.N_TILES - most} tiles, more than the "
                        f"{C.N_TILES} of a set (the other players' concealed tiles, 13 - 3 x "
                        f"melds each, included); check the discards and melds")
    wall_left = state.get("wall_left")
    if wall_left is None:
        wall_left = most
    elif isinstance(wall_left, bool) or not isinstance(wall_left, (int, np.integer)):
        raise HandError(f"wall_left: expected a whole number of tiles, got {wall_left!r}")
    elif wall_left < 0:
        raise HandError(f"wall_left {wall_left}: the tiles left to draw cannot be negative "
                        f"(0 .. {most} here)")
    elif wall_left > most:
        raise HandError(f"wall_left {wall_left}: at most {most} tiles can still be drawn: the "
                        f"{C.N_TILES} tiles less those on the table, in the hands (13 - 3 x "
                        f"melds for each other player), the indicator"
                        + (" and the reserve" if _reserve(rs, n_kongs=0) else "")
                        + f" (0 .. {most}; omit --wall-left for {most})")
    return Position(seat=me, to_play=discarder, round_wind=round_wind, indicator=ind,
                    tiles_left=int(wall_left), hand=hand, melds=marr, n_melds=n_melds,
                    flowers=flowers, pond=pond, pond_flags=pond_flags, n_pond=n_pond,
                    drawn=drawn, offered=offered)


def _match_claims(melds: list[list[_Meld]], ponds: list[list[list[int]]]) -> None:
    """Pair each claimed meld (chow, pung, exposed kong) with the claimed tile
    of its source's pond: ``@SEAT`` when given; else the seat whose pond
    holds an unmatched claimed tile of the meld's kinds (the seats before
    the owner, nearest first; a chow only from the one before), else the
    seat before the owner. A meld without a marked tile gets one added to
    the end of its source's pond; a marked tile no meld claims is refused."""
    order = [m for ms in melds for m in ms if m.claimed and m.frm is not None] + \
            [m for ms in melds for m in ms if m.claimed and m.frm is None]
    for m in order:
        fits = set(m.kinds())

        def free(s, fits=fits):
            return next((e for e in ponds[s] if e[1] & _POND_CLAIMED and not e[2]
                         and e[0] in fits), None)
        if m.frm is None:
            sources = [(m.owner + 3) % 4] if m.typ == C.MELD_CHOW else \
                [(m.owner + d) % 4 for d in (3, 2, 1)]
            m.frm = next((s for s in sources if free(s) is not None), (m.owner + 3) % 4)
        entry = free(m.frm)
        if entry is None:
            # the claimed tile is not written in the source's discards: add it
            entry = [m.kind, _POND_CLAIMED, 0]     # a chow: its lowest tile
            ponds[m.frm].append(entry)
        entry[2] = 1
    for s in range(4):
        for k, f, matched in ponds[s]:
            if f & _POND_CLAIMED and not matched:
                others = " ".join(SEATS[o] for o in range(4) if o != s)
                raise HandError(f"discards of {SEATS[s]}: ({KIND_NAMES[k]}) is marked as "
                                f"claimed, but no meld of {others} claims a {KIND_NAMES[k]} "
                                f"from {SEATS[s]}; give that meld (e.g. --melds "
                                f"{SEATS[(s + 1) % 4]}:pung:{KIND_NAMES[k][0] * 3}"
                                f"{KIND_NAMES[k][1]}@{SEATS[s]}) or drop the parentheses")


def _meld_kinds(typ: int, kind: int) -> list[int]:
    if kind < 0:
        return []
    if typ == C.MELD_CHOW:
        return [kind, kind + 1, kind + 2]
    return [kind] * (3 if typ == C.MELD_PUNG else 4)


def _seen(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind) -> dict[str, np.ndarray]:
    """Copies of each kind (int64[42]) the deciding seat sees, by where:
    its hand, the melds (face-down kongs not counted), the discards not
    claimed (a claimed one is counted in its meld), the flowers set aside
    and the indicator."""
    out = {w: np.zeros(C.N_KINDS, dtype=np.int64)
           for w in ("hand", "melds", "discards", "flowers", "indicator")}
    out["hand"] += hand
    for s in range(4):
        for i in range(int(n_melds[s])):
            for k in _meld_kinds(int(marr[s, i, 0]), int(marr[s, i, 1])):
                out["melds"][k] += 1
        for i in range(int(n_pond[s])):
            if not pond_flags[s, i] & _POND_CLAIMED:
                out["discards"][int(pond[s, i])] += 1
        for f in range(C.N_FLOWERS):
            if int(flowers[s]) >> f & 1:
                out["flowers"][C.FLOWER0 + f] += 1
    if ind >= 0:
        out["indicator"][ind] += 1
    return out


def _check_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind) -> None:
    parts = _seen(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    total = np.sum(list(parts.values()), axis=0)
    for k in range(C.N_KINDS):
        limit = 4 if k < C.FLOWER0 else 1
        if total[k] > limit:
            where = ", ".join(f"{w} {int(a[k])}" for w, a in parts.items() if a[k])
            raise HandError(f"{int(total[k])} copies of {KIND_NAMES[k]} on the table ({where}): "
                            f"a set holds {limit} of each "
                            f"{'tile' if limit == 4 else 'flower'} (docs/rules.md §1)")


def _reserve(rs: RuleSet, n_kongs: int) -> int:
    w = rs.config.wall
    return 2 * (w.reserve_stacks + w.reserve_stacks_per_kong * n_kongs)


def _max_wall_left(rs, me, hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind) -> int:
    """Tiles that can still be drawn at most: the set less everything out of
    the wall (the tiles seen, the others' concealed tiles, face-down kongs)
    less the reserve (docs/rules.md §2)."""
    parts = _seen(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    out = int(sum(int(a.sum()) for a in parts.values()))
    n_kongs = 0
    for s in range(4):
        if s != me:
            out += 13 - 3 * int(n_melds[s])
        for i in range(int(n_melds[s])):
            typ = int(marr[s, i, 0])
            n_kongs += typ in (C.MELD_KONG, C.MELD_CKONG)
            if typ == C.MELD_CKONG and int(marr[s, i, 1]) < 0:
                out += 4
    return C.N_TILES - out - _reserve(rs, n_kongs)


def position_from_options(rules: RuleSet | str | Path, *, hand: str,
                          melds: Sequence[str] = (), discards: Sequence[str] = (),
                          seat: str = "E", round_wind: str = "E", indicator: str | None = None,
                          wall_left: int | None = None, flowers: Sequence[str] = (),
                          drawn: str | None = None, offered: str | None = None,
                          offered_from: str | None = None) -> Position:
    """The ``Position`` of the ``nbsim advise`` options (``table_state`` then
    ``position_from_state``): e.g. ``position_from_options("ningbo-3baida",
    hand="123m456p789s1155z3p", indicator="5m", discards=["E:19m"],
    melds=["W:pung:777z"])``."""
    return position_from_state(rules, table_state(
        hand=hand, melds=melds, discards=discards, seat=seat, round_wind=round_wind,
        indicator=indicator, wall_left=wall_left, flowers=flowers, drawn=drawn,
        offered=offered, offered_from=offered_from))


def position_from_json(rules: RuleSet | str | Path,
                       path_or_dict: str | Path | Mapping[str, Any]) -> Position:
    """The ``Position`` of a table state in a JSON file (or a dict of the
    same keys; module doc)."""
    return position_from_state(rules, read_state(path_or_dict))


def position_to_state(pos: Position) -> dict[str, Any]:
    """The table state of a Position, in notation (the inverse of
    ``position_from_state``): melds with their source seat, claimed discards
    in parentheses, the offered tile apart from its discarder's pond."""
    me = pos.seat
    state: dict[str, Any] = {"seat": SEATS[me], "round": SEATS[pos.round_wind]}
    if pos.indicator >= 0:
        state["indicator"] = KIND_NAMES[pos.indicator]
    state["wall_left"] = int(pos.tiles_left)
    state["hand"] = format_tiles(k for k in range(C.N_KINDS) for _ in range(int(pos.hand[k])))
    if pos.drawn >= 0:
        state["drawn"] = KIND_NAMES[pos.drawn]
    if pos.offered >= 0:
        state["offered"] = KIND_NAMES[pos.offered]
        state["from"] = SEATS[pos.to_play]
    melds: dict[str, list[str]] = {}
    for s in range(4):
        for i in range(int(pos.n_melds[s])):
            typ, kind, frm = (int(x) for x in pos.melds[s, i])
            if typ == C.MELD_CKONG and (s != me or kind < 0):
                text = "ckong"
            else:
                text = f"{C.MELD_NAMES[typ]}:{format_tiles(_meld_kinds(typ, kind))}"
                if typ != C.MELD_CKONG and frm >= 0:
                    text += f"@{SEATS[frm]}"
            melds.setdefault(SEATS[s], []).append(text)
    if melds:
        state["melds"] = melds
    discards: dict[str, str] = {}
    for s in range(4):
        n = int(pos.n_pond[s])
        if pos.offered >= 0 and s == pos.to_play:
            n -= 1           # the offered tile is given apart
        if n > 0:
            discards[SEATS[s]] = _format_pond(pos.pond[s, :n], pos.pond_flags[s, :n])
    if discards:
        state["discards"] = discards
    flowers = {SEATS[s]: format_tiles(C.FLOWER0 + f for f in range(C.N_FLOWERS)
                                      if int(pos.flowers[s]) >> f & 1)
               for s in range(4) if int(pos.flowers[s])}
    if flowers:
        state["flowers"] = flowers
    return state


# ================================================================ shanten and acceptance
@dataclass(frozen=True)
class TargetFit:
    """One target of a candidate (``TARGETS``; docs/rules.md §10.2).

    shanten: tiles away from ready toward the target (0 ready, -1 complete;
    a flush counts the off-suit tiles as tiles to replace); acceptance: the
    unseen tiles (copies not in the seat's hand or on the table) whose draw
    lowers it, wild tiles included; accepted: those kinds; allowed: the
    variant lets a win of this target count (``win.allowed_patterns``);
    then_discard: for a claim, the discard after it that reaches this
    (-1: none, a kong draws instead)."""
    target: str
    shanten: int
    acceptance: int
    accepted: tuple[int, ...]
    allowed: bool
    then_discard: int = -1


def _allowed(rs: RuleSet, target: int) -> bool:
    pats = set(rs.config.win.allowed_patterns)
    if not pats:
        return True
    if target == 0:
        return False
    if target < 4:
        return "full_flush" in pats
    if target < 7:
        return "half_flush" in pats
    return "all_pungs" in pats


class _Fitter:
    """Shanten and acceptance of the seat's possible hands, with the kernels'
    functions (``common.target_shanten``, ``common.target_ok``) over the 34
    natural kinds and the wilds."""

    def __init__(self, rs: RuleSet, pos: Position) -> None:
        from nbsim.kernels.policies import common as CM
        from nbsim.kernels.wilds import wild_mask
        from nbsim.tables import load_tables
        self.cm = CM
        self.rs = rs
        self.tables = load_tables()
        self.tmp = np.zeros(C.N_PLAY, dtype=np.int8)
        self.wild = np.zeros(C.N_KINDS, dtype=np.bool_)
        wild_mask(rs.array, pos.indicator, self.wild)
        parts = _seen(pos.hand, pos.melds, pos.n_melds, pos.pond, pos.pond_flags, pos.n_pond,
                      pos.flowers, pos.indicator)
        seen = np.sum(list(parts.values()), axis=0)
        limit = np.array([4] * C.N_PLAY + [1] * C.N_FLOWERS, dtype=np.int64)
        self.unseen = np.maximum(limit - seen, 0)
        self.wild_kinds = [k for k in range(C.N_KINDS) if self.wild[k] and self.unseen[k] > 0]
        self.wild_unseen = int(sum(self.unseen[k] for k in self.wild_kinds))

    def split(self, hand: np.ndarray) -> tuple[np.ndarray, int]:
        nat = np.where(self.wild[:C.N_PLAY], 0, hand[:C.N_PLAY]).astype(np.int8)
        return nat, int(hand[self.wild].sum())

    def fits(self, hand: np.ndarray, melds: np.ndarray, n_melds: int) -> list[TargetFit]:
        """Every target compatible with the declared ``melds`` (int8[4, 3]):
        its shanten for the concealed ``hand`` (int8[42], 3k + 1 tiles) and
        the acceptance."""
        cm = self.cm
        nat, w = self.split(hand)
        out = []
        for name, t in TARGETS:
            if not cm.target_ok(t, melds, n_melds):
                continue
            s = int(cm.target_shanten(t, nat, w, n_melds, self.tables, self.tmp))
            accepted: list[int] = []
            n = 0
            if self.wild_unseen and int(cm.target_shanten(t, nat, w + 1, n_melds, self.tables,
                                                          self.tmp)) < s:
                accepted += self.wild_kinds
                n += self.wild_unseen
            for d in range(C.N_PLAY):
                if self.wild[d] or self.unseen[d] == 0 or nat[d] >= 4:
                    continue
                nat[d] += 1
                s2 = int(cm.target_shanten(t, nat, w, n_melds, self.tables, self.tmp))
                nat[d] -= 1
                if s2 < s:
                    accepted.append(d)
                    n += int(self.unseen[d])
            out.append(TargetFit(name, s, n, tuple(sorted(accepted)), _allowed(self.rs, t)))
        return out

    def best_after_discard(self, hand: np.ndarray, melds: np.ndarray, n_melds: int,
                           forbidden=()) -> list[TargetFit]:
        """For a 3k + 2 hand (after a claim): per target, the discard that
        leaves the lowest shanten, then the most acceptance."""
        best: dict[str, TargetFit] = {}
        held = [k for k in range(C.N_KINDS) if hand[k] > 0]
        allowed = [k for k in held if k not in forbidden or self.wild[k]] or held
        for k in allowed:
            hand[k] -= 1
            for f in self.fits(hand, melds, n_melds):
                b = best.get(f.target)
                if b is None or (f.shanten, -f.acceptance) < (b.shanten, -b.acceptance):
                    best[f.target] = TargetFit(f.target, f.shanten, f.acceptance, f.accepted,
                                               f.allowed, k)
            hand[k] += 1
        return [best[n] for n, _ in TARGETS if n in best]


def _key(fits: Sequence[TargetFit]) -> tuple[int, int]:
    """Rank of a candidate by its targets alone: the lowest shanten toward
    an allowed target, then the most acceptance toward it."""
    pool = [f for f in fits if f.allowed] or list(fits)
    if not pool:
        return (99, 0)
    f = min(pool, key=lambda f: (f.shanten, -f.acceptance))
    return (f.shanten, -f.acceptance)


def best_target(fits: Sequence[TargetFit]) -> TargetFit | None:
    """The allowed target with the lowest shanten, then the most acceptance."""
    pool = [f for f in fits if f.allowed] or list(fits)
    return min(pool, key=lambda f: (f.shanten, -f.acceptance)) if pool else None


# ================================================================ the advice
@dataclass(frozen=True)
class CandidateAdvice:
    """One candidate move and what is known of it.

    action: "discard", "pass", "pung", "kong" or "chow"; kind: the tile
    discarded, or the offered tile claimed; chow: the chow's lowest kind
    (-1 otherwise); code: the evaluator's candidate code (the discard kind,
    or ``common.CLAIM_*`` for a claim); label: "5p", "pung 5p", "chow 345p",
    "pass". targets: ``TargetFit`` per target compatible with the melds.
    From the lookahead (None when not simulated): mean_pay and se_pay
    (points per deal for the seat), pay_low / pay_high (its 95% interval,
    mean +- 1.96 se), p_win / se_win, p_deal_in with p_deal_in_to (by
    seat E S W N, 0 for the seat itself), p_exhausted, diff / diff_se /
    diff_low / diff_high (paired difference to the best candidate, common
    random numbers, and its 95% interval), within_noise (that interval
    holds 0). exact_p_win / exact_draws: for a discard leaving the hand
    ready, the exact chance of completing it with the seat's own draws
    alone (no opponents) and the draws it has."""
    action: str
    kind: int
    code: int
    label: str
    targets: tuple[TargetFit, ...]
    chow: int = -1
    then_discard: int = -1
    mean_pay: float | None = None
    se_pay: float | None = None
    pay_low: float | None = None
    pay_high: float | None = None
    p_win: float | None = None
    se_win: float | None = None
    p_deal_in: float | None = None
    p_deal_in_to: tuple[float, ...] | None = None
    p_exhausted: float | None = None
    diff: float | None = None
    diff_se: float | None = None
    diff_low: float | None = None
    diff_high: float | None = None
    within_noise: bool = False
    exact_p_win: float | None = None
    exact_draws: int | None = None

    @property
    def best_target(self) -> TargetFit | None:
        """The candidate's closest allowed target (``best_target``)."""
        return best_target(self.targets)


@dataclass(frozen=True)
class Advice:
    """The advice for one Position.

    variant: the rules' name; position and state (its notation,
    ``position_to_state``); decision: "discard" or "claim"; wilds: the wild
    kinds; candidates: best first; ranked_by: "lookahead" (a discard
    decision simulated: by expected payment) or "shanten" (by the lowest
    shanten toward an allowed target, then the most acceptance: claims, or
    no simulation); recommended: the first; close: the other candidates
    within the noise of it; samples, seed, base: the lookahead's (samples 0:
    not simulated); notes: remarks for the player (a complete hand, a
    possible win on the offered tile, what the advice leaves out)."""
    variant: str
    position: Position
    state: dict[str, Any]
    decision: str
    wilds: tuple[int, ...]
    candidates: tuple[CandidateAdvice, ...]
    samples: int
    seed: int
    base: str
    notes: tuple[str, ...] = ()
    ranked_by: str = "shanten"

    @property
    def simulated(self) -> bool:
        """Some candidate carries the lookahead's numbers."""
        return any(c.mean_pay is not None for c in self.candidates)

    @property
    def recommended(self) -> CandidateAdvice:
        """The best candidate."""
        return self.candidates[0]

    @property
    def close(self) -> tuple[CandidateAdvice, ...]:
        """The other candidates whose paired difference to the best has a 95%
        interval containing 0."""
        return tuple(c for c in self.candidates[1:] if c.within_noise)


def _candidates(rs: RuleSet, pos: Position, fit: _Fitter) -> list[CandidateAdvice]:
    """Every legal move with its targets: each held kind as a discard, or
    pass / pung / kong / chow of the offered tile (docs/rules.md §4)."""
    me = pos.seat
    own = pos.melds[me].copy()
    n = int(pos.n_melds[me])
    hand = pos.hand.copy()
    out: list[CandidateAdvice] = []
    if pos.offered < 0:
        for k in range(C.N_KINDS):
            if hand[k] == 0:
                continue
            hand[k] -= 1
            label = KIND_NAMES[k] + (" (wild)" if fit.wild[k] else "")
            out.append(CandidateAdvice("discard", k, k, label, tuple(fit.fits(hand, own, n))))
            hand[k] += 1
        return out
    d = int(pos.offered)
    out.append(CandidateAdvice("pass", d, _CLAIM_PASS, "pass", tuple(fit.fits(hand, own, n))))
    if fit.wild[d] or d >= C.N_PLAY or n >= C.MAX_MELDS:
        return out               # a wild (or a flower) is never claimed (docs/rules.md §3)
    name = KIND_NAMES[d]

    def with_meld(typ: int, kind: int) -> np.ndarray:
        m = own.copy()
        m[n] = (typ, kind, pos.to_play)
        return m
    if hand[d] >= 2:
        h = hand.copy()
        h[d] -= 2
        fits = fit.best_after_discard(h, with_meld(C.MELD_PUNG, d), n + 1)
        out.append(CandidateAdvice("pung", d, _CLAIM_PUNG, f"pung {name}", tuple(fits),
                                   then_discard=_then(fits)))
    if hand[d] == 3 and pos.tiles_left - 2 * rs.config.wall.reserve_stacks_per_kong > 0:
        h = hand.copy()
        h[d] -= 3
        out.append(CandidateAdvice("kong", d, _CLAIM_KONG, f"kong {name}",
                                   tuple(fit.fits(h, with_meld(C.MELD_KONG, d), n + 1))))
    if (rs.config.claims.allow_chow and d < C.HONOR0 and me == (pos.to_play + 1) % 4):
        r = d % 9
        for j in range(3):
            lo = d - j
            if r - j < 0 or r - j + 2 > 8:
                continue
            need = [lo + t for t in range(3) if lo + t != d]
            if any(hand[k] == 0 or fit.wild[k] for k in need):
                continue
            h = hand.copy()
            for k in need:
                h[k] -= 1
            forbid: tuple[int, ...] = ()
            if rs.config.claims.forbid_chow_swap:
                other = lo + 3 if j == 0 else (lo - 1 if j == 2 else -1)
                forbid = (d,) + ((other,) if other >= 0 and other // 9 == lo // 9 else ())
            fits = fit.best_after_discard(h, with_meld(C.MELD_CHOW, lo), n + 1, forbid)
            out.append(CandidateAdvice("chow", d, _CLAIM_CHOW + j,
                                       f"chow {format_tiles([lo, lo + 1, lo + 2])}",
                                       tuple(fits), chow=lo, then_discard=_then(fits)))
    return out


def _then(fits: Sequence[TargetFit]) -> int:
    b = best_target(fits)
    return b.then_discard if b is not None else -1


def _notes(rs: RuleSet, pos: Position, fit: _Fitter) -> list[str]:
    from nbsim.kernels import hand as H
    notes = []
    me = pos.seat
    n = int(pos.n_melds[me])
    if pos.offered < 0:
        nat, w = fit.split(pos.hand)
        if int(H.shanten(nat, w, n, fit.tables)) == -1:
            notes.append("the hand is complete: a self-drawn win if it is legal (check it with "
                         "nbsim score ... --self-draw); the table compares the discards")
        if int(pos.n_pond.sum()) == 0 and rs.config.claims.first_round_restrictions != "off":
            notes.append("first go-around limits (claims.first_round_restrictions) are not "
                         "applied to the candidates")
    else:
        h = pos.hand.copy()
        h[pos.offered] += 1
        nat, w = fit.split(h)
        if int(H.shanten(nat, w, n, fit.tables)) == -1:
            notes.append(f"{KIND_NAMES[pos.offered]} completes the hand: a win on this discard "
                         f"if it is legal (check it with nbsim score ... --win-tile "
                         f"{KIND_NAMES[pos.offered]} --discarder {SEATS[pos.to_play]})")
    return notes


def _value_fields(v: Any, paired: bool) -> dict[str, Any]:
    """CandidateAdvice fields of an evaluator's ``CandidateValue`` (the 95%
    intervals: estimate +- 1.96 se); ``paired``: keep the paired difference
    to the best (same position, common random numbers)."""
    mean, se = float(v.mean_pay), float(v.se_pay)
    kw: dict[str, Any] = dict(
        mean_pay=mean, se_pay=se, pay_low=mean - Z95 * se, pay_high=mean + Z95 * se,
        p_win=float(v.p_win), se_win=float(v.se_win), p_deal_in=float(v.p_deal_in),
        p_deal_in_to=tuple(float(x) for x in v.p_deal_in_to),
        p_exhausted=float(v.p_exhausted))
    if paired:
        diff, dse = float(v.diff), float(v.diff_se)
        kw.update(diff=diff, diff_se=dse, diff_low=diff - Z95 * dse,
                  diff_high=diff + Z95 * dse)
    return kw


def build_advice(rules: RuleSet | str | Path, pos: Position, evaluation: Any = None,
                 exact: Mapping[int, Any] | None = None,
                 claims: Mapping[int, Any] | None = None, *, samples: int = 0,
                 seed: int = 0, base: str = "") -> Advice:
    """The ``Advice`` of a Position from the lookahead's answers.

    evaluation: for a discard, ``nbsim.lookahead.evaluate``'s ``Evaluation``
    (candidates keyed by the discarded kind, best first), which ranks the
    candidates; None: they are ranked by shanten and acceptance only.
    exact: ``nbsim.lookahead.exact_own_draws`` (discard kind -> .p_win,
    .draws). claims: for a claim, the claim code (``common.CLAIM_*``) ->
    the ``CandidateValue`` of the best discard after it (the evaluation of
    the position after the claim); pass and kong have none. samples, seed,
    base: the settings, when ``evaluation`` does not carry them."""
    rs = as_rules(rules)
    fit = _Fitter(rs, pos)
    cands = _candidates(rs, pos, fit)
    notes = _notes(rs, pos, fit)
    exact = dict(exact or {})
    claims = dict(claims or {})
    by_code: dict[int, Any] = {}
    ranked: dict[int, int] = {}
    if evaluation is not None:
        by_code = {int(c.kind): c for c in evaluation.candidates}
        ranked = {int(c.kind): i for i, c in enumerate(evaluation.candidates)}
        samples, seed, base = int(evaluation.samples), int(evaluation.seed), \
            str(evaluation.base)
    rows = []
    for c in cands:
        kw: dict[str, Any] = {}
        if c.action == "discard" and c.code in by_code:
            kw = _value_fields(by_code[c.code], paired=True)
        elif c.action != "discard" and c.code in claims:
            v = claims[c.code]
            kw = _value_fields(v, paired=False)
            kw["then_discard"] = int(v.kind)
        if c.action == "discard" and c.kind in exact:
            e = exact[c.kind]
            kw["exact_p_win"] = float(e.p_win)
            kw["exact_draws"] = int(e.draws)
        rows.append(_replace(c, **kw))
    rows.sort(key=lambda c: (0, ranked[c.code], 0) if c.code in ranked
              else (1, *_key(c.targets)))
    if ranked:
        rows = [rows[0]] + [_replace(c, within_noise=c.diff_low is not None
                                     and c.diff_high is not None
                                     and c.diff_low <= 0.0 <= c.diff_high)
                            for c in rows[1:]]
    if pos.offered >= 0 and claims:
        notes.append("the lookahead plays the seat's discards: a pung or chow shows the "
                     "simulation of its best discard after the claim; pass and kong are not "
                     "simulated, so the claims are ranked by shanten and acceptance")
    from nbsim.kernels.wilds import wild_kinds
    return Advice(variant=rs.name, position=pos, state=position_to_state(pos),
                  decision="claim" if pos.offered >= 0 else "discard",
                  wilds=tuple(wild_kinds(rs.array, pos.indicator)), candidates=tuple(rows),
                  samples=int(samples), seed=int(seed), base=str(base), notes=tuple(notes),
                  ranked_by="lookahead" if ranked else "shanten")


def _replace(c: CandidateAdvice, **kw) -> CandidateAdvice:
    import dataclasses
    return dataclasses.replace(c, **kw) if kw else c


def after_claim(pos: Position, action: str, kind: int, chow: int = -1) -> Position:
    """The Position after the deciding seat pungs or chows the offered tile
    (``chow``: the chow's lowest kind): the tiles leave its hand for a meld
    claimed from the discarder, whose last discard is marked claimed, and
    the seat is to discard (docs/rules.md §4)."""
    if pos.offered < 0 or action not in ("pung", "chow"):
        raise RunError(f"after_claim: a pung or chow of an offered tile, not {action!r}")
    me, d = pos.seat, int(pos.offered)
    hand = pos.hand.copy()
    if action == "pung":
        hand[d] -= 2
        meld = (C.MELD_PUNG, d, pos.to_play)
    else:
        for k in range(chow, chow + 3):
            if k != d:
                hand[k] -= 1
        meld = (C.MELD_CHOW, chow, pos.to_play)
    melds = pos.melds.copy()
    n_melds = pos.n_melds.copy()
    melds[me, int(n_melds[me])] = meld
    n_melds[me] += 1
    flags = pos.pond_flags.copy()
    flags[pos.to_play, int(pos.n_pond[pos.to_play]) - 1] |= _POND_CLAIMED
    import dataclasses
    return dataclasses.replace(pos, to_play=me, hand=hand, melds=melds, n_melds=n_melds,
                               pond_flags=flags, drawn=-1, offered=-1)


def _follow_ups(rs: RuleSet, pos: Position, c: CandidateAdvice) -> list[int]:
    """The discards allowed after the claim ``c`` (a chow forbids the kinds
    that would make the same chow while more than two tiles are left:
    ``claims.forbid_chow_swap``, docs/rules.md §4)."""
    from nbsim.kernels.wilds import wild_mask
    held = [k for k in range(C.N_KINDS) if pos.hand[k] > 0]
    if c.action != "chow" or not rs.config.claims.forbid_chow_swap or pos.hand.sum() <= 2:
        return held
    wild = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild_mask(rs.array, pos.indicator, wild)
    lo, d = c.chow, c.kind
    other = lo + 3 if d == lo else (lo - 1 if d == lo + 2 else -1)
    forbid = {d} | ({other} if other >= 0 and other // 9 == lo // 9 else set())
    return [k for k in held if k not in forbid or wild[k]] or held


def advise(rules: RuleSet | str | Path, pos: Position, *, samples: int = 400, seed: int = 0,
           base: str = "defend") -> Advice:
    """Advice for the deciding seat of ``pos``.

    Every legal candidate with its targets' shanten and acceptance and,
    from the lookahead (``nbsim.lookahead.evaluate``: ``samples`` sampled
    deals per candidate from ``seed``, the rest of the deal played by the
    policy ``base``: greedy, value or defend), its P(win), expected payment
    (points per deal, 95% interval), deal-in chance per opponent and the
    paired difference to the best; for a ready hand the exact chance of
    completing it with its own draws (``exact_own_draws``). A discard
    decision is ranked by the lookahead. For a claim, a pung or chow is
    simulated through the position after it (its best discard then); pass
    and kong are not, and the claims are ranked by shanten and acceptance.
    ``samples=0``: no simulation, everything ranked by shanten and
    acceptance. Raises NbsimError subclasses (RunError for a position the
    engine cannot continue from, bad samples, seed or base)."""
    from nbsim.args import whole_number
    rs = as_rules(rules)
    samples = whole_number(samples, "samples", 0, 100_000, RunError)
    seed = whole_number(seed, "seed", 0, 2**64 - 1, RunError)
    if not isinstance(base, str) or not base.strip():
        raise RunError(f"base: expected a policy name such as 'defend', got {base!r}")
    if samples == 0:
        return build_advice(rs, pos, samples=0, seed=seed, base=base)
    from nbsim.lookahead import evaluate, exact_own_draws
    if pos.offered < 0:
        return build_advice(rs, pos, evaluate(rs, pos, samples=samples, seed=seed, base=base),
                            exact_own_draws(rs, pos))
    fit = _Fitter(rs, pos)
    claims: dict[int, Any] = {}
    for c in _candidates(rs, pos, fit):
        if c.action in ("pung", "chow"):
            after = after_claim(pos, c.action, c.kind, c.chow)
            ev = evaluate(rs, after, samples=samples, seed=seed, base=base,
                          kinds=_follow_ups(rs, after, c))
            claims[c.code] = ev.candidates[0]
    return build_advice(rs, pos, claims=claims, samples=samples, seed=seed, base=base)


# ================================================================ output
def _fit_cell(fits: Sequence[TargetFit], family: str) -> str:
    """'1/24' (shanten / acceptance) of a target; a flush family shows its
    best suit ('p 3/12'); '-' when the melds rule it out, 'x' marks a target
    the variant does not let win."""
    pool = [f for f in fits if f.target == family or f.target.startswith(family + "_")]
    if not pool:
        return "-"
    f = min(pool, key=lambda f: (f.shanten, -f.acceptance))
    suit = f.target[-1] + " " if f.target != family else ""
    return f"{suit}{f.shanten}/{f.acceptance}{'' if f.allowed else 'x'}"


def _table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    widths = [max(display_width(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r):
        cells = []
        for i, c in enumerate(r):
            pad = " " * (widths[i] - display_width(c))
            cells.append(c + pad if i < left else pad + c)
        return "  ".join(cells).rstrip()
    return [line(header)] + [line(r) for r in rows]


def describe_position(adv: Advice) -> list[str]:
    """The position in words and notation (the head of ``format_advice``)."""
    st = adv.state
    lines = [f"{adv.variant}: seat {st['seat']}, round {st['round']}"
             + (f", indicator {st['indicator']} (wilds: "
                f"{' '.join(KIND_NAMES[k] for k in adv.wilds)})" if 'indicator' in st else "")
             + f", {st['wall_left']} tiles left to draw"]
    mine = " ".join(st.get("melds", {}).get(st["seat"], []))
    lines.append(f"hand {st['hand']}" + (f"  melds {mine}" if mine else "")
                 + (f"  drawn {st['drawn']}" if "drawn" in st else ""))
    if adv.decision == "claim":
        lines.append(f"offered {st['offered']} discarded by {st['from']}: pass or claim")
    for s in SEATS:
        bits = []
        if s != st["seat"] and st.get("melds", {}).get(s):
            bits.append("melds " + " ".join(st["melds"][s]))
        if st.get("discards", {}).get(s):
            bits.append("discards " + st["discards"][s])
        if st.get("flowers", {}).get(s):
            bits.append("flowers " + st["flowers"][s])
        if bits:
            lines.append(f"  {s}: " + "  ".join(bits))
    return lines


def format_advice(adv: Advice) -> str:
    """The advice as an aligned text table: one row per candidate, best
    first, with shanten/acceptance per target, P(win), the expected payment
    with its 95% interval, the paired difference to the best, the deal-in
    chance in total and per opponent, and the exact own-draw P(win); then the
    recommendation and a legend (units: points per deal, probabilities)."""
    lines = describe_position(adv)
    n = len(adv.candidates)
    what = "discard" if adv.decision == "discard" else "claim"
    sim = adv.simulated
    if sim:
        lines.append(f"{n} {what} candidates, {adv.samples} sampled deals each from seed "
                     f"{adv.seed}, the rest of the deal played by {adv.base}")
    else:
        lines.append(f"{n} {what} candidates, ranked by shanten and tile acceptance "
                     f"(not simulated: --samples 0)")
    lines.append("")
    me = adv.position.seat
    opp = [s for s in range(4) if s != me]
    paired = adv.ranked_by == "lookahead"
    header = ["move", "open", "full flush", "half flush", "all pungs"]
    if sim:
        header += ["P(win)", "E[pay] [95% CI]", *(["vs best [95% CI]"] if paired else []),
                   "deal-in", *(f"to {SEATS[s]}" for s in opp)]
    has_exact = any(c.exact_p_win is not None for c in adv.candidates)
    if has_exact:
        header.append("exact own-draw P(win)")
    rows = []
    for i, c in enumerate(adv.candidates):
        label = c.label + (f" then {KIND_NAMES[c.then_discard]}" if c.then_discard >= 0 else "")
        r = [label] + [_fit_cell(c.targets, fam)
                       for fam in ("open", "full_flush", "half_flush", "all_pungs")]
        if sim:
            if c.mean_pay is None:
                r += ["-"] * (3 + paired + len(opp))
            else:
                r += [f"{c.p_win:.3f}", f"{c.mean_pay:+.2f} [{c.pay_low:+.2f}, "
                      f"{c.pay_high:+.2f}]"]
                if paired:
                    r.append("best" if i == 0 else
                             f"{c.diff:+.2f} [{c.diff_low:+.2f}, {c.diff_high:+.2f}]"
                             + (" ~" if c.within_noise else ""))
                r += [f"{c.p_deal_in:.3f}",
                      *(f"{(c.p_deal_in_to or (0.0,) * 4)[s]:.3f}" for s in opp)]
        if has_exact:
            r.append("-" if c.exact_p_win is None else
                     f"{c.exact_p_win:.3f} ({c.exact_draws} draws)")
        rows.append(r)
    lines += _table(header, rows)
    lines.append("")
    best = adv.recommended
    rec: list[str] = []
    if paired and best.mean_pay is not None:
        rec.append(f"recommended: {_move(best)} (expected {best.mean_pay:+.2f} points per "
                     f"deal [{best.pay_low:+.2f}, {best.pay_high:+.2f}], P(win) "
                     f"{best.p_win:.3f}, P(deal in) {best.p_deal_in:.3f})")
        close = adv.close
        if close:
            rec.append("within the noise of it (the paired 95% interval of the difference "
                         "holds 0): " + ", ".join(_move(c) for c in close)
                         + "; more --samples would tell them apart")
        elif len(adv.candidates) > 1:
            rec.append(f"the runner-up, {_move(adv.candidates[1])}, is behind by more than "
                         f"the noise (its paired 95% interval lies below 0)")
    else:
        b = best.best_target
        rec.append(f"recommended by shanten and acceptance: {_move(best)}"
                     + (f" ({_target_label(b.target)}: {b.shanten} from ready, "
                        f"{b.acceptance} tiles accepted)" if b is not None else ""))
    rec += [f"note: {note}" for note in adv.notes]
    lines += [textwrap.fill(t, 100, subsequent_indent="  ") for t in rec]
    legend = ["open / full flush / half flush / all pungs: shanten/acceptance toward the target "
              "(0 = ready; acceptance = unseen tiles that lower the shanten; a flush shows its "
              "best suit; x: not a winning pattern in this variant; -: ruled out by the melds; "
              "docs/rules.md §10.2)"]
    if sim:
        legend.append("E[pay]: mean payment to the seat in points per deal, 95% interval mean "
                      "+- 1.96 se; P(win), deal-in (in total and to each opponent): "
                      "probabilities per deal"
                      + ("; vs best: paired difference on the same sampled deals, ~ within "
                         "the noise" if paired else ""))
    if has_exact:
        legend.append("exact own-draw P(win): exact (own draws, no opponents): the chance that "
                      "the seat's own remaining draws (every fourth tile left) complete the "
                      "ready hand, if nobody else wins or claims")
    lines.append("")
    lines += [textwrap.fill(t, 100, subsequent_indent="  ") for t in legend]
    return "\n".join(lines)


def _move(c: CandidateAdvice) -> str:
    if c.action == "discard":
        return f"discard {c.label}"
    if c.then_discard >= 0:
        return f"{c.label}, then discard {KIND_NAMES[c.then_discard]}"
    return c.label


def _target_label(name: str) -> str:
    for fam, label in TARGET_LABELS.items():
        if name == fam:
            return label
        if name.startswith(fam + "_"):
            return f"{label} ({name[-1]})"
    return name


def _json_num(x):
    if x is None:
        return None
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def advice_json(adv: Advice) -> dict[str, Any]:
    """The advice as plain data (``nbsim advise --json``): the variant, the
    table state in notation, the decision, the wilds, the lookahead's
    settings, the candidates best first (tiles in notation, every number of
    ``CandidateAdvice``, targets with shanten, acceptance and the kinds
    accepted), the recommendation, the candidates within the noise and the
    notes. Payments are points per deal; probabilities per deal."""
    cands = []
    for c in adv.candidates:
        d: dict[str, Any] = {
            "move": _move(c), "action": c.action, "tile": KIND_NAMES[c.kind], "code": c.code,
            "chow": format_tiles([c.chow, c.chow + 1, c.chow + 2]) if c.chow >= 0 else None,
            "then_discard": KIND_NAMES[c.then_discard] if c.then_discard >= 0 else None,
            "targets": [{"target": f.target, "shanten": f.shanten, "acceptance": f.acceptance,
                         "accepted": format_tiles(f.accepted), "allowed": f.allowed,
                         **({"then_discard": KIND_NAMES[f.then_discard]}
                            if f.then_discard >= 0 else {})}
                        for f in c.targets]}
        for name in ("mean_pay", "se_pay", "pay_low", "pay_high", "p_win", "se_win",
                     "p_deal_in", "p_exhausted", "diff", "diff_se", "diff_low", "diff_high",
                     "exact_p_win", "exact_draws"):
            d[name] = _json_num(getattr(c, name))
        d["p_deal_in_to"] = ({SEATS[s]: _json_num(v) for s, v in enumerate(c.p_deal_in_to)}
                             if c.p_deal_in_to is not None else None)
        d["within_noise"] = c.within_noise
        cands.append(d)
    return {"variant": adv.variant, "state": adv.state, "decision": adv.decision,
            "wilds": format_tiles(adv.wilds) if adv.wilds else "",
            "ranked_by": adv.ranked_by, "simulated": adv.simulated,
            "samples": adv.samples, "seed": adv.seed,
            "base": adv.base, "units": {"pay": "points per deal for the seat",
                                        "p": "probability per deal",
                                        "interval": "95%, mean +- 1.96 se"},
            "recommended": _move(adv.recommended),
            "within_noise": [_move(c) for c in adv.close],
            "candidates": cands, "notes": list(adv.notes)}


def plot_advice(adv: Advice, path: str | Path) -> Path:
    """A bar chart (PNG) of each candidate's expected payment (points per
    deal) with its 95% interval, best first, the recommendation
    highlighted and a zero line; the caption names the position and the
    lookahead's settings. Raises RunError when the advice was not simulated
    (samples 0: there is no payment to draw)."""
    from nbsim.plots import _save, _subplots
    rows = [c for c in adv.candidates if c.mean_pay is not None]
    if not rows:
        raise RunError("--plot: the candidates were not simulated (--samples 0), so there is "
                       "no expected payment to plot; give --samples N")
    path = Path(path)
    fig, ax = _subplots(figsize=(max(5.0, 0.65 * len(rows) + 2.0), 4), dpi=110)
    xs = list(range(len(rows)))
    means = [c.mean_pay or 0.0 for c in rows]
    lo = [m - (c.pay_low if c.pay_low is not None else m) for m, c in zip(means, rows,
                                                                          strict=True)]
    hi = [(c.pay_high if c.pay_high is not None else m) - m for m, c in zip(means, rows,
                                                                            strict=True)]
    colors = ["tab:green" if c is adv.recommended else
              ("tab:olive" if c.within_noise else "tab:blue") for c in rows]
    ax.bar(xs, means, color=colors, alpha=0.85)
    ax.errorbar(xs, means, yerr=[lo, hi], fmt="none", color="black", capsize=4)
    ax.axhline(0.0, color="#444", linewidth=0.8)
    ax.set_xticks(xs)
    ax.set_xticklabels([c.label if c.then_discard < 0 else
                        f"{c.label}\nthen {KIND_NAMES[c.then_discard]}" for c in rows],
                       fontsize=8)
    ax.set_ylabel("expected payment (points per deal)")
    ax.set_title(f"{adv.variant}: {adv.decision} candidates in the advice's order (green: the "
                 f"recommendation; olive: within its noise), 95% intervals", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    st = adv.state
    caption = (f"seat {st['seat']}, round {st['round']}, hand {st['hand']}"
               + (f", indicator {st['indicator']}" if "indicator" in st else "")
               + (f", offered {st['offered']} by {st['from']}" if "offered" in st else "")
               + f", {st['wall_left']} tiles left; {adv.samples} playouts per candidate, "
                 f"seed {adv.seed}, rest played by {adv.base} (nbsim advise)")
    try:
        return _save(fig, path, caption)
    except OSError as e:
        raise RunError(f"--plot {str(path)!r}: cannot write ({e.strerror or e})") from None

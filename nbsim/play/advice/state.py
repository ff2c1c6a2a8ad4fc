"""The table state of ``nbsim advise`` and its ``Position``.

A player gives the table as it stands, in tile notation (docs/rules.md §1;
the pieces are ``nbsim.play.advice.notation``): the own concealed tiles, every
seat's melds and discards, the flowers set aside, the indicator, the seat
and round winds and the tiles left. ``table_state`` builds the state from
the command's options, ``read_state`` reads it from JSON,
``position_from_state`` checks it against the rules (docs/rules.md §2-§4)
and turns it into a ``nbsim.play.position.Position``; ``position_to_state`` is
the inverse.

The table state (``--state FILE.json``, or the same keys from the
command's options; every key optional but ``hand``)::

    {"seat": "S", "round": "E", "indicator": "5m", "wall_left": 40,
     "hand": "123m456p789s5z",            # 13 - 3 x 1 meld: a claim of the offered 4s
     "offered": "4s", "from": "E",        # or, to discard: 14 - 3 x melds tiles, "drawn"
     "melds": {"S": ["pung:777z@W"], "N": ["chow:345s", "ckong"]},
     "discards": {"E": "19m3s*", "S": "9s1z", "W": "5p(7z)(4s)", "N": "2z"},
     "flowers": {"E": "1f", "S": "2f6f"},
     "passed": {"W": "2z"}}

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
* replacement: true when the drawn tile replaced a kong or a flower (a
  self-drawn win on it is out with a replacement, 杠上开花); needs drawn.
* passed: per seat, the kinds it let go by since its own last discard
  (another seat's discard, or the tile of another seat's added kong, that
  it did not win on; each kind once). Players take every legal win, so
  such a kind is safe against that seat for now; defend's threat model
  reads it. Each must be a kind another seat has discarded or added to a
  kong.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nbsim.errors import HandError
from nbsim.kernels import codes as C
from nbsim.kernels.policies.view import MAX_POND
from nbsim.play.advice.notation import (
    POND_CLAIMED,
    SEATS,
    Meld,
    format_pond,
    is_seat_name,
    meld_kinds,
    optional_tile,
    parse_meld_text,
    parse_pond,
    seat_index,
    seat_mapping,
    wind_index,
)
from nbsim.play.position import Position
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.rules.tiles import KIND_NAMES, format_tiles, parse_tiles

__all__ = ["STATE_KEYS", "table_state", "read_state", "position_from_state",
           "position_from_options", "position_from_json", "position_to_state", "seen_copies",
           "max_wall_left", "wall_tiles"]

STATE_KEYS = ("seat", "round", "indicator", "wall_left", "hand", "drawn", "replacement",
              "offered", "from", "melds", "discards", "flowers", "passed")


_SEAT_PREFIX = re.compile(r"^\s*([A-Za-z])\s*:(.*)$", re.S)


def _split_seat(text: str, default: str | None, what: str) -> tuple[str, str]:
    """'S:pung:555p' -> ('S', 'pung:555p'); a text without a one-letter
    prefix belongs to ``default`` (the deciding seat; None: a seat is
    required)."""
    m = _SEAT_PREFIX.match(text)
    if m:
        seat_index(m.group(1), f"{what} {text!r}")
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
            for part in (p.strip() for p in rest.split(",")):
                if _SEAT_PREFIX.match(part):
                    # "S:pung:777z,S:pung:666z": the seat repeated (the same one only)
                    again, part = _split_seat(part, None, what)
                    if again != seat:
                        raise HandError(f"{what} {v!r}: one value holds the melds of one "
                                        f"seat ({seat}); give {again}'s melds as a value of "
                                        f"their own, e.g. {again}:{part}")
                if part:
                    out.setdefault(seat, []).append(part)
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
                offered: str | None = None, offered_from: str | None = None,
                replacement: bool | None = None,
                passed: Sequence[str] = ()) -> dict[str, Any]:
    """The table state dict (the ``--state`` JSON format, module doc) of the
    ``nbsim advise`` options, over ``base`` (a state read from a file): an
    option given replaces that key. ``melds``, ``discards``, ``flowers``
    and ``passed`` take ``[SEAT:]TEXT`` values (without a seat: the
    deciding seat's), e.g. ``["S:pung:555p@W", "chow:345s"]``,
    ``["E:19m(5p)3s", "S:9s1z"]``, ``["S:2f6f"]``, ``["W:2z4s"]``; several
    melds of a seat may be comma-separated."""
    state: dict[str, Any] = dict(base or {})
    # one value given as a plain string (as the JSON state allows) is a list of one
    melds, discards, flowers, passed = ([v] if isinstance(v, str) else v
                                        for v in (melds, discards, flowers, passed))
    if seat is not None:
        state["seat"] = seat
    own = state.get("seat", "E")
    own = own.strip().upper() if is_seat_name(own) else "E"
    for key, value in (("hand", hand), ("round", round_wind), ("indicator", indicator),
                       ("wall_left", wall_left), ("drawn", drawn), ("offered", offered),
                       ("from", offered_from), ("replacement", replacement)):
        if value is not None:
            state[key] = value
    if melds:
        state["melds"] = _group_by_seat(melds, "--melds", own, many=True)
    if discards:
        state["discards"] = _group_by_seat(discards, "--discards", own, many=False)
    if flowers:
        state["flowers"] = _group_by_seat(flowers, "--flowers", own, many=False)
    if passed:
        state["passed"] = _group_by_seat(passed, "--passed", own, many=False)
    return state


def read_state(path_or_dict: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A table state from a JSON file (or a dict, copied). Raises HandError
    when the file cannot be read or is not a JSON object, or for an
    argument that is neither a path nor a dict."""
    if isinstance(path_or_dict, Mapping):
        return dict(path_or_dict)
    if not isinstance(path_or_dict, (str, Path)):
        raise HandError(f"table state: expected a JSON file's path or a dict with keys "
                        f"{', '.join(STATE_KEYS)}, got {type(path_or_dict).__name__}")
    from nbsim.args import json_object_file
    data = json_object_file(path_or_dict, "state file",
                            f"a JSON object with keys {', '.join(STATE_KEYS)}", HandError)
    return data


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
    aside, a pond longer than MAX_POND, a passed kind no other seat
    discarded (or added to a kong) or given twice, more tiles on the table
    than a set holds, more unseen flowers than the wall's tiles can hold (a
    drawn flower is set aside at once, so none is in a hand), a face-down
    kong of another seat with no kind (not a wild) out of sight to make it,
    and a wall_left that is negative or more than the unseen tiles can hold
    (docs/rules.md §1-§4)."""
    rs = as_rules(rules)
    if not isinstance(state, Mapping):
        raise HandError(f"table state: expected an object with keys {', '.join(STATE_KEYS)}, "
                        f"got {state!r}")
    unknown = [k for k in state if k not in STATE_KEYS]
    if unknown:
        raise HandError(f"table state: unknown key {unknown[0]!r}; allowed: "
                        f"{', '.join(STATE_KEYS)}")
    me = seat_index(state.get("seat", "E"), "seat")
    round_wind = wind_index(state.get("round", "E"), "round")
    from nbsim.kernels.wilds import wild_mask
    ind = optional_tile(state.get("indicator"), "indicator")
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
    melds_by_seat = seat_mapping(state.get("melds"), "melds", "a list such as ['pung:777z@W']")
    melds: list[list[Meld]] = [[] for _ in range(4)]
    for s_name, items in melds_by_seat.items():
        s = SEATS.index(s_name)
        if isinstance(items, str):
            items = [p for p in items.split(",") if p.strip()]
        if not isinstance(items, (list, tuple)):
            raise HandError(f"melds of {s_name}: expected a list such as ['pung:777z@W'], "
                            f"got {items!r}")
        for text in items:
            melds[s].append(parse_meld_text(text, s, me, wild, rs))
        if len(melds[s]) > C.MAX_MELDS:
            raise HandError(f"melds of {s_name}: {len(melds[s])} melds given; a player "
                            f"declares at most {C.MAX_MELDS} (4 melds + a pair win)")

    # the decision: a discard (3k + 2 tiles) or a claim of an offered discard (3k + 1)
    drawn = optional_tile(state.get("drawn"), "drawn")
    offered = optional_tile(state.get("offered"), "offered")
    frm_given = state.get("from")
    if offered < 0 and frm_given is not None:
        raise HandError("from: names the seat that discarded the offered tile; give the tile "
                        "too (--offered 4s --from W)")
    discarder = me
    if offered >= 0:
        discarder = (me + 3) % 4 if frm_given is None else seat_index(frm_given, "from")
        if discarder == me:
            raise HandError(f"from {SEATS[me]}: the offered tile is another player's discard; "
                            f"from names one of the other seats")
        if drawn >= 0:
            raise HandError("drawn and offered exclude each other: a seat decides on a discard "
                            "after its draw, or on a claim of another player's discard")
        if offered >= C.FLOWER0 and not wild[offered]:
            raise HandError(f"offered {KIND_NAMES[offered]}: a flower is set aside, never "
                            f"discarded (only a wild flower can be)")
    replacement = state.get("replacement")
    if replacement is None:
        replacement = False
    if not isinstance(replacement, bool):
        raise HandError(f"replacement: true or false (the drawn tile replaced a kong or a "
                        f"flower), got {json.dumps(replacement, default=str)}")
    if replacement and offered >= 0:
        raise HandError("replacement: a replacement is drawn on the seat's own turn, but "
                        "offered makes this a claim of another player's discard; give one "
                        "of the two")
    if replacement and drawn < 0:
        raise HandError("replacement: says the drawn tile replaced a kong or a flower; give "
                        "the drawn tile too (--drawn 5p --replacement)")
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
    for s_name, text in seat_mapping(state.get("flowers"), "flowers", "flower notation "
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
    if replacement and not flowers[me] and not any(
            m.typ in (C.MELD_KONG, C.MELD_CKONG) for m in melds[me]):
        raise HandError(f"replacement: a replacement tile is drawn after a kong or a flower, "
                        f"and seat {SEATS[me]} shows neither; give its kong (--melds) or "
                        f"flower (--flowers), or leave out --replacement")

    # ponds, and the claimed tiles matched to the melds that claimed them
    ponds: list[list[list[int]]] = [[] for _ in range(4)]     # [kind, flags, matched]
    for s_name, text in seat_mapping(state.get("discards"), "discards",
                                 "tile notation such as '19m(5p)3s'").items():
        s = SEATS.index(s_name)
        for k, f in parse_pond(text, f"discards of {s_name}"):
            if k >= C.FLOWER0 and not wild[k]:
                raise HandError(f"discards of {s_name}: {KIND_NAMES[k]} is a flower; flowers "
                                f"are set aside (--flowers), only a wild flower is discarded")
            ponds[s].append([k, f, 0])
    _match_claims(melds, ponds)
    passed = _passed(state.get("passed"), ponds, melds)
    if offered >= 0:
        ponds[discarder].append([offered, 0, 0])
    for s in range(4):
        if len(ponds[s]) > MAX_POND:
            extra = " (the offered tile included)" if offered >= 0 and s == discarder else ""
            raise HandError(f"discards of {SEATS[s]}: {len(ponds[s])} tiles{extra}; a pond "
                            f"holds at most {MAX_POND} discards")

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
    _check_hidden(rs, me, hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind, wild,
                  most)
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
                    drawn=drawn, offered=offered, replacement=replacement, passed=passed)


def _passed(value, ponds: list[list[list[int]]],
            melds: list[list[Meld]]) -> np.ndarray | None:
    """The state's ``passed`` (module doc) as bool[4, 42], None when not
    given. Raises HandError for a kind no other seat discarded or added to
    a kong (``ponds`` [kind, flags, matched] and ``melds`` per seat, the
    offered tile not yet in its discarder's pond)."""
    mapping = seat_mapping(value, "passed", "tile notation such as '2z4s'")
    if not mapping:
        return None
    out = np.zeros((4, C.N_KINDS), dtype=np.bool_)
    for s_name, text in mapping.items():
        if not isinstance(text, str):
            raise HandError(f"passed of {s_name}: expected tile notation such as '2z4s', got "
                            f"{text!r}")
        s = SEATS.index(s_name)
        for k in parse_tiles(text, max_copies=None, what=f"passed of {s_name}"):
            if out[s, k]:
                raise HandError(f"passed of {s_name}: {KIND_NAMES[k]} is given twice; give "
                                f"each kind once")
            if not any(e[0] == k for o in range(4) if o != s for e in ponds[o]) and not any(
                    m.typ == C.MELD_KONG and m.kind == k for o in range(4) if o != s
                    for m in melds[o]):
                raise HandError(f"passed of {s_name}: no other seat has discarded a "
                                f"{KIND_NAMES[k]} (or added one to a kong), so {s_name} cannot "
                                f"have let one go by; give only kinds in the others' discards")
            out[s, k] = True
    return out


def _match_claims(melds: list[list[Meld]], ponds: list[list[list[int]]]) -> None:
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
            return next((e for e in ponds[s] if e[1] & POND_CLAIMED and not e[2]
                         and e[0] in fits), None)
        if m.frm is None:
            sources = [(m.owner + 3) % 4] if m.typ == C.MELD_CHOW else \
                [(m.owner + d) % 4 for d in (3, 2, 1)]
            m.frm = next((s for s in sources if free(s) is not None), (m.owner + 3) % 4)
        entry = free(m.frm)
        if entry is None:
            # the claimed tile is not written in the source's discards: add it
            entry = [m.kind, POND_CLAIMED, 0]     # a chow: its lowest tile
            ponds[m.frm].append(entry)
        entry[2] = 1
    for s in range(4):
        for k, f, matched in ponds[s]:
            if f & POND_CLAIMED and not matched:
                others = " ".join(SEATS[o] for o in range(4) if o != s)
                raise HandError(f"discards of {SEATS[s]}: ({KIND_NAMES[k]}) is marked as "
                                f"claimed, but no meld of {others} claims a {KIND_NAMES[k]} "
                                f"from {SEATS[s]}; give that meld (e.g. --melds "
                                f"{SEATS[(s + 1) % 4]}:pung:{KIND_NAMES[k][0] * 3}"
                                f"{KIND_NAMES[k][1]}@{SEATS[s]}) or drop the parentheses")


def seen_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind
                ) -> dict[str, np.ndarray]:
    """Copies of each kind (int64[42]) the deciding seat sees, by where:
    its hand, the melds (face-down kongs not counted), the discards not
    claimed (a claimed one is counted in its meld), the flowers set aside
    and the indicator."""
    out = {w: np.zeros(C.N_KINDS, dtype=np.int64)
           for w in ("hand", "melds", "discards", "flowers", "indicator")}
    out["hand"] += hand
    for s in range(4):
        for i in range(int(n_melds[s])):
            for k in meld_kinds(int(marr[s, i, 0]), int(marr[s, i, 1])):
                out["melds"][k] += 1
        for i in range(int(n_pond[s])):
            if not pond_flags[s, i] & POND_CLAIMED:
                out["discards"][int(pond[s, i])] += 1
        for f in range(C.N_FLOWERS):
            if int(flowers[s]) >> f & 1:
                out["flowers"][C.FLOWER0 + f] += 1
    if ind >= 0:
        out["indicator"][ind] += 1
    return out


def _check_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind) -> None:
    parts = seen_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    total = np.sum(list(parts.values()), axis=0)
    for k in range(C.N_KINDS):
        limit = 4 if k < C.FLOWER0 else 1
        if total[k] > limit:
            where = ", ".join(f"{w} {int(a[k])}" for w, a in parts.items() if a[k])
            raise HandError(f"{int(total[k])} copies of {KIND_NAMES[k]} on the table ({where}): "
                            f"a set holds {limit} of each "
                            f"{'tile' if limit == 4 else 'flower'} (docs/rules.md §1)")


def _check_hidden(rs, me, hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind, wild,
                  most: int) -> None:
    """What the seat does not see must fit where it can be (docs/rules.md
    §2-§3): a non-wild flower is set aside when drawn, so the unseen ones
    lie among the wall's tiles (drawable, reserve, or gone unlisted), never
    in a hand; and another seat's face-down kong needs a kind (not a wild)
    of which the seat sees no copy. HandError otherwise."""
    parts = seen_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    seen = np.sum(list(parts.values()), axis=0)
    gone = [k for k in range(C.FLOWER0, C.N_KINDS) if not wild[k] and seen[k] == 0]
    room = most + _reserve(rs, _n_kongs(marr, n_melds))
    if len(gone) > room:
        reserve = " and its reserve" if _reserve(rs, 0) else ""
        raise HandError(
            f"{len(gone)} flowers unseen ({format_tiles(gone)}), but a drawn flower is set "
            f"aside at once, so they can only be among the wall's tiles{reserve}, and the "
            f"table leaves {room} tile{'' if room == 1 else 's'} there (the {C.N_TILES} less "
            f"the tiles in sight and the others' concealed tiles, 13 - 3 x melds each): give "
            f"the flowers set aside (--flowers), or fewer discards and melds")
    face_down = sum(1 for s in range(4) if s != me for i in range(int(n_melds[s]))
                    if int(marr[s, i, 0]) == C.MELD_CKONG and int(marr[s, i, 1]) < 0)
    free = [k for k in range(C.N_PLAY) if not wild[k] and seen[k] == 0]
    if face_down > len(free):
        raise HandError(
            f"{face_down} face-down kong{'' if face_down == 1 else 's'} of the other seats, "
            f"but only {len(free)} kind{'' if len(free) == 1 else 's'} (not a wild) "
            f"with no copy in sight{': ' + format_tiles(free) if free else ''}; a concealed "
            f"kong holds all four copies of one kind: check the ckong melds and the tiles "
            f"shown")


def _reserve(rs: RuleSet, n_kongs: int) -> int:
    w = rs.config.wall
    return 2 * (w.reserve_stacks + w.reserve_stacks_per_kong * n_kongs)


def _n_kongs(marr, n_melds) -> int:
    """Kongs declared at the table (exposed, added and concealed)."""
    return sum(int(marr[s, i, 0]) in (C.MELD_KONG, C.MELD_CKONG)
               for s in range(4) for i in range(int(n_melds[s])))


def max_wall_left(rules: RuleSet | str | Path, pos: Position) -> int:
    """The most tiles that can still be drawn at the table of ``pos``
    (the largest ``wall_left`` its table state allows)."""
    return _max_wall_left(as_rules(rules), pos.seat, pos.hand, pos.melds, pos.n_melds,
                          pos.pond, pos.pond_flags, pos.n_pond, pos.flowers, pos.indicator)


def wall_tiles(rules: RuleSet | str | Path, pos: Position) -> int:
    """The tiles at the table of ``pos`` that are neither seen by the seat
    nor in another seat's hand or face-down kong: the wall's drawable
    tiles, its reserve (never drawn; docs/rules.md §2) and the tiles that
    left it unlisted (``max_wall_left`` less ``tiles_left``). Unseen
    non-wild flowers lie among them, never in a hand."""
    rs = as_rules(rules)
    return max_wall_left(rs, pos) + _reserve(rs, _n_kongs(pos.melds, pos.n_melds))


def _max_wall_left(rs, me, hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind) -> int:
    """Tiles that can still be drawn at most: the set less everything out of
    the wall (the tiles seen, the others' concealed tiles, face-down kongs)
    less the reserve (docs/rules.md §2)."""
    parts = seen_copies(hand, marr, n_melds, pond, pond_flags, n_pond, flowers, ind)
    out = int(sum(int(a.sum()) for a in parts.values()))
    for s in range(4):
        if s != me:
            out += 13 - 3 * int(n_melds[s])
        for i in range(int(n_melds[s])):
            if int(marr[s, i, 0]) == C.MELD_CKONG and int(marr[s, i, 1]) < 0:
                out += 4
    return C.N_TILES - out - _reserve(rs, _n_kongs(marr, n_melds))


def position_from_options(rules: RuleSet | str | Path, *, hand: str,
                          melds: Sequence[str] = (), discards: Sequence[str] = (),
                          seat: str = "E", round_wind: str = "E", indicator: str | None = None,
                          wall_left: int | None = None, flowers: Sequence[str] = (),
                          drawn: str | None = None, offered: str | None = None,
                          offered_from: str | None = None,
                          replacement: bool | None = None,
                          passed: Sequence[str] = ()) -> Position:
    """The ``Position`` of the ``nbsim advise`` options (``table_state`` then
    ``position_from_state``): e.g. ``position_from_options("ningbo-3baida",
    hand="123m456p789s1155z3p", indicator="5m", discards=["E:19m"],
    melds=["W:pung:777z"])``."""
    return position_from_state(rules, table_state(
        hand=hand, melds=melds, discards=discards, seat=seat, round_wind=round_wind,
        indicator=indicator, wall_left=wall_left, flowers=flowers, drawn=drawn,
        offered=offered, offered_from=offered_from, replacement=replacement,
        passed=passed))


def position_from_json(rules: RuleSet | str | Path,
                       path_or_dict: str | Path | Mapping[str, Any]) -> Position:
    """The ``Position`` of a table state in a JSON file (or a dict of the
    same keys; module doc)."""
    return position_from_state(rules, read_state(path_or_dict))


def check_position(rules: RuleSet | str | Path, pos: Position) -> Position:
    """``pos`` (returned as it is) checked as a position of the variant
    ``rules``: it must be a ``Position`` that ``position_from_state`` accepts
    under these rules when given the position's own table state
    (``position_to_state``). A position built by the functions above for
    this variant always passes. Raises HandError when ``pos`` is not a
    Position, when a field is not as ``Position`` gives it (a seat outside
    0..3, a kind outside -1..41, a negative or fractional tile count, an
    array of another shape or a non-integer dtype: the message names the
    field and what is allowed), or when it breaks these rules, e.g. one
    built for another variant: an indicator where this variant has no wilds,
    more tiles left than its wall holds, a meld it forbids, a table that
    cannot exist (``position_from_state``'s checks; the message names the
    rule)."""
    rs = as_rules(rules)
    if not isinstance(pos, Position):
        raise HandError(f"position: expected a Position (position_from_options, "
                        f"position_from_state or position_from_json), got "
                        f"{type(pos).__name__}")
    _check_fields(pos)
    try:
        position_from_state(rs, position_to_state(pos))
    except (ValueError, TypeError, IndexError, KeyError) as e:   # NbsimError is a ValueError
        raise HandError(f"the position does not fit {rs.name}: {e} (was it built for "
                        f"another variant?)") from None
    return pos


_SEAT = "a whole number 0..3 (E S W N)"
_KIND = f"a kind 0..{C.N_KINDS - 1}, or -1 for none"
_SCALARS = (("seat", 0, 3, _SEAT), ("to_play", 0, 3, _SEAT), ("round_wind", 0, 3, _SEAT),
            ("indicator", -1, C.N_KINDS - 1, _KIND),
            ("tiles_left", 0, C.N_TILES, f"a whole number of tiles 0..{C.N_TILES}"),
            ("drawn", -1, C.N_KINDS - 1, _KIND), ("offered", -1, C.N_KINDS - 1, _KIND))
_ARRAYS = (("hand", (C.N_KINDS,), 0, 4, "copies held by kind"),
           ("melds", (4, C.MAX_MELDS, 3), -1, C.N_KINDS - 1, "(type, kind, from seat) rows"),
           ("n_melds", (4,), 0, C.MAX_MELDS, "melds per seat"),
           ("flowers", (4,), 0, 255, "flower bits per seat"),
           ("pond", (4, MAX_POND), -1, C.N_KINDS - 1, "discarded kinds per seat"),
           ("pond_flags", (4, MAX_POND), 0, 127, "flags per discard"),
           ("n_pond", (4,), 0, MAX_POND, "discards per seat"))


def _check_fields(pos: Position) -> None:
    """The Position's fields as its docstring gives them (whole numbers in
    range, arrays of integers of the right shape); HandError naming the
    field and what is allowed otherwise, before the table is read."""
    for name, lo, hi, allowed in _SCALARS:
        v = getattr(pos, name)
        if (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
                or not lo <= int(v) <= hi):
            raise HandError(f"position: {name} {v!r}: allowed {allowed}")
    if not isinstance(pos.replacement, (bool, np.bool_)):
        raise HandError(f"position: replacement {pos.replacement!r}: allowed True or False")
    for name, shape, lo, hi, what in _ARRAYS:
        a = getattr(pos, name)
        if (not isinstance(a, np.ndarray) or a.shape != shape
                or not np.issubdtype(a.dtype, np.integer)):
            got = (f"{a.dtype} array of shape {a.shape}" if isinstance(a, np.ndarray)
                   else type(a).__name__)
            raise HandError(f"position: {name} ({what}): allowed an integer array of shape "
                            f"{shape}, got {got}")
        if a.size and not (lo <= int(a.min()) and int(a.max()) <= hi):
            raise HandError(f"position: {name} ({what}) holds {int(a.min())} .. "
                            f"{int(a.max())}: allowed {lo} .. {hi}")
    p = pos.passed
    if p is not None and (not isinstance(p, np.ndarray) or p.shape != (4, C.N_KINDS)
                          or p.dtype != np.bool_):
        got = (f"{p.dtype} array of shape {p.shape}" if isinstance(p, np.ndarray)
               else type(p).__name__)
        raise HandError(f"position: passed: allowed None or a bool array of shape "
                        f"(4, {C.N_KINDS}), got {got}")


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
    if pos.replacement:
        state["replacement"] = True
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
                text = f"{C.MELD_NAMES[typ]}:{format_tiles(meld_kinds(typ, kind))}"
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
            discards[SEATS[s]] = format_pond(pos.pond[s, :n], pos.pond_flags[s, :n])
    if discards:
        state["discards"] = discards
    flowers = {SEATS[s]: format_tiles(C.FLOWER0 + f for f in range(C.N_FLOWERS)
                                      if int(pos.flowers[s]) >> f & 1)
               for s in range(4) if int(pos.flowers[s])}
    if flowers:
        state["flowers"] = flowers
    if pos.passed is not None:
        passed = {SEATS[s]: format_tiles(np.flatnonzero(pos.passed[s])) for s in range(4)
                  if pos.passed[s].any()}
        if passed:
            state["passed"] = passed
    return state

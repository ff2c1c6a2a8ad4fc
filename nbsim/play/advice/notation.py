"""The table in tile notation (docs/rules.md §1), piece by piece, for
``nbsim advise``'s table state (``nbsim.play.advice.state``): seat names, a
seat's discards ('19m(5p)3s*': ``parse_pond`` / ``format_pond``), a
declared meld ('pung:777z@W', another seat's face-down 'ckong':
``parse_meld_text`` -> ``Meld``), per-seat mappings and optional tiles. Every
bad piece is one ``HandError`` (``TileError`` for bad notation) naming what
is wrong and what is allowed.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbsim.errors import HandError, TileError
from nbsim.kernels import codes as C
from nbsim.rules.ruleset import RuleSet
from nbsim.rules.tiles import KIND_NAMES, parse_meld, parse_tile, parse_tiles

__all__ = ["SEATS", "POND_DRAWN", "POND_CLAIMED", "is_seat_name", "seat_index", "parse_pond",
           "format_pond", "Meld", "meld_kinds", "parse_meld_text", "wild_text", "seat_mapping",
           "optional_tile"]

SEATS = C.SEAT_NAMES
POND_DRAWN = 1          # nbsim.kernels.policies.view.POND_DRAWN: discarded as drawn
POND_CLAIMED = 2        # nbsim.kernels.policies.view.POND_CLAIMED: claimed by a meld


def is_seat_name(value) -> bool:
    """``value`` is a seat name: 'E' 'S' 'W' 'N' in any case, spaces around."""
    return isinstance(value, str) and value.strip().upper() in SEATS


def seat_index(value, what: str) -> int:
    """'E' 'S' 'W' 'N' (any case) -> 0..3; HandError naming ``what`` otherwise."""
    if isinstance(value, str) and value.strip().upper() in SEATS:
        return SEATS.index(value.strip().upper())
    raise HandError(f"{what}: unknown seat {value!r}; seats are E S W N "
                    f"(E the dealer, then S W N in turn order)")


def wind_index(value, what: str) -> int:
    """A round wind 'E' 'S' 'W' 'N' (any case) -> 0..3; HandError naming
    ``what`` otherwise."""
    if isinstance(value, str) and value.strip().upper() in SEATS:
        return SEATS.index(value.strip().upper())
    raise HandError(f"{what}: unknown wind {value!r}; the round wind is E, S, W or N")


_POND_TOKEN = re.compile(r"([0-9]+[a-zA-Z])|([()*])|(\S)")


def parse_pond(text, what: str) -> list[tuple[int, int]]:
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
                out.append((k, POND_CLAIMED if claimed else 0))
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
            if out[-1][1] & POND_DRAWN:
                raise HandError(f"{what} {text!r}: '**': one '*' marks the tile before it as "
                                f"just drawn")
            out[-1] = (out[-1][0], out[-1][1] | POND_DRAWN)
        elif other in "0123456789":
            raise TileError(f"{what} {text!r}: digits have no suit letter (write e.g. "
                            f"'19m(5p)3s'; suits: m p s z f)")
        else:
            raise TileError(f"{what} {text!r}: unexpected {other!r}; discards are tiles in "
                            f"notation, (5p) for a claimed one, * after a tile just drawn")
    if claimed:
        raise HandError(f"{what} {text!r}: '(' is not closed")
    return out


def format_pond(kinds, flags) -> str:
    """Inverse of ``parse_pond``, in order: runs of one suit share their
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
        if f & POND_CLAIMED:
            flush()
            out.append(f"({name})" + ("*" if f & POND_DRAWN else ""))
            continue
        if name[1] != suit:
            flush()
            suit = name[1]
        run += name[0]
        if f & POND_DRAWN:
            out.append(run + suit + "*")
            run, suit = "", ""
    flush()
    return "".join(out)


@dataclass
class Meld:
    """A declared meld of seat ``owner``: ``typ`` (``codes.MELD_*``), its
    lowest ``kind`` (-1: another seat's face-down concealed kong), ``frm``
    the seat it was claimed from (None: not given yet, -1: a concealed
    kong) and the ``text`` it was written as."""
    owner: int
    typ: int
    kind: int            # -1: another seat's concealed kong (face down)
    frm: int | None      # claimed from (None: not given), -1 for a concealed kong
    text: str

    def kinds(self) -> list[int]:
        """The meld's tiles as kinds (``meld_kinds``)."""
        return meld_kinds(self.typ, self.kind)

    @property
    def claimed(self) -> bool:
        """A chow, pung or exposed kong: made with another seat's discard."""
        return self.typ in (C.MELD_CHOW, C.MELD_PUNG, C.MELD_KONG)


def parse_meld_text(text, owner: int, me: int, wild: np.ndarray, rs: RuleSet) -> Meld:
    """A meld of seat ``owner`` written ``TYPE:TILES[@SEAT]`` (or ``ckong``
    for another seat's face-down kong), as seen by seat ``me``; ``wild``:
    bool[N_KINDS], the variant's wild kinds. Raises HandError for a flower
    or a wild in a meld, a chow of honours or in a variant without chows, a
    source seat that cannot have fed it (docs/rules.md §3-§4)."""
    what = f"meld {SEATS[owner]}:{text}" if isinstance(text, str) else "meld"
    if not isinstance(text, str):
        raise HandError(f"{what}: expected text such as 'pung:777z@W', got {text!r}")
    body, frm = text.strip(), None
    if "@" in body:
        body, _, src = body.rpartition("@")
        frm = seat_index(src, f"{what}: the seat after @")
        body = body.strip()
    if body.lower() in ("ckong", "ckong:"):
        if owner == me:
            raise HandError(f"{what}: your own concealed kong: give its tiles, e.g. "
                            f"'ckong:9999s'")
        if frm is not None:
            raise HandError(f"{what}: a concealed kong is made of the player's own tiles; "
                            f"it names no seat after @")
        return Meld(owner, C.MELD_CKONG, -1, -1, text)
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
    m = Meld(owner, t, kind, frm, text)
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
                        f"tile (the wilds: {wild_text(wild)}); wilds cannot be part of a "
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


def wild_text(wild: np.ndarray) -> str:
    """The wild kinds of bool[N_KINDS] ``wild`` in notation ('5m 6m'), or 'none'."""
    return " ".join(KIND_NAMES[k] for k in np.flatnonzero(wild)) or "none"


def seat_mapping(value, what: str, example: str) -> dict[str, Any]:
    """A state's per-seat object (``{"S": ...}``) with its seats checked and
    written E S W N; {} for None. Raises HandError (not an object, an
    unknown seat, a seat given twice)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HandError(f"{what}: expected an object seat -> {example}, got {value!r}")
    out: dict[str, Any] = {}
    for k, v in value.items():
        s = SEATS[seat_index(k, f"{what} seat")]
        if s in out:
            raise HandError(f"{what}: seat {s} given twice")
        out[s] = v
    return out


def optional_tile(value, what: str) -> int:
    """The kind of one tile in notation, -1 for None or ''. Raises
    HandError / TileError."""
    if value is None or value == "":
        return -1
    if not isinstance(value, str):
        raise HandError(f"{what}: expected one tile such as '5p', got {value!r}")
    return parse_tile(value, what=what)


def meld_kinds(typ: int, kind: int) -> list[int]:
    """The kinds of a meld's tiles (a kong 4, a concealed kong face down: none)."""
    if kind < 0:
        return []
    if typ == C.MELD_CHOW:
        return [kind, kind + 1, kind + 2]
    return [kind] * (3 if typ == C.MELD_PUNG else 4)

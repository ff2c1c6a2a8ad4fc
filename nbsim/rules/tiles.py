"""Tile kinds and the text notation of docs/rules.md §1 (pure Python).

Kinds (ints): 0-8 ``1m``-``9m``, 9-17 ``1p``-``9p``, 18-26 ``1s``-``9s``,
27-30 ``1z``-``4z`` (E S W N), 31-33 ``5z``-``7z`` (White Green Red),
34-41 ``1f``-``8f`` (flowers). Digits before a suit letter share it:
``123m55z`` is 1m 2m 3m 5z 5z. Whitespace is ignored.
"""
from __future__ import annotations

import re

import numpy as np

from nbsim.errors import TileError
from nbsim.kernels import codes as C

SUITS = "mpszf"
_SUIT_BASE = {"m": C.MAN0, "p": C.PIN0, "s": C.SOU0, "z": C.HONOR0, "f": C.FLOWER0}
_SUIT_RANKS = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 8}
_TOKEN = re.compile(r"([0-9]+)([a-zA-Z])|(\S)")   # ASCII digits only: "١" is no rank

KIND_NAMES = tuple(
    f"{r}{s}" for s in SUITS for r in range(1, _SUIT_RANKS[s] + 1)
)
assert len(KIND_NAMES) == C.N_KINDS
_NAME_TO_KIND = {n: i for i, n in enumerate(KIND_NAMES)}

ALLOWED = ("ranks 1-9 before m, p or s; 1-7 before z (1-4 winds E S W N, "
           "5-7 dragons White Green Red); 1-8 before f (flowers)")


def kind_name(kind: int) -> str:
    """Notation of one kind id (0-41), e.g. ``kind_name(27) == '1z'``.

    Raises TileError for an id outside 0-41."""
    if not 0 <= int(kind) < C.N_KINDS:
        raise TileError(f"kind id {kind} is not a tile kind (allowed: 0-{C.N_KINDS - 1})")
    return KIND_NAMES[int(kind)]


def parse_tiles(text: str, *, max_copies: int | None = 4, what: str = "tiles") -> list[int]:
    """Parse notation into a list of kind ids, in the order written.

    Args:
        text: notation such as ``"123m55z1f"``; empty text gives ``[]``.
        max_copies: refuse more than this many copies of one kind
            (None: no limit).
        what: name of the field, used in error messages.

    Raises:
        TileError: naming the offending text: a rank outside the suit's
        range, an unknown suit letter, digits without a suit letter, a
        stray character, or too many copies of a kind.
    """
    if text is None:
        return []
    if not isinstance(text, str):
        raise TileError(f"{what}: expected tile notation text, got {type(text).__name__} {text!r}")
    kinds: list[int] = []
    compact = "".join(text.split())
    pos = 0
    for m in _TOKEN.finditer(compact):
        if m.start() != pos:  # pragma: no cover - the regex covers every char
            break
        pos = m.end()
        if m.group(3) is not None:
            ch = m.group(3)
            if ch in "0123456789":
                raise TileError(
                    f"{what} {text!r}: digits {compact[m.start():]!r} have no suit letter "
                    f"(write e.g. '123m'; suits: m p s z f)")
            raise TileError(f"{what} {text!r}: unexpected {ch!r}; tiles are written "
                            f"as ranks followed by a suit letter m p s z f, e.g. '123m55z'")
        digits, suit = m.group(1), m.group(2)
        if suit not in _SUIT_BASE:
            raise TileError(f"{what} {text!r}: unknown suit letter {suit!r} after {digits!r} "
                            f"(allowed: m p s z f)")
        top = _SUIT_RANKS[suit]
        for d in digits:
            r = int(d)
            if not 1 <= r <= top:
                raise TileError(f"{what} {text!r}: bad rank {d!r} in {digits}{suit} "
                                f"(ranks for {suit} are 1-{top})")
            kinds.append(_SUIT_BASE[suit] + r - 1)
    if max_copies is not None:
        check_copies(kinds, max_copies=max_copies, what=f"{what} {text!r}")
    return kinds


def check_copies(kinds, *, max_copies: int = 4, what: str = "tiles") -> None:
    """Raise TileError if a kind appears more than ``max_copies`` times
    (flowers: more than once, since each flower is single)."""
    counts: dict[int, int] = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    for k, n in sorted(counts.items()):
        limit = 1 if k >= C.FLOWER0 else max_copies
        if n > limit:
            raise TileError(f"{what}: {n} copies of {KIND_NAMES[k]} "
                            f"(at most {limit}{' of a flower' if limit == 1 else ''})")


def parse_tile(text: str, *, what: str = "tile") -> int:
    """Parse exactly one tile (``'5p'``) into its kind id. Raises TileError."""
    kinds = parse_tiles(text, what=what)
    if len(kinds) != 1:
        raise TileError(f"{what} {text!r}: expected exactly one tile such as '5p', "
                        f"got {len(kinds)}")
    return kinds[0]


def to_counts(kinds) -> np.ndarray:
    """Count array int8[42] of a list of kind ids."""
    counts = np.zeros(C.N_KINDS, dtype=np.int8)
    for k in kinds:
        counts[int(k)] += 1
    return counts


def parse_counts(text: str, *, max_copies: int | None = 4, what: str = "tiles") -> np.ndarray:
    """Parse notation into a count array int8[42]. Raises TileError."""
    return to_counts(parse_tiles(text, max_copies=max_copies, what=what))


def format_counts(counts) -> str:
    """Notation of a count array over kinds (length 34 or 42), suits in the
    order m p s z f and ranks ascending: ``format_counts(parse_counts('55z123m'))
    == '123m55z'``."""
    out = []
    for s in SUITS:
        base, n = _SUIT_BASE[s], _SUIT_RANKS[s]
        digits = "".join(str(r + 1) * int(counts[base + r])
                         for r in range(n) if base + r < len(counts))
        if digits:
            out.append(digits + s)
    return "".join(out)


def format_tiles(kinds) -> str:
    """Notation of a list of kind ids, sorted (see ``format_counts``)."""
    return format_counts(to_counts(kinds))


def is_flower(kind: int) -> bool:
    """True for the 8 flower kinds (34-41)."""
    return kind >= C.FLOWER0


MELD_RE = re.compile(r"^\s*(chow|pung|kong|ckong)\s*:\s*(.+?)\s*$")


def parse_meld(text: str) -> tuple[int, int]:
    """Parse a meld ``'chow:345s'``, ``'pung:777z'``, ``'kong:7777z'`` (exposed)
    or ``'ckong:9999s'`` (concealed) into ``(meld type code, kind)`` where kind
    is the lowest tile of a chow and the tile of a pung/kong.

    Raises TileError when the type is unknown or the tiles do not form it."""
    m = MELD_RE.match(text or "")
    if not m:
        raise TileError(f"meld {text!r}: expected TYPE:TILES with TYPE one of "
                        f"chow, pung, kong (exposed), ckong (concealed), e.g. 'pung:777z'")
    typ, tiles = m.group(1), m.group(2)
    kinds = sorted(parse_tiles(tiles, what=f"meld {text!r}"))
    code = C.MELD_NAMES.index(typ)
    if typ == "chow":
        ok = (len(kinds) == 3 and kinds[0] < C.HONOR0
              and kinds[0] // 9 == kinds[2] // 9
              and kinds[1] == kinds[0] + 1 and kinds[2] == kinds[0] + 2)
        need = "3 consecutive ranks of one suit, e.g. 'chow:345s'"
    else:
        n = 3 if typ == "pung" else 4
        ok = len(kinds) == n and len(set(kinds)) == 1 and kinds[0] < C.FLOWER0
        need = f"{n} identical suited or honor tiles, e.g. '{typ}:{'7' * n}z'"
    if not ok:
        raise TileError(f"meld {text!r}: a {typ} needs {need}")
    return code, kinds[0]


def format_meld(meld_type: int, kind: int) -> str:
    """Inverse of ``parse_meld``: ``format_meld(MELD_PUNG, 33) == 'pung:777z'``."""
    if meld_type == C.MELD_CHOW:
        body = format_tiles([kind, kind + 1, kind + 2])
    else:
        body = format_tiles([kind] * (3 if meld_type == C.MELD_PUNG else 4))
    return f"{C.MELD_NAMES[meld_type]}:{body}"


def parse_seat(text: str, *, what: str = "seat") -> int:
    """Seat or round wind ``'E' 'S' 'W' 'N'`` -> 0..3. Raises TileError."""
    t = (text or "").strip().upper()
    if t not in C.SEAT_NAMES:
        raise TileError(f"{what} {text!r}: expected one of E S W N")
    return C.SEAT_NAMES.index(t)

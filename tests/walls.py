"""Constructed walls for engine tests: put chosen tiles where the deal, the
live draws and the tail replacements take them (draw-order layout of
nbsim/kernels/wall.py: positions 0..52 are the deal, 53.. the live wall,
143 downwards the tail)."""
from __future__ import annotations

import numpy as np

from nbsim.rules.tiles import parse_tiles

N = 144


def deal_positions(seat: int) -> list[int]:
    """Draw-order positions of the tiles dealt to ``seat`` (0 = dealer), in
    the order they are dealt: three rounds of 4, then 1 (the dealer also 52)."""
    pos = [16 * r + 4 * seat + k for r in range(3) for k in range(4)] + [48 + seat]
    if seat == 0:
        pos.append(52)
    return pos


def _ids_for(kinds: list[int], used: dict[int, int]) -> list[int]:
    ids = []
    for k in kinds:
        c = used.get(k, 0)
        limit = 1 if k >= 34 else 4
        if c >= limit:
            raise ValueError(f"more than {limit} copies of kind {k} in the constructed wall")
        used[k] = c + 1
        ids.append(k * 4 + c if k < 34 else 136 + (k - 34))
    return ids


def build_wall(hands: dict[int, str], live: str = "", tail: str = "",
               indicator: str | None = None, indicator_pos: int = 120):
    """Physical tile ids (uint8[144], draw order) with ``hands[seat]`` dealt
    to each seat (13 tiles, 14 for the dealer; no flowers, so no
    replacement), then ``live`` drawn in order from position 53, ``tail``
    from position 143 down, and the indicator at ``indicator_pos``. Every
    other position holds the remaining tiles in id order. Returns (tiles,
    indicator_pos or -1)."""
    tiles = np.full(N, 255, dtype=np.int64)
    used: dict[int, int] = {}
    for seat, text in hands.items():
        kinds = parse_tiles(text)
        pos = deal_positions(seat)
        if len(kinds) != len(pos):
            raise ValueError(f"seat {seat}: {len(kinds)} tiles, needs {len(pos)}")
        for p, t in zip(pos, _ids_for(kinds, used), strict=False):
            tiles[p] = t
    ind = -1
    if indicator:
        ind = indicator_pos
        tiles[ind] = _ids_for(parse_tiles(indicator), used)[0]
    p = 53
    for t in _ids_for(parse_tiles(live), used):
        if p == ind:
            p += 1
        tiles[p] = t
        p += 1
    p = N - 1
    for t in _ids_for(parse_tiles(tail), used):
        if p == ind:
            p -= 1
        tiles[p] = t
        p -= 1
    taken = set(int(t) for t in tiles if t != 255)
    rest = [t for t in range(N) if t not in taken]
    # keep flowers out of the deal positions that are still empty (the
    # constructed hands have no flowers): put the rest in id order
    free = [i for i in range(N) if tiles[i] == 255]
    for i, t in zip(free, rest, strict=False):
        tiles[i] = t
    assert sorted(tiles.tolist()) == list(range(N))
    return tiles.astype(np.uint8), ind

"""One seat's knowledge of a table at a decision: the ``Position`` record.

A ``Position`` holds what the deciding seat can see (docs/rules.md
§2-§4): its own concealed tiles and melds, every seat's declared
melds as the table shows them, the discards, the flowers set aside, the
drawable tiles left, the seat and round winds and the indicator. It is the
input of the lookahead evaluator (``nbsim.play.evaluation.evaluate``) and of
``nbsim advise``; inside the engine the same information is the policy's
``View`` (``nbsim/kernels/policies/view.py``), and
``nbsim.play.evaluation.view_of`` turns a Position into one.

Encodings are the kernels' (``nbsim/kernels/codes.py``): kinds 0..41, melds
(type, kind, from seat) with ``codes.MELD_*`` types, seats 0 E (dealer),
1 S, 2 W, 3 N.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbsim.kernels.policies.view import MAX_POND

__all__ = ["Position", "example_position"]


@dataclass(frozen=True, eq=False)
class Position:
    """The deciding seat's view of the table.

    Attributes (shapes and dtypes as the kernels take them):
        seat: the deciding seat, 0..3 (0 = the dealer, East).
        to_play: the seat whose turn it is: ``seat`` for a discard (the seat
            holds 3k+2 tiles, the drawn tile included), the discarder when
            ``seat`` is offered a discard to claim.
        round_wind: 0..3 (E S W N).
        indicator: the indicator's kind, -1 for a variant without wilds.
        tiles_left: drawable tiles left in the wall (>= 0).
        hand: int8[42] own concealed tiles by kind (wilds at their own kind).
        melds: int8[4, 4, 3] every seat's declared melds (type, kind, from
            seat); the deciding seat's concealed kongs carry their kind, the
            others' carry -1 (face down).
        n_melds: int64[4] declared melds per seat.
        flowers: uint8[4] flowers set aside per seat (bit f: flower f+1).
        pond: int8[4, MAX_POND] each seat's discards in order (kinds),
            claimed ones included.
        pond_flags: int8[4, MAX_POND] ``view.POND_*`` flags per discard.
        n_pond: int64[4] discards per seat.
        drawn: the kind the seat just drew (its self-drawn tile), -1 when
            unknown or for the dealer's dealt 14 tiles.
        offered: the discard offered to ``seat`` for a claim, -1 none.
        replacement: the drawn tile replaced a kong or a flower (a win on
            it is out with a replacement, 杠上开花; docs/rules.md §6).
        passed: bool[4, 42] or None: the kinds each seat let go by since
            its own last discard (the others' discards, and the tiles of
            their added kongs, it did not win on), as the engine's
            ``View.passed``; defend's threat model counts such a kind as
            safe against that seat. None: none known.
    """
    seat: int
    to_play: int
    round_wind: int
    indicator: int
    tiles_left: int
    hand: np.ndarray
    melds: np.ndarray
    n_melds: np.ndarray
    flowers: np.ndarray
    pond: np.ndarray
    pond_flags: np.ndarray
    n_pond: np.ndarray
    drawn: int = -1
    offered: int = -1
    replacement: bool = False
    passed: np.ndarray | None = None


def example_position() -> Position:
    """A small real position (Ningbo, 3 wilds on the indicator 9p): East to
    discard a full flush of m one tile from ready, 60 tiles left. For
    warm-ups, docs and examples."""
    from nbsim.kernels import codes as C
    from nbsim.rules.tiles import parse_counts, parse_tile
    return Position(seat=0, to_play=0, round_wind=0, indicator=parse_tile("9p"),
                    tiles_left=60, hand=parse_counts("1112345678999m7z").astype(np.int8),
                    melds=np.zeros((4, C.MAX_MELDS, 3), np.int8),
                    n_melds=np.zeros(4, np.int64), flowers=np.zeros(4, np.uint8),
                    pond=np.zeros((4, MAX_POND), np.int8),
                    pond_flags=np.zeros((4, MAX_POND), np.int8),
                    n_pond=np.zeros(4, np.int64), drawn=parse_tile("7z"))

"""The decisions of the reviewed seat in a record (docs/rules.md §4-§5).

Walking the record (``record.Table``), the seat decides

* on its turn (it holds 3k + 2 tiles): which tile to discard, whether to
  declare a kong (concealed, or added to its pung) and, with a complete
  hand, whether to win; a flower set aside is no decision;
* when another seat discards a tile it could claim (pung, kong, a chow
  from the seat before it, or a win on it): which claim, or to pass. A
  pass is known when the play goes on with a draw or another seat's chow
  (the lowest claim); when another seat pungs, kongs or wins the tile, the
  seat may have been overruled, so no decision is counted.

Each decision carries the seat's table state at that moment (what it
could see, in ``nbsim advise``'s format) and the move it made.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nbsim.kernels import codes as C
from nbsim.play.review.record import Act, Record, Table
from nbsim.rules.ruleset import RuleSet
from nbsim.rules.tiles import KIND_NAMES, format_tiles

__all__ = ["Move", "Decision", "decisions", "claim_options"]


@dataclass(frozen=True)
class Move:
    """One move: ``action`` "discard", "kong" (own turn: concealed or added;
    at a claim: of the offered tile), "win", "pass", "pung" or "chow";
    ``kind`` the tile discarded, konged, won on or claimed (-1 unknown);
    ``chow`` a chow's lowest kind (-1 otherwise)."""
    action: str
    kind: int = -1
    chow: int = -1

    @property
    def label(self) -> str:
        """'discard 5p', 'kong 9s', 'pung 5p', 'chow 345p', 'win', 'pass'."""
        if self.action == "chow":
            return f"chow {format_tiles([self.chow, self.chow + 1, self.chow + 2])}"
        if self.action in ("win", "pass") or self.kind < 0:
            return self.action
        return f"{self.action} {KIND_NAMES[self.kind]}"


@dataclass(frozen=True)
class Decision:
    """One decision of the seat: ``number`` (1, 2, ... in the deal),
    ``step`` the record's play action it answers (from 1: the seat's move,
    or the discard it passed), ``kind`` "turn" (its own turn) or "claim"
    (another seat's discard), ``state`` its table state then (``nbsim
    advise``'s format: its hand, every seat's melds, discards and flowers,
    the indicator; an offered discard for a claim) and ``made`` the move
    it made."""
    number: int
    step: int
    kind: str
    state: dict[str, Any]
    made: Move


def claim_options(table: Table, discarder: int, kind: int) -> bool:
    """The seat could do more than pass on ``kind`` discarded by
    ``discarder``: pung it (two held, not a wild), chow it (the seat after
    the discarder, a variant with chows) or win on it (it completes the
    hand; the legality of the win is the scorer's, in the rating)."""
    rs, me, hand, wild = table.rs, table.me, table.hand, table.wild
    if kind < C.N_PLAY and not wild[kind] and len(table.melds[me]) < C.MAX_MELDS:
        if hand[kind] >= 2:
            return True
        if rs.config.claims.allow_chow and me == (discarder + 1) % 4 and kind < C.HONOR0:
            r = kind % 9
            for lo in range(kind - min(r, 2), kind + 1):
                if lo % 9 + 2 > 8 or lo // 9 != kind // 9:
                    continue
                if all(j == kind or (hand[j] > 0 and not wild[j]) for j in range(lo, lo + 3)):
                    return True
    h = np.asarray(hand).copy()
    h[kind] += 1
    return table.complete(h)


def _made_on_turn(table: Table, act: Act) -> Move:
    if act.action == "discard":
        return Move("discard", act.tile)
    if act.action in ("ckong", "add"):
        return Move("kong", act.tile)
    return Move("win", table.drew[table.me])


def decisions(rs: RuleSet, rec: Record) -> list[Decision]:
    """Every decision of the record's seat, in order (the module doc says
    which). Replays the whole record first, so a record that does not fit
    the rules is refused before any rating (HandError naming the action:
    ``record.Table``)."""
    table = Table(rs, rec)
    me = rec.seat
    out: list[Decision] = []
    for i, act in enumerate(rec.play):
        made: Move | None = None
        state = None
        kind = ""
        if (act.seat == me and table.phase == "discard" and table.turn == me
                and act.action in ("discard", "ckong", "add", "win")):
            made, state, kind = _made_on_turn(table, act), table.state(), "turn"
        elif table.phase == "draw" and table.last is not None and table.last[0] != me:
            d, k = table.last
            if act.seat == me and act.action in ("pung", "kong", "chow", "win"):
                made = Move(act.action, k, act.low)
            elif act.action == "draw" or (act.action == "chow" and act.seat != me):
                made = Move("pass", k) if claim_options(table, d, k) else None
            if made is not None:
                state, kind = table.state(offered=(d, k)), "claim"
        if made is not None and state is not None:
            out.append(Decision(len(out) + 1, i + 1 if kind == "turn" or made.action != "pass"
                                else i, kind, state, made))
        table.apply(act)
    return out

"""The wins ``nbsim advise`` offers: the win on an offered discard and the
self-drawn win of a complete hand, each scored as ``nbsim score`` scores it
(``nbsim.rules.scorer.score_counts``; docs/rules.md §5-§8).

The situation is read from the ``Position`` as the engine sets it up at the
table (``nbsim/kernels/engine_turn.py``, ``offer_self_draw``):

* heavenly hand: the dealer before any discard or meld (no wait item);
* out with a replacement: the Position's ``replacement`` flag (the drawn
  tile replaced a kong or a flower); the seat that fed a claimed kong is the
  seat whose last discard the seat's last meld, an exposed kong, claimed;
* last tile: no tile left to draw (``tiles_left`` 0);
* earthly hand: on the offered tile, a non-dealer on the dealer's first
  discard (``win.earthly_hand_rule = "dealer_first_discard"``); self-drawn,
  a non-dealer's first draw before any claim (``"first_draw"``).
"""
from __future__ import annotations

import numpy as np

from nbsim.errors import NbsimError
from nbsim.kernels import codes as C
from nbsim.play.advice_notation import POND_CLAIMED, SEATS
from nbsim.play.advice_types import CandidateAdvice
from nbsim.play.position import Position
from nbsim.rules.ruleset import RuleSet
from nbsim.rules.tiles import KIND_NAMES

__all__ = ["WIN_CODE", "win_on_offered", "win_self_drawn"]

WIN_CODE = -1                       # the candidate code of a win (never a discard kind)


def _complete(fit, hand: np.ndarray, n_melds: int) -> bool:
    """Whether ``hand`` (3k + 2 tiles) with ``n_melds`` melds is a complete
    hand by the standard form (docs/rules.md §10.2: shanten -1)."""
    from nbsim.kernels import hand as H
    nat, w = fit.split(hand)
    return int(H.shanten(nat, w, n_melds, fit.tables)) == -1


def _fed(pos: Position) -> tuple[np.ndarray, np.ndarray]:
    """(fed, fed_by_winner), int8[4]: the melds the seat claimed from each
    seat's discards, and those each seat claimed from the seat's discards
    (concealed kongs are nobody's feed; docs/rules.md §7)."""
    me = pos.seat
    fed = np.zeros(4, np.int8)
    fed_by_winner = np.zeros(4, np.int8)
    for s in range(4):
        for i in range(int(pos.n_melds[s])):
            typ, frm = int(pos.melds[s, i, 0]), int(pos.melds[s, i, 2])
            if typ == C.MELD_CKONG:
                continue
            if s == me and 0 <= frm != me:
                fed[frm] += 1
            elif s != me and frm == me:
                fed_by_winner[s] += 1
    return fed, fed_by_winner


def _flowers(pos: Position) -> np.ndarray:
    return np.array([(int(pos.flowers[pos.seat]) >> f) & 1 for f in range(C.N_FLOWERS)],
                    np.int8)


def _kong_feeder(pos: Position) -> int:
    """The seat whose discard the seat's last meld, an exposed kong, claimed
    just before this replacement draw (its last discard, marked claimed), or
    -1 (a concealed or added kong, a flower, or no replacement)."""
    me = pos.seat
    n = int(pos.n_melds[me])
    if not pos.replacement or n == 0:
        return -1
    typ, kind, frm = (int(x) for x in pos.melds[me, n - 1])
    if typ != C.MELD_KONG or not 0 <= frm != me:
        return -1
    last = int(pos.n_pond[frm]) - 1
    if last >= 0 and int(pos.pond[frm, last]) == kind and pos.pond_flags[frm, last] & POND_CLAIMED:
        return frm
    return -1


def _scored(rs: RuleSet, pos: Position, hand: np.ndarray, kind: int, win_by: int, ctx: int,
            discarder: int, kong_from: int = -1):
    """The ScoreResult of the seat winning on ``kind`` (``hand``: before the
    winning tile), or None when it cannot be scored or is not complete."""
    from nbsim.rules.scorer import score_counts
    me = pos.seat
    fed, fed_by_winner = _fed(pos)
    try:
        res = score_counts(rs, hand, pos.melds[me], int(pos.n_melds[me]), _flowers(pos), kind,
                           win_by, ctx, me, pos.round_wind, pos.indicator, discarder, fed,
                           fed_by_winner, kong_from=kong_from)
    except NbsimError:
        return None
    return res if res.complete else None


def _candidate(kind: int, res, what: str) -> CandidateAdvice:
    worth = (f"{res.tai} tai" if res.tai is not None else f"{res.fan} fan") if res.win \
        else "not legal"
    return CandidateAdvice("win", kind, WIN_CODE, f"{what} ({worth})", (), score=res)


def win_on_offered(rs: RuleSet, pos: Position, fit) -> CandidateAdvice | None:
    """The win on the offered tile when it completes the hand (docs/rules.md
    §5): a "win" candidate carrying the scored win (``score``: legal or not,
    and why, its tai or fan and the payments); None when the hand stays
    incomplete or the situation cannot be scored."""
    me, d, src = pos.seat, int(pos.offered), pos.to_play
    h = pos.hand.copy()
    h[d] += 1
    if not _complete(fit, h, int(pos.n_melds[me])):
        return None
    ctx = 0
    if (src == 0 and int(pos.n_pond.sum()) == 1 and int(pos.n_melds[me]) == 0
            and rs.config.win.earthly_hand_rule == "dealer_first_discard"):
        ctx |= C.CTX_EARTHLY
    res = _scored(rs, pos, pos.hand, d, C.WIN_DISCARD, ctx, src)
    return None if res is None else _candidate(d, res, f"win on {KIND_NAMES[d]}")


def _self_draw_context(rs: RuleSet, pos: Position) -> int:
    """The CTX_* bits of a self-drawn win at ``pos`` (module doc)."""
    me = pos.seat
    no_discard = int(pos.n_pond.sum()) == 0
    claims = sum(1 for s in range(4) for i in range(int(pos.n_melds[s]))
                 if int(pos.melds[s, i, 0]) != C.MELD_CKONG)
    if me == 0 and no_discard and int(pos.n_melds.sum()) == 0:
        return C.CTX_HEAVENLY
    ctx = 0
    if pos.replacement:
        ctx |= C.CTX_AFTER_KONG
    if pos.tiles_left == 0:
        ctx |= C.CTX_LAST_TILE
    if (rs.config.win.earthly_hand_rule == "first_draw" and me != 0 and claims == 0
            and int(pos.n_pond[me]) == 0):
        ctx |= C.CTX_EARTHLY
    return ctx


def win_self_drawn(rs: RuleSet, pos: Position, fit) -> CandidateAdvice | None:
    """The self-drawn win of a complete 3k + 2-tile hand (docs/rules.md §5):
    a "win" candidate carrying the scored win, the winning tile being the
    Position's ``drawn`` tile. Without it, each kind held is tried as the
    drawn tile and the least the win pays the seat is shown (label
    "drawn tile not given"). None when the hand is not complete or cannot
    be scored."""
    me = pos.seat
    if pos.offered >= 0 or not _complete(fit, pos.hand, int(pos.n_melds[me])):
        return None
    ctx = _self_draw_context(rs, pos)
    kinds = [int(pos.drawn)] if pos.drawn >= 0 else \
        [k for k in range(C.N_KINDS) if pos.hand[k] > 0]
    found = []
    for k in kinds:
        h = pos.hand.copy()
        h[k] -= 1
        res = _scored(rs, pos, h, k, C.WIN_SELF_DRAW, ctx, -1, _kong_feeder(pos))
        if res is not None:
            pay = (res.payments or {}).get(SEATS[me], 0) if res.win else -10**9
            found.append((pay, k, res))
    if not found:
        return None
    legal = [f for f in found if f[2].win]
    _, k, res = min(legal or found, key=lambda f: f[0])
    what = "self-drawn win" if pos.drawn >= 0 else \
        "self-drawn win, drawn tile not given: the least it pays"
    return _candidate(k, res, what)

"""The wins ``nbsim advise`` offers: the win on an offered discard and the
self-drawn win of a complete hand, each scored as ``nbsim score`` scores it
(``nbsim.rules.scorer.score_counts``; docs/rules.md §5-§8).

The situation is read from the ``Position`` as the engine sets it up at the
table (``nbsim/kernels/engine/turn.py``, ``offer_self_draw``):

* heavenly hand: the dealer before any discard or meld (no wait item);
* out with a replacement: the Position's ``replacement`` flag (the drawn
  tile replaced a kong or a flower); the seat that fed a claimed kong is the
  seat whose last discard the seat's last meld, an exposed kong, claimed;
* last tile: no tile left to draw (``tiles_left`` 0);
* earthly hand: on the offered tile, a non-dealer on the dealer's first
  discard (``win.earthly_hand_rule = "dealer_first_discard"``); self-drawn,
  a non-dealer's first draw before any claim and before a kong of its own
  (``"first_draw"``: a replacement draw after its own kong is no longer the
  first draw).

The heavenly and earthly hands also need the table as given to be the whole
table: ``tiles_left`` the most its tiles allow (``max_wall_left``). A
smaller ``wall_left`` means tiles have left the wall unlisted, discards
among them, so the deal is past its first go-around.

A hand of 3k + 2 tiles without a drawn tile whose last meld claimed the
last discard of its source (``just_claimed``) is a discard after a claim:
it offers no self-drawn win (and, with ``claims.no_kong_after_pung``, no
kong).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from nbsim.errors import NbsimError
from nbsim.kernels import codes as C
from nbsim.play.advice.fits import CandidateAdvice
from nbsim.play.advice.notation import POND_CLAIMED, SEATS
from nbsim.play.advice.state import max_wall_left
from nbsim.play.position import Position
from nbsim.rules.ruleset import RuleSet
from nbsim.rules.tiles import KIND_NAMES

__all__ = ["WIN_CODE", "hand_waits", "win_on_offered", "win_self_drawn", "just_claimed",
           "chow_just_made",
           "chow_swap", "score_command"]

WIN_CODE = -1                       # the candidate code of a win (never a discard kind)


def _complete(fit, hand: np.ndarray, n_melds: int) -> bool:
    """Whether ``hand`` (3k + 2 tiles) with ``n_melds`` melds is a complete
    hand by the standard form (docs/rules.md §10.2: shanten -1)."""
    from nbsim.kernels import hand as H
    nat, w = fit.split(hand)
    return int(H.shanten(nat, w, n_melds, fit.tables)) == -1


def fed_counts(pos: Position) -> tuple[np.ndarray, np.ndarray]:
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


def pond_flowers(pos: Position) -> np.ndarray:
    return np.array([(int(pos.flowers[pos.seat]) >> f) & 1 for f in range(C.N_FLOWERS)],
                    np.int8)


def _claimed_last(pos: Position, types: tuple[int, ...]) -> int:
    """The seat whose last discard (marked claimed) the deciding seat's last
    meld, of one of ``types``, holds; -1 when it holds none."""
    me = pos.seat
    n = int(pos.n_melds[me])
    if n == 0:
        return -1
    typ, kind, frm = (int(x) for x in pos.melds[me, n - 1])
    if typ not in types or not 0 <= frm != me:
        return -1
    last = int(pos.n_pond[frm]) - 1
    if last < 0 or not pos.pond_flags[frm, last] & POND_CLAIMED:
        return -1
    tile = int(pos.pond[frm, last])
    held = kind <= tile <= kind + 2 if typ == C.MELD_CHOW else tile == kind
    return frm if held else -1


def _kong_feeder(pos: Position) -> int:
    """The seat whose discard the seat's last meld, an exposed kong, claimed
    just before this replacement draw, or -1 (a concealed or added kong, a
    flower, or no replacement)."""
    return _claimed_last(pos, (C.MELD_KONG,)) if pos.replacement else -1


def _scored(rs: RuleSet, pos: Position, hand: np.ndarray, kind: int, quiet: bool = False):
    """The ScoreResult of the seat winning on ``kind`` (``hand``: before the
    winning tile; self-drawn at a discard decision, else on the offered
    tile), or None when the hand is not complete. A situation the scorer
    refuses raises its HandError, or gives None when ``quiet``."""
    from nbsim.rules.scorer import score_counts
    me = pos.seat
    fed, fed_by_winner = fed_counts(pos)
    self_draw = pos.offered < 0
    try:
        res = score_counts(rs, hand, pos.melds[me], int(pos.n_melds[me]), pond_flowers(pos), kind,
                           C.WIN_SELF_DRAW if self_draw else C.WIN_DISCARD, _context(rs, pos),
                           me, pos.round_wind, pos.indicator, -1 if self_draw else pos.to_play,
                           fed, fed_by_winner, kong_from=_kong_feeder(pos) if self_draw else -1)
    except NbsimError:
        if quiet:
            return None
        raise
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
    me, d = pos.seat, int(pos.offered)
    h = pos.hand.copy()
    h[d] += 1
    if not _complete(fit, h, int(pos.n_melds[me])):
        return None
    res = _scored(rs, pos, pos.hand, d)
    return None if res is None else _candidate(d, res, f"win on {KIND_NAMES[d]}")


def _context(rs: RuleSet, pos: Position) -> int:
    """The CTX_* bits of the seat's win at ``pos`` (module doc): on the
    offered tile, or self-drawn at a discard decision."""
    me = pos.seat
    whole = int(pos.tiles_left) == max_wall_left(rs, pos)     # nothing left unlisted
    if pos.offered >= 0:
        return C.CTX_EARTHLY if (whole and pos.to_play == 0 and int(pos.n_pond.sum()) == 1
                                 and int(pos.n_melds[me]) == 0
                                 and rs.config.win.earthly_hand_rule == "dealer_first_discard"
                                 ) else 0
    no_discard = int(pos.n_pond.sum()) == 0
    claims = sum(1 for s in range(4) for i in range(int(pos.n_melds[s]))
                 if int(pos.melds[s, i, 0]) != C.MELD_CKONG)
    if whole and me == 0 and no_discard and int(pos.n_melds.sum()) == 0:
        return C.CTX_HEAVENLY
    ctx = 0
    if pos.replacement:
        ctx |= C.CTX_AFTER_KONG
    if pos.tiles_left == 0:
        ctx |= C.CTX_LAST_TILE
    if (whole and rs.config.win.earthly_hand_rule == "first_draw" and me != 0 and claims == 0
            and int(pos.n_pond[me]) == 0 and int(pos.n_melds[me]) == 0):
        ctx |= C.CTX_EARTHLY
    return ctx


def chow_swap(lo: int, tile: int, n_hand: int, wild) -> tuple[int, ...]:
    """The kinds a seat may not discard right after chowing ``tile`` into
    the chow lo..lo+2 with ``n_hand`` concealed tiles left (with
    ``claims.forbid_chow_swap``, docs/rules.md §4; as the engine sets them,
    ``engine_claims``): the tile itself and, for an end chow, the kind past
    its other end, of the same suit and not a wild. () when 2 tiles or
    fewer are left (the engine lifts the limit then)."""
    if n_hand <= 2:
        return ()
    j = tile - lo
    other = lo + 3 if j == 0 else (lo - 1 if j == 2 else -1)
    keep = 0 <= other < C.HONOR0 and other // 9 == lo // 9 and not wild[other]
    return (tile,) + ((other,) if keep else ())


def chow_just_made(pos: Position) -> tuple[int, int] | None:
    """(the chow's lowest kind, the claimed tile) when the seat, to discard
    without a drawn tile, has just chowed (``just_claimed`` with a chow);
    None otherwise."""
    if pos.offered >= 0 or pos.drawn >= 0:
        return None
    frm = _claimed_last(pos, (C.MELD_CHOW,))
    if frm < 0:
        return None
    me = pos.seat
    lo = int(pos.melds[me, int(pos.n_melds[me]) - 1, C.MELD_KIND])
    return lo, int(pos.pond[frm, int(pos.n_pond[frm]) - 1])


def just_claimed(pos: Position) -> bool:
    """Whether the seat, to discard without a drawn tile, has just claimed:
    its last meld, a pung or chow, holds the last discard of the seat it
    came from, marked claimed."""
    return (pos.offered < 0 and pos.drawn < 0
            and _claimed_last(pos, (C.MELD_PUNG, C.MELD_CHOW)) >= 0)


def win_self_drawn(rs: RuleSet, pos: Position, fit) -> CandidateAdvice | None:
    """The self-drawn win of a complete 3k + 2-tile hand (docs/rules.md §5):
    a "win" candidate carrying the scored win, the winning tile being the
    Position's ``drawn`` tile. Without it, each kind held is tried as the
    drawn tile and the least the win is worth is shown (label "drawn tile
    not given"; not legal when one drawn tile would make it so). None when
    the hand is not complete, the seat has just claimed (``just_claimed``)
    or the situation cannot be scored."""
    me = pos.seat
    if (pos.offered >= 0 or just_claimed(pos)
            or not _complete(fit, pos.hand, int(pos.n_melds[me]))):
        return None
    kinds = [int(pos.drawn)] if pos.drawn >= 0 else \
        [k for k in range(C.N_KINDS) if pos.hand[k] > 0]
    found = []
    for k in kinds:
        h = pos.hand.copy()
        h[k] -= 1
        res = _scored(rs, pos, h, k, quiet=pos.drawn < 0)
        if res is not None:
            pay = (res.payments or {}).get(SEATS[me], 0) if res.win else -10**9
            found.append((pay, k, res))
    if not found:
        return None
    _, k, res = min(found, key=lambda f: f[0])        # a win that is not legal pays least
    what = "self-drawn win" if pos.drawn >= 0 else \
        "self-drawn win, drawn tile not given: the least it is worth"
    return _candidate(k, res, what)


def score_command(rs: RuleSet, pos: Position, c: CandidateAdvice) -> str:
    """The ``nbsim score`` command line that scores the win candidate ``c``
    of ``pos`` item by item (the same situation: contexts, feeds, the kong's
    feeder)."""
    me = pos.seat
    self_draw = pos.offered < 0
    hand = pos.hand.copy()
    if self_draw:
        hand[c.kind] -= 1
    from nbsim.play.advice.notation import meld_kinds
    from nbsim.rules.tiles import format_tiles
    parts = [f"nbsim score {rs.name} --hand "
             f"{format_tiles(k for k in range(C.N_KINDS) for _ in range(int(hand[k])))}",
             f"--win-tile {KIND_NAMES[c.kind]}",
             "--self-draw" if self_draw else f"--discarder {SEATS[pos.to_play]}",
             f"--seat {SEATS[me]} --round {SEATS[pos.round_wind]}"]
    if pos.indicator >= 0:
        parts.append(f"--indicator {KIND_NAMES[pos.indicator]}")
    for i in range(int(pos.n_melds[me])):
        typ, kind, _ = (int(x) for x in pos.melds[me, i])
        parts.append(f"--meld {C.MELD_NAMES[typ]}:{format_tiles(meld_kinds(typ, kind))}")
    fl = pond_flowers(pos)
    if fl.any():
        parts.append("--flowers " + format_tiles(C.FLOWER0 + f for f in range(C.N_FLOWERS)
                                                 if fl[f]))
    ctx = _context(rs, pos)
    for bit, name in ((C.CTX_AFTER_KONG, "after_kong"), (C.CTX_LAST_TILE, "last_tile"),
                      (C.CTX_HEAVENLY, "heavenly"), (C.CTX_EARTHLY, "earthly")):
        if ctx & bit:
            parts.append(f"--context {name}")
    feeder = _kong_feeder(pos) if self_draw else -1
    if feeder >= 0:
        parts.append(f"--kong-from {SEATS[feeder]}")
    fed, fed_by_winner = fed_counts(pos)
    parts += [f"--fed {SEATS[s]}={int(fed[s])}" for s in range(4) if fed[s]]
    parts += [f"--fed-by-winner {SEATS[s]}={int(fed_by_winner[s])}" for s in range(4)
              if fed_by_winner[s]]
    return " ".join(parts)


def hand_waits(rs: RuleSet, pos: Position, fit, hand: np.ndarray, melds: np.ndarray,
               n_melds: int) -> tuple[tuple[int, bool, bool], ...]:
    """The waits of the seat's concealed ``hand`` (int8[42], 3k + 1 tiles)
    beside its ``melds`` (int8[4, 3], ``n_melds`` of them), as the scorer
    decides them (``nbsim.rules.scorer.score_counts``; docs/rules.md §5):
    (kind, legal self-drawn, legal on a discard) for every kind the seat
    may still get (an unseen copy; a flower only when wild) that completes
    the hand. A win counts as legal on a discard when one of the other
    seats' discards of it makes a legal win (the payments differ by
    discarder, the minimum rarely does). No special context (a replacement
    draw, the last tile) is assumed. () when no kind completes the hand."""
    from nbsim.kernels import hand as H
    from nbsim.rules.scorer import score_counts
    me = pos.seat
    all_melds = pos.melds.copy()
    all_melds[me] = melds
    fed, fed_by_winner = fed_counts(dataclasses.replace(pos, melds=all_melds,
                                                  n_melds=_with(pos.n_melds, me, n_melds)))
    nat, w = fit.split(hand)
    flowers = pond_flowers(pos)
    out = []
    for t in range(C.N_KINDS):
        if fit.unseen[t] <= 0 or not (t < C.FLOWER0 or fit.wild[t]):
            continue
        if fit.wild[t]:
            done = bool(H.is_complete(nat, w + 1, fit.tables))
        else:
            nat[t] += 1
            done = bool(H.is_complete(nat, w, fit.tables))
            nat[t] -= 1
        if not done:
            continue
        legal = []
        for win_by, discarders in ((C.WIN_SELF_DRAW, (-1,)),
                                   (C.WIN_DISCARD, tuple(s for s in range(4) if s != me))):
            ok = False
            for d in discarders:
                try:
                    res = score_counts(rs, hand, melds, n_melds, flowers, t, win_by, 0, me,
                                       pos.round_wind, pos.indicator, d, fed, fed_by_winner)
                except NbsimError:
                    continue
                if res.win:
                    ok = True
                    break
            legal.append(ok)
        out.append((t, legal[0], legal[1]))
    return tuple(out)


def _with(a: np.ndarray, i: int, v: int) -> np.ndarray:
    b = a.copy()
    b[i] = v
    return b

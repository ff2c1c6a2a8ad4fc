"""Score one winning situation from notation: ``score_hand`` -> ``ScoreResult``,
and its text view (``format_result``: ``nbsim score``).

Wraps the Numba kernel ``nbsim.kernels.scoring.score.score_win`` (docs/rules.md
§3, §5-§8 and §10) in steps: load the rules and the hand tables once
(``cached_rules``), parse and check the notation (``_parse``: hand and
winning tile, melds, seats, indicator, flowers, context), score, then turn a
kernel error code into one ``HandError`` message that names what is wrong
and what is allowed (``_error_message``) or the result array into a
``ScoreResult`` (``_result``). The JSONL case format (``nbsim score
--cases``) is ``nbsim.rules.cases``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from nbsim.errors import ConfigError, HandError, TileError
from nbsim.kernels import codes as C
from nbsim.rules.ruleset import RuleSet, as_rules, load_rules
from nbsim.rules.tiles import KIND_NAMES, parse_meld, parse_seat, parse_tile, parse_tiles

__all__ = ["ScoreResult", "score_hand", "score_counts", "cached_rules", "present_items",
           "format_result", "why_text", "absent_items", "display_width"]

WIN_BY_NAMES = C.WIN_BY_NAMES
@dataclass(frozen=True)
class ScoreResult:
    """The scored situation (docs/rules.md §5-§8, §10).

    config: variant name. complete: the 14 tiles form 4 melds + pair.
    win: a legal win under every rule of the variant; why: the reason when
    not (``codes.WHY_NAMES``: legal, not_complete, below_min_tai, ...).
    tai / tai_for_min: total tai of the counted reading with / without
    three_wilds (tai systems; None when not complete or for Ninghai).
    items: {item id: tai} of the counted reading, non-zero items only.
    present: the ids of the tai items that apply in the counted reading, in
    ``codes.TAI_ITEMS`` order, items worth 0 tai in the variant included
    (``chicken_hand`` in ningbo-3baida; docs/rules.md §6, §10.3); empty for
    Ninghai and incomplete hands.
    fan, fu, points {scheme: points}, silver (what each payer owes): Ninghai
    only (None otherwise); fan is capped at ``fan_cap``.
    fan_items: {fan item id: fan} of the counted reading before the fan cap
    (so they may add up to more than ``fan``), non-zero only; fu_items: {fu
    item id: fu}, non-zero only, adding up to ``fu`` (docs/rules.md §8,
    §10.4). Both empty for the tai systems and incomplete hands.
    payments: {seat: net points}, zero-sum, for legal wins whose payers are
    known; None otherwise. wilds: wild tiles among the 14 concealed tiles.
    """
    config: str
    complete: bool
    win: bool
    why: str
    tai: int | None = None
    tai_for_min: int | None = None
    items: dict[str, int] = field(default_factory=dict)
    present: list[str] = field(default_factory=list)
    fan: int | None = None
    fu: int | None = None
    points: dict[str, int] | None = None
    silver: int | None = None
    payments: dict[str, int] | None = None
    fan_items: dict[str, int] = field(default_factory=dict)
    fu_items: dict[str, int] = field(default_factory=dict)
    wilds: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain-data copy (JSON-ready)."""
        return asdict(self)


# ---------------------------------------------------------------- caches
_rules_cache: dict[tuple, RuleSet] = {}


def cached_rules(config, overrides=()) -> RuleSet:
    """The RuleSet of ``config`` (a loaded RuleSet, a shipped name or a TOML
    path) with ``overrides``, loaded once per name and overrides in this
    process. Raises ConfigError as ``ruleset.load_rules`` does."""
    if isinstance(config, RuleSet):
        return as_rules(config, overrides)
    from nbsim.args import config_name
    key = (str(config_name(config)), tuple(overrides))
    rs = _rules_cache.get(key)
    if rs is None:
        rs = load_rules(config, overrides)
        _rules_cache[key] = rs
    return rs


def _tables():
    from nbsim.rules.lookups import load_tables
    return load_tables()


# ---------------------------------------------------------------- parsing helpers
def _seat(value, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    if not isinstance(value, str):
        raise HandError(f"{what} {value!r}: expected one of E S W N")
    try:
        return parse_seat(value, what=what)
    except TileError as e:
        raise HandError(str(e)) from None


def _seat_counts(value, what: str) -> np.ndarray:
    out = np.zeros(4, dtype=np.int8)
    if value is None:
        return out
    if not isinstance(value, Mapping):
        raise HandError(f"{what}: expected a mapping seat -> number of melds, "
                        f"e.g. {{\"W\": 3}}, got {value!r}")
    for k, v in value.items():
        s = _seat(k, f"{what} seat")
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= C.MAX_MELDS:
            raise HandError(f"{what}[{k}]: {v!r} is not a number of melds 0-{C.MAX_MELDS}")
        out[s] = v
    return out


def _parse_hand(hand, win_tile) -> tuple[np.ndarray, int]:
    """The concealed tiles as counts (int8[N_KINDS]) and the winning tile's
    kind. Raises TileError / HandError."""
    if not isinstance(hand, str):
        raise HandError(f"hand: expected tile notation text such as '123m55z', got {hand!r}")
    counts = np.zeros(C.N_KINDS, dtype=np.int8)
    for k in parse_tiles(hand, what="hand"):
        counts[k] += 1
    if not isinstance(win_tile, str):
        raise HandError(f"win_tile: expected one tile such as '5p', got {win_tile!r}")
    return counts, parse_tile(win_tile, what="win_tile")


def _parse_melds(melds) -> tuple[np.ndarray, int]:
    """Declared melds as rows (type, kind, -1) of int8[MAX_MELDS, 3] and
    their number. Raises TileError / HandError."""
    from nbsim.args import text_items
    marr = np.zeros((C.MAX_MELDS, 3), dtype=np.int8)
    melds = list(text_items(melds, "melds", "['pung:777z']", HandError))
    if len(melds) > C.MAX_MELDS:
        raise HandError(f"melds: {len(melds)} melds given, at most {C.MAX_MELDS}")
    for i, m in enumerate(melds):
        if not isinstance(m, str):
            raise HandError(f"melds[{i}]: expected text such as 'pung:777z', got {m!r}")
        t, k = parse_meld(m)
        marr[i] = (t, k, -1)
    return marr, len(melds)


def _parse_indicator(indicator) -> int:
    """The indicator's kind, -1 for None or ''. Raises TileError / HandError."""
    if indicator is None or indicator == "":
        return -1
    if isinstance(indicator, str):
        return parse_tile(indicator, what="indicator")
    raise HandError(f"indicator: expected one tile such as '9m' or null, got {indicator!r}")


def _parse_flowers(flowers) -> np.ndarray:
    """Flowers set aside as int8[N_FLOWERS] (1 = set aside). Raises
    TileError / HandError (not text, or a tile that is not a flower)."""
    fl = np.zeros(C.N_FLOWERS, dtype=np.int8)
    if not flowers:
        return fl
    if not isinstance(flowers, str):
        raise HandError(f"flowers: expected flower notation such as '1f5f', got {flowers!r}")
    for k in parse_tiles(flowers, what="flowers"):
        if k < C.FLOWER0:
            raise HandError(f"flowers {flowers!r}: {KIND_NAMES[k]} is not a flower "
                            f"(flowers are 1f-8f)")
        fl[k - C.FLOWER0] = 1
    return fl


def _parse_context(context) -> int:
    """The context names as a bit mask (bit i = ``codes.CONTEXT_NAMES[i]``).
    Raises HandError for an unknown name."""
    from nbsim.args import text_items
    ctx = 0
    for c in text_items(context, "context", "['after_kong']", HandError) or ():
        if c not in C.CONTEXT_NAMES:
            raise HandError(f"context {c!r}: expected any of {', '.join(C.CONTEXT_NAMES)}")
        ctx |= 1 << C.CONTEXT_NAMES.index(c)
    return ctx


def _parse(rs: RuleSet, hand, win_tile, melds, win_by, seat, round_wind, indicator, flowers,
           context, discarder, fed, fed_by_winner, kong_from):
    """Notation -> the kernel's arguments, checked in this order: hand and
    winning tile, melds, win_by, seat, round, indicator, flowers, context,
    discarder, kong_from, fed, fed_by_winner. Raises TileError / HandError
    for the first bad one."""
    counts, wt = _parse_hand(hand, win_tile)
    marr, n_melds = _parse_melds(melds)
    if win_by not in WIN_BY_NAMES:
        raise HandError(f"win_by {win_by!r}: expected one of {', '.join(WIN_BY_NAMES)}")
    wb = WIN_BY_NAMES.index(win_by)
    s = _seat(seat, "seat")
    r = _seat(round_wind, "round")
    ind = _parse_indicator(indicator)
    fl = _parse_flowers(flowers)
    ctx = _parse_context(context)
    disc = -1 if discarder is None else _seat(discarder, "discarder")
    kf = -1 if kong_from is None else _seat(kong_from, "kong_from")
    return (counts, marr, n_melds, fl, wt, wb, ctx, s, r, ind, disc,
            _seat_counts(fed, "fed"), _seat_counts(fed_by_winner, "fed_by_winner"), kf)


def _error_message(code: int, rs: RuleSet, a) -> str:
    """One message for kernel error ``code`` naming what is wrong and what is allowed."""
    (counts, marr, n_melds, fl, wt, wb, ctx, s, r, ind, disc, fed, fbw, kf) = a
    from nbsim.kernels.wilds import wild_kinds
    wilds = set(wild_kinds(rs.array, ind)) if ind >= 0 else set()
    seats = C.SEAT_NAMES
    if code == C.E_TILE_COUNT:
        n = int(counts.sum())
        return (f"hand holds {n} tile{'' if n == 1 else 's'} and {n_melds} "
                f"meld{'' if n_melds == 1 else 's'}: the concealed tiles before the "
                f"winning tile plus 3 per meld (kongs count 3) must make 13, so with "
                f"{n_melds} melds the hand needs {13 - 3 * n_melds} tiles")
    if code == C.E_FIVE_COPIES:
        tot = counts.astype(int).copy()
        tot[wt] += 1
        if ind >= 0:
            tot[ind] += 1
        for i in range(n_melds):
            t, k = int(marr[i, 0]), int(marr[i, 1])
            if t == C.MELD_CHOW:
                for d in range(3):
                    tot[k + d] += 1
            else:
                tot[k] += 3 if t == C.MELD_PUNG else 4
        for f in range(C.N_FLOWERS):
            tot[C.FLOWER0 + f] += fl[f]
        bad = [KIND_NAMES[k] for k in range(C.N_KINDS)
               if tot[k] > (4 if k < C.FLOWER0 else 1)]
        return (f"too many copies of {', '.join(bad)} counting hand, melds, winning tile and "
                f"indicator (at most 4 of a tile, 1 of each flower)")
    if code == C.E_FLOWER_IN_HAND:
        bad = [KIND_NAMES[k] for k in range(C.FLOWER0, C.N_KINDS)
               if (counts[k] or wt == k) and k not in wilds]
        return (f"flower {', '.join(bad)} in the hand or as the winning tile: flowers are set "
                f"aside (use flowers=...); only a wild flower may be held")
    if code == C.E_WILD_IN_MELD:
        names = ", ".join(KIND_NAMES[k] for k in sorted(wilds))
        return (f"a declared meld holds a wild tile ({names} "
                f"with indicator {KIND_NAMES[ind]}): wilds cannot be part of a chow, pung or kong")
    if code == C.E_CHOW_NOT_ALLOWED:
        return f"chow melds are not allowed in {rs.name} (claims.allow_chow = false)"
    if code == C.E_INDICATOR_NO_WILDS:
        return (f"{rs.name} has no wilds (wilds.wilds = \"none\"): give no indicator "
                f"(omit --indicator; null in a case)")
    if code == C.E_NO_INDICATOR:
        return (f"{rs.name} plays with wilds ({rs.config.wilds.wilds}): the indicator tile is "
                f"required")
    if code == C.E_ROB_WILD:
        return (f"robbing a kong on {KIND_NAMES[wt]}, a wild tile: wilds are never konged, "
                f"so they cannot be robbed")
    if code == C.E_BAD_FED:
        n_claimed = sum(1 for i in range(n_melds) if marr[i, 0] != C.MELD_CKONG)
        return (f"fed counts {int(fed.sum())} melds claimed from other players' discards but only "
                f"{n_claimed} claimed melds (chow, pung, exposed kong) are shown")
    if code == C.E_BAD_SEAT:
        me = seats[s]
        if disc >= 0 and wb == C.WIN_SELF_DRAW:
            return "discarder given on a self-drawn win: only discard and robbing wins have one"
        if disc == s:
            return f"discarder {me} is the winner's own seat: it must be another of E S W N"
        if fed[s] or fbw[s]:
            return (f"fed / fed_by_winner name the winner's own seat {me}: they count melds "
                    f"between the winner and the other seats")
        return "bad seat value: seats are E S W N"
    if code == C.E_BAD_HEAVENLY:
        return ("heavenly context: only the dealer (seat E) can have a heavenly hand, "
                "self-drawn, with no melds")
    if code == C.E_BAD_EARTHLY:
        if rs.config.win.earthly_hand_rule == "first_draw":
            rule = "a non-dealer's self-drawn win on its own first draw, with no melds"
        else:
            rule = "a non-dealer's win on the dealer's (E) first discard, with no melds"
        return f"earthly context does not fit earthly_hand_rule = " \
               f"\"{rs.config.win.earthly_hand_rule}\" of {rs.name}: it needs {rule}"
    if code == C.E_BAD_AFTER_KONG:
        return ("after_kong context on a win that is not self-drawn: a kong or flower "
                "replacement tile is drawn by the winner")
    if code == C.E_BAD_FLOWER:
        bad = [KIND_NAMES[C.FLOWER0 + f] for f in range(C.N_FLOWERS)
               if fl[f] and (C.FLOWER0 + f in wilds or C.FLOWER0 + f == ind)]
        return (f"flowers set aside include {', '.join(bad)}, a wild flower or the indicator: "
                f"wild flowers are never set aside and the indicator is not drawn")
    if code == C.E_BAD_KONG_FROM:
        return ("kong_from needs a self-drawn win with the after_kong context, a seat other "
                "than the winner's, and an exposed kong among the melds")
    if code == C.E_BAD_MELD:
        return "malformed meld (type chow/pung/kong/ckong of suited or honor tiles)"
    if code == C.E_BAD_LIABLE:
        return "a liable seat needs a Ninghai variant with three_melds_liability"
    return f"invalid input ({C.ERROR_NAMES[code] if code < len(C.ERROR_NAMES) else code})"


def present_items(mask: int) -> list[str]:
    """The tai item ids of a presence bit mask (``codes.RES_PRESENT``: bit t =
    item t of ``codes.TAI_ITEMS``), in that order."""
    return [n for i, n in enumerate(C.TAI_ITEMS) if mask >> i & 1]


def _result(rs: RuleSet, res: np.ndarray, payments_known: bool) -> ScoreResult:
    complete = bool(res[C.RES_COMPLETE])
    win = bool(res[C.RES_WIN])
    why = C.WHY_NAMES[int(res[C.RES_WHY])]
    tai_sys = rs.config.scoring.system == "tai"
    kw: dict[str, Any] = {}
    if complete and tai_sys:
        kw["tai"] = int(res[C.RES_TAI])
        kw["tai_for_min"] = int(res[C.RES_TAI_FOR_MIN])
        kw["items"] = {n: int(res[C.RES_ITEMS + i]) for i, n in enumerate(C.TAI_ITEMS)
                       if res[C.RES_ITEMS + i]}
        kw["present"] = present_items(int(res[C.RES_PRESENT]))
    if complete and not tai_sys:
        kw["fan"] = int(res[C.RES_FAN])
        kw["fu"] = int(res[C.RES_FU])
        kw["points"] = {n: int(res[C.RES_POINTS + i]) for i, n in enumerate(C.SCHEME_NAMES)}
        kw["silver"] = int(res[C.RES_SILVER])
        kw["fan_items"] = {n: int(res[C.RES_FAN_ITEMS + i]) for i, n in enumerate(C.FAN_ITEMS)
                           if res[C.RES_FAN_ITEMS + i]}
        kw["fu_items"] = {n: int(res[C.RES_FU_ITEMS + i]) for i, n in enumerate(C.FU_ITEMS)
                          if res[C.RES_FU_ITEMS + i]}
    if win and payments_known:
        kw["payments"] = {n: int(res[C.RES_PAY + i]) for i, n in enumerate(C.SEAT_NAMES)}
    return ScoreResult(config=rs.name, complete=complete, win=win, why=why,
                       wilds=int(res[C.RES_WILDS]), **kw)


def score_hand(config, hand: str, win_tile: str, *, melds: Iterable[str] = (),
               win_by: str = "discard", seat: str = "E", round_wind: str = "E",
               indicator: str | None = None, flowers: str = "", context: Iterable[str] = (),
               discarder: str | None = None, fed: Mapping[str, int] | None = None,
               fed_by_winner: Mapping[str, int] | None = None, kong_from: str | None = None,
               overrides: Iterable[str] = ()) -> ScoreResult:
    """Score a winning situation written in notation (docs/rules.md §5-§8, §10).

    Args:
        config: shipped config name, TOML path, or a loaded ``RuleSet``.
        hand: the winner's concealed tiles before the winning tile, e.g.
            ``"234m567p345s67s55m"``; wild tiles appear as their own tile.
        win_tile: the winning tile, e.g. ``"8s"``.
        melds: declared melds, ``"chow:345s"``, ``"pung:777z"``,
            ``"kong:7777z"`` (exposed), ``"ckong:9999s"`` (concealed).
        win_by: ``"self_draw"``, ``"discard"`` or ``"robbing_kong"``.
        seat, round_wind: ``"E" "S" "W" "N"``; the dealer is E.
        indicator: the flipped indicator tile, None in variants without wilds.
        flowers: flowers set aside, e.g. ``"1f5f"``.
        context: any of ``after_kong``, ``last_tile``, ``heavenly``, ``earthly``.
        discarder: seat of the discarder (robbing: the robbed player); None on
            a discard/robbing win means no payments are computed.
        fed: {seat: melds the winner claimed from that seat's discards}.
        fed_by_winner: {seat: melds that seat claimed from the winner's discards}.
        kong_from: with after_kong, the seat whose discard the winner konged.
        overrides: ``--set`` style overrides, e.g. ``("win.min_tai=5",)``.
    Returns:
        ScoreResult (tai in tai, Ninghai points in points).
    Raises:
        TileError (bad notation), ConfigError (bad config), HandError (an
        invalid situation: wrong tile count, five copies, a flower in hand, a
        wild in a meld, impossible context, ...), each with one message.
    """
    from nbsim.args import text_items
    from nbsim.kernels.scoring.score import HandTiles, Win, score_win
    rs = cached_rules(config, text_items(overrides, "overrides", "['win.min_tai=5']", ConfigError))
    a = _parse(rs, hand, win_tile, melds, win_by, seat, round_wind, indicator, flowers,
               context, discarder, fed, fed_by_winner, kong_from)
    (counts, marr, n_melds, fl, wt, wb, ctx, s, r, ind, disc, fd, fbw, kf) = a
    res = np.zeros(C.RES_LEN, dtype=np.int64)
    code = score_win(rs.array, _tables(), HandTiles(counts, marr, n_melds, fl),
                     Win(wt, wb, ctx, s, r, ind, disc, fd, fbw, kf, -1), res)
    if code != C.OK:
        raise HandError(_error_message(int(code), rs, a))
    payments_known = wb == C.WIN_SELF_DRAW or disc >= 0
    return _result(rs, res, payments_known)


def score_counts(rs: RuleSet, hand: np.ndarray, melds: np.ndarray, n_melds: int,
                 flowers: np.ndarray, win_kind: int, win_by: int, ctx: int, seat: int,
                 round_wind: int, indicator: int, discarder: int, fed: np.ndarray,
                 fed_by_winner: np.ndarray, kong_from: int = -1) -> ScoreResult:
    """``score_hand`` for a situation already in the kernel's encoding
    (the fields of ``nbsim.kernels.scoring.score.score_win``'s records: counts,
    meld rows, flag arrays, ``codes`` constants), as the advice has it from a Position;
    kong_from: the seat whose discard the winner konged before a winning
    replacement draw, or -1. Raises HandError for an invalid situation."""
    from nbsim.kernels.scoring.score import HandTiles, Win, score_win
    res = np.zeros(C.RES_LEN, dtype=np.int64)
    a = (hand.astype(np.int8), melds.astype(np.int8), int(n_melds), flowers.astype(np.int8),
         int(win_kind), int(win_by), int(ctx), int(seat), int(round_wind), int(indicator),
         int(discarder), fed.astype(np.int8), fed_by_winner.astype(np.int8), int(kong_from))
    code = score_win(rs.array, _tables(), HandTiles(*a[:4]), Win(*a[4:], -1), res)
    if code != C.OK:
        raise HandError(_error_message(int(code), rs, a))
    return _result(rs, res, win_by == C.WIN_SELF_DRAW or discarder >= 0)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal (Chinese characters take two)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - display_width(text))


_WAIT_ITEMS = ("chicken_hand", "all_chows", "edge_wait", "closed_wait", "single_wait",
               "dual_pung_wait")


def why_text(result: ScoreResult, rs: RuleSet | None = None) -> str:
    """The legal-win decision in words, with the numbers behind it
    ("below the minimum: 3 < 4 tai (three_wilds does not count)"); the
    rules are docs/rules.md §5 and §10."""
    why = result.why
    win = rs.config.win if rs is not None else None
    if why == "below_min_tai" and win is not None and result.tai_for_min is not None:
        extra = (" (三财神 three_wilds does not count toward it)"
                 if result.tai is not None and result.tai != result.tai_for_min else "")
        return f"below the minimum: {result.tai_for_min} < {win.min_tai} tai{extra}"
    if why == "pattern_not_allowed" and win is not None:
        from nbsim.rules.names import tai_label
        return ("the variant only lets these patterns win: "
                + ", ".join(tai_label(p) for p in win.allowed_patterns))
    if why == "wild_discard_rule" and win is not None:
        rule = win.discard_win_wild_rule
        what = ("the winning tile only pairs with a wild (财神单吊) in every reading that "
                "reaches the minimum" if rule == "forbid_wild_pair" else
                "the winning tile needs a wild in its meld or pair in every reading")
        return f"no win on a discard when {what} (discard_win_wild_rule = \"{rule}\"); " \
               f"a self-draw would be a win"
    if why == "self_draw_only":
        return "this variant wins only by self-draw or robbing a kong (self_draw_only)"
    if why == "wild_single_cannot_rob":
        return "a player waiting on a wild single (抛搭) may not rob a kong"
    if why == "three_wilds_self_draw_only":
        return "a hand holding all three wilds may only win by self-draw " \
               "(three_wilds_self_draw_only)"
    if why == "not_complete":
        return "not a complete hand (4 melds + pair, wilds standing for any tile)"
    return why.replace("_", " ")


def absent_items(result: ScoreResult, rs: RuleSet | None = None, *, win_by: str | None = None,
                 context=()) -> list[str]:
    """Why items a player might expect do not apply, one sentence each
    (docs/rules.md §6 and §10): three wilds on a discard win, a last-tile
    discard win, wait items that need a single waiting kind; and the items
    that apply but are worth 0 tai in the variant (``result.present``)."""
    from nbsim.rules.names import tai_label
    if rs is None or result.fan is not None or not result.complete:
        return []
    tai = rs.config.scoring.tai
    notes = []
    if result.wilds >= 3 and "three_wilds" in tai and "three_wilds" not in result.present \
            and win_by not in (None, "self_draw"):
        notes.append(f"{tai_label('three_wilds')}: needs a self-drawn win; holding the three "
                     f"wilds on a {win_by.replace('_', ' ')} win scores nothing")
    if "last_tile" in tuple(context or ()) and win_by != "self_draw":
        notes.append(f"{tai_label('last_tile_draw')}: needs a self-draw of the last tile; a "
                     f"discard on the last tile scores nothing extra")
    if rs.config.win.wait_needs_single_kind and "heavenly" not in tuple(context or ()) and \
            not any(i in result.present for i in _WAIT_ITEMS):
        notes.append("no wait item: in this variant edge, closed and single waits need a hand "
                     "that waits on one kind only (wait_needs_single_kind)")
    for item in result.present:
        if tai.get(item) == 0:
            notes.append(f"{tai_label(item)}: applies, but is worth 0 tai in {rs.name}")
    return notes


def format_result(result: ScoreResult, rs: RuleSet | None = None, *,
                  win_by: str | None = None, indicator: str | None = None,
                  context=()) -> str:
    """Readable table of a ScoreResult (the ``nbsim score`` single-hand view):
    each item with its Chinese name beside the id (清一色 full_flush) and its
    tai, the total, the wild kinds, the legal-win decision with its reason
    and the numbers behind it, why an item one might expect does not apply,
    and the payments. Ninghai: fan and fu with the points of every scheme
    (and the fan and fu items when the result carries them). ``rs``,
    ``win_by``, ``indicator`` and ``context`` are the scored situation's
    (docs/rules.md §5-§8, §10). Each line is wrapped to
    ``stats.TEXT_WIDTH`` columns."""
    from nbsim.rules.names import WILD, fan_label, fu_label, scheme_label, tai_label
    from nbsim.stats import fill
    lines = [f"config: {result.config}"]
    if indicator and rs is not None:
        from nbsim.kernels.wilds import wild_kinds
        kinds = wild_kinds(rs.array, parse_tile(indicator, what="indicator"))
        lines.append(f"indicator {indicator}: wilds ({WILD}) are "
                     + " ".join(KIND_NAMES[k] for k in kinds))
    if not result.complete:
        lines.append("not a complete hand (4 melds + pair with the wilds): no reading")
    elif result.fan is None:
        # every item that applies, those worth 0 tai in the variant too
        rows = [(tai_label(k), result.items.get(k, 0)) for k in C.TAI_ITEMS
                if k in result.items or k in result.present]
        width = max([27] + [display_width(r[0]) + 2 for r in rows])
        lines.append(f"{_pad('item', width)}{'tai':>5}")
        for label, v in rows:
            lines.append(f"{_pad(label, width)}{v:>5}")
        lines.append(f"{_pad('total', width)}{result.tai:>5}")
        lines.append(f"{_pad('total without three_wilds', width)}{result.tai_for_min:>5}")
    else:
        for family, label_of in (("fan_items", fan_label), ("fu_items", fu_label)):
            items = getattr(result, family, None)
            if items:
                lines.append(f"{family[:-6]} items: " + ", ".join(
                    f"{label_of(k)} {v}" for k, v in items.items()))
        lines.append(f"fan {result.fan}  fu {result.fu}   (points = (base + fu) x 2^fan rounded "
                     f"up to 10, capped; 推倒八 100 x 2^fan: docs/rules.md §8)")
        for k, v in (result.points or {}).items():
            lines.append(f"  {scheme_label(k):<18}{v:>6} points")
        lines.append(f"silver per payer: {result.silver}")
    lines.append(f"wilds held: {result.wilds}")
    if result.win:
        lines.append("legal win: yes")
    else:
        lines.append(f"legal win: no ({why_text(result, rs)})")
    for note in absent_items(result, rs, win_by=win_by, context=context):
        lines.append(f"not counted: {note}")
    if result.payments is not None:
        lines.append("payments: " + "  ".join(f"{k} {v:+d}" for k, v in result.payments.items()))
    elif result.win:
        lines.append("payments: not computed (no discarder given)")
    return fill("\n".join(lines), indent="  ")

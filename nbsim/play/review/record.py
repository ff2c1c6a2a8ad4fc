"""The record of one deal as one seat saw it: what ``nbsim review`` reads.

A record holds what the reviewed seat could know at the table
(docs/rules.md §2-§6): its own tiles after the deal and the flowers'
replacement, the indicator, the round wind, the flowers every seat set
aside before the first discard, and every play action in order, each seat's
draws without their tiles except its own. The format (JSON; docs/guide/players.md)::

    {"variant": "ningbo-3baida", "seat": "S", "round": "E", "indicator": "6p",
     "hand": "13489m78p356s355z", "flowers": {"S": "2f", "N": "46f"},
     "play": ["E discard 1z", "S draw 7p", "S discard 9m", "W draw",
              "W discard 4m", "S chow 345m", "S discard 1m", "W pung", ...]}

Each play action is ``SEAT ACTION [TILES]``: ``draw`` and ``replace`` (a
tile from the tail after a kong or a flower; the tile for the reviewed seat
only), ``flower T`` (set aside during play), ``discard T``, ``chow TTT``,
``pung``, ``kong`` (of the last discard; its tile may be written),
``ckong T`` (a concealed kong; the tile for the reviewed seat only),
``add T`` (a kong added to the seat's own pung) and ``win [T]`` (self-drawn
after the seat's own draw, or on the last discard). Optional keys:
``pay`` (the payments at the end, by seat) and ``source`` (a line saying
where the record comes from).

``Table`` replays a record action by action and refuses it at the first
inconsistency, with one ``HandError`` naming the action and what is wrong:
a tile count that does not add up, a fifth copy, a claim that was not
possible, a draw after the wall ran out, an action out of turn.
``record_from_events`` writes a played deal's event log (``nbsim simulate
--events``, ``nbsim replay``) as the record of one seat.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nbsim.errors import HandError, NbsimError
from nbsim.kernels import codes as C
from nbsim.play.advice.notation import SEATS, format_pond, seat_index, wind_index
from nbsim.rules.ruleset import RuleSet
from nbsim.rules.tiles import KIND_NAMES, format_tiles, parse_tile, parse_tiles

__all__ = ["ACTIONS", "RECORD_KEYS", "Act", "Record", "Table", "parse_record", "read_record",
           "record_json", "record_from_events", "wild_kinds"]

ACTIONS = ("draw", "replace", "flower", "discard", "chow", "pung", "kong", "ckong", "add", "win")
RECORD_KEYS = ("variant", "seat", "round", "indicator", "hand", "flowers", "play", "pay",
               "source")
_HIDDEN_OK = ("draw", "replace", "ckong")         # another seat's tile may be left out
_OPTIONAL = ("pung", "kong", "win")                # the tile is known from the table
_ACT = re.compile(r"^\s*([ESWNeswn])\s+([a-z_]+)(?:\s+(\S+))?\s*$")
DEALT = 13 * 4 + 1                                 # tiles dealt: 13 each, 14 for the dealer


@dataclass(frozen=True)
class Act:
    """One play action: ``seat`` 0..3 (E S W N), ``action`` (``ACTIONS``),
    ``tile`` the kind (0..41; -1 not written), ``low`` a chow's lowest kind
    (-1 otherwise) and ``text`` as written."""
    seat: int
    action: str
    tile: int = -1
    low: int = -1
    text: str = ""


@dataclass(frozen=True)
class Record:
    """A deal as ``seat`` saw it (the module doc gives the format).

    variant: the rules (a shipped name or a TOML path; a run's resolved
    rules when ``rules`` is given); seat, round_wind: 0..3; indicator: a
    kind, -1 for a variant without wilds; hand: the seat's kinds after the
    deal and the flowers' replacement (14 for the dealer E, else 13);
    flowers: per seat, the flower kinds set aside before the first discard;
    play: the actions in order; pay: the payments at the end by seat
    (points), None when not given; source: where the record comes from;
    rules: the resolved config (a dict) when the record comes from a run."""
    variant: str
    seat: int
    round_wind: int
    indicator: int
    hand: tuple[int, ...]
    flowers: tuple[tuple[int, ...], ...]
    play: tuple[Act, ...]
    pay: tuple[int, ...] | None = None
    source: str = ""
    rules: dict[str, Any] | None = field(default=None, compare=False)


def _act(text: Any, i: int, me: int) -> Act:
    """One play action parsed (``SEAT ACTION [TILES]``); HandError naming
    the action (number ``i`` from 1) when it does not read."""
    where = f"record play action {i} ({text!r})"
    m = _ACT.match(text) if isinstance(text, str) else None
    if m is None:
        raise HandError(f"{where}: expected 'SEAT ACTION [TILES]', e.g. 'S discard 5p' "
                        f"(SEAT one of E S W N; ACTION one of {', '.join(ACTIONS)})")
    seat, action, arg = SEATS.index(m.group(1).upper()), m.group(2), m.group(3)
    if action not in ACTIONS:
        raise HandError(f"{where}: unknown action {action!r}; allowed {', '.join(ACTIONS)}")
    try:
        if action == "chow":
            if arg is None:
                raise HandError(f"{where}: a chow names its three tiles, e.g. 'S chow 345m'")
            kinds = sorted(parse_tiles(arg, what="chow"))
            if (len(kinds) != 3 or kinds[0] >= C.HONOR0 or kinds[2] - kinds[0] != 2
                    or kinds[1] - kinds[0] != 1 or kinds[0] // 9 != kinds[2] // 9):
                raise HandError(f"{where}: a chow is three consecutive tiles of one suit, "
                                f"e.g. 345m")
            return Act(seat, action, -1, kinds[0], text.strip())
        if arg is None:
            if action in _OPTIONAL or (action in _HIDDEN_OK and seat != me):
                return Act(seat, action, -1, -1, text.strip())
            raise HandError(f"{where}: {action} needs its tile"
                            + (" (the reviewed seat's own tiles are all written)"
                               if action in _HIDDEN_OK else ""))
        tiles = parse_tiles(arg, what=action)
    except NbsimError as e:
        raise HandError(f"{where}: {e}") from None
    if action == "ckong" and len(tiles) == 4 and len(set(tiles)) == 1:
        tiles = tiles[:1]
    if len(tiles) != 1:
        raise HandError(f"{where}: {action} takes one tile, got {arg!r}")
    return Act(seat, action, tiles[0], -1, text.strip())


def parse_record(data: Mapping[str, Any]) -> Record:
    """A record (the JSON object of the module doc, parsed) as a Record.

    Checks the notation only, each a HandError naming the key: unknown
    keys, a missing variant, seat or hand, a bad seat, wind or tile, a play
    action that does not read. ``Table`` checks the play against the
    rules."""
    if not isinstance(data, Mapping):
        raise HandError(f"a record is a JSON object with keys {', '.join(RECORD_KEYS)}; got "
                        f"{type(data).__name__}")
    bad = sorted(set(data) - set(RECORD_KEYS))
    if bad:
        raise HandError(f"record: unknown keys {', '.join(bad)}; allowed "
                        f"{', '.join(RECORD_KEYS)}")
    for key in ("variant", "seat", "hand", "play"):
        if key not in data:
            raise HandError(f"record: {key!r} is missing (docs/guide/players.md gives the format)")
    if not isinstance(data["variant"], str) or not data["variant"].strip():
        raise HandError("record: 'variant' is a shipped config's name or a TOML path")
    me = seat_index(data["seat"], "record: seat")
    rw = wind_index(data.get("round", "E"), "record: round")
    try:
        ind = data.get("indicator")
        indicator = -1 if ind in (None, "") else parse_tile(ind, what="record: indicator")
        hand = tuple(sorted(parse_tiles(data["hand"], what="record: hand")))
        flowers: list[tuple[int, ...]] = [(), (), (), ()]
        given = data.get("flowers") or {}
        if not isinstance(given, Mapping):
            raise HandError("record: 'flowers' maps seats to tiles, e.g. {\"S\": \"2f6f\"}")
        for s, text in given.items():
            flowers[seat_index(s, "record: flowers")] = tuple(
                parse_tiles(text or "", what=f"record: flowers of {s}"))
    except NbsimError as e:
        raise HandError(str(e) if str(e).startswith("record") else f"record: {e}") from None
    play = data["play"]
    if isinstance(play, str) or not isinstance(play, Sequence):
        raise HandError("record: 'play' is a list of actions, e.g. [\"E discard 1z\", "
                        "\"S draw\"]")
    acts = tuple(_act(t, i, me) for i, t in enumerate(play, 1))
    pay = data.get("pay")
    pays = None
    if pay is not None:
        if not isinstance(pay, Mapping) or sorted(str(k).upper() for k in pay) != sorted(SEATS) \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in pay.values()):
            raise HandError("record: 'pay' gives every seat's payment in points, e.g. "
                            "{\"E\": -5, \"S\": 15, \"W\": -5, \"N\": -5}")
        by = {str(k).upper(): int(v) for k, v in pay.items()}
        pays = tuple(by[s] for s in SEATS)
    source = data.get("source", "")
    return Record(data["variant"].strip(), me, rw, indicator, hand, tuple(flowers), acts, pays,
                  str(source or ""))


def read_record(path: str | Path) -> Record:
    """The record in the JSON file ``path`` (``parse_record``). Raises
    HandError for a file that is not a JSON object or a bad record, OSError
    for a file that cannot be read."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise HandError(f"{path}: not JSON ({e})") from None
    try:
        return parse_record(data)
    except HandError as e:
        raise HandError(f"{path}: {e}") from None


def record_json(rec: Record) -> dict[str, Any]:
    """The record as its JSON object (the inverse of ``parse_record``)."""
    out: dict[str, Any] = {"variant": rec.variant, "seat": SEATS[rec.seat],
                           "round": SEATS[rec.round_wind]}
    if rec.indicator >= 0:
        out["indicator"] = KIND_NAMES[rec.indicator]
    out["hand"] = format_tiles(rec.hand)
    fl = {SEATS[s]: format_tiles(f) for s, f in enumerate(rec.flowers) if f}
    if fl:
        out["flowers"] = fl
    out["play"] = [a.text or _act_text(a) for a in rec.play]
    if rec.pay is not None:
        out["pay"] = dict(zip(SEATS, rec.pay, strict=True))
    if rec.source:
        out["source"] = rec.source
    return out


def _act_text(a: Act) -> str:
    arg = (format_tiles([a.low, a.low + 1, a.low + 2]) if a.action == "chow"
           else KIND_NAMES[a.tile] if a.tile >= 0 else "")
    return f"{SEATS[a.seat]} {a.action} {arg}".strip()


def record_from_events(variant: str, row: Mapping[str, Any], events: Sequence[dict],
                       seat: str | int, source: str = "",
                       rules: dict[str, Any] | None = None) -> Record:
    """The record of ``seat`` (E S W N or 0..3) of a played deal: its
    game-mode ``row`` and event log (``nbsim.play.replays.replay``, or a
    run made with ``--events``), with the other seats' drawn tiles and
    face-down kongs left out. Raises HandError for a bad seat."""
    from nbsim.play.replays import play_start
    me = seat_index(seat, "seat")
    rw = row["round_wind"]
    rw = SEATS.index(rw) if isinstance(rw, str) else int(rw)
    play: list[str] = []
    for e in list(events)[play_start(list(events)):]:
        a, s, t = e["action"], e["seat"], e["tile"]
        if s is None or a in ("pass_win", "exhausted"):
            continue
        mine = SEATS.index(s) == me
        if a in ("draw", "replace"):
            play.append(f"{s} {a} {t}" if mine else f"{s} {a}")
        elif a in ("flower", "discard", "pung", "kong"):
            play.append(f"{s} {a} {t}")
        elif a == "chow":
            play.append(f"{s} chow {e['meld'].split(':')[-1]}")
        elif a == "concealed_kong":
            play.append(f"{s} ckong {t}" if mine else f"{s} ckong")
        elif a == "added_kong":
            play.append(f"{s} add {t}")
        elif a == "win":
            play.append(f"{s} win {t}" if t else f"{s} win")
    data: dict[str, Any] = {
        "variant": variant, "seat": SEATS[me], "round": SEATS[rw],
        "hand": row[f"hand_{SEATS[me].lower()}"],
        "flowers": {s: row[f"flowers_{s.lower()}"] for s in SEATS
                    if row.get(f"flowers_{s.lower()}")},
        "play": play, "pay": {s: int(row[f"pay_{s.lower()}"]) for s in SEATS},
        "source": source}
    if row.get("indicator"):
        data["indicator"] = row["indicator"]
    rec = parse_record(data)
    return Record(rec.variant, rec.seat, rec.round_wind, rec.indicator, rec.hand, rec.flowers,
                  rec.play, rec.pay, rec.source, rules)


def wild_kinds(rs: RuleSet, indicator: int) -> np.ndarray:
    """bool[42]: the wild kinds of the variant for the indicator kind
    (``kernels.wilds.wild_mask``)."""
    from nbsim.kernels.wilds import wild_mask
    wild = np.zeros(C.N_KINDS, np.bool_)
    wild_mask(rs.array, np.int64(indicator), wild)
    return wild


class Table:
    """A record replayed action by action, as the reviewed seat sees the
    table: its hand (int64[42]), each seat's concealed-tile count, ponds
    (kind, flags: ``notation.POND_*``), melds (type, kind, from seat; the
    others' concealed kongs face down, kind -1), flowers, the kinds each
    seat let go by, the tile each seat just drew, the drawable tiles left
    and whose turn it is. ``apply`` checks each action (HandError naming
    it); ``state`` gives the seat's table state (``nbsim advise``'s
    format) between actions."""

    def __init__(self, rs: RuleSet, rec: Record) -> None:
        self.rs, self.rec, self.me = rs, rec, rec.seat
        self.wild = wild_kinds(rs, rec.indicator)
        if rs.config.wilds.wilds != "none" and rec.indicator < 0:
            raise HandError(f"record: the variant {rs.name} has wilds: give the indicator")
        if rec.indicator >= 0 and rs.config.wilds.wilds == "none":
            raise HandError(f"record: the variant {rs.name} has no wilds: leave out the "
                            f"indicator")
        need = 14 if self.me == 0 else 13
        if len(rec.hand) != need:
            raise HandError(f"record: a tile count that does not add up: the hand holds "
                            f"{len(rec.hand)} tiles after the deal; {SEATS[self.me]} is dealt "
                            f"{need}")
        self.hand = np.bincount(np.asarray(rec.hand, np.int64), minlength=C.N_KINDS)
        self.count = [14 if s == 0 else 13 for s in range(4)]
        self.ponds: list[list[list[int]]] = [[], [], [], []]
        self.melds: list[list[list[int]]] = [[], [], [], []]
        self.flowers = [set(f) for f in rec.flowers]
        self.passed: list[set[int]] = [set(), set(), set(), set()]
        self.before = self.passed        # the kinds let go by before the last discard
        self.drew: list[int] = [-1] * 4
        self.replaced = False
        self.turn, self.phase = 0, "discard"        # phase: discard, draw, replace, over
        self.last: tuple[int, int] | None = None    # (seat, kind) of the discard on offer
        self.added: tuple[int, int] | None = None   # (seat, kind) of a kong added just now
        w = rs.config.wall
        n_flowers = sum(len(f) for f in rec.flowers)
        self.left = (C.N_TILES - DEALT - (1 if rec.indicator >= 0 else 0) - n_flowers
                     - 2 * w.reserve_stacks)
        self.step = 0
        for f in (k for fl in rec.flowers for k in fl):
            if f < C.FLOWER0 or self.wild[f]:
                raise HandError(f"record: flowers: {KIND_NAMES[f]} is not a flower set aside "
                                f"(a wild flower is kept in the hand)")
        for k in (k for fl in rec.flowers for k in fl):
            if sum(k in f for f in rec.flowers) > 1:
                raise HandError(f"record: a fifth copy: flower {KIND_NAMES[k]} is set aside "
                                f"twice")
        self._check_copies("record: hand")

    # ------------------------------------------------------------ checks
    def _fail(self, act: Act, what: str) -> HandError:
        return HandError(f"record play action {self.step} ({act.text!r}): {what}")

    def visible(self) -> np.ndarray:
        """int64[42]: copies the seat sees (hand, melds, ponds' unclaimed
        tiles, flowers set aside, the indicator)."""
        from nbsim.play.advice.notation import POND_CLAIMED, meld_kinds
        v = self.hand.copy()
        for s in range(4):
            for k, flags in self.ponds[s]:
                if not flags & POND_CLAIMED:
                    v[k] += 1
            for typ, kind, _ in self.melds[s]:
                if kind >= 0:
                    for k in meld_kinds(typ, kind):
                        v[k] += 1
            for f in self.flowers[s]:
                v[f] += 1
        if self.rec.indicator >= 0:
            v[self.rec.indicator] += 1
        return v

    def _check_copies(self, where: str) -> None:
        v = self.visible()
        limit = np.array([4] * C.N_PLAY + [1] * C.N_FLOWERS)
        over = [k for k in range(C.N_KINDS) if v[k] > limit[k]]
        if over:
            k = over[0]
            raise HandError(f"{where}: a fifth copy of {KIND_NAMES[k]}: {int(v[k])} seen "
                            f"(hand {int(self.hand[k])}, the rest on the table), a set holds "
                            f"{int(limit[k])}")

    def _take(self, act: Act, s: int, k: int, n: int, why: str) -> None:
        """``n`` tiles of kind ``k`` (-1: unknown) leave seat ``s``'s hand."""
        if s == self.me and k >= 0:
            if self.hand[k] < n:
                raise self._fail(act, f"{why}: {SEATS[s]} holds {int(self.hand[k])} "
                                      f"{KIND_NAMES[k]}, needs {n}")
            self.hand[k] -= n
        if self.count[s] < n:
            raise self._fail(act, f"a tile count that does not add up: {SEATS[s]} holds "
                                  f"{self.count[s]} concealed tiles, needs {n}")
        self.count[s] -= n

    def _own_turn(self, act: Act) -> None:
        s = act.seat
        if self.phase != "discard" or self.turn != s:
            raise self._fail(act, f"out of turn: {self._whose()}")
        melds = len(self.melds[s])
        if self.count[s] != 14 - 3 * melds:
            raise self._fail(act, f"a tile count that does not add up: {SEATS[s]} holds "
                                  f"{self.count[s]} concealed tiles with {melds} melds; "
                                  f"{14 - 3 * melds} on its turn")

    def _whose(self) -> str:
        if self.phase == "over":
            return "the deal is over (a win ends it)"
        if self.phase == "replace":
            return f"{SEATS[self.turn]} is to draw its replacement tile"
        if self.phase == "draw":
            nxt = SEATS[(self.turn) % 4]
            return f"{nxt} is to draw (or a seat to claim {KIND_NAMES[self.last[1]]})" \
                if self.last else f"{nxt} is to draw"
        return f"{SEATS[self.turn]} is to play"

    def _claimed(self, act: Act) -> tuple[int, int]:
        """The discard on offer that ``act`` claims: (discarder, kind)."""
        if self.phase != "draw" or self.last is None:
            raise self._fail(act, f"a claim that was not possible: no discard is on offer "
                                  f"({self._whose()})")
        d, k = self.last
        if d == act.seat:
            raise self._fail(act, "a claim that was not possible: a seat never claims its own "
                                  "discard")
        if act.tile >= 0 and act.tile != k and act.action != "chow":
            raise self._fail(act, f"a claim that was not possible: the discard on offer is "
                                  f"{KIND_NAMES[k]}, not {KIND_NAMES[act.tile]}")
        if self.wild[k] and act.action != "win":
            raise self._fail(act, f"a claim that was not possible: {KIND_NAMES[k]} is a wild, "
                                  f"never claimed (docs/rules.md §3)")
        if act.action != "win" and len(self.melds[act.seat]) >= C.MAX_MELDS:
            raise self._fail(act, f"a claim that was not possible: {SEATS[act.seat]} has "
                                  f"{C.MAX_MELDS} melds")
        return d, k

    def _draw_tile(self, act: Act) -> None:
        self.added = None
        if self.left <= 0:
            raise self._fail(act, "a draw after the wall ran out (no drawable tile left)")
        self.left -= 1
        s = act.seat
        if s == self.me:
            self.hand[act.tile] += 1
        self.count[s] += 1
        self.drew = [-1] * 4
        self.drew[s] = act.tile
        self.replaced = act.action == "replace"
        self.turn, self.phase, self.last = s, "discard", None

    # ------------------------------------------------------------ actions
    def apply(self, act: Act) -> None:
        """Play ``act`` on the table; HandError when it does not fit."""
        from nbsim.play.advice.notation import POND_CLAIMED, POND_DRAWN
        self.step += 1
        s, k, a = act.seat, act.tile, act.action
        if self.phase == "over":
            raise self._fail(act, "the deal is over: a win ends it")
        if a == "draw":
            if self.phase != "draw" or self.turn != s:
                raise self._fail(act, f"out of turn: {self._whose()}")
            self._draw_tile(act)
        elif a == "replace":
            if self.phase != "replace" or self.turn != s:
                raise self._fail(act, f"out of turn: a replacement tile follows a kong or a "
                                      f"flower of the same seat ({self._whose()})")
            self._draw_tile(act)
        elif a == "flower":
            if self.phase != "discard" or self.turn != s:
                raise self._fail(act, f"out of turn: {self._whose()}")
            if k < C.FLOWER0 or self.wild[k]:
                raise self._fail(act, f"{KIND_NAMES[k]} is not a flower set aside (a wild "
                                      f"flower is kept in the hand)")
            self._take(act, s, k, 1, "a flower set aside must be held")
            self.flowers[s].add(k)
            self.phase = "replace"
        elif a == "discard":
            self._own_turn(act)
            self._take(act, s, k, 1, "a discard must be held")
            flags = POND_DRAWN if self.drew[s] == k else 0
            self.ponds[s].append([k, flags])
            self.passed[s].clear()
            self.before = [set(p) for p in self.passed]
            for o in range(4):
                if o != s:
                    self.passed[o].add(k)
            self.drew[s] = -1
            self.last = (s, k)
            self.turn, self.phase = (s + 1) % 4, "draw"
        elif a in ("pung", "kong", "chow"):
            d, k = self._claimed(act)
            if a == "chow":
                if not self.rs.config.claims.allow_chow:
                    raise self._fail(act, f"a claim that was not possible: {self.rs.name} has "
                                          f"no chows")
                if s != (d + 1) % 4:
                    raise self._fail(act, f"a claim that was not possible: only "
                                          f"{SEATS[(d + 1) % 4]}, the seat after "
                                          f"{SEATS[d]}, may chow its discard")
                if not act.low <= k <= act.low + 2:
                    raise self._fail(act, f"a claim that was not possible: the chow does not "
                                          f"hold the discard on offer, {KIND_NAMES[k]}")
                if any(self.wild[j] for j in range(act.low, act.low + 3)):
                    raise self._fail(act, "a claim that was not possible: a wild never goes "
                                          "into a meld")
                for j in range(act.low, act.low + 3):
                    if j != k:
                        self._take(act, s, j, 1, "a claim that was not possible")
                meld = [C.MELD_CHOW, act.low, d]
            else:
                n = 2 if a == "pung" else 3
                if a == "kong" and self.left - 2 * self.rs.config.wall.reserve_stacks_per_kong \
                        <= 0:
                    raise self._fail(act, "a claim that was not possible: no replacement tile "
                                          "is left for a kong")
                self._take(act, s, k, n, "a claim that was not possible")
                meld = [C.MELD_PUNG if a == "pung" else C.MELD_KONG, k, d]
            self.ponds[d][-1][1] |= POND_CLAIMED
            self.melds[s].append(meld)
            self.last = None
            self.drew = [-1] * 4
            self.turn = s
            if a == "kong":
                self._kong()
            else:
                self.phase = "discard"
        elif a == "ckong":
            self._own_turn(act)
            if s == self.me and (k < 0 or k >= C.N_PLAY or self.wild[k]):
                raise self._fail(act, "a claim that was not possible: a concealed kong is four "
                                      "copies of a kind that is not a wild or a flower")
            if len(self.melds[s]) >= C.MAX_MELDS:
                raise self._fail(act, f"{SEATS[s]} has {C.MAX_MELDS} melds already")
            self._take(act, s, k if s == self.me else -1, 4, "a concealed kong must be held")
            self.melds[s].append([C.MELD_CKONG, k if s == self.me else -1, -1])
            self._kong()
        elif a == "add":
            self._own_turn(act)
            i = next((i for i, m in enumerate(self.melds[s])
                      if m[0] == C.MELD_PUNG and m[1] == k), None)
            if i is None:
                raise self._fail(act, f"a claim that was not possible: {SEATS[s]} has no pung "
                                      f"of {KIND_NAMES[k]} to add to")
            self._take(act, s, k, 1, "the added tile must be held")
            self.melds[s][i][0] = C.MELD_KONG
            self.added = (s, k)
            for o in range(4):
                if o != s:
                    self.passed[o].add(k)
            self._kong()
        elif a == "win":
            self._win(act)
        self._check_copies(f"record play action {self.step} ({act.text!r})")

    def _kong(self) -> None:
        per = 2 * self.rs.config.wall.reserve_stacks_per_kong
        if self.left - per <= 0:
            raise HandError(f"record play action {self.step}: a kong with no replacement "
                            f"tile left")
        self.left -= per
        self.phase = "replace"

    def _win(self, act: Act) -> None:
        s = act.seat
        if self.phase == "discard" and self.turn == s:
            self._own_turn(act)
            if act.tile >= 0 and s == self.me and self.hand[act.tile] == 0:
                raise self._fail(act, f"a self-drawn win on {KIND_NAMES[act.tile]}, which "
                                      f"{SEATS[s]} does not hold")
            if s == self.me and not self.complete(self.hand):
                raise self._fail(act, "a claim that was not possible: the hand is not "
                                      "complete")
        else:
            if self.phase == "replace" and self.added is not None and self.added[0] != s:
                d, k = self.added               # the added kong robbed (docs/rules.md §6)
            else:
                d, k = self._claimed(act)
            if s == self.me:
                h = self.hand.copy()
                h[k] += 1
                if not self.complete(h):
                    raise self._fail(act, f"a claim that was not possible: "
                                          f"{KIND_NAMES[k]} does not complete the hand")
        self.phase = "over"

    def complete(self, hand: np.ndarray) -> bool:
        """The seat's concealed ``hand`` (int64[42], 3k + 2 tiles beside its
        melds) is a complete hand, wilds as wilds (``kernels.hand.shanten``
        -1; docs/rules.md §5)."""
        from nbsim.kernels import hand as H
        from nbsim.rules.lookups import load_tables
        nat = np.where(self.wild[:C.N_PLAY], 0, hand[:C.N_PLAY]).astype(np.int8)
        return int(H.shanten(nat, int(hand[self.wild].sum()), len(self.melds[self.me]),
                             load_tables())) == -1

    # ------------------------------------------------------------ the seat's view
    def state(self, offered: tuple[int, int] | None = None) -> dict[str, Any]:
        """The seat's table state now (``nbsim.play.advice.state``'s format),
        with the discard ``offered`` = (discarder, kind) apart from its pond
        (a claim decision) or the tile the seat just drew (a discard)."""
        from nbsim.play.advice.notation import meld_kinds
        me = self.me
        st: dict[str, Any] = {"seat": SEATS[me], "round": SEATS[self.rec.round_wind]}
        if self.rec.indicator >= 0:
            st["indicator"] = KIND_NAMES[self.rec.indicator]
        st["hand"] = format_tiles(k for k in range(C.N_KINDS) for _ in range(int(self.hand[k])))
        melds: dict[str, list[str]] = {}
        for s in range(4):
            for typ, kind, frm in self.melds[s]:
                if kind < 0:
                    text = "ckong"
                else:
                    text = f"{C.MELD_NAMES[typ]}:{format_tiles(meld_kinds(typ, kind))}"
                    if frm >= 0:
                        text += f"@{SEATS[frm]}"
                melds.setdefault(SEATS[s], []).append(text)
        if melds:
            st["melds"] = melds
        discards = {}
        for s in range(4):
            pond = self.ponds[s][:-1] if offered and offered[0] == s else self.ponds[s]
            if pond:
                discards[SEATS[s]] = format_pond([p[0] for p in pond], [p[1] for p in pond])
        if discards:
            st["discards"] = discards
        fl = {SEATS[s]: format_tiles(sorted(f)) for s, f in enumerate(self.flowers) if f}
        if fl:
            st["flowers"] = fl
        let_go = self.before if offered is not None else self.passed
        passed = {SEATS[s]: format_tiles(sorted(p)) for s, p in enumerate(let_go) if p}
        if passed:
            st["passed"] = passed
        if offered is not None:
            st["offered"] = KIND_NAMES[offered[1]]
            st["from"] = SEATS[offered[0]]
        elif self.drew[me] >= 0:
            st["drawn"] = KIND_NAMES[self.drew[me]]
            if self.replaced:
                st["replacement"] = True
        return st

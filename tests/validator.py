"""A slow, independent validator of played deals (the game engine's event logs).

It replays one deal's event log from the dice to the end, keeping its own
copy of every hand, meld, flower and wall position, and checks every action
against docs/rules.md §2-§5 and §7-§8 and the choices documented in the
module docstring of ``nbsim/kernels/engine/loop.py``. It shares no code with the
engine: the only imports from nbsim are ``nbsim.rules.tiles`` (notation) and
``nbsim.errors``; options are read from the RuleSet's validated config model
(``rs.config`` / ``rs.to_dict()``), never from the kernels' rules array;
``nbsim.kernels.codes`` is not used either. Wins, tai, fan/fu/points and
payments are checked with the slow reference scorer
``tests/reference_scorer.py`` (through the adapter ``reference_score``
below), legality of every possible win included. Ninghai liability
payments (not an input of the reference scorer) are applied here: the
liable player pays all three shares (docs/rules.md §8).

Entry points
------------
``validate_deal(rules, row, events, restrict_first=None, stats=None)`` ->
list of violation strings (empty: the deal is valid). ``row`` is one row of
``nbsim.run.game_mode.game_frame`` / ``play_one`` (dict), ``events`` its event rows
(dicts with seat, action, tile, meld, from_seat, pos as the events frame
writes them: seats 'E'..'N' or None, tiles in notation, meld 'chow:345s' /
'pung:777z' / 'kong:7777z' / 'ckong:...' or the win kind). ``stats`` (a
``collections.Counter``) counts the situations checked (kongs, robbing,
chow-swap restrictions, first go-around discards, liability, ...).
``validate_frame(rules, df, ev, ...)`` validates every deal of a game or
match frame.

What is checked (see ``tests/test_validator.py`` for the tampering tests)
-------------------------------------------------------------------------
* Dice: 2 per throw (``dice_throws``), values 1-6, equal to the row's dice.
  Indicator: present iff the variant has wilds, at draw-order position
  ``144 - 2 * smaller die`` (of the last throw): the smaller die counts
  stacks back from the tail, the top tile of that stack; in draw order the
  tail stack is 143 (bottom) and 142 (top). Its kind gives the wild kinds
  (section 3, computed here) which must equal the row's ``wild_kinds``.
* Deal: the 53 deal rows take positions 0..52 in the documented order
  (three rounds of 4 tiles for E S W N: position 16r + 4s + k; then one tile
  each at 48 + s; the dealer's 14th at 52). Flower replacement: seats E S W
  N in turn; each round sets aside every non-wild flower in hand (flower
  rows) and draws as many replacements from the tail; until none is left.
  Wild flowers stay. Hands, flowers, wild counts and ``dealer_complete``
  equal the row's deal columns.
* Wall: each draw-order position is drawn at most once; live draws take the
  next position from 0 upwards, replacements the next one from 143
  downwards, both skipping the indicator; per-kind totals (indicator
  included) never exceed 4 (flowers 1), and are exact when the whole wall
  was drawn. A draw happens only while a drawable tile is left:
  ``drawable = tiles left - 2 * (reserve_stacks + reserve_stacks_per_kong *
  kongs)`` (Ningbo 0 + 0; Ninghai 9 + 1 per kong); a drawn non-wild flower
  is set aside at once and replaced from the tail; every kong is followed
  by a replacement.
* Hands: every discard, meld tile and kong tile is held; the concealed
  tiles plus 3 per meld are 14 before a discard and 13 after it.
* Turn order: after a discard the next player (counterclockwise E S W N)
  draws unless the discard is won or claimed. Claims: pung (two natural
  copies), exposed kong (three), chow (only the next player, only with
  ``allow_chow``, two natural hand tiles of the chow); never a wild, never
  a meld with a wild; a discard made when nothing is left to draw is never
  claimed (engine choice); no kong without a replacement tile left (engine
  choice); after a chow the claimer only discards (engine choice), after a
  pung too unless ``no_kong_after_pung`` is false (then a concealed or
  added kong may come first). Chow swap (``forbid_chow_swap``): after a chow
  the claimed kind and the kind at the other end of the two hand tiles
  (for an end chow) may not be discarded, unless the chow leaves a single
  tile (big single); a wild tile is never forbidden (a wild cannot make a
  chow, docs/rules.md §3); when every held tile is forbidden any may go.
  Concealed kong: four natural copies; added kong: own exposed pung plus
  the fourth, on the player's own turn after a draw. Robbing only on an
  added kong (the kong is then not completed). First go-around
  (``first_round_restrictions``, when ``restrict_first``): during the first
  four discards only m/p tiles may be discarded (any if the player holds
  none) and no chow, pung or kong is made.
* Wins: after every draw (and for the dealer's dealt 14 tiles: heavenly),
  on every discard (each other player, counterclockwise from the
  discarder) and on every added kong, the validator decides with its own
  complete-hand check and the reference scorer whether the win is legal;
  a legal win must be either taken (win row) or declined (pass_win row),
  in counterclockwise order, before any pung/chow/draw; a win or pass_win
  row for an illegal win is an error. Contexts: after_kong (the tile came
  from the tail), last_tile (no drawable tile left after the draw), heavenly
  (the dealer's dealt hand), earthly (``dealer_first_discard``: a win on
  the first discard of the deal by a player without melds;
  ``first_draw``: a non-dealer's first draw with no claim before it: a
  chow, pung or exposed kong of a discard; concealed kongs and flower
  replacements do not count, docs/rules.md §6).
  ``kong_from`` is the discarder of an exposed kong whose replacement
  (possibly after flowers) is the winning tile. Ninghai liability is
  recomputed here (engine docstring): the discarder, not ready after the
  discard, when the winner's exposed melds (3 or more, concealed kongs not
  counted) are all of one suit (honors allowed) and the discard is of that
  suit, or the winner shows 3 exposed pungs/kongs and the discard is a
  terminal or an honor.
* Result row: outcome, winner, discarder, win_tile (null for a heavenly
  hand), context, turns, tiles_left, kongs, melds_*, flowers_end_* (each
  seat's flowers set aside by the end of the deal), tai and every tai_<item>
  and has_<item> (the items that apply, 0-tai items included), or fan, fu,
  every fan_<item> and fu_<item>, points_<scheme>, liable, fu_<seat>;
  wilds_win and pay_* equal what the replay and the reference scorer give;
  payments sum to zero and are all zero (and no item applies) on an
  exhaustive draw. Conservation at the end: every tile taken
  from the wall is in a hand, a meld, the flowers set aside, the pond
  (unclaimed discards) or is the winning tile. Event steps run 0, 1, 2, ...
* Matches (``validate_match``): dealer rotation, players' seats, round-wind
  advance, the end after the North round, and the match totals.
"""
from __future__ import annotations

from collections import Counter
from functools import cache

from nbsim.errors import NbsimError
from nbsim.rules.tiles import KIND_NAMES, format_counts, parse_meld, parse_tiles

SEATS = ("E", "S", "W", "N")
SUFFIX = ("e", "s", "w", "n")
N_PLAY = 34
FLOWER0 = 34
HONOR0 = 27
N_TILES = 144

CHOW, PUNG, KONG, CKONG = "chow", "pung", "kong", "ckong"
ACTIONS = ("dice", "indicator", "deal", "flower", "draw", "replace", "discard", "chow",
           "pung", "kong", "added_kong", "concealed_kong", "win", "exhausted", "pass_win")
WIN_KINDS = ("self_draw", "discard", "robbing_kong")
SCHEMES = ("yao_ban_san", "yao_ban_liu", "yao_er_liu", "tui_dao_ba")

_KIND = {n: i for i, n in enumerate(KIND_NAMES)}
_TILE_ACTIONS = ("indicator", "deal", "flower", "draw", "replace", "discard", "chow", "pung",
                 "kong", "added_kong", "concealed_kong", "win", "pass_win")


def kind_of(name) -> int:
    """Kind id of a tile in notation ('5p' -> 13)."""
    return _KIND[name]


def suit_of(k: int) -> int:
    """0 m, 1 p, 2 s, 3 honors, 4 flowers."""
    if k < HONOR0:
        return k // 9
    return 3 if k < FLOWER0 else 4


def is_terminal_or_honor(k: int) -> bool:
    return k >= HONOR0 or k % 9 in (0, 8)


# ---------------------------------------------------------------- complete hands
@cache
def _group_min_wilds(counts: tuple, honors: bool, pair: bool) -> int:
    """Fewest wilds that turn the naturals of one suit (or of the honors)
    into melds (+ one pair when ``pair``), each group holding at least one
    natural. Returns a large number when impossible. Exchange argument: a
    group never needs a wild where a natural of the same kind is left over
    elsewhere (swap them), so each group takes as many naturals as it can."""
    INF = 99
    i = next((j for j, c in enumerate(counts) if c), -1)
    if i < 0:
        return INF if pair else 0
    best = INF
    c = list(counts)
    # pung of i
    use = min(c[i], 3)
    c[i] -= use
    best = min(best, 3 - use + _group_min_wilds(tuple(c), honors, pair))
    c[i] += use
    # pair of i
    if pair:
        use = min(c[i], 2)
        c[i] -= use
        best = min(best, 2 - use + _group_min_wilds(tuple(c), honors, False))
        c[i] += use
    # chows containing i (i is the lowest natural left: lower slots are wilds)
    if not honors:
        for s in (i - 2, i - 1, i):
            if s < 0 or s + 2 > 8:
                continue
            need = 0
            took = []
            for j in (s, s + 1, s + 2):
                if j >= i and c[j] > 0:
                    c[j] -= 1
                    took.append(j)
                else:
                    need += 1
            best = min(best, need + _group_min_wilds(tuple(c), honors, pair))
            for j in took:
                c[j] += 1
    return best


def is_complete(counts, wilds: int) -> bool:
    """4 melds + pair (or fewer melds with declared ones: 3k + 2 tiles) from
    natural counts over kinds 0..33 (any sequence of 34 ints) and ``wilds``
    wild tiles, each wild standing for any suited or honor kind (no copy
    limit, docs/rules.md §3)."""
    total = sum(counts[:N_PLAY]) + wilds
    if total % 3 != 2:
        return False
    groups = [(tuple(counts[0:9]), False), (tuple(counts[9:18]), False),
              (tuple(counts[18:27]), False), (tuple(counts[27:34]), True)]
    no_pair = [_group_min_wilds(g, h, False) for g, h in groups]
    with_pair = [_group_min_wilds(g, h, True) for g, h in groups]
    base = sum(no_pair)
    if base + 2 <= wilds:          # the pair made of two wilds
        return True
    return any(base - no_pair[i] + with_pair[i] <= wilds for i in range(4))


# ---------------------------------------------------------------- rules
class Rules:
    """The options the validator needs, read from a RuleSet's config model."""

    def __init__(self, rs):
        cfg = rs.config
        self.rs = rs
        self.name = cfg.name
        self.wilds = cfg.wilds.wilds
        self.dragon_cycle = parse_tiles(cfg.wilds.dragon_successor)
        self.dice_throws = cfg.wall.dice_throws
        self.reserve = cfg.wall.reserve_stacks
        self.reserve_per_kong = cfg.wall.reserve_stacks_per_kong
        self.allow_chow = cfg.claims.allow_chow
        self.forbid_chow_swap = cfg.claims.forbid_chow_swap
        self.no_kong_after_pung = cfg.claims.no_kong_after_pung
        self.first_round = cfg.claims.first_round_restrictions
        # a variant without the earthly_hand item has no earthly situation
        self.earthly_rule = (cfg.win.earthly_hand_rule if "earthly_hand" in cfg.scoring.tai
                             else None)
        self.system = cfg.scoring.system
        from reference_scorer import FAN_ITEMS, FU_ITEMS, TAI_ITEMS  # docs/rules.md §6, §8
        self.tai_items = [n for n in TAI_ITEMS if n in cfg.scoring.tai]
        self.fan_items = [n for n in FAN_ITEMS if n in cfg.scoring.fan]
        self.fu_items = [n for n in FU_ITEMS if n in cfg.scoring.fu]
        self.fu = dict(cfg.scoring.fu)
        self.liability = cfg.payments.three_melds_liability
        self.rules_dict = rs.to_dict()

    def successor(self, k: int) -> int:
        if k < HONOR0:
            return (k // 9) * 9 + (k % 9 + 1) % 9
        if k <= 30:
            return 27 + (k - 27 + 1) % 4
        cyc = self.dragon_cycle
        return cyc[(cyc.index(k) + 1) % 3]

    def wild_kinds(self, indicator) -> set[int]:
        """docs/rules.md §3: the wild kinds for an indicator kind (None: none)."""
        if self.wilds == "none" or indicator is None:
            return set()
        if indicator >= FLOWER0:
            if self.wilds == "3baida":
                g0 = FLOWER0 + ((indicator - FLOWER0) // 4) * 4
                return {k for k in range(g0, g0 + 4) if k != indicator}
            return {k for k in range(FLOWER0, FLOWER0 + 8) if k != indicator}
        out = {indicator}
        if self.wilds == "7baida":
            out.add(self.successor(indicator))
        return out


# ---------------------------------------------------------------- scorer adapter
def reference_score(rules: Rules, sit: dict):
    """Score one winning situation with tests/reference_scorer.py.

    ``sit``: the case-format fields (hand, melds, win_tile, win_by, seat,
    round, indicator, flowers, context, discarder, fed, fed_by_winner,
    kong_from) plus ``liable`` (seat or None). Returns a dict with win (bool),
    tai, items {id: tai}, present [ids of the tai items that apply], fan, fu,
    points {scheme: points}, fan_items / fu_items {id: value}, payments
    {seat: net} and wilds; see the adapter body for the mapping."""
    return _SCORER(rules, sit)


def _reference_scorer(rules: Rules, sit: dict):
    import reference_scorer as RS

    res = RS.reference_score(
        rules.rules_dict, hand=sit["hand"], win_tile=sit["win_tile"], melds=sit["melds"],
        win_by=sit["win_by"], seat=sit["seat"], round_wind=sit["round"],
        indicator=sit["indicator"], flowers=sit["flowers"], context=sit["context"],
        discarder=sit["discarder"], fed=sit["fed"], fed_by_winner=sit["fed_by_winner"],
        kong_from=sit["kong_from"])
    if "error" in res:
        raise Stop(f"the reference scorer refuses the replayed situation {sit}: "
                   f"{res['error']}")
    pays = res.get("payments")
    if sit["liable"] is not None and pays is not None:
        # Ninghai three-melds liability (docs/rules.md §8): the liable
        # player pays all three shares
        total = pays[sit["seat"]]
        pays = {s: 0 for s in SEATS}
        pays[sit["seat"]] = total
        pays[sit["liable"]] = -total
    return dict(win=res["win"], why=res.get("why"), tai=res.get("tai"),
                items=res.get("items") or {}, present=res.get("present") or [],
                fan=res.get("fan"), fu=res.get("fu"), points=res.get("points"),
                fan_items=res.get("fan_items") or {}, fu_items=res.get("fu_items") or {},
                payments=pays, wilds=res.get("wilds"))


_SCORER = _reference_scorer


# ---------------------------------------------------------------- events
class Stop(Exception):
    """A structural violation: the replay cannot go on."""


def _seat(v):
    if v is None:
        return -1
    if isinstance(v, str):
        return SEATS.index(v)
    return int(v)


def normalize_event(e: dict) -> dict:
    """One event row (strings as in the events frame) -> ints: seat (-1
    none), action (name), tile (kind, die value for dice, -1 none), meld
    ((type, kind) for melds, win kind name for win/pass_win, None), frm
    (-1 none), pos."""
    a = e["action"]
    if a not in ACTIONS:
        raise ValueError(f"unknown action {a!r}")
    t = e.get("tile")
    if a == "dice":
        tile = int(t)
    elif t is None:
        tile = -1
    else:
        tile = kind_of(t)
    m = e.get("meld")
    if a in ("chow", "pung", "kong", "added_kong", "concealed_kong") and m is not None:
        meld = parse_meld(m)
        meld = ((CHOW, PUNG, KONG, CKONG)[meld[0]], meld[1])
    else:
        meld = m
    pos = e.get("pos")
    return dict(seat=_seat(e.get("seat")), action=a, tile=tile, meld=meld,
                frm=_seat(e.get("from_seat")), pos=-1 if pos is None else int(pos),
                step=e.get("step"))


def _fmt_event(e) -> str:
    parts = [str(e.get("step")), SEATS[e["seat"]] if e["seat"] >= 0 else "-", e["action"]]
    if e["tile"] >= 0:
        parts.append(str(e["tile"]) if e["action"] == "dice" else KIND_NAMES[e["tile"]])
    if e["meld"] is not None:
        parts.append(str(e["meld"]))
    if e["frm"] >= 0:
        parts.append("from " + SEATS[e["frm"]])
    if e["pos"] >= 0:
        parts.append(f"pos {e['pos']}")
    return "[" + " ".join(parts) + "]"


def meld_text(typ: str, kind: int) -> str:
    if typ == CHOW:
        body = format_counts(_counts([kind, kind + 1, kind + 2]))
    else:
        body = format_counts(_counts([kind] * (3 if typ == PUNG else 4)))
    return f"{typ}:{body}"


def _counts(kinds):
    c = [0] * 42
    for k in kinds:
        c[k] += 1
    return c


# ---------------------------------------------------------------- the replay
class Replay:
    def __init__(self, rules: Rules, row: dict, events: list, restrict_first: bool,
                 stats: Counter):
        self.r = rules
        self.row = row
        self.raw_events = events
        self.ev = []
        self.i = 0
        self.errors: list[str] = []
        self.stats = stats
        self.restrict_first = restrict_first
        self.hands = [[0] * 42 for _ in range(4)]
        self.melds: list[list[list]] = [[] for _ in range(4)]   # [type, kind, from]
        self.flowers = [set() for _ in range(4)]
        self.fed = [[0] * 4 for _ in range(4)]                  # fed[claimer][discarder]
        self.seen = [0] * 42
        self.drawn_pos: set[int] = set()
        self.live = 0
        self.tail = N_TILES - 1
        self.ind_pos = None
        self.indicator = None
        self.wild: set[int] = set()
        self.kongs = 0
        self.claims = 0            # chows, pungs and exposed kongs of discards so far
        self.kong_locked = set()   # seats that punged and may not kong until their next turn
        self.discards = 0
        self.round_wind = 0
        self.first_draw_done = [True, False, False, False]   # the dealer has no first draw
        self.last_kong_from = -1
        self.pond = [0] * 42        # discards not claimed (or won on)
        self.won_tile = [0] * 42    # a discard or robbed kong tile taken by the winner

    # ------------------------------------------------ helpers
    def err(self, msg):
        self.errors.append(msg)

    def where(self):
        if self.i < len(self.ev):
            return f"event {self.i} {_fmt_event(self.ev[self.i])}"
        return "end of log"

    def peek(self):
        return self.ev[self.i] if self.i < len(self.ev) else None

    def take(self, action, seat=None, what=""):
        e = self.peek()
        exp = action + (f" by {SEATS[seat]}" if seat is not None and seat >= 0 else "")
        if e is None:
            raise Stop(f"log ends; expected {exp}{' (' + what + ')' if what else ''}")
        if e["action"] != action or (seat is not None and e["seat"] != seat):
            raise Stop(f"{self.where()}: expected {exp}{' (' + what + ')' if what else ''}")
        if action in _TILE_ACTIONS and not 0 <= e["tile"] < 42:
            raise Stop(f"{self.where()}: {action} without a tile")
        self.i += 1
        return e

    def nat(self, s):
        """Natural counts (kinds 0..33, wild kinds zeroed) and wild count of seat s."""
        h = self.hands[s]
        nat = [0 if k in self.wild else h[k] for k in range(N_PLAY)]
        w = sum(h[k] for k in self.wild)
        return nat, w

    def size(self, s):
        return sum(self.hands[s]) + 3 * len(self.melds[s])

    def tiles_left(self):
        n = self.tail - self.live + 1
        if self.ind_pos is not None and self.live <= self.ind_pos <= self.tail:
            n -= 1
        return max(n, 0)

    def drawable(self, kongs=None):
        k = self.kongs if kongs is None else kongs
        return max(self.tiles_left() - 2 * (self.r.reserve + self.r.reserve_per_kong * k), 0)

    def first_limits(self):
        return self.restrict_first and self.discards < 4

    def _see(self, kind, where):
        self.seen[kind] += 1
        lim = 1 if kind >= FLOWER0 else 4
        if self.seen[kind] > lim:
            self.err(f"{where}: {self.seen[kind]} copies of {KIND_NAMES[kind]} taken from the "
                     f"wall (at most {lim})")

    def _pull(self, e, from_tail):
        """Check the position of a deal/draw/replace row and account for its tile."""
        p = e["pos"]
        if from_tail:
            exp = self.tail
            if exp == self.ind_pos:
                exp -= 1
        else:
            exp = self.live
            if exp == self.ind_pos:
                exp += 1
        if p != exp:
            self.err(f"{self.where_prev()}: drawn from position {p}, expected {exp} "
                     f"({'tail' if from_tail else 'live'} end, skipping the indicator)")
        if p == self.ind_pos:
            self.err(f"{self.where_prev()}: the indicator's position {p} was drawn")
        if p in self.drawn_pos or not 0 <= p < N_TILES:
            raise Stop(f"{self.where_prev()}: position {p} drawn twice or out of range")
        self.drawn_pos.add(p)
        if from_tail:
            self.tail = exp - 1
        else:
            self.live = exp + 1
        if self.tail < self.live - 1:
            raise Stop(f"{self.where_prev()}: the live and tail ends crossed")
        self._see(e["tile"], self.where_prev())

    def where_prev(self):
        j = self.i - 1
        return f"event {j} {_fmt_event(self.ev[j])}" if 0 <= j < len(self.ev) else "?"

    # ------------------------------------------------ setup
    def setup(self):
        r = self.r
        try:
            self.ev = [normalize_event(e) for e in self.raw_events]
            self.round_wind = SEATS.index(self.row["round_wind"])
        except (KeyError, ValueError, IndexError, TypeError, NbsimError) as e:
            raise Stop(f"malformed event row or round wind: {type(e).__name__}: {e}") from None
        steps = [e["step"] for e in self.ev]
        if all(x is not None for x in steps) and steps != list(range(len(steps))):
            self.err(f"event steps are not 0, 1, 2, ... in order: {steps[:8]}...")
        nd = 2 * r.dice_throws
        dice = []
        for _ in range(nd):
            e = self.take("dice")
            if not 1 <= e["tile"] <= 6:
                self.err(f"{self.where_prev()}: die value {e['tile']} not 1-6")
            dice.append(e["tile"])
        if list(self.row["dice"]) != dice:
            self.err(f"row dice {list(self.row['dice'])} != logged dice {dice}")
        if r.wilds != "none":
            e = self.take("indicator")
            small = min(dice[-2], dice[-1])
            exp = N_TILES - 2 * small
            if e["pos"] != exp:
                self.err(f"{self.where_prev()}: indicator at position {e['pos']}, the smaller "
                         f"die {small} puts it at {exp}")
            self.ind_pos = e["pos"]
            self.indicator = e["tile"]
            self._see(e["tile"], "indicator")
            self.wild = r.wild_kinds(self.indicator)
            if self.row["indicator"] != KIND_NAMES[self.indicator]:
                self.err(f"row indicator {self.row['indicator']} != logged "
                         f"{KIND_NAMES[self.indicator]}")
        else:
            if self.peek() is not None and self.peek()["action"] == "indicator":
                raise Stop(f"{self.where()}: an indicator in a variant without wilds")
            if self.row["indicator"] is not None:
                self.err(f"row indicator {self.row['indicator']} in a variant without wilds")
        row_wilds = sorted(kind_of(k) for k in (self.row["wild_kinds"] or []))
        if row_wilds != sorted(self.wild):
            self.err(f"row wild_kinds {self.row['wild_kinds']} != "
                     f"{[KIND_NAMES[k] for k in sorted(self.wild)]} (docs/rules.md §3)")
        # the deal: 3 rounds of 4 tiles, then 1 each, then the dealer's 14th
        order = []
        for rr in range(3):
            for s in range(4):
                for k in range(4):
                    order.append((s, 16 * rr + 4 * s + k))
        for s in range(4):
            order.append((s, 48 + s))
        order.append((0, 52))
        for s, p in order:
            e = self.take("deal", s, f"deal tile at position {p}")
            if e["pos"] != p:
                self.err(f"{self.where_prev()}: dealt from position {p} expected")
            self._pull(e, False)
            self.hands[s][e["tile"]] += 1
        # one-time flower replacement, dealer first
        for s in range(4):
            while True:
                fl = [k for k in range(FLOWER0, 42) if self.hands[s][k] and k not in self.wild]
                if not fl:
                    break
                got = []
                for _ in fl:
                    e = self.take("flower", s, "setting aside the dealt flowers")
                    got.append(e["tile"])
                if sorted(got) != fl:
                    raise Stop(f"{self.where_prev()}: flowers set aside "
                               f"{[KIND_NAMES[k] for k in got]}, hand holds "
                               f"{[KIND_NAMES[k] for k in fl]}")
                for k in fl:
                    self.hands[s][k] -= 1
                    self.flowers[s].add(k)
                for _ in fl:
                    e = self.take("replace", s, "flower replacement after the deal")
                    self._pull(e, True)
                    self.hands[s][e["tile"]] += 1
        self.stats["deals"] += 1
        # the deal-mode columns
        for s in range(4):
            exp = self.hands[s]
            got = _counts(parse_tiles(self.row[f"hand_{SUFFIX[s]}"] or "", max_copies=None))
            if got != exp:
                self.err(f"row hand_{SUFFIX[s]} {self.row[f'hand_{SUFFIX[s]}']} != replayed "
                         f"{format_counts(exp)}")
            fl = sorted(kind_of(x) for x in _split_flowers(self.row[f"flowers_{SUFFIX[s]}"]))
            if fl != sorted(self.flowers[s]):
                self.err(f"row flowers_{SUFFIX[s]} {self.row[f'flowers_{SUFFIX[s]}']!r} != "
                         f"replayed {format_counts(_counts(self.flowers[s]))!r}")
            w = sum(self.hands[s][k] for k in self.wild)
            if self.row[f"wilds_{SUFFIX[s]}"] != w:
                self.err(f"row wilds_{SUFFIX[s]} {self.row[f'wilds_{SUFFIX[s]}']} != {w}")
            if sum(self.hands[s]) != (14 if s == 0 else 13):
                self.err(f"seat {SEATS[s]} holds {sum(self.hands[s])} tiles after the deal")
        nat, w = self.nat(0)
        if bool(self.row["dealer_complete"]) != is_complete(nat, w):
            self.err(f"row dealer_complete {self.row['dealer_complete']} but the dealer's hand "
                     f"is {'complete' if is_complete(nat, w) else 'not complete'}")

    # ------------------------------------------------ draws
    def draw(self, seat, from_tail):
        """Replay a draw (live or tail) with its flower replacements. Returns
        the kind drawn into the hand, or None when the wall ran out (the
        caller then expects the exhausted row)."""
        while True:
            if self.drawable() <= 0:
                return None
            e = self.take("replace" if from_tail else "draw", seat,
                          "replacement from the tail" if from_tail else "draw from the live end")
            self._pull(e, from_tail)
            k = e["tile"]
            if k >= FLOWER0 and k not in self.wild:
                f = self.take("flower", seat, f"the drawn flower {KIND_NAMES[k]} is set aside")
                if f["tile"] != k:
                    raise Stop(f"{self.where_prev()}: sets aside {KIND_NAMES[f['tile']]}, drew "
                               f"{KIND_NAMES[k]}")
                self.flowers[seat].add(k)
                self.stats["flowers_in_play"] += 1
                from_tail = True
                continue
            self.hands[seat][k] += 1
            return k

    # ------------------------------------------------ wins
    def situation(self, seat, win_tile, win_by, ctx, discarder, kong_from, liable):
        h = list(self.hands[seat])
        return dict(
            config=self.r.name,
            hand=format_counts(h),
            melds=[meld_text(t, k) for t, k, _ in self.melds[seat]],
            win_tile=KIND_NAMES[win_tile], win_by=win_by, seat=SEATS[seat],
            round=SEATS[self.round_wind],
            indicator=None if self.indicator is None else KIND_NAMES[self.indicator],
            flowers=format_counts(_counts(self.flowers[seat])),
            context=sorted(ctx),
            discarder=None if discarder < 0 else SEATS[discarder],
            fed={SEATS[s]: self.fed[seat][s] for s in range(4) if self.fed[seat][s]},
            fed_by_winner={SEATS[s]: self.fed[s][seat] for s in range(4) if self.fed[s][seat]},
            kong_from=None if kong_from < 0 else SEATS[kong_from],
            liable=None if liable < 0 else SEATS[liable],
        )

    def can_win(self, seat, win_tile, win_by, ctx, discarder=-1, kong_from=-1, liable=-1,
                in_hand=False):
        """(legal, score or None). ``in_hand``: the tile is already in the hand."""
        if in_hand:
            self.hands[seat][win_tile] -= 1
        try:
            nat, w = self.nat(seat)
            if win_tile in self.wild:
                w += 1
            elif win_tile < N_PLAY:
                nat[win_tile] += 1
            else:
                return False, None      # a non-wild flower never completes a hand
            if not is_complete(nat, w):
                return False, None
            self.stats["complete_situations_scored"] += 1
            sc = reference_score(self.r, self.situation(seat, win_tile, win_by, ctx, discarder,
                                                        kong_from, liable))
            if not sc["win"]:
                self.stats[f"not_legal_{win_by}_{sc.get('why')}"] += 1
            return bool(sc["win"]), sc
        finally:
            if in_hand:
                self.hands[seat][win_tile] += 1

    def win_rows(self, seat, win_by, tile, frm, legal, what):
        """Check the optional win/pass_win row of ``seat`` for a possible win.
        Returns 'win', 'pass' or None (no row)."""
        e = self.peek()
        row_here = (e is not None and e["action"] in ("win", "pass_win") and e["seat"] == seat
                    and e["meld"] == win_by)
        if not row_here:
            if legal:
                self.err(f"{self.where()}: {SEATS[seat]} had a legal {win_by} win on "
                         f"{KIND_NAMES[tile]} ({what}) but neither won nor declined it")
            return None
        if not legal:
            raise Stop(f"{self.where()}: {e['action']} by {SEATS[seat]} on {KIND_NAMES[tile]} "
                       f"({what}), but that win is not legal")
        self.i += 1
        if e["tile"] != tile:
            self.err(f"{self.where_prev()}: winning tile {KIND_NAMES[e['tile']]} != "
                     f"{KIND_NAMES[tile]}")
        if e["frm"] != frm:
            self.err(f"{self.where_prev()}: from {e['frm']} != {frm}")
        if e["action"] == "pass_win":
            self.stats[f"pass_win_{win_by}"] += 1
            return "pass"
        return "win"

    def liable_for(self, winner, discarder, tile) -> int:
        """Ninghai three-melds liability (engine docstring, docs/rules.md §8)."""
        if not self.r.liability:
            return -1
        exp = [(t, k) for t, k, _ in self.melds[winner] if t != CKONG]
        if len(exp) < 3:
            return -1
        suits = {suit_of(k) for _, k in exp if suit_of(k) < 3}
        hit = False
        if len(suits) <= 1:
            ts = suit_of(tile)
            if (suits and ts in suits) or (not suits and ts == 3):
                hit = True
        if sum(1 for t, _ in exp if t != CHOW) >= 3 and is_terminal_or_honor(tile):
            hit = True
        if not hit:
            return -1
        nat, w = self.nat(discarder)
        ready = is_complete(nat, w + 1)      # one more tile of any kind completes it
        self.stats["liability_checked"] += 1
        return -1 if ready else discarder

    # ------------------------------------------------ the play
    def play(self):
        cur = 0
        drawn = None            # None: the dealer's dealt 14 (heavenly)
        from_tail = False
        kong_from = -1
        first_draw = False
        after_pung = False      # cur just punged: no win check, kongs only if allowed
        while True:
            if after_pung:
                after_pung = False
                if not self.kong_turn(cur):
                    nxt = self.discard_and_claims(cur)
                    if nxt is None:
                        return
                    if nxt[0] == "pung":
                        cur, after_pung = nxt[1], True
                        continue
                    drawn, from_tail, kong_from, first_draw, cur = nxt
                    continue
                drawn = self.kong_drawn
                if drawn is None:
                    return
                from_tail, kong_from, first_draw = True, -1, False
                continue
            # ============================== cur holds 3k+2 after a draw
            if self.size(cur) != 14:
                self.err(f"{self.where()}: {SEATS[cur]} holds {self.size(cur)} tiles "
                         f"(counting 3 per meld) after drawing, expected 14")
            ctx = set()
            if drawn is None:
                ctx.add("heavenly")
                e = self.peek()
                if (e is not None and e["action"] in ("win", "pass_win") and e["seat"] == 0
                        and 0 <= e["tile"] < 42 and self.hands[0][e["tile"]] > 0):
                    wt = e["tile"]
                else:
                    held = [k for k in range(42) if self.hands[0][k]]
                    nat_held = [k for k in held if k not in self.wild]
                    wt = (nat_held or held)[-1]
            else:
                wt = drawn
                if from_tail:
                    ctx.add("after_kong")
                if self.drawable() == 0:
                    ctx.add("last_tile")
                if first_draw and self.r.earthly_rule == "first_draw" and self.claims == 0:
                    ctx.add("earthly")
            kf = kong_from if from_tail else -1
            self.last_kong_from = kf
            legal, sc = self.can_win(cur, wt, "self_draw", ctx, -1, kf, -1, in_hand=True)
            what = "self-drawn" + (f", {'/'.join(sorted(ctx))}" if ctx else "")
            got = self.win_rows(cur, "self_draw", wt, -1, legal, what)
            if got == "win":
                self.stats["win_self_draw"] += 1
                for c in ctx:
                    self.stats[f"ctx_{c}"] += 1
                return self.finish_win(cur, wt, "self_draw", -1, ctx, sc, -1)
            # -------- kongs on one's own turn
            if self.kong_turn(cur):
                drawn = self.kong_drawn
                if drawn is None:
                    return
                from_tail = True
                kong_from = -1
                first_draw = False
                continue
            # -------- discard, then the wins and claims on it
            nxt = self.discard_and_claims(cur)
            if nxt is None:
                return
            if nxt[0] == "pung":
                cur, after_pung = nxt[1], True
                continue
            drawn, from_tail, kong_from, first_draw, cur = nxt

    def kong_turn(self, cur) -> bool:
        """A concealed or added kong by cur, if the next row is one: checks it,
        the robbing of an added kong, and the replacement draw. Returns True
        when a kong row was consumed; ``self.kong_drawn`` is then the
        replacement tile, or None when the deal ended (robbed, or the wall ran
        out)."""
        e = self.peek()
        if not (e is not None and e["seat"] == cur and e["action"] in ("concealed_kong",
                                                                      "added_kong")):
            return False
        self.kong_drawn = None
        k = e["tile"]
        self.i += 1
        if self.first_limits():
            self.err(f"{self.where_prev()}: a kong during the first go-around")
        if self.drawable(self.kongs + 1) <= 0:
            self.err(f"{self.where_prev()}: a kong with no replacement tile left "
                     f"(drawable {self.drawable(self.kongs + 1)})")
        if k in self.wild or k >= N_PLAY:
            raise Stop(f"{self.where_prev()}: a kong of a wild or a flower")
        if e["action"] == "concealed_kong":
            if self.hands[cur][k] != 4:
                raise Stop(f"{self.where_prev()}: concealed kong of {KIND_NAMES[k]} "
                           f"with {self.hands[cur][k]} in hand")
            if e["meld"] != (CKONG, k):
                self.err(f"{self.where_prev()}: meld {e['meld']} != ckong of "
                         f"{KIND_NAMES[k]}")
            self.hands[cur][k] -= 4
            self.melds[cur].append([CKONG, k, -1])
            self.stats["concealed_kong"] += 1
        else:
            pungs = [m for m in self.melds[cur] if m[0] == PUNG and m[1] == k]
            if not pungs or self.hands[cur][k] < 1:
                raise Stop(f"{self.where_prev()}: added kong of {KIND_NAMES[k]} "
                           f"without an own pung and the fourth tile")
            if e["meld"] != (KONG, k):
                self.err(f"{self.where_prev()}: meld {e['meld']} != kong of "
                         f"{KIND_NAMES[k]}")
            self.hands[cur][k] -= 1
            self.stats["added_kong"] += 1
            # robbing the kong: counterclockwise from cur
            for d in (1, 2, 3):
                o = (cur + d) % 4
                self.last_kong_from = -1
                legal, sc = self.can_win(o, k, "robbing_kong", set(), cur)
                if legal:
                    self.stats["robbing_possible"] += 1
                got = self.win_rows(o, "robbing_kong", k, cur, legal, "robbing the kong")
                if got == "win":
                    self.stats["win_robbing_kong"] += 1
                    self.won_tile[k] += 1
                    self.finish_win(o, k, "robbing_kong", cur, set(), sc, -1)
                    return True
            pungs[0][0] = KONG
        self.kongs += 1
        drawn = self.draw(cur, True)
        if drawn is None:
            self.finish_exhausted()
            return True
        self.kong_drawn = drawn
        return True

    def discard_and_claims(self, cur):
        """A discard by cur, the wins and claims on it, repeated after pungs
        and chows (a chow sets the chow-swap kinds ``forbidden`` for the
        claimer's discard). Returns (drawn, from_tail, kong_from,
        first_draw, seat) for the next player holding a drawn tile, or None
        when the deal ended."""
        forbidden = set()
        while True:
            e = self.take("discard", cur)
            d = e["tile"]
            h = self.hands[cur]
            if h[d] <= 0:
                raise Stop(f"{self.where_prev()}: {SEATS[cur]} discards {KIND_NAMES[d]} "
                           f"without holding it")
            if forbidden:
                self.stats["chow_swap_restricted"] += 1
                held = {k for k in range(42) if h[k]}
                if d in forbidden and not held <= forbidden:
                    self.err(f"{self.where_prev()}: {KIND_NAMES[d]} discarded right after a chow "
                             f"that it would repeat (forbid_chow_swap)")
            if self.first_limits():
                self.stats["first_go_around_discards"] += 1
                has_mp = any(h[k] for k in range(18))
                if has_mp and d >= 18:
                    self.err(f"{self.where_prev()}: {KIND_NAMES[d]} discarded in the first "
                             f"go-around while holding m/p tiles")
            h[d] -= 1
            self.pond[d] += 1
            self.discards += 1
            if self.size(cur) != 13:
                self.err(f"{self.where_prev()}: {SEATS[cur]} holds {self.size(cur)} tiles after "
                         f"discarding, expected 13")
            # ---- wins first, counterclockwise from the discarder
            for dd in (1, 2, 3):
                o = (cur + dd) % 4
                ctx = set()
                if (self.r.earthly_rule == "dealer_first_discard" and self.discards == 1
                        and cur == 0 and not self.melds[o]):
                    ctx.add("earthly")
                lia = self.liable_for(o, cur, d)
                self.last_kong_from = -1
                legal, sc = self.can_win(o, d, "discard", ctx, cur, -1, lia)
                got = self.win_rows(o, "discard", d, cur, legal, "on a discard")
                if got == "win":
                    self.stats["win_discard"] += 1
                    for c in ctx:
                        self.stats[f"ctx_{c}"] += 1
                    if lia >= 0:
                        self.stats["liable_win"] += 1
                    self.pond[d] -= 1
                    self.won_tile[d] += 1
                    self.finish_win(o, d, "discard", cur, ctx, sc, lia)
                    return None
            if self.drawable() <= 0:
                self.finish_exhausted()
                return None
            for o in self.kong_locked:
                if self.hands[o][d] == 3 and o != cur:
                    self.stats["kong_lock_bites"] += 1   # it could have konged but for its pung
            # ---- pung / kong / chow
            e = self.peek()
            if e is not None and e["action"] in ("pung", "kong", "chow"):
                self.i += 1
                o = e["seat"]
                if e["tile"] != d or e["frm"] != cur:
                    raise Stop(f"{self.where_prev()}: claims {KIND_NAMES[e['tile']]} from "
                               f"{e['frm']}, the discard was {KIND_NAMES[d]} by {SEATS[cur]}")
                if o == cur or o < 0:
                    raise Stop(f"{self.where_prev()}: a player claims its own discard")
                if d in self.wild or d >= N_PLAY:
                    raise Stop(f"{self.where_prev()}: claim of a wild or flower "
                               f"{KIND_NAMES[d]}")
                if self.restrict_first and self.discards <= 4:
                    self.err(f"{self.where_prev()}: a claim during the first go-around")
                self.fed[o][cur] += 1
                self.claims += 1
                self.pond[d] -= 1
                ho = self.hands[o]
                if e["action"] == "pung":
                    if ho[d] < 2:
                        raise Stop(f"{self.where_prev()}: pung with {ho[d]} {KIND_NAMES[d]}")
                    if e["meld"] != (PUNG, d):
                        self.err(f"{self.where_prev()}: meld {e['meld']} != pung")
                    ho[d] -= 2
                    self.melds[o].append([PUNG, d, cur])
                    self.stats["pung"] += 1
                    if self.r.no_kong_after_pung:
                        self.kong_locked.add(o)
                    if not self.r.no_kong_after_pung:
                        return ("pung", o)   # a kong may come before the discard
                    cur = o
                    forbidden = set()
                    continue        # only a discard follows (no_kong_after_pung)
                if e["action"] == "kong":
                    if o in self.kong_locked:
                        self.err(f"{self.where_prev()}: {SEATS[o]} kongs a discard after its pung, "
                                 f"before its next turn (no_kong_after_pung)")
                    if ho[d] < 3:
                        raise Stop(f"{self.where_prev()}: exposed kong with {ho[d]} "
                                   f"{KIND_NAMES[d]}")
                    if self.drawable(self.kongs + 1) <= 0:
                        self.err(f"{self.where_prev()}: a kong with no replacement tile left")
                    if e["meld"] != (KONG, d):
                        self.err(f"{self.where_prev()}: meld {e['meld']} != kong")
                    ho[d] -= 3
                    self.melds[o].append([KONG, d, cur])
                    self.kongs += 1
                    self.stats["exposed_kong"] += 1
                    feeder = cur
                    drawn = self.draw(o, True)
                    if drawn is None:
                        self.finish_exhausted()
                        return None
                    return (drawn, True, feeder, False, o)
                # chow
                if not self.r.allow_chow:
                    raise Stop(f"{self.where_prev()}: a chow in a variant without chows")
                if o != (cur + 1) % 4:
                    raise Stop(f"{self.where_prev()}: chow by {SEATS[o]}, not the next player "
                               f"after {SEATS[cur]}")
                typ, lo = e["meld"] if e["meld"] else (None, -1)
                if (typ != CHOW or d >= HONOR0 or not lo <= d <= lo + 2
                        or lo // 9 != (lo + 2) // 9 or lo % 9 > 6):
                    raise Stop(f"{self.where_prev()}: chow meld {e['meld']} does not hold "
                               f"{KIND_NAMES[d]}")
                others = [k for k in (lo, lo + 1, lo + 2) if k != d]
                for k in others:
                    if k in self.wild or ho[k] < 1:
                        raise Stop(f"{self.where_prev()}: chow needs a natural "
                                   f"{KIND_NAMES[k]} in hand")
                for k in others:
                    ho[k] -= 1
                self.melds[o].append([CHOW, lo, cur])
                self.stats["chow"] += 1
                self.kong_locked.discard(o)     # a chow is the claimer's turn
                cur = o
                forbidden = set()
                if self.r.forbid_chow_swap and sum(ho) > 2:
                    forbidden.add(d)
                    if d == lo:
                        other = lo + 3
                    elif d == lo + 2:
                        other = lo - 1
                    else:
                        other = -1
                    if other >= 0 and other // 9 == lo // 9 and other not in self.wild:
                        forbidden.add(other)
                    if any(ho[k] for k in forbidden):
                        self.stats["chow_swap_kind_held"] += 1
                elif self.r.forbid_chow_swap:
                    self.stats["chow_big_single_exception"] += 1
                continue
            # ---- the next player draws
            nxt = (cur + 1) % 4
            self.kong_locked.discard(nxt)       # its next turn begins
            first = not self.first_draw_done[nxt]
            self.first_draw_done[nxt] = True
            e = self.peek()
            if e is None or e["action"] != "draw" or e["seat"] != nxt:
                raise Stop(f"{self.where()}: expected {SEATS[nxt]} to draw after "
                           f"{SEATS[cur]}'s discard (no legal claim row)")
            drawn = self.draw(nxt, False)
            if drawn is None:
                self.finish_exhausted()
                return None
            from_tail = self.ev[self.i - 1]["action"] == "replace"
            return (drawn, from_tail, -1, first, nxt)

    # ------------------------------------------------ the end
    def finish_common(self):
        row = self.row
        if self.i != len(self.ev):
            self.err(f"{self.where()}: events after the end of the deal")
        if row["turns"] != self.discards:
            self.err(f"row turns {row['turns']} != {self.discards} discards")
        if row["tiles_left"] != self.drawable():
            self.err(f"row tiles_left {row['tiles_left']} != {self.drawable()} drawable tiles")
        if row["kongs"] != self.kongs:
            self.err(f"row kongs {row['kongs']} != {self.kongs}")
        for s in range(4):
            exp = [meld_text(t, k) for t, k, _ in self.melds[s]]
            if list(row[f"melds_{SUFFIX[s]}"]) != exp:
                self.err(f"row melds_{SUFFIX[s]} {list(row[f'melds_{SUFFIX[s]}'])} != {exp}")
        for s in range(4):
            col = f"flowers_end_{SUFFIX[s]}"
            got = sorted(kind_of(x) for x in _split_flowers(row[col]))
            if got != sorted(self.flowers[s]):
                self.err(f"row {col} {row[col]!r} != replayed "
                         f"{format_counts(_counts(self.flowers[s]))!r}")
        pays = [row[f"pay_{x}"] for x in SUFFIX]
        if sum(pays) != 0:
            self.err(f"payments {pays} do not sum to zero")
        # tile conservation: every tile drawn is in a hand, a meld, the flowers,
        # the pond or the winner's winning tile
        where = [self.pond[k] + self.won_tile[k] for k in range(42)]
        for s in range(4):
            for k in range(42):
                where[k] += self.hands[s][k]
            for k in self.flowers[s]:
                where[k] += 1
            for t, k, _ in self.melds[s]:
                for j in ((k, k + 1, k + 2) if t == CHOW else (k,) * (3 if t == PUNG else 4)):
                    where[j] += 1
        if self.indicator is not None:
            where[self.indicator] += 1
        if where != self.seen:
            diff = {KIND_NAMES[k]: (self.seen[k], where[k]) for k in range(42)
                    if where[k] != self.seen[k]}
            self.err(f"tile conservation: kinds (taken from the wall, accounted for) {diff}")
        if len(self.drawn_pos) == N_TILES - (1 if self.ind_pos is not None else 0):
            exp = [4] * N_PLAY + [1] * 8
            if self.seen != exp:
                self.err("the whole wall was drawn but the kinds seen are not 4 of each "
                         "kind and 1 of each flower")
        if self.r.system == "fan_fu":
            self.check_player_fu()

    def finish_exhausted(self):
        e = self.take("exhausted", -1, "no drawable tile left")
        if e["seat"] != -1:
            self.err(f"{self.where_prev()}: exhausted row with a seat")
        if self.drawable() != 0:
            self.err(f"{self.where_prev()}: exhausted with {self.drawable()} drawable tiles")
        self.stats["exhausted"] += 1
        row = self.row
        if row["outcome"] != "wall_exhausted":
            self.err(f"row outcome {row['outcome']} on an exhaustive draw")
        for c in ("winner", "discarder", "win_tile", "wilds_win"):
            if row[c] is not None:
                self.err(f"row {c} {row[c]!r} on an exhaustive draw")
        if list(row["context"]):
            self.err(f"row context {row['context']} on an exhaustive draw")
        if any(row[f"pay_{x}"] for x in SUFFIX):
            self.err("payments on an exhaustive draw")
        if self.r.system == "tai":
            if row["tai"] is not None:
                self.err(f"row tai {row['tai']} on an exhaustive draw")
            for it in self.r.tai_items:
                if row[f"tai_{it}"]:
                    self.err(f"row tai_{it} {row[f'tai_{it}']} on an exhaustive draw")
                if row[f"has_{it}"]:
                    self.err(f"row has_{it} true on an exhaustive draw")
        else:
            for c in ["fan", "fu", "liable"] + [f"points_{s}" for s in SCHEMES]:
                if row[c] is not None:
                    self.err(f"row {c} {row[c]!r} on an exhaustive draw")
            for c in ([f"fan_{i}" for i in self.r.fan_items]
                      + [f"fu_{i}" for i in self.r.fu_items]):
                if row[c]:
                    self.err(f"row {c} {row[c]!r} on an exhaustive draw")
        self.finish_common()

    def finish_win(self, winner, tile, win_by, discarder, ctx, sc, liable):
        row = self.row
        self.winner = winner
        self.win_tile = tile
        outcome = {"self_draw": "self_drawn", "discard": "discard",
                   "robbing_kong": "robbing_kong"}[win_by]
        if row["outcome"] != outcome:
            self.err(f"row outcome {row['outcome']} != {outcome}")
        if row["winner"] != SEATS[winner]:
            self.err(f"row winner {row['winner']} != {SEATS[winner]}")
        exp_d = None if discarder < 0 else SEATS[discarder]
        if row["discarder"] != exp_d:
            self.err(f"row discarder {row['discarder']} != {exp_d}")
        exp_tile = None if "heavenly" in ctx else KIND_NAMES[tile]
        if row["win_tile"] != exp_tile:
            self.err(f"row win_tile {row['win_tile']} != {exp_tile} (a heavenly hand has none)")
        if sorted(row["context"]) != sorted(ctx):
            self.err(f"row context {sorted(row['context'])} != {sorted(ctx)}")
        # wild tiles among the winner's 14 concealed tiles
        w = sum(self.hands[winner][k] for k in self.wild)
        if win_by != "self_draw" and tile in self.wild:
            w += 1
        if row["wilds_win"] != w:
            self.err(f"row wilds_win {row['wilds_win']} != {w}")
        # score and payments from the reference scorer
        if self.r.system == "tai":
            if row["tai"] != sc["tai"]:
                self.err(f"row tai {row['tai']} != reference {sc['tai']}")
            for it in self.r.tai_items:
                exp = sc["items"].get(it, 0)
                if row[f"tai_{it}"] != exp:
                    self.err(f"row tai_{it} {row[f'tai_{it}']} != reference {exp}")
                col = f"has_{it}"
                if row[col] != (it in sc["present"]):
                    self.err(f"row {col} {row[col]} != reference {it in sc['present']}")
        else:
            if row["fan"] != sc["fan"]:
                self.err(f"row fan {row['fan']} != reference {sc['fan']}")
            if row["fu"] != sc["fu"]:
                self.err(f"row fu {row['fu']} != reference {sc['fu']}")
            for family in ("fan", "fu"):
                for it in getattr(self.r, f"{family}_items"):
                    col, exp = f"{family}_{it}", sc[f"{family}_items"].get(it, 0)
                    if row[col] != exp:
                        self.err(f"row {col} {row[col]} != reference {exp}")
            for s in SCHEMES:
                if row[f"points_{s}"] != sc["points"][s]:
                    self.err(f"row points_{s} {row[f'points_{s}']} != reference "
                             f"{sc['points'][s]}")
            exp_l = None if liable < 0 else SEATS[liable]
            if row["liable"] != exp_l:
                self.err(f"row liable {row['liable']} != {exp_l}")
        pays = {SEATS[i]: row[f"pay_{x}"] for i, x in enumerate(SUFFIX)}
        if pays != sc["payments"]:
            self.err(f"row payments {pays} != reference {sc['payments']}")
        self.stats[f"win_checked_{win_by}"] += 1
        if any(self.fed[winner][x] >= 3 or self.fed[x][winner] >= 3 for x in range(4)):
            self.stats["win_with_bound_player"] += 1
        if self.last_kong_from >= 0:
            self.stats["win_on_exposed_kong_replacement"] += 1
        if sum(1 for v in pays.values() if v) == 2 and win_by == "self_draw":
            self.stats["self_draw_single_payer"] += 1
        self.finish_common()

    def check_player_fu(self):
        winner = getattr(self, "winner", -1)
        for s in range(4):
            col = f"fu_{SUFFIX[s]}"
            if s == winner:
                exp = self.row["fu"]
            else:
                exp = player_fu(self.r, self.hands[s], self.melds[s], self.flowers[s])
            if self.row[col] != exp:
                self.err(f"row {col} {self.row[col]} != {exp}")


def player_fu(r: Rules, hand, melds, flowers) -> int:
    """A non-winner's own fu (the definition of score.player_fu's docstring):
    declared pungs/kongs by type + a concealed pung per kind held 3+ times +
    the flower fu per flower."""
    fu = 0
    for t, k, _ in melds:
        if t == CHOW:
            continue
        end = "terminal" if is_terminal_or_honor(k) else "simple"
        name = {PUNG: "exposed_pung", KONG: "exposed_kong", CKONG: "concealed_kong"}[t]
        fu += r.fu.get(f"{name}_{end}", 0)
    for k in range(N_PLAY):
        if hand[k] >= 3:
            end = "terminal" if is_terminal_or_honor(k) else "simple"
            fu += r.fu.get(f"concealed_pung_{end}", 0)
    fu += r.fu.get("flower", 0) * len(flowers)
    return fu


def _split_flowers(text):
    return [KIND_NAMES[k] for k in parse_tiles(text or "", max_copies=None)]


# ---------------------------------------------------------------- entry points
_RULES_CACHE: dict = {}


def _rules(rs) -> Rules:
    key = id(rs)
    r = _RULES_CACHE.get(key)
    if r is None or r.rs is not rs:
        r = Rules(rs)
        _RULES_CACHE[key] = r
    return r


def validate_deal(rules, row: dict, events: list, restrict_first: bool | None = None,
                  stats: Counter | None = None) -> list[str]:
    """Replay one played deal and return its violations (empty list: valid).

    rules: the RuleSet the deal was played with; row: its game-mode row
    (dict); events: its event rows (dicts, the events frame's columns).
    restrict_first: whether the first go-around limits applied (None: only
    under ``first_round_restrictions = "every_hand"``, as for independent
    deals; a match's first deal under "first_hand" passes True). stats:
    optional Counter of the situations checked."""
    r = _rules(rules)
    if restrict_first is None:
        restrict_first = r.first_round == "every_hand"
    rp = Replay(r, row, events, bool(restrict_first) and r.first_round != "off",
                stats if stats is not None else Counter())
    try:
        rp.setup()
        rp.play()
    except Stop as e:
        rp.err(str(e))
    except (KeyError, ValueError, IndexError, TypeError, NbsimError) as e:   # malformed row
        rp.err(f"malformed event or row near {rp.where()}: {type(e).__name__}: {e}")
    return rp.errors


def iter_deals(df, ev, key=("deal",)):
    """Yield (row dict, event dicts) per deal of a game frame ``df`` and its
    events frame ``ev`` (sorted by deal and step as game_frame writes them;
    ``key``: the columns naming a deal, e.g. ("match", "deal"))."""
    key = list(key)
    cols = ["step", "seat", "action", "tile", "meld", "from_seat", "pos"]
    ev_cols = {c: ev[c].to_list() for c in cols + key}
    n = len(ev_cols["step"])
    starts = {}
    j = 0
    while j < n:
        k = tuple(ev_cols[c][j] for c in key)
        s = j
        while j < n and tuple(ev_cols[c][j] for c in key) == k:
            j += 1
        starts[k] = (s, j)
    for row in df.iter_rows(named=True):
        k = tuple(row[c] for c in key)
        s, e = starts.get(k, (0, 0))
        events = [{c: ev_cols[c][i] for c in cols} for i in range(s, e)]
        yield row, events


def validate_frame(rules, df, ev, stats: Counter | None = None, match: bool = False):
    """Validate every deal of a game frame (or a match frame with ``match``).
    Returns {deal key: violations} for the invalid deals only."""
    r = _rules(rules)
    bad = {}
    key = ("match", "deal") if match else ("deal",)
    for row, events in iter_deals(df, ev, key):
        restrict = None
        if match:
            restrict = r.first_round == "every_hand" or (
                r.first_round == "first_hand" and row["deal"] == 0)
        errs = validate_deal(rules, row, events, restrict, stats)
        if errs:
            bad[tuple(row[c] for c in key)] = errs
    return bad



def validate_match(rules, rows: list[dict], totals: dict | None = None) -> list[str]:
    """Check the sequence of one match's deal rows (docs/rules.md §2 and
    the match docstring of nbsim.kernels.engine.games): player 0 deals first;
    seat s holds player (dealer + s) % 4; the dealer keeps the deal when it
    wins, and on an exhaustive draw when ``dealer_keeps_on_draw``, else the
    next player deals; after the deal has passed four times the round wind
    advances E -> S -> W -> N, and the match ends after the North round.
    ``rows`` are the match's rows in deal order; ``totals`` (optional)
    {player: total} must equal each player's summed payments."""
    cfg = rules.config
    errs = []
    dealer, rw, passes = 0, 0, 0
    sums = [0, 0, 0, 0]
    ended = False
    for j, row in enumerate(rows):
        if ended:
            errs.append(f"deal {j}: played after the North round ended the match")
            break
        if row["deal"] != j:
            errs.append(f"deal {j}: row deal {row['deal']}")
        if row["round_wind"] != SEATS[rw]:
            errs.append(f"deal {j}: round wind {row['round_wind']}, expected {SEATS[rw]}")
        players = [row[f"player_{x}"] for x in SUFFIX]
        exp = [(dealer + s) % 4 for s in range(4)]
        if players != exp:
            errs.append(f"deal {j}: players by seat {players}, expected {exp}")
        for s in range(4):
            sums[players[s] % 4] += row[f"pay_{SUFFIX[s]}"]
        keep = row["winner"] == "E" or (row["winner"] is None
                                         and cfg.wall.dealer_keeps_on_draw)
        if not keep:
            dealer = (dealer + 1) % 4
            passes += 1
            if passes == 4:
                passes = 0
                rw += 1
                ended = rw == 4
    if rows and not ended:
        errs.append(f"the match stops after {len(rows)} deals before the North round ended")
    if totals is not None:
        for p in range(4):
            if totals.get(p) != sums[p]:
                errs.append(f"player {p}: match total {totals.get(p)} != summed payments "
                            f"{sums[p]}")
    return errs

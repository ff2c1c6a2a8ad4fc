"""The wall: shuffle, dice, break, indicator, deal and the one-time flower
replacement (docs/rules.md §2 and §3), as Numba kernels an engine can reuse.

Physical tiles
--------------
Tile ids 0..143: ``id // 4`` is the kind for ids 0..135 (4 copies of each of
the 34 suited/honor kinds); ids 136..143 are the flowers 1f..8f (kind
``34 + id - 136``). ``tile_kind(id)`` converts.

Wall layout (one documented layout for every mode)
--------------------------------------------------
The wall is kept in **draw order**: ``wall`` is uint8[144] of tile ids where
position 0 is the first tile after the break (the live end) and position 143
the last tile before it (the tail end). Live draws take positions 0, 1, 2, ...;
replacements (flowers, kongs) take 143, 142, 141, ...; both skip the indicator.
The state of a wall is a small int64[WS_LEN] array ``ws``:

    ws[WS_LIVE]       next live position (0 at the start; increases)
    ws[WS_TAIL]       next tail position (143 at the start; decreases)
    ws[WS_INDICATOR]  position of the flipped indicator, -1 without wilds
    ws[WS_BREAK]      ring index of position 0 (see below; for replays)
    ws[WS_SIDE]       the side broken, as a seat counted from the dealer (0-3)
    ws[WS_FILLED]     shuffle steps done (DEAL_STEPS in deal mode, 144 full)
    ws[WS_N_DICE]     number of dice thrown (2 per throw)
    ws[WS_DICE..+4]   the dice, in throw order
    ws[WS_IND_KIND]   the indicator's kind (-1 none)
    ws[WS_N_WILDS]    wild tiles in play (3 or 7; 0 without wilds)

The undrawn tiles are the positions ``ws[WS_LIVE] .. ws[WS_TAIL]`` minus the
indicator. With the usual deal (``deal_hands``): positions 0..52 are the deal
(rounds of 4 tiles E S W N three times, then one tile each E S W N, then the
dealer's 14th tile: position 16r + 4s + k in round r, 48 + s, and 52), the
live wall continues from 53, and flower replacements come from 143 downwards.

Physical ring (for replays). The 72 stacks of 2 tiles stand on 4 sides of 18;
seen from above, ring tile index ``p = 2 q + level`` (level 0 top, 1 bottom)
where stack ``q`` (0..71) runs clockwise from the right end of the dealer's
side: sides in clockwise order are the dealer's, North's, West's, South's,
each from its owner's right end to the left end. The break is at ring index
``ws[WS_BREAK]``; draw-order position ``i`` is ring index
``(ws[WS_BREAK] + i) % 144`` (``ring_from_wall``). So live draws move
clockwise from the break, taking the top then the bottom tile of each stack,
and replacements move counterclockwise from the break, taking the bottom tile
of the tail stack first, then its top tile.

Dice and break (docs/rules.md §2)
-----------------------------------
Ningbo (``R_DICE_THROWS == 1``): one throw of two dice. The sum picks the side
counted counterclockwise from the dealer (1, 5, 9 the dealer's; 2, 6, 10 the
next player's, ...); the larger die counts stacks from that side's right end
to the break (break at 2 * larger tiles into the side). With wilds, the
smaller die counts stacks back from the tail (the tail stack is stack 1) and
the top tile of that stack is the indicator: position ``144 - 2 * smaller``.
Ninghai (``R_DICE_THROWS == 2``): the dealer's throw B picks the player
(counted the same way), who throws again; the break is B + second throw
*tiles* from that player's wall's right end (docs/rules.md §2: tiles, so an odd count
splits a stack). No indicator; if a config combines two throws with wilds,
the smaller die of the second throw places the indicator as in Ningbo.

Shuffle
-------
A Fisher-Yates shuffle from the wall stream (``rng.STREAM_WALL``): step t
(0..143) swaps a uniformly chosen tile among the 144 - t not yet placed into
slot ``SLOT(t)`` of the draw order, with the slots filled in this order:
positions 0..52 (the deal), 143 down to 132 (the tail: at most 8 flower
replacements and the indicator fall there), then 53..131. Deal mode stops
after DEAL_STEPS = 65 steps; an engine completes the same shuffle
(``complete_shuffle``) and gets exactly the same tiles in the first slots.
The dice come from their own stream (``rng.STREAM_DICE``), so the shuffled
tiles of deal i do not depend on the variant's number of throws. Because the
shuffle is uniform the dice change no statistic, but replays follow them.

Flower replacement
------------------
After the deal, starting with the dealer and going counterclockwise (seats 0,
1, 2, 3 = E S W N), each player sets aside all non-wild flowers in hand and
draws as many replacements from the tail end, repeating until no non-wild
flower is in hand. Wild flowers stay in the hand (docs/rules.md §3).
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels.jit import njit
from nbsim.kernels.wilds import wild_mask

# wall state layout (int64[WS_LEN])
WS_LIVE = 0
WS_TAIL = 1
WS_INDICATOR = 2
WS_BREAK = 3
WS_SIDE = 4
WS_FILLED = 5
WS_N_DICE = 6
WS_DICE = 7            # 4 entries
WS_IND_KIND = 11
WS_N_WILDS = 12
WS_LEN = 13

MAX_DICE = 4
DEAL_TILES = 53        # 14 + 3 * 13 tiles dealt from the live end
TAIL_SLOTS = 12        # tail positions filled in deal mode (143 .. 132)
DEAL_STEPS = DEAL_TILES + TAIL_SLOTS
SIDE_TILES = 36        # tiles on one side of the wall (18 stacks of 2)
STACKS = 72

DRAW_EXHAUSTED = -1    # draw_live / draw_tail: no tile left
DRAW_UNFILLED = -2     # the position was not shuffled (call complete_shuffle)


@njit(cache=True, inline="always")
def tile_kind(tile):
    """Kind (0..41) of physical tile id 0..143."""
    if tile < 136:
        return tile >> 2
    return tile - 102


@njit(cache=True, inline="always")
def slot_of_step(t):
    """Draw-order position filled by shuffle step t (0..143); see the module doc."""
    if t < DEAL_TILES:
        return t
    if t < DEAL_STEPS:
        return C.N_TILES - 1 - (t - DEAL_TILES)
    return t - TAIL_SLOTS


@njit(cache=True, kernel_only=True)
def shuffle_steps(st, work, wall, t0, t1):
    """Fisher-Yates steps t0..t1-1 (0 <= t0 <= t1 <= 144) from the stream ``st``
    (uint64[rng.RNG_LEN], the wall stream). ``work`` (uint8[144]) holds the
    tiles not yet placed in work[t:]; it must be 0..143 before step 0.
    Writes wall[slot_of_step(t)]."""
    for t in range(t0, t1):
        j = t + rng.below(st, C.N_TILES - t)
        x = work[j]
        work[j] = work[t]
        work[t] = x
        wall[slot_of_step(t)] = x


@njit(cache=True, kernel_only=True)
def roll_dice(rules, st, ws):
    """Throw the dice (2 per throw, R_DICE_THROWS throws) from the dice stream
    ``st`` and set ws[WS_DICE..], ws[WS_N_DICE], ws[WS_SIDE], ws[WS_BREAK] and,
    with wilds, ws[WS_INDICATOR] (docs/rules.md §2; see the module doc)."""
    throws = rules[C.R_DICE_THROWS]
    nd = 2 * throws
    for k in range(MAX_DICE):
        ws[WS_DICE + k] = 0
    for k in range(nd):
        ws[WS_DICE + k] = 1 + rng.below(st, 6)
    ws[WS_N_DICE] = nd
    d1 = ws[WS_DICE]
    d2 = ws[WS_DICE + 1]
    total = d1 + d2
    side = (total - 1) % 4                 # seats counterclockwise from the dealer
    if throws == 1:
        offset = 2 * max(d1, d2)           # larger die: stacks from the right end
        small = min(d1, d2)
    else:
        e1 = ws[WS_DICE + 2]
        e2 = ws[WS_DICE + 3]
        offset = total + e1 + e2           # Ninghai: B + second throw, in tiles
        small = min(e1, e2)
    cw = (4 - side) % 4                    # clockwise side index of the ring
    ws[WS_SIDE] = side
    ws[WS_BREAK] = (cw * SIDE_TILES + offset) % C.N_TILES
    if rules[C.R_WILDS] != C.WILDS_NONE:
        ws[WS_INDICATOR] = C.N_TILES - 2 * small
    else:
        ws[WS_INDICATOR] = -1


@njit(cache=True)
def wall_setup(rules, seed, deal, full, wall, work, st, ws, wild):
    """Set up the wall of deal ``deal`` of seed ``seed``: dice, shuffle,
    indicator and wild kinds.

    rules: int64[R_LEN]; seed: uint64; deal: int >= 0; full: bool (False:
    only the DEAL_STEPS slots the deal needs; True: all 144). Outputs:
    wall uint8[144] (draw order), work uint8[144] (shuffle scratch, keep it
    with ``st`` for complete_shuffle), st uint64[rng.RNG_LEN] (left as the
    wall stream), ws int64[WS_LEN], wild bool[42] (wild kinds). Returns the
    indicator kind (-1 without wilds). docs/rules.md §2-§3."""
    rng.stream_init(seed, deal, rng.STREAM_DICE, st)
    roll_dice(rules, st, ws)
    rng.stream_init(seed, deal, rng.STREAM_WALL, st)
    for i in range(C.N_TILES):
        work[i] = i
    steps = C.N_TILES if full else DEAL_STEPS
    shuffle_steps(st, work, wall, 0, steps)
    ws[WS_FILLED] = steps
    ws[WS_LIVE] = 0
    ws[WS_TAIL] = C.N_TILES - 1
    kind = -1
    if ws[WS_INDICATOR] >= 0:
        kind = tile_kind(np.int64(wall[ws[WS_INDICATOR]]))
    ws[WS_IND_KIND] = kind
    ws[WS_N_WILDS] = wild_mask(rules, kind, wild)
    return kind


@njit(cache=True)
def complete_shuffle(st, work, wall, ws):
    """Finish a deal-mode shuffle (the remaining steps up to 144), giving the
    same wall as ``wall_setup(..., full=True)``. ``st`` and ``work`` must be
    the ones left by wall_setup (and only draws from the wall stream in between
    would break this: draw other randomness from other streams)."""
    shuffle_steps(st, work, wall, ws[WS_FILLED], C.N_TILES)
    ws[WS_FILLED] = C.N_TILES


@njit(cache=True, inline="always")
def _filled(ws, p):
    return (ws[WS_FILLED] >= C.N_TILES or p < DEAL_TILES
            or p >= C.N_TILES - TAIL_SLOTS)


@njit(cache=True)
def draw_live(ws):
    """Take the next position from the live end (skipping the indicator).

    Returns the draw-order position (the tile is ``wall[pos]``), DRAW_EXHAUSTED
    when no tile is left, DRAW_UNFILLED when the position was not shuffled
    (deal-mode wall: call complete_shuffle first)."""
    p = ws[WS_LIVE]
    if p == ws[WS_INDICATOR]:
        p += 1
    if p > ws[WS_TAIL]:
        return DRAW_EXHAUSTED
    if not _filled(ws, p):
        return DRAW_UNFILLED
    ws[WS_LIVE] = p + 1
    return p


@njit(cache=True)
def draw_tail(ws):
    """Take the next position from the tail end (replacements; skipping the
    indicator). Returns the position, DRAW_EXHAUSTED or DRAW_UNFILLED."""
    p = ws[WS_TAIL]
    if p == ws[WS_INDICATOR]:
        p -= 1
    if p < ws[WS_LIVE]:
        return DRAW_EXHAUSTED
    if not _filled(ws, p):
        return DRAW_UNFILLED
    ws[WS_TAIL] = p - 1
    return p


@njit(cache=True)
def tiles_left(ws):
    """Undrawn tiles in the wall, the indicator not counted."""
    n = ws[WS_TAIL] - ws[WS_LIVE] + 1
    ind = ws[WS_INDICATOR]
    if ind >= ws[WS_LIVE] and ind <= ws[WS_TAIL]:
        n -= 1
    return max(n, 0)


@njit(cache=True)
def drawable_left(rules, ws, n_kongs):
    """Tiles that may still be drawn before the end of play: tiles_left minus
    the reserve, 2 * (R_RESERVE_STACKS + R_RESERVE_STACKS_PER_KONG * n_kongs)
    tiles (Ninghai: 9 stacks + 1 per kong declared; Ningbo: 0). Never < 0.
    docs/rules.md §2."""
    reserve = 2 * (rules[C.R_RESERVE_STACKS] + rules[C.R_RESERVE_STACKS_PER_KONG] * n_kongs)
    return max(tiles_left(ws) - reserve, 0)


@njit(cache=True, inline="always")
def _log(log, n_log, seat, action, tile, pos):
    if n_log < log.shape[0]:
        log[n_log, C.EV_SEAT] = seat
        log[n_log, C.EV_ACTION] = action
        log[n_log, C.EV_TILE] = tile
        log[n_log, C.EV_MELD] = -1
        log[n_log, C.EV_FROM] = -1
        log[n_log, C.EV_POS] = pos
    return n_log + 1


@njit(cache=True)
def log_setup(ws, log, n_log):
    """Append the dice (A_DICE rows, tile = die value) and the indicator
    (A_INDICATOR, tile = kind, pos) to the event log ``log`` (int32[m, EV_LEN];
    rows past its end are counted but not written). Returns the new n_log."""
    for k in range(ws[WS_N_DICE]):
        n_log = _log(log, n_log, -1, C.A_DICE, ws[WS_DICE + k], -1)
    if ws[WS_INDICATOR] >= 0:
        n_log = _log(log, n_log, -1, C.A_INDICATOR, ws[WS_IND_KIND], ws[WS_INDICATOR])
    return n_log


@njit(cache=True, kernel_only=True)
def replace_flowers(wall, ws, wild, seat, hands, flowers, log, n_log):
    """Set aside every non-wild flower in ``hands[seat]`` and draw replacements
    from the tail end until none is left (docs/rules.md §2, 补花).

    hands: int8[4, 42] counts per seat; flowers: uint8[4] bit masks of the
    flowers set aside (bit f for flower f + 1). Logs A_FLOWER and A_REPLACE
    rows. Returns (n_log, tiles drawn), or (n_log, -1) when the wall ran out
    (impossible after a normal deal)."""
    drawn = 0
    while True:
        n = 0
        for f in range(C.N_FLOWERS):
            k = C.FLOWER0 + f
            if hands[seat, k] > 0 and not wild[k]:
                hands[seat, k] = 0
                flowers[seat] |= np.uint8(1 << f)
                n += 1
                n_log = _log(log, n_log, seat, C.A_FLOWER, k, -1)
        if n == 0:
            return n_log, drawn
        for _ in range(n):
            p = draw_tail(ws)
            if p < 0:
                return n_log, -1
            k = tile_kind(np.int64(wall[p]))
            hands[seat, k] += 1
            drawn += 1
            n_log = _log(log, n_log, seat, C.A_REPLACE, k, p)


@njit(cache=True)
def deal_hands(wall, ws, wild, hands, flowers, log, n_log):
    """Deal 14 tiles to the dealer (seat 0) and 13 to each other seat from the
    live end, then do the one-time flower replacement, dealer first.

    Order of the deal: three rounds in which seats 0, 1, 2, 3 each take 4
    tiles, then seats 0, 1, 2, 3 take one tile each, then the dealer takes the
    14th (the same positions as the usual 跳牌). hands (int8[4, 42]) and
    flowers (uint8[4] bit masks) must be zero on entry. Logs A_DEAL rows (pos)
    and the replacement rows into ``log`` (int32[m, EV_LEN]; m may be 0).
    Returns n_log, or -1 if the wall could not supply the tiles."""
    for r in range(3):
        for s in range(4):
            for _ in range(4):
                p = draw_live(ws)
                if p < 0:
                    return -1
                k = tile_kind(np.int64(wall[p]))
                hands[s, k] += 1
                n_log = _log(log, n_log, s, C.A_DEAL, k, p)
    for s in range(5):
        p = draw_live(ws)
        if p < 0:
            return -1
        k = tile_kind(np.int64(wall[p]))
        hands[s % 4, k] += 1
        n_log = _log(log, n_log, s % 4, C.A_DEAL, k, p)
    for s in range(4):
        n_log, drawn = replace_flowers(wall, ws, wild, s, hands, flowers, log, n_log)
        if drawn < 0:
            return -1
    return n_log


@njit(cache=True)
def ring_from_wall(wall, ws, ring):
    """Physical placement: ring[(ws[WS_BREAK] + i) % 144] = wall[i] (see the
    module doc for the ring index). ring: uint8[144] (written)."""
    b = ws[WS_BREAK]
    for i in range(C.N_TILES):
        ring[(b + i) % C.N_TILES] = wall[i]


def new_arrays():
    """Python helper: fresh (wall, work, st, ws, wild) arrays for wall_setup."""
    return (np.zeros(C.N_TILES, np.uint8), np.zeros(C.N_TILES, np.uint8),
            np.zeros(rng.RNG_LEN, np.uint64), np.zeros(WS_LEN, np.int64),
            np.zeros(C.N_KINDS, np.bool_))


def deal_one(rules, seed: int, deal: int, *, full: bool = True, log_rows: int = 0):
    """Python helper (tests, replays): set up and deal one deal.

    Returns a dict with wall (uint8[144] draw order), ws, wild (bool[42]),
    hands (int8[4, 42]), flowers (uint8[4] bit masks), indicator (kind or -1),
    ring (uint8[144]) and, when log_rows > 0, log (int32[n, EV_LEN])."""
    wall, work, st, ws, wild = new_arrays()
    ind = wall_setup(rules, np.uint64(seed), np.int64(deal), full, wall, work, st, ws, wild)
    hands = np.zeros((4, C.N_KINDS), np.int8)
    flowers = np.zeros(4, np.uint8)
    log = np.zeros((log_rows, C.EV_LEN), np.int32)
    n_log = log_setup(ws, log, 0)
    n_log = deal_hands(wall, ws, wild, hands, flowers, log, n_log)
    ring = np.zeros(C.N_TILES, np.uint8)
    ring_from_wall(wall, ws, ring)
    out = dict(wall=wall, ws=ws, wild=wild, hands=hands, flowers=flowers,
               indicator=int(ind), ring=ring, work=work, st=st)
    if log_rows:
        out["log"] = log[:min(n_log, log_rows)]
    return out

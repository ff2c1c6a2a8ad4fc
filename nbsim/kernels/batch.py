"""Deal mode: many deals into preallocated arrays, and bulk notation formatting.

``deal_batch`` runs deals ``start .. start + n - 1`` of a seed: for each, the
wall of ``nbsim.kernels.wall`` (dice, shuffle, indicator, wild kinds), the
deal, the one-time flower replacement, and the dealer's heavenly-hand check
(``hand.is_complete`` on the 14 tiles after replacement; docs/rules.md
§2, §3 and §5). Deal ``i``'s result depends only on (seed, i) (``kernels/rng.py``).

``format_hands`` writes the notation of many hands into one byte buffer with
Arrow-style offsets, so a wrapper can turn a
million hands into strings without a Python loop.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.hand import is_complete
from nbsim.kernels.jit import njit, nrt_free

MAX_HAND_TEXT = 24     # longest notation of a hand: 14 digits + 5 suit letters


@njit(cache=True, nogil=True)
def deal_batch(rules, seed, start, tables, hands, flowers, wilds_held, dice,
               indicator, complete):
    """Deal mode kernel: deals ``start .. start + n - 1`` of ``seed``.

    Args:
        rules: int64[R_LEN] (``RuleSet.array``).
        seed: uint64 run seed; start: int64 index of the first deal.
        tables: ``nbsim.rules.lookups.load_tables()`` (for ``hand.is_complete``).
    Outputs (first axis n = number of deals, all written):
        hands: int8[n, 4, 42] tile counts per seat (E S W N, dealer = E)
            after the flower replacement, wild flowers included.
        flowers: uint8[n, 4] bit mask of the flowers each seat set aside
            (bit f = flower f + 1, i.e. 1f is bit 0).
        wilds_held: uint8[n, 4] wild tiles in each seat's hand.
        dice: uint8[n, 4] the dice in throw order (unused entries 0).
        indicator: int8[n] indicator kind, -1 without wilds.
        complete: bool[n] True when the dealer's 14 tiles are a complete
            hand (heavenly hand, docs/rules.md §6 ``heavenly_hand``).
    Returns the number of complete dealer hands, or -1 if a deal failed
    (impossible with a 144-tile wall). Releases the GIL.

    Allocates the scratch arrays, then deals in ``_deal_range``, which is
    compiled without reference counting (``jit.nrt_free``): with it, every
    call passing an array would pay atomic increments (docs/layout.md,
    "The kernels", has the measurement).
    """
    scratch = (np.zeros(C.N_TILES, np.uint8), np.zeros(C.N_TILES, np.uint8),
               np.zeros(rng.RNG_LEN, np.uint64), np.zeros(W.WS_LEN, np.int64),
               np.zeros(C.N_KINDS, np.bool_), np.zeros(C.N_PLAY, np.int8),
               np.zeros(C.N_KINDS, np.int64), np.zeros((0, C.EV_LEN), np.int32))
    return _deal_range(rules, seed, start, tables, hands, flowers, wilds_held, dice,
                       indicator, complete, scratch)


@nrt_free(nogil=True, kernel_only=True)
def _deal_range(rules, seed, start, tables, hands, flowers, wilds_held, dice, indicator,
                complete, scratch):
    """The loop of ``deal_batch`` (same arguments) with its scratch arrays
    (wall, work, st, ws, wild, nat, wild_list, log), allocating nothing."""
    wall, work, st, ws, wild, nat, wild_list, log = scratch
    n = hands.shape[0]
    n_complete = 0
    for i in range(n):
        ind = W.wall_setup(rules, seed, start + i, False, wall, work, st, ws, wild)
        for s in range(4):
            for k in range(C.N_KINDS):
                hands[i, s, k] = 0
            flowers[i, s] = 0
        if W.deal_hands(wall, ws, wild, hands[i], flowers[i], log, 0) < 0:
            return -1
        n_wild_kinds = 0
        if ind >= 0:
            for k in range(C.N_KINDS):
                if wild[k]:
                    wild_list[n_wild_kinds] = k
                    n_wild_kinds += 1
        for s in range(4):
            w = 0
            for j in range(n_wild_kinds):
                w += hands[i, s, wild_list[j]]
            wilds_held[i, s] = w
        for k in range(C.N_PLAY):
            nat[k] = 0 if wild[k] else hands[i, 0, k]
        c = is_complete(nat, np.int64(wilds_held[i, 0]), tables)
        complete[i] = c
        if c:
            n_complete += 1
        for k in range(W.MAX_DICE):
            dice[i, k] = ws[W.WS_DICE + k]
        indicator[i] = ind
    return n_complete


# notation bytes: digits '1'..'9' and the suit letters m p s z f
_SUIT_LETTERS = np.array([ord(c) for c in "mpszf"], dtype=np.uint8)


@nrt_free(nogil=True)
def format_hands(hands, letters, data, offsets, used):
    """Notation of every seat's hand (docs/rules.md §1, e.g. ``123m55z2f``).

    hands: int8[n, 4, 42] counts (``deal_batch`` output); letters: uint8[5]
    the suit letters m p s z f (``SUIT_LETTERS``); data: uint8[4, n *
    MAX_HAND_TEXT + 4] (written: seat s's strings, concatenated); offsets:
    int32[4, n + 1] (written: Arrow string offsets per seat); used: int64[4]
    (written: bytes used per seat)."""
    n = hands.shape[0]
    for s in range(4):
        offsets[s, 0] = 0
    one = np.uint64(1)
    for s in range(4):
        # unsigned positions: no negative-index wrap-around test on every
        # store (docs/layout.md, "The kernels")
        pos = np.uint64(0)
        for i in range(n):
            for suit in range(5):
                if suit < 3:
                    base = suit * 9
                    top = 9
                elif suit == 3:
                    base = C.HONOR0
                    top = 7
                else:
                    base = C.FLOWER0
                    top = 8
                start = pos
                for r in range(top):
                    # branch-free: write 4 copies of the digit, keep count of them
                    digit = np.uint8(49 + r)         # '1' + r
                    data[s, pos] = digit
                    data[s, pos + one] = digit
                    data[s, pos + 2 * one] = digit
                    data[s, pos + 3 * one] = digit
                    pos += np.uint64(hands[i, s, base + r])
                data[s, pos] = letters[suit]
                if pos != start:
                    pos += one
            offsets[s, i + 1] = pos
        used[s] = pos


SUIT_LETTERS = _SUIT_LETTERS

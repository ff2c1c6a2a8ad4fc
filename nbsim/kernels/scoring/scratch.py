"""The scorer's integer scratch: one int64 array (``new_scratch()``,
int64[IW_LEN]) that ``score.score_one`` and the modules it calls
(``readings``, ``validation``, ``waits``) share, so that scoring a hand allocates
nothing. Each block's offset is computed from the sizes of the blocks before
it (``_blocks`` below), so a block can grow without renumbering the others.

Blocks (all int64; kinds 0..33 are the N_PLAY suited and honor kinds):

==============  ===================  ==============================================
offset          size                 contents
==============  ===================  ==============================================
O_NAT           N_PLAY               natural tiles per kind not yet covered by the
                                     reading search (changed and restored by it)
O_NAT0          N_PLAY               natural tiles per kind of the 14 concealed tiles
O_GT            MAX_GROUPS           type (G_PAIR / G_PUNG / G_CHOW) of each group
                                     the search placed
O_GB            MAX_GROUPS           base kind of each placed group
O_GC            MAX_GROUPS           naturals the group used: a count (pair, pung)
                                     or a bit mask of its three slots (chow)
O_GW            MAX_GROUPS           wilds the group used
O_LVPOS         MAX_LEVELS           search level d: the kind it covers
O_LVOPT         MAX_LEVELS           search level d: options still to try (bit mask)
O_LVMIN         MAX_LEVELS           search level d: the option taken
O_HC            HC_LEN               hand constants (``HC_*``)
O_ST            ST_LEN               best reading so far (``ST_*``)
O_BEST_ITEMS    N_TAI                item tai of the best reading
O_CAND_ITEMS    N_TAI                item tai of a candidate reading (tie-break)
O_HAND_ITEMS    N_TAI                item tai that do not depend on the reading
O_HAND_FANFU    N_FAN + N_FU         Ninghai fan, then fu, per item that do not depend
                                     on the reading (flowers, self-drawn, declared melds)
O_BEST_FANFU    N_FAN + N_FU         Ninghai fan and fu per item of the best reading
O_CAND_FANFU    N_FAN + N_FU         the same of a candidate reading (tie-break)
O_CLS           MAX_CLS * CLS_W      free meld classes (``CF_*`` fields)
O_NAT13         N_PLAY               natural tiles per kind of the 13-tile hand
O_MELD_COUNT    N_PLAY               tiles per kind in the declared melds
==============  ===================  ==============================================

Plain integers only (no numba import), so Numba freezes them as constants.
"""
import numpy as np

from nbsim.kernels import codes as C

# ---------------------------------------------------------------- group types and shapes
G_PAIR = 0          # group types inside a reading
G_PUNG = 1
G_CHOW = 2

SH_SINGLE = 0       # shape of the winning slot
SH_DUAL = 1
SH_EDGE = 2
SH_CLOSED = 3
SH_TWO = 4

# a reading has at most 4 melds + 1 pair; the search keeps one level per
# placed group plus the level that finds nothing left to cover
MAX_GROUPS = C.MAX_MELDS + 1
MAX_LEVELS = MAX_GROUPS + 1

# ---------------------------------------------------------------- hand constants hc[]
HC_SEAT = 0
HC_ROUND = 1
HC_WIN_BY = 2
HC_WIN_KIND = 3             # natural winning kind, -1 when the winning tile is a wild
HC_N_MELDS = 4
HC_CONST_TAI = 5            # hand items (flowers, self_drawn, ...) without three_wilds
HC_THREE_WILDS = 6          # three_wilds tai when it applies
HC_SUITS = 7                # suit bits (1 m, 2 p, 4 s, 8 honors) of the naturals and melds
HC_MELD_PUNGS = 8           # pungs/kongs among the declared melds
HC_MELD_CHOWS = 9           # chows among the declared melds
HC_MELD_DRAGON_PUNGS = 10   # dragon pungs among the declared melds
HC_MELD_SEAT_PUNG = 11      # 1: a seat-wind pung among the declared melds
HC_MELD_ROUND_PUNG = 12     # 1: a round-wind pung among the declared melds
HC_WAIT_N = 13              # size of the 13-tile wait set (capped at 3)
HC_WAIT_KIND0 = 14          # its first two kinds (-1: none)
HC_WAIT_KIND1 = 15
HC_HEAVENLY = 16
HC_NEEDS_SINGLE_KIND = 17   # wait_needs_single_kind
HC_FU_CONST = 18            # Ninghai: melds + flowers + self-drawn fu
HC_FAN_CONST = 19           # Ninghai: flower fan
HC_SYSTEM = 20
HC_SEAT_KIND = 21           # seat wind kind
HC_ROUND_KIND = 22          # round wind kind
HC_N_MELD_CLASSES = 23      # number of free meld classes
HC_N_PAIR_CLASSES = 24      # number of free pair classes
HC_PRESENT = 25             # bit mask of the tai hand items that apply (bit t: item t of
                            # codes.TAI_ITEMS), 0-tai items included
HC_PAIR_CLASS_SUIT = 26     # N_PAIR_CLASSES entries: suit bit of each free pair class
N_PAIR_CLASSES = 2
HC_LEN = HC_PAIR_CLASS_SUIT + N_PAIR_CLASSES

# ---------------------------------------------------------------- best reading st[]
ST_HAVE = 0
ST_KEY1 = 1         # tai (Ningbo) or points under points_scheme (Ninghai)
ST_KEY2 = 2         # fan (Ninghai)
ST_KEY3 = 3         # fu (Ninghai)
ST_LEGAL = 4
ST_DESC = 5         # reading descriptor (``readings.encode_desc``; dedupes equal readings)
ST_ANY_MIN = 6      # some reading reaches min_tai
ST_ANY_MINPAT = 7   # some reading reaches min_tai with an allowed pattern
ST_ANY_LEGAL = 8    # some reading is legal
ST_TAI_MIN = 9
ST_FAN = 10
ST_FU = 11
ST_FU_SETS = 12     # Ninghai: set fu items of the concealed groups and the closed wait
                    # (``readings.fu_desc``; with ST_DESC it gives the fan/fu items)
ST_LEN = 13

# ---------------------------------------------------------------- free meld classes
# table cls[c * CLS_W + field]
CLS_W = 8
CF_TYPE = 0
CF_SUIT = 1
CF_DRAG = 2
CF_SEAT = 3
CF_ROUND = 4
CF_FUI_C = 5        # Ninghai fu item of the class when concealed, as a set-count
                    # increment (``readings.fu_set_inc``; 0 for a chow)
CF_FUI_E = 6        # the same when exposed (a pung completed by a discarded winning tile)
MAX_CLS = 5


def _blocks(*sizes):
    """Offsets of consecutive blocks of the given sizes, and the total length."""
    offsets = []
    at = 0
    for n in sizes:
        offsets.append(at)
        at += n
    return (*offsets, at)


N_FANFU = C.N_FAN + C.N_FU     # fan items, then fu items, in the *_FANFU blocks

(O_NAT, O_NAT0, O_GT, O_GB, O_GC, O_GW, O_LVPOS, O_LVOPT, O_LVMIN, O_HC, O_ST,
 O_BEST_ITEMS, O_CAND_ITEMS, O_HAND_ITEMS, O_HAND_FANFU, O_BEST_FANFU, O_CAND_FANFU,
 O_CLS, O_NAT13, O_MELD_COUNT, IW_LEN) = _blocks(
    C.N_PLAY, C.N_PLAY,
    MAX_GROUPS, MAX_GROUPS, MAX_GROUPS, MAX_GROUPS,
    MAX_LEVELS, MAX_LEVELS, MAX_LEVELS,
    HC_LEN, ST_LEN,
    C.N_TAI, C.N_TAI, C.N_TAI,
    N_FANFU, N_FANFU, N_FANFU,
    MAX_CLS * CLS_W,
    C.N_PLAY, C.N_PLAY)


def new_scratch():
    """Scratch array for ``score.score_one``: int64[IW_LEN], zeros."""
    return np.zeros(IW_LEN, dtype=np.int64)

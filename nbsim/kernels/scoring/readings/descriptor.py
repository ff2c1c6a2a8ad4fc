"""The reading descriptor and the items of one reading (Numba; docs/rules.md
§6, §8, §10.3 and §10.4).

A reading's tai items that depend on its groups and winning slot (the
flushes, all_pungs, dragon pungs, the wind pungs, the wait item and
big_single_wait) are packed into one int, its descriptor; the items that do
not (the hand items, ``hand_items``) are hand constants in the scratch.

The reading descriptor
----------------------
``encode_desc`` packs the reading-dependent tai items of one reading into
one int (``DESC_*`` shifts and masks below); ``fill_items`` decodes it.
Equal descriptors mean equal item vectors, so the best reading is kept as
its descriptor and expanded only to break a tie or at the end.

For Ninghai, ``fu_desc`` packs the fu of the concealed groups the same way:
for each set item of ``codes.FU_ITEMS`` (exposed / concealed, pung / kong,
terminal / simple; indices 0..7) the number of such groups in FUD_BITS bits
(``fu_set_inc`` adds one), and the closed-wait fu as bit FUD_CLOSED_SHIFT.
The reading's fu is the hand constant HC_FU_CONST plus the value of each
packed count; ``fill_fan_fu`` expands the descriptors into fan and fu per
item, so a Ninghai result lists the items behind its totals.

Kernels: ``encode_desc``, ``fill_items``, ``reading_present``,
``fill_fan_fu``, ``set_fu``, and the small helpers ``item_tai``,
``has_item``, ``suit_bit``, ``fu_set_inc``, ``fu_desc``.
"""
from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.scoring.payments import pung_fu_item
from nbsim.kernels.scoring.scratch import O_HAND_FANFU, O_HAND_ITEMS

FLUSH_NONE = 0          # values of the flush field
FLUSH_FULL = 1
FLUSH_HALF = 2
FLUSH_HONORS = 3        # all honors
DESC_FLUSH_SHIFT = 0
DESC_FLUSH_MASK = 3
DESC_ALL_PUNGS_SHIFT = 2
DESC_DRAGONS_SHIFT = 3  # dragon pungs, 0..4
DESC_DRAGONS_MASK = 7
DESC_SEAT_PUNG_SHIFT = 6
DESC_ROUND_PUNG_SHIFT = 7
DESC_WAIT_SHIFT = 8     # wait item id + 1 (0: none)
DESC_WAIT_MASK = 31
DESC_BIG_SINGLE_SHIFT = 13
# ---------------------------------------------------------------- the Ninghai fu descriptor
FUD_BITS = 4            # bits per set item count (at most 4 sets)
FUD_MASK = 15
FUD_CLOSED_SHIFT = FUD_BITS * C.N_FU_SETS   # 1: the closed-wait fu applies

SUIT_HONORS = 8         # suit bit of the honors (1 m, 2 p, 4 s)


@njit(cache=True, inline="always")
def item_tai(rules, item):
    """Tai of tai item ``item`` (``codes.T_*``), 0 when the variant lacks it."""
    v = rules[C.R_TAI + item]
    return 0 if v == C.TAI_ABSENT else v


@njit(cache=True, inline="always")
def has_item(rules, item):
    """True when the variant has tai item ``item`` (``codes.T_*``)."""
    return rules[C.R_TAI + item] != C.TAI_ABSENT


@njit(cache=True, inline="always")
def suit_bit(kind):
    """Suit bit of a kind 0..33: 1 m, 2 p, 4 s, 8 honors."""
    if kind >= C.HONOR0:
        return SUIT_HONORS
    return 1 << (kind // 9)


@njit(cache=True, inline="always")
def fu_set_inc(kind, concealed, kong):
    """One pung/kong of ``kind`` in a packed set count (``Groups.fu_sets``,
    ``fu_desc``): 1 shifted to its fu item (``payments.pung_fu_item``)."""
    return 1 << (FUD_BITS * pung_fu_item(kind, concealed, kong))


@njit(cache=True, inline="always")
def fu_desc(fu_sets, closed):
    """The Ninghai fu descriptor of a reading (module doc): the packed set
    counts of its concealed groups and the closed-wait bit (closed: bool)."""
    return fu_sets | ((1 if closed else 0) << FUD_CLOSED_SHIFT)


@njit(cache=True, inline="always")
def encode_desc(flush, all_pungs, dragon_pungs, seat_pung, round_pung, wait_item, big_single):
    """The reading descriptor (module doc): flush FLUSH_*, all_pungs bool,
    dragon_pungs 0..4, seat_pung and round_pung 0/1, wait_item a T_* id or
    -1, big_single bool. Returns an int; ``fill_items`` decodes it."""
    return ((flush << DESC_FLUSH_SHIFT) | ((1 if all_pungs else 0) << DESC_ALL_PUNGS_SHIFT)
            | (dragon_pungs << DESC_DRAGONS_SHIFT) | (seat_pung << DESC_SEAT_PUNG_SHIFT)
            | (round_pung << DESC_ROUND_PUNG_SHIFT) | ((wait_item + 1) << DESC_WAIT_SHIFT)
            | ((1 if big_single else 0) << DESC_BIG_SINGLE_SHIFT))


@nrt_free(kernel_only=True)
def fill_items(rules, iw, o, desc):
    """Item tai of a reading into iw[o:o + N_TAI]: the hand items
    iw[O_HAND_ITEMS:] plus the reading items packed in desc (``encode_desc``)."""
    for t in range(C.N_TAI):
        iw[o + t] = iw[O_HAND_ITEMS + t]
    flush = (desc >> DESC_FLUSH_SHIFT) & DESC_FLUSH_MASK
    if flush == FLUSH_FULL:
        iw[o + C.T_FULL_FLUSH] += item_tai(rules, C.T_FULL_FLUSH)
    elif flush == FLUSH_HALF:
        iw[o + C.T_HALF_FLUSH] += item_tai(rules, C.T_HALF_FLUSH)
    elif flush == FLUSH_HONORS:
        iw[o + C.T_ALL_HONORS] += item_tai(rules, C.T_ALL_HONORS)
    if (desc >> DESC_ALL_PUNGS_SHIFT) & 1:
        iw[o + C.T_ALL_PUNGS] += item_tai(rules, C.T_ALL_PUNGS)
    iw[o + C.T_DRAGON_PUNG] += (((desc >> DESC_DRAGONS_SHIFT) & DESC_DRAGONS_MASK)
                                * item_tai(rules, C.T_DRAGON_PUNG))
    if (desc >> DESC_SEAT_PUNG_SHIFT) & 1:
        iw[o + C.T_SEAT_WIND_PUNG] += item_tai(rules, C.T_SEAT_WIND_PUNG)
    if (desc >> DESC_ROUND_PUNG_SHIFT) & 1:
        iw[o + C.T_PREVALENT_WIND_PUNG] += item_tai(rules, C.T_PREVALENT_WIND_PUNG)
    item = ((desc >> DESC_WAIT_SHIFT) & DESC_WAIT_MASK) - 1
    if item >= 0:
        iw[o + item] += item_tai(rules, item)
    if (desc >> DESC_BIG_SINGLE_SHIFT) & 1:
        iw[o + C.T_BIG_SINGLE_WAIT] += item_tai(rules, C.T_BIG_SINGLE_WAIT)


@njit(cache=True, inline="always")
def reading_present(rules, desc):
    """Bit mask of the reading-dependent tai items that apply in the reading
    ``desc`` (``encode_desc``; bit t: item t of ``codes.TAI_ITEMS``), items
    worth 0 tai included, items the variant lacks left out. The hand items'
    bits are the hand constant HC_PRESENT."""
    p = 0
    flush = (desc >> DESC_FLUSH_SHIFT) & DESC_FLUSH_MASK
    if flush == FLUSH_FULL and has_item(rules, C.T_FULL_FLUSH):
        p |= 1 << C.T_FULL_FLUSH
    elif flush == FLUSH_HALF and has_item(rules, C.T_HALF_FLUSH):
        p |= 1 << C.T_HALF_FLUSH
    elif flush == FLUSH_HONORS and has_item(rules, C.T_ALL_HONORS):
        p |= 1 << C.T_ALL_HONORS
    if (desc >> DESC_ALL_PUNGS_SHIFT) & 1 and has_item(rules, C.T_ALL_PUNGS):
        p |= 1 << C.T_ALL_PUNGS
    if (desc >> DESC_DRAGONS_SHIFT) & DESC_DRAGONS_MASK and has_item(rules, C.T_DRAGON_PUNG):
        p |= 1 << C.T_DRAGON_PUNG
    if (desc >> DESC_SEAT_PUNG_SHIFT) & 1 and has_item(rules, C.T_SEAT_WIND_PUNG):
        p |= 1 << C.T_SEAT_WIND_PUNG
    if (desc >> DESC_ROUND_PUNG_SHIFT) & 1 and has_item(rules, C.T_PREVALENT_WIND_PUNG):
        p |= 1 << C.T_PREVALENT_WIND_PUNG
    item = ((desc >> DESC_WAIT_SHIFT) & DESC_WAIT_MASK) - 1
    if item >= 0:                       # only an item the variant has is encoded
        p |= 1 << item
    if (desc >> DESC_BIG_SINGLE_SHIFT) & 1:
        p |= 1 << C.T_BIG_SINGLE_WAIT
    return p


@nrt_free(kernel_only=True)
def fill_fan_fu(rules, iw, o, desc, fud):
    """Ninghai fan per item (``codes.FAN_ITEMS``, before the fan cap) into
    iw[o:o + N_FAN] and fu per item (``codes.FU_ITEMS``) into
    iw[o + N_FAN:o + N_FAN + N_FU] of the reading with descriptor ``desc``
    (``encode_desc``) and fu descriptor ``fud`` (``fu_desc``): the hand items
    iw[O_HAND_FANFU:] plus the reading's (docs/rules.md §8 and §10)."""
    for i in range(C.N_FAN + C.N_FU):
        iw[o + i] = iw[O_HAND_FANFU + i]
    flush = (desc >> DESC_FLUSH_SHIFT) & DESC_FLUSH_MASK
    if flush == FLUSH_FULL:
        iw[o + C.F_FULL_FLUSH] += rules[C.R_FAN + C.F_FULL_FLUSH]
    elif flush == FLUSH_HALF:
        iw[o + C.F_HALF_FLUSH] += rules[C.R_FAN + C.F_HALF_FLUSH]
    elif flush == FLUSH_HONORS:
        iw[o + C.F_ALL_HONORS] += rules[C.R_FAN + C.F_ALL_HONORS]
    if (desc >> DESC_ALL_PUNGS_SHIFT) & 1:
        iw[o + C.F_ALL_PUNGS] += rules[C.R_FAN + C.F_ALL_PUNGS]
    iw[o + C.F_DRAGON_PUNG] += (((desc >> DESC_DRAGONS_SHIFT) & DESC_DRAGONS_MASK)
                                * rules[C.R_FAN + C.F_DRAGON_PUNG])
    for i in range(C.N_FU_SETS):
        iw[o + C.N_FAN + i] += ((fud >> (FUD_BITS * i)) & FUD_MASK) * rules[C.R_FU + i]
    if (fud >> FUD_CLOSED_SHIFT) & 1:
        iw[o + C.N_FAN + C.FU_CLOSED_WAIT] += rules[C.R_FU + C.FU_CLOSED_WAIT]


@njit(cache=True, inline="always")
def set_fu(rules, fu_sets):
    """Fu of packed set counts (``Groups.fu_sets``)."""
    fu = 0
    for i in range(C.N_FU_SETS):
        fu += ((fu_sets >> (FUD_BITS * i)) & FUD_MASK) * rules[C.R_FU + i]
    return fu

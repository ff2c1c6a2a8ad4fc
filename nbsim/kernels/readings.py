"""Readings of a winning hand: the search over group identities, the free
group classes, scoring one reading and keeping the best (RULES.md sections
5, 6, 8 and 10). ``score.score_one`` fills the hand constants of the scratch
(``scratch.O_HC``) and calls ``search``.

Kernels (``nrt_free`` or inlined; they read and write only the scratch
``iw``, int64[scratch.IW_LEN]):

* ``search(rules, iw, wilds, n_meld_slots, pair_slots) -> int``: every
  reading of the natural tiles iw[O_NAT:] with ``wilds`` wilds; the best one
  is left in iw[O_ST:] (``scratch.ST_*``). Returns the number of covers.
* ``fill_classes(rules, iw, suits, seat_kind, round_kind)``: the free group
  classes of a hand (below) into iw[O_CLS:] and the hand constants.
* ``fill_items(rules, iw, o, desc)``: the item tai of a reading descriptor;
  ``reading_present(rules, desc) -> int``: the tai items it says apply (a bit
  mask, 0-tai items included);
* ``fill_fan_fu(rules, iw, o, desc, fud)``: the Ninghai fan and fu per item of
  a reading (descriptor and fu descriptor ``fu_desc``).
* ``item_tai`` / ``has_item`` / ``suit_bit``: small helpers shared with
  ``score``.

How the readings are enumerated
===============================
A *reading* is a multiset of group identities (4 - n_melds melds + 1 pair,
each group a concrete chow / pung / pair of kinds 0..33) plus the slot the
winning tile occupies. It is valid when the 14 concealed tiles can be placed
in the slots: every natural tile in a slot of its own kind, wilds anywhere,
the winning tile in the winning slot. Every tai item depends only on the group
identities and the winning slot (plus hand constants), never on which
physical tile sits where, except the discard restrictions, which ask whether
the winning group *can* be all natural: that holds iff for each kind j the
group has at most nat[j] slots of kind j (nat = natural counts of the 14
tiles), because the naturals of a kind can be shuffled freely among that
kind's slots and the wilds fill the rest.

1. A depth-first search covers the natural tiles: at the lowest kind i that
   still has an uncovered natural it picks a group identity containing i
   (pair i, pung i, chow i.., chow (i-1).., chow (i-2)..; slots below i are
   wilds) and fills the group's other slots with naturals where any are left,
   else with wilds. Groups picked at the same kind come in nondecreasing
   option order (dedupe). Every identity multiset G whose slots cover the
   naturals is reached this way with some of its groups picked (the
   *natural groups* N) and the others left over (the *free groups* F, made
   only of wilds): at each step the lowest uncovered natural lies in some
   group of G not yet picked.
2. Free groups get their identity from a small set of *classes* (below).
3. The winning tile is placed ("hosted"):
   natural winning kind k: in a natural group with a k slot; or in a free
   meld / the free pair re-identified as pung k, a chow holding k (any
   position) or pair k (the natural k moves there and a wild takes its old
   slot).
   wild winning tile: in a natural-group slot of kind j when N has more
   j slots than nat[j] (a wild can sit there); otherwise in such a slot after
   re-identifying one free group to hold kind j (pung j, chow holding j,
   pair j); or in any slot of a free group (pung: dual-pung shape, chow: edge,
   closed or two-sided by choosing its ranks, pair: single shape).
   These cover every valid reading: the winning slot lies in N or in F, and
   a wild can stand in an N slot of kind j exactly when the whole reading
   has more j slots than naturals of j.

Free-group classes, and why they suffice
----------------------------------------
The tai of a reading depends on a free group (one not holding the winning
tile) only through: its type (chow/pung/pair: all_pungs, all_chows), its
suit bit (m, p, s or honors: flushes, all_honors, allowed_patterns), whether a
pung is a dragon (dragon_pung, counted per pung: wilds have no four-copies
limit, so a second White pung of wilds is allowed), the seat wind or the round
wind (the wind items), whether a pair is the seat or round wind (all_chows),
and for Ninghai fu whether a pung is terminal/honor or simple. So:

* meld classes: pung of a dragon, pung of the seat wind (also the round wind
  when they are equal), pung of the round wind, a suited pung, a suited chow;
* pair classes: a suited pair, an honor pair that is neither the seat nor
  the round wind (a dragon pair).

The suit of the suited classes is one the hand already shows (any of them:
the suit bits stay as they are); a suit it does not show would only add a
suit bit, which can never raise a flush item, so it is dominated. When the
naturals and melds are all honors, any suit stands for all three.

Every concrete identity X maps to a class of the same type whose items, in
any reading, are entrywise >= X's: a pung of another wind maps to the
seat-wind pung; a seat/round-wind pair to the dragon pair, which only helps
all_chows; a suited group to the suited class, whose suit bit is already set
(or, honors only, sets the same single suit bit); a suited pung scores the
larger of the terminal/simple fu. Legality is monotone too (more tai, suit
bits that are a subset, the same winning group), so the best key (tai,
legal, items) is reached by some class choice. The winning group is never a
class: its identity is enumerated exactly.

Choosing the counted reading
----------------------------
Ningbo (``system = "tai"``): most total tai; among equal tai a legal reading
(min_tai without three_wilds, allowed_patterns, discard restriction); among
those, the lexicographically largest vector of item tai in ``codes.TAI_ITEMS``
order (a deterministic tie-break that does not depend on the enumeration
order), then the lexicographically largest presence vector (which items
apply, in that order: it only separates readings that differ in items worth 0
tai, such as ``chicken_hand`` in ningbo-3baida). Ninghai (``"fan_fu"``): most
points under ``points_scheme``, then fan, then fu, then legal (RULES.md
section 10), then the lexicographically largest vector of item fan (before
the cap, ``codes.FAN_ITEMS`` order) and then of item fu (``codes.FU_ITEMS``
order). Readings that tie on every key are equal item by item, so the items
reported (tai, presence, fan and fu) never depend on the enumeration order
(docs/rules.md §10.3 and §10.4).

Wait items (RULES.md sections 6 and 10): the winning slot's shape is single
(pair), dual-pung (pung), edge (3 of 123, 7 of 789), closed (middle of a chow)
or two-sided (other chow ends). With ``wait_needs_single_kind`` the edge,
closed and single items need the 13-tile wait set (``hand.wait_mask``: wild
kinds and kinds with 4 copies in hand, melds or the indicator skipped) to be
exactly {the winning slot's kind}, and dual_pung exactly {winning kind, the
reading's pair kind}. A reading whose winning wild sits in a free group (or
that keeps any free group) leaves two wilds or a lone wild in the 13-tile hand,
so that hand waits on every kind and these items never apply to it.

The reading state
-----------------
While the search builds a reading, two named tuples travel down the calls
instead of twelve positional scalars. Numba passes a tuple's fields as plain
scalars, so this costs nothing: ``score_batch`` scored the benchmark hands of
benchmarks/bench_score.py at the same rate (CPU time, within 2%) in both
forms, with identical results; the named form is kept.

* ``Groups``: what the groups placed so far add up to: the suit bits, the
  pung, chow and dragon-pung counts, the seat / round wind pung flags, the
  pair's kind (-1 while the pair is a free class) and the Ninghai fu items of
  the concealed groups (set counts packed by ``fu_set_inc``);
* ``WinSlot``: the winning slot: its shape (``SH_*``), the kind it stands
  for (-1 inside a free group), whether the winning tile pairs with a wild
  and whether the winning group must hold a wild.

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
"""
from collections import namedtuple

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.payments import pung_fu_item, scheme_points
from nbsim.kernels.scratch import (
    CF_DRAG,
    CF_FUI_C,
    CF_FUI_E,
    CF_ROUND,
    CF_SEAT,
    CF_SUIT,
    CF_TYPE,
    CLS_W,
    G_CHOW,
    G_PAIR,
    G_PUNG,
    HC_CONST_TAI,
    HC_FAN_CONST,
    HC_FU_CONST,
    HC_HEAVENLY,
    HC_MELD_CHOWS,
    HC_MELD_DRAGON_PUNGS,
    HC_MELD_PUNGS,
    HC_MELD_ROUND_PUNG,
    HC_MELD_SEAT_PUNG,
    HC_N_MELD_CLASSES,
    HC_N_MELDS,
    HC_N_PAIR_CLASSES,
    HC_NEEDS_SINGLE_KIND,
    HC_PAIR_CLASS_SUIT,
    HC_ROUND_KIND,
    HC_SEAT_KIND,
    HC_SUITS,
    HC_SYSTEM,
    HC_THREE_WILDS,
    HC_WAIT_KIND0,
    HC_WAIT_KIND1,
    HC_WAIT_N,
    HC_WIN_BY,
    HC_WIN_KIND,
    MAX_CLS,
    N_PAIR_CLASSES,
    O_BEST_FANFU,
    O_BEST_ITEMS,
    O_CAND_FANFU,
    O_CAND_ITEMS,
    O_CLS,
    O_GB,
    O_GC,
    O_GT,
    O_GW,
    O_HAND_FANFU,
    O_HAND_ITEMS,
    O_HC,
    O_LVMIN,
    O_LVOPT,
    O_LVPOS,
    O_NAT,
    O_NAT0,
    O_ST,
    SH_CLOSED,
    SH_DUAL,
    SH_EDGE,
    SH_SINGLE,
    SH_TWO,
    ST_ANY_LEGAL,
    ST_ANY_MIN,
    ST_ANY_MINPAT,
    ST_DESC,
    ST_FAN,
    ST_FU,
    ST_FU_SETS,
    ST_HAVE,
    ST_KEY1,
    ST_KEY2,
    ST_KEY3,
    ST_LEGAL,
    ST_TAI_MIN,
)

# ---------------------------------------------------------------- the reading descriptor
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

Groups = namedtuple("Groups", ("suits", "pungs", "chows", "dragon_pungs", "seat_pung",
                               "round_pung", "pair_kind", "fu_sets"))
Groups.__doc__ = """The groups of a reading placed so far (see the module doc): int64 fields
suits (suit bits 1 m, 2 p, 4 s, 8 honors), pungs, chows, dragon_pungs,
seat_pung (0/1), round_pung (0/1), pair_kind (-1: none or a free pair
class), fu_sets (Ninghai fu items of the concealed groups: set counts
packed by ``fu_set_inc``; unused by the tai systems)."""
WinSlot = namedtuple("WinSlot", ("shape", "kind", "pairs_with_wild", "holds_wild"))
WinSlot.__doc__ = """The slot of the winning tile: shape (SH_*), kind (the kind the slot
stands for, -1 inside a free group), pairs_with_wild (bool: the winning
tile pairs with a wild), holds_wild (bool: the winning group must hold a
wild)."""


# ---------------------------------------------------------------- small helpers
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
def _chow_shape(base, pos):
    """Shape of the winning tile at position pos (0..2) of the chow starting at base."""
    if pos == 1:
        return SH_CLOSED
    rank = base % 9
    if pos == 0:
        return SH_EDGE if rank == 6 else SH_TWO      # 7 completing 89
    return SH_EDGE if rank == 0 else SH_TWO          # 3 completing 12


@njit(cache=True, inline="always")
def _natural_chow(iw, base):
    """True when the 14 tiles hold a natural tile of each kind of the chow at base."""
    return iw[O_NAT0 + base] >= 1 and iw[O_NAT0 + base + 1] >= 1 and iw[O_NAT0 + base + 2] >= 1


@njit(cache=True, inline="always")
def _with_pung(iw, groups, kind, fu_inc):
    """``groups`` plus a pung of ``kind`` whose fu item is ``fu_inc``
    (``fu_set_inc``)."""
    return Groups(groups.suits, groups.pungs + 1, groups.chows,
                  groups.dragon_pungs + (1 if kind >= C.WHITE else 0),
                  groups.seat_pung | (1 if kind == iw[O_HC + HC_SEAT_KIND] else 0),
                  groups.round_pung | (1 if kind == iw[O_HC + HC_ROUND_KIND] else 0),
                  groups.pair_kind, groups.fu_sets + fu_inc)


@njit(cache=True, inline="always")
def _with_chow(groups):
    """``groups`` plus a chow of a suit they already show."""
    return Groups(groups.suits, groups.pungs, groups.chows + 1, groups.dragon_pungs,
                  groups.seat_pung, groups.round_pung, groups.pair_kind, groups.fu_sets)


@njit(cache=True, inline="always")
def _with_pair(groups, kind, suits):
    """``groups`` with the pair of ``kind`` (-1: a free pair class) and suit bits ``suits``."""
    return Groups(suits, groups.pungs, groups.chows, groups.dragon_pungs, groups.seat_pung,
                  groups.round_pung, kind, groups.fu_sets)


@njit(cache=True, inline="always")
def _with_class(iw, groups, c, fu_field):
    """``groups`` plus a free meld of class c (fu item from field CF_FUI_C or
    CF_FUI_E)."""
    o = O_CLS + c * CLS_W
    pung = 1 if iw[o + CF_TYPE] == G_PUNG else 0
    return Groups(groups.suits | iw[o + CF_SUIT], groups.pungs + pung, groups.chows + 1 - pung,
                  groups.dragon_pungs + iw[o + CF_DRAG], groups.seat_pung | iw[o + CF_SEAT],
                  groups.round_pung | iw[o + CF_ROUND], groups.pair_kind,
                  groups.fu_sets + iw[o + fu_field])


# ---------------------------------------------------------------- free group classes
@nrt_free
def fill_classes(rules, iw, suits, seat_kind, round_kind):
    """The free group classes of a hand (see the module doc) into the class
    table iw[O_CLS:] and the hand constants HC_N_MELD_CLASSES,
    HC_N_PAIR_CLASSES and HC_PAIR_CLASS_SUIT.

    suits: suit bits of the natural tiles and melds; seat_kind, round_kind:
    the wind kinds 27..30. Call it only for hands with 2 or more wilds (with
    fewer, no group is made of wilds alone)."""
    # suit of the suited classes: a suit the hand already shows (all
    # leave the suit bits as they are), else (honors only) any suit
    class_suit = 0
    for b in range(2, -1, -1):
        if suits & (1 << b):
            class_suit = 1 << b
    if class_suit == 0:
        class_suit = 1
    # a suited pung of wilds takes the fu item worth more (terminal on a tie):
    # kind 0 (1m) is a terminal, kind 1 (2m) a simple
    suited_c = 0 if (rules[C.R_FU + C.FU_CONCEALED_PUNG_TERMINAL]
                     >= rules[C.R_FU + C.FU_CONCEALED_PUNG_SIMPLE]) else 1
    suited_e = 0 if (rules[C.R_FU + C.FU_EXPOSED_PUNG_TERMINAL]
                     >= rules[C.R_FU + C.FU_EXPOSED_PUNG_SIMPLE]) else 1
    n_classes = 0
    for c in range(MAX_CLS):
        # 0 dragon pung, 1 seat-wind pung (+ round when equal), 2 round-wind
        # pung, 3 suited pung, 4 suited chow
        if c == 2 and seat_kind == round_kind:
            continue
        o = O_CLS + n_classes * CLS_W
        iw[o + CF_TYPE] = G_CHOW if c == 4 else G_PUNG
        iw[o + CF_SUIT] = class_suit if c >= 3 else SUIT_HONORS
        iw[o + CF_DRAG] = 1 if c == 0 else 0
        iw[o + CF_SEAT] = 1 if c == 1 else 0
        iw[o + CF_ROUND] = 1 if (c == 2 or (c == 1 and seat_kind == round_kind)) else 0
        if c < 3:
            iw[o + CF_FUI_C] = fu_set_inc(C.EAST, True, False)
            iw[o + CF_FUI_E] = fu_set_inc(C.EAST, False, False)
        elif c == 3:
            iw[o + CF_FUI_C] = fu_set_inc(suited_c, True, False)
            iw[o + CF_FUI_E] = fu_set_inc(suited_e, False, False)
        else:
            iw[o + CF_FUI_C] = 0
            iw[o + CF_FUI_E] = 0
        n_classes += 1
    # pair classes: suited, or an honor that is neither the seat nor the round wind
    iw[O_HC + HC_PAIR_CLASS_SUIT + 0] = class_suit
    iw[O_HC + HC_PAIR_CLASS_SUIT + 1] = SUIT_HONORS
    iw[O_HC + HC_N_PAIR_CLASSES] = N_PAIR_CLASSES
    iw[O_HC + HC_N_MELD_CLASSES] = n_classes


# ---------------------------------------------------------------- one reading
@njit(cache=True, inline="always")
def encode_desc(flush, all_pungs, dragon_pungs, seat_pung, round_pung, wait_item, big_single):
    """The reading descriptor (module doc): flush FLUSH_*, all_pungs bool,
    dragon_pungs 0..4, seat_pung and round_pung 0/1, wait_item a T_* id or
    -1, big_single bool. Returns an int; ``fill_items`` decodes it."""
    return ((flush << DESC_FLUSH_SHIFT) | ((1 if all_pungs else 0) << DESC_ALL_PUNGS_SHIFT)
            | (dragon_pungs << DESC_DRAGONS_SHIFT) | (seat_pung << DESC_SEAT_PUNG_SHIFT)
            | (round_pung << DESC_ROUND_PUNG_SHIFT) | ((wait_item + 1) << DESC_WAIT_SHIFT)
            | ((1 if big_single else 0) << DESC_BIG_SINGLE_SHIFT))


@nrt_free
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


@nrt_free
def fill_fan_fu(rules, iw, o, desc, fud):
    """Ninghai fan per item (``codes.FAN_ITEMS``, before the fan cap) into
    iw[o:o + N_FAN] and fu per item (``codes.FU_ITEMS``) into
    iw[o + N_FAN:o + N_FAN + N_FU] of the reading with descriptor ``desc``
    (``encode_desc``) and fu descriptor ``fud`` (``fu_desc``): the hand items
    iw[O_HAND_FANFU:] plus the reading's (RULES.md sections 8 and 10)."""
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
def _set_fu(rules, fu_sets):
    """Fu of packed set counts (``Groups.fu_sets``)."""
    fu = 0
    for i in range(C.N_FU_SETS):
        fu += ((fu_sets >> (FUD_BITS * i)) & FUD_MASK) * rules[C.R_FU + i]
    return fu


@nrt_free
def _compare_vectors(iw, a, b, n):
    """Lexicographic comparison of iw[a:a + n] with iw[b:b + n]: 1, 0 or -1."""
    for i in range(n):
        if iw[a + i] != iw[b + i]:
            return 1 if iw[a + i] > iw[b + i] else -1
    return 0


@nrt_free
def _consider(rules, iw, groups, win):
    """Score one complete reading and keep it if it beats the best so far.

    groups: ``Groups`` of all the reading's groups (pair_kind -1: a free
    pair class); win: its ``WinSlot``."""
    suits = groups.suits & 7
    honors = (groups.suits & SUIT_HONORS) != 0
    one_suit = suits == 1 or suits == 2 or suits == 4
    full_flush = one_suit and not honors
    half_flush = one_suit and honors
    all_honors = suits == 0 and honors
    all_pungs = groups.pungs == 4
    pair_kind = groups.pair_kind
    # wait item of the winning slot (exclusive; RULES.md sections 6 and 10)
    item = -1
    closed_ok = False
    if iw[O_HC + HC_HEAVENLY] == 0:
        if win.shape == SH_TWO:
            wind_pair = pair_kind >= 0 and (pair_kind == iw[O_HC + HC_SEAT_KIND]
                                            or pair_kind == iw[O_HC + HC_ROUND_KIND])
            if groups.chows == 4 and not wind_pair and has_item(rules, C.T_ALL_CHOWS):
                item = C.T_ALL_CHOWS
        else:
            if iw[O_HC + HC_NEEDS_SINGLE_KIND]:
                wait_n = iw[O_HC + HC_WAIT_N]
                wait0 = iw[O_HC + HC_WAIT_KIND0]
                wait1 = iw[O_HC + HC_WAIT_KIND1]
                if win.shape == SH_DUAL:
                    ok = (wait_n == 2 and win.kind >= 0 and pair_kind >= 0 and
                          ((win.kind == wait0 and pair_kind == wait1)
                           or (win.kind == wait1 and pair_kind == wait0)))
                else:
                    ok = wait_n == 1 and win.kind == wait0
            else:
                ok = True
            if win.shape == SH_CLOSED:
                closed_ok = ok
            if ok:
                if win.shape == SH_SINGLE:
                    cand = C.T_SINGLE_WAIT
                elif win.shape == SH_DUAL:
                    cand = C.T_DUAL_PUNG_WAIT
                elif win.shape == SH_EDGE:
                    cand = C.T_EDGE_WAIT
                else:
                    cand = C.T_CLOSED_WAIT
                if has_item(rules, cand):
                    item = cand
        if item < 0 and has_item(rules, C.T_CHICKEN_HAND):
            item = C.T_CHICKEN_HAND
    big_single = (item == C.T_SINGLE_WAIT and iw[O_HC + HC_N_MELDS] == 4
                  and has_item(rules, C.T_BIG_SINGLE_WAIT))

    if iw[O_HC + HC_SYSTEM] == C.SYSTEM_TAI:
        tai = iw[O_HC + HC_CONST_TAI] + iw[O_HC + HC_THREE_WILDS]
        if full_flush:
            tai += item_tai(rules, C.T_FULL_FLUSH)
        if half_flush:
            tai += item_tai(rules, C.T_HALF_FLUSH)
        if all_honors:
            tai += item_tai(rules, C.T_ALL_HONORS)
        if all_pungs:
            tai += item_tai(rules, C.T_ALL_PUNGS)
        tai += groups.dragon_pungs * item_tai(rules, C.T_DRAGON_PUNG)
        if groups.seat_pung:
            tai += item_tai(rules, C.T_SEAT_WIND_PUNG)
        if groups.round_pung:
            tai += item_tai(rules, C.T_PREVALENT_WIND_PUNG)
        if item >= 0:
            tai += item_tai(rules, item)
        if big_single:
            tai += item_tai(rules, C.T_BIG_SINGLE_WAIT)
        for_min = tai - iw[O_HC + HC_THREE_WILDS]
        key1 = tai
        key2 = 0
        key3 = 0
        fan = 0
        fu = 0
        fud = 0
    else:
        fan = iw[O_HC + HC_FAN_CONST] + groups.dragon_pungs * rules[C.R_FAN + C.F_DRAGON_PUNG]
        if full_flush:
            fan += rules[C.R_FAN + C.F_FULL_FLUSH]
        if half_flush:
            fan += rules[C.R_FAN + C.F_HALF_FLUSH]
        if all_honors:
            fan += rules[C.R_FAN + C.F_ALL_HONORS]
        if all_pungs:
            fan += rules[C.R_FAN + C.F_ALL_PUNGS]
        fan = min(fan, rules[C.R_FAN_CAP])
        fu = _set_fu(rules, groups.fu_sets) + iw[O_HC + HC_FU_CONST]
        if closed_ok:
            fu += rules[C.R_FU + C.FU_CLOSED_WAIT]
        fud = fu_desc(groups.fu_sets, closed_ok)
        key1 = scheme_points(rules, rules[C.R_POINTS_SCHEME], fan, fu)
        key2 = fan
        key3 = fu
        for_min = fan
    # legality of this reading (RULES.md sections 5 and 10)
    meets_min = for_min >= rules[C.R_MIN_TAI]
    patterns = rules[C.R_ALLOWED_PATTERNS]
    pattern_ok = (patterns == 0 or (full_flush and (patterns & C.PAT_FULL_FLUSH) != 0)
                  or (half_flush and (patterns & C.PAT_HALF_FLUSH) != 0)
                  or (all_honors and (patterns & C.PAT_ALL_HONORS) != 0)
                  or (all_pungs and (patterns & C.PAT_ALL_PUNGS) != 0))
    discard_ok = True
    if iw[O_HC + HC_WIN_BY] == C.WIN_DISCARD:
        wild_rule = rules[C.R_DISCARD_WIN_WILD_RULE]
        if wild_rule == C.DWW_FORBID_WILD_PAIR:
            discard_ok = not win.pairs_with_wild
        elif wild_rule == C.DWW_FORBID_ANY_WILD_USE:
            discard_ok = not win.holds_wild
    legal = 1 if (meets_min and pattern_ok and discard_ok) else 0
    if meets_min:
        iw[O_ST + ST_ANY_MIN] = 1
        if pattern_ok:
            iw[O_ST + ST_ANY_MINPAT] = 1
    if legal:
        iw[O_ST + ST_ANY_LEGAL] = 1
    # compare with the best reading
    flush = (FLUSH_FULL if full_flush else (FLUSH_HALF if half_flush
                                            else (FLUSH_HONORS if all_honors else FLUSH_NONE)))
    desc = encode_desc(flush, all_pungs, groups.dragon_pungs, groups.seat_pung,
                       groups.round_pung, item, big_single)
    if iw[O_ST + ST_HAVE] != 0:
        # return unless this reading beats the best one (module doc)
        if key1 != iw[O_ST + ST_KEY1]:
            if key1 < iw[O_ST + ST_KEY1]:
                return
        elif key2 != iw[O_ST + ST_KEY2]:
            if key2 < iw[O_ST + ST_KEY2]:
                return
        elif key3 != iw[O_ST + ST_KEY3]:
            if key3 < iw[O_ST + ST_KEY3]:
                return
        elif legal != iw[O_ST + ST_LEGAL]:
            if legal < iw[O_ST + ST_LEGAL]:
                return
        elif iw[O_HC + HC_SYSTEM] == C.SYSTEM_TAI:
            # item tai vector, then presence vector (0-tai items)
            if desc == iw[O_ST + ST_DESC]:
                return
            fill_items(rules, iw, O_CAND_ITEMS, desc)
            fill_items(rules, iw, O_BEST_ITEMS, iw[O_ST + ST_DESC])
            cmp = _compare_vectors(iw, O_CAND_ITEMS, O_BEST_ITEMS, C.N_TAI)
            if cmp == 0:
                pc = reading_present(rules, desc)
                pb = reading_present(rules, iw[O_ST + ST_DESC])
                if pc != pb:
                    low = (pc ^ pb) & -(pc ^ pb)     # the first item that differs
                    cmp = 1 if pc & low else -1
            if cmp <= 0:
                return
        else:
            # Ninghai: item fan vector, then item fu vector
            if desc == iw[O_ST + ST_DESC] and fud == iw[O_ST + ST_FU_SETS]:
                return
            fill_fan_fu(rules, iw, O_CAND_FANFU, desc, fud)
            fill_fan_fu(rules, iw, O_BEST_FANFU, iw[O_ST + ST_DESC], iw[O_ST + ST_FU_SETS])
            if _compare_vectors(iw, O_CAND_FANFU, O_BEST_FANFU, C.N_FAN + C.N_FU) <= 0:
                return
    iw[O_ST + ST_HAVE] = 1
    iw[O_ST + ST_KEY1] = key1
    iw[O_ST + ST_KEY2] = key2
    iw[O_ST + ST_KEY3] = key3
    iw[O_ST + ST_LEGAL] = legal
    iw[O_ST + ST_DESC] = desc
    iw[O_ST + ST_TAI_MIN] = for_min
    iw[O_ST + ST_FAN] = fan
    iw[O_ST + ST_FU] = fu
    iw[O_ST + ST_FU_SETS] = fud


# ---------------------------------------------------------------- free groups
@nrt_free
def _free_pair(rules, iw, free_pair, groups, win):
    """Choose the class of a free pair (when free_pair is 1) and score."""
    if free_pair == 0:
        _consider(rules, iw, groups, win)
        return
    for pc in range(iw[O_HC + HC_N_PAIR_CLASSES]):
        _consider(rules, iw, _with_pair(groups, -1,
                                        groups.suits | iw[O_HC + HC_PAIR_CLASS_SUIT + pc]), win)


@nrt_free
def _free(rules, iw, free_melds, free_pair, groups, win):
    """Choose the classes of free_melds (0..2) free melds and the free pair
    (free_pair 0/1), then score."""
    if free_melds == 0:
        if free_pair == 0:
            _consider(rules, iw, groups, win)
        else:
            _free_pair(rules, iw, free_pair, groups, win)
        return
    n_classes = iw[O_HC + HC_N_MELD_CLASSES]
    for c1 in range(n_classes):
        groups1 = _with_class(iw, groups, c1, CF_FUI_C)
        if free_melds == 1:
            _free_pair(rules, iw, free_pair, groups1, win)
        else:
            for c2 in range(c1, n_classes):
                _free_pair(rules, iw, free_pair, _with_class(iw, groups1, c2, CF_FUI_C), win)


@nrt_free
def _convert_host(rules, iw, free_melds, free_pair, groups, j, is_host, win):
    """Re-identify one free group to hold kind j, then choose the other classes.

    is_host: the re-identified group holds the winning tile (natural winning
    kind j), so its winning slot is made here; otherwise ``win`` describes
    the winning slot elsewhere."""
    self_drawn = iw[O_HC + HC_WIN_BY] == C.WIN_SELF_DRAW
    if free_melds >= 1:
        # pung j
        pung = _with_pung(iw, groups, j, fu_set_inc(j, (not is_host) or self_drawn, False))
        if is_host:
            _free(rules, iw, free_melds - 1, free_pair, pung,
                  WinSlot(SH_DUAL, j, False, iw[O_NAT0 + j] < 3))
        else:
            _free(rules, iw, free_melds - 1, free_pair, pung, win)
        # chows holding j
        if j < C.HONOR0:
            chow = _with_chow(groups)
            rank = j % 9
            for pos in range(3):
                base_rank = rank - pos
                if base_rank < 0 or base_rank > 6:
                    continue
                base = j - pos
                if is_host:
                    _free(rules, iw, free_melds - 1, free_pair, chow,
                          WinSlot(_chow_shape(base, pos), j, False, not _natural_chow(iw, base)))
                else:
                    _free(rules, iw, free_melds - 1, free_pair, chow, win)
    if free_pair == 1:
        pair = _with_pair(groups, j, groups.suits)
        if is_host:
            holds_wild = iw[O_NAT0 + j] < 2
            _free(rules, iw, free_melds, 0, pair, WinSlot(SH_SINGLE, j, holds_wild, holds_wild))
        else:
            _free(rules, iw, free_melds, 0, pair, win)


@nrt_free
def _eval_leaf(rules, iw, n_groups, n_pairs, wilds_left):
    """All readings of one natural-group cover (n_groups groups in GT/GB,
    n_pairs pairs among them, wilds_left wilds left for the free groups)."""
    fan_fu = iw[O_HC + HC_SYSTEM] == C.SYSTEM_FAN_FU
    self_drawn = iw[O_HC + HC_WIN_BY] == C.WIN_SELF_DRAW
    pungs = iw[O_HC + HC_MELD_PUNGS]
    chows = iw[O_HC + HC_MELD_CHOWS]
    dragon_pungs = iw[O_HC + HC_MELD_DRAGON_PUNGS]
    seat_pung = iw[O_HC + HC_MELD_SEAT_PUNG]
    round_pung = iw[O_HC + HC_MELD_ROUND_PUNG]
    seat_kind = iw[O_HC + HC_SEAT_KIND]
    round_kind = iw[O_HC + HC_ROUND_KIND]
    pair_kind = -1
    fu_sets = 0
    for g in range(n_groups):
        gtype = iw[O_GT + g]
        base = iw[O_GB + g]
        if gtype == G_PUNG:
            pungs += 1
            if base >= C.WHITE:
                dragon_pungs += 1
            if base == seat_kind:
                seat_pung = 1
            if base == round_kind:
                round_pung = 1
            if fan_fu:
                fu_sets += fu_set_inc(base, True, False)
        elif gtype == G_CHOW:
            chows += 1
        else:
            pair_kind = base
    groups = Groups(iw[O_HC + HC_SUITS], pungs, chows, dragon_pungs, seat_pung, round_pung,
                    pair_kind, fu_sets)
    free_pair = 1 - n_pairs
    free_melds = (wilds_left - 2 * free_pair) // 3
    no_free = free_melds == 0 and free_pair == 0
    k = iw[O_HC + HC_WIN_KIND]
    if k >= 0:
        # natural winning tile in a natural group
        for g in range(n_groups):
            gtype = iw[O_GT + g]
            base = iw[O_GB + g]
            if gtype == G_CHOW:
                if base <= k <= base + 2:
                    win = WinSlot(_chow_shape(base, k - base), k, False,
                                  not _natural_chow(iw, base))
                    if no_free:
                        _consider(rules, iw, groups, win)
                    else:
                        _free(rules, iw, free_melds, free_pair, groups, win)
            elif base == k:
                if gtype == G_PUNG:
                    host = groups
                    if fan_fu and not self_drawn:
                        # completed by a discard: the pung counts as exposed
                        host = Groups(groups.suits, groups.pungs, groups.chows,
                                      groups.dragon_pungs, groups.seat_pung, groups.round_pung,
                                      groups.pair_kind,
                                      groups.fu_sets - fu_set_inc(k, True, False)
                                      + fu_set_inc(k, False, False))
                    win = WinSlot(SH_DUAL, k, False, iw[O_NAT0 + k] < 3)
                    if no_free:
                        _consider(rules, iw, host, win)
                    else:
                        _free(rules, iw, free_melds, free_pair, host, win)
                else:
                    holds_wild = iw[O_NAT0 + k] < 2
                    win = WinSlot(SH_SINGLE, k, holds_wild, holds_wild)
                    if no_free:
                        _consider(rules, iw, groups, win)
                    else:
                        _free(rules, iw, free_melds, free_pair, groups, win)
        # natural winning tile in a re-identified free group
        if free_melds >= 1 or free_pair == 1:
            _convert_host(rules, iw, free_melds, free_pair, groups, k, True,
                          WinSlot(SH_SINGLE, -1, False, False))
        return
    # wild winning tile in a natural-group slot of kind j
    for g in range(n_groups):
        gtype = iw[O_GT + g]
        base = iw[O_GB + g]
        n_slots = 3 if gtype == G_CHOW else 1
        for pos in range(n_slots):
            j = base + pos
            if gtype == G_CHOW:
                shape = _chow_shape(base, pos)
            elif gtype == G_PUNG:
                shape = SH_DUAL
            else:
                shape = SH_SINGLE
            host = groups
            if gtype == G_PUNG and fan_fu and not self_drawn:
                host = Groups(groups.suits, groups.pungs, groups.chows, groups.dragon_pungs,
                              groups.seat_pung, groups.round_pung, groups.pair_kind,
                              groups.fu_sets - fu_set_inc(j, True, False)
                              + fu_set_inc(j, False, False))
            win = WinSlot(shape, j, shape == SH_SINGLE, True)
            # slots of kind j among the natural groups
            slots_j = 0
            for g2 in range(n_groups):
                gtype2 = iw[O_GT + g2]
                base2 = iw[O_GB + g2]
                if gtype2 == G_CHOW:
                    if base2 <= j <= base2 + 2:
                        slots_j += 1
                elif base2 == j:
                    slots_j += 3 if gtype2 == G_PUNG else 2
            if slots_j > iw[O_NAT0 + j]:
                _free(rules, iw, free_melds, free_pair, host, win)
            elif free_melds >= 1 or free_pair == 1:
                _convert_host(rules, iw, free_melds, free_pair, host, j, False, win)
    # wild winning tile in a free meld
    if free_melds >= 1:
        fu_field = CF_FUI_C if self_drawn else CF_FUI_E
        for c in range(iw[O_HC + HC_N_MELD_CLASSES]):
            meld = _with_class(iw, groups, c, fu_field)
            if iw[O_CLS + c * CLS_W + CF_TYPE] == G_PUNG:
                _free(rules, iw, free_melds - 1, free_pair, meld,
                      WinSlot(SH_DUAL, -1, False, True))
            else:
                for shape in (SH_EDGE, SH_CLOSED, SH_TWO):
                    _free(rules, iw, free_melds - 1, free_pair, meld,
                          WinSlot(shape, -1, False, True))
    # wild winning tile in the free pair
    if free_pair == 1:
        for pc in range(iw[O_HC + HC_N_PAIR_CLASSES]):
            _free(rules, iw, free_melds, 0,
                  _with_pair(groups, -1, groups.suits | iw[O_HC + HC_PAIR_CLASS_SUIT + pc]),
                  WinSlot(SH_SINGLE, -1, True, True))


# ---------------------------------------------------------------- the search
OPT_PAIR = 0        # group options at the lowest uncovered kind i (bit numbers)
OPT_PUNG = 1
OPT_CHOW_LOW = 2    # chow i, i+1, i+2
OPT_CHOW_MID = 3    # chow i-1, i, i+1
OPT_CHOW_HIGH = 4   # chow i-2, i-1, i


@njit(cache=True, inline="always")
def _options(iw, i, wilds_left, n_pairs, n_melds, n_meld_slots, pair_slots, min_option):
    """Bit mask of the group options (OPT_*) at the lowest uncovered kind i
    that fit the wilds left, only options >= min_option (dedupe of groups
    picked at one kind)."""
    m = 0
    n = iw[O_NAT + i]
    if min_option <= OPT_PAIR and n_pairs < pair_slots and 2 - min(n, 2) <= wilds_left:
        m |= 1 << OPT_PAIR
    if n_melds < n_meld_slots:
        if min_option <= OPT_PUNG and 3 - min(n, 3) <= wilds_left:
            m |= 1 << OPT_PUNG
        if i < C.HONOR0:
            rank = i % 9
            miss1 = 1 if (rank > 7 or iw[O_NAT + i + 1] == 0) else 0
            miss2 = 1 if (rank > 6 or iw[O_NAT + i + 2] == 0) else 0
            if min_option <= OPT_CHOW_LOW and rank <= 6 and miss1 + miss2 <= wilds_left:
                m |= 1 << OPT_CHOW_LOW
            if min_option <= OPT_CHOW_MID and 1 <= rank <= 7 and 1 + miss1 <= wilds_left:
                m |= 1 << OPT_CHOW_MID
            if min_option <= OPT_CHOW_HIGH and rank >= 2 and wilds_left >= 2:
                m |= 1 << OPT_CHOW_HIGH
    return m


@nrt_free
def search(rules, iw, wilds, n_meld_slots, pair_slots):
    """Depth-first cover of the natural tiles iw[O_NAT:O_NAT + N_PLAY]
    (changed during the search, restored on return) by groups with
    ``wilds`` wilds: n_meld_slots melds and pair_slots (0/1) pairs.
    Evaluates every complete cover (``_eval_leaf``), keeping the best reading
    in iw[O_ST:], and returns the number of covers. Level d keeps its kind
    in LVPOS, its options still to try in LVOPT (bit mask) and the option
    taken in LVMIN; the group it placed is GT/GB/GC (type, base kind,
    naturals used: a count, or a slot bit mask for a chow) and GW (wilds
    used). Needs the hand constants and classes of iw (``score.score_one``)."""
    leaves = 0
    d = 0
    n_pairs = 0
    n_melds = 0
    wilds_left = wilds
    i0 = 0
    while i0 < C.N_PLAY and iw[O_NAT + i0] == 0:
        i0 += 1
    iw[O_LVPOS + 0] = i0
    if i0 < C.N_PLAY:
        iw[O_LVOPT + 0] = _options(iw, i0, wilds_left, 0, 0, n_meld_slots, pair_slots, 0)
    while d >= 0:
        i = iw[O_LVPOS + d]
        if i >= C.N_PLAY:
            if wilds_left == 3 * (n_meld_slots - n_melds) + 2 * (pair_slots - n_pairs):
                leaves += 1
                _eval_leaf(rules, iw, d, n_pairs, wilds_left)
        else:
            m = iw[O_LVOPT + d]
            if m != 0:
                opt = 0
                while (m >> opt) & 1 == 0:
                    opt += 1
                iw[O_LVOPT + d] = m & (m - 1)
                iw[O_LVMIN + d] = opt
                if opt == OPT_PAIR:
                    used = min(iw[O_NAT + i], 2)
                    need = 2 - used
                    iw[O_NAT + i] -= used
                    n_pairs += 1
                    iw[O_GT + d] = G_PAIR
                    iw[O_GB + d] = i
                    iw[O_GC + d] = used
                elif opt == OPT_PUNG:
                    used = min(iw[O_NAT + i], 3)
                    need = 3 - used
                    iw[O_NAT + i] -= used
                    n_melds += 1
                    iw[O_GT + d] = G_PUNG
                    iw[O_GB + d] = i
                    iw[O_GC + d] = used
                else:
                    base = i + OPT_CHOW_LOW - opt
                    used_slots = 0
                    need = 0
                    for s in range(3):
                        if iw[O_NAT + base + s] > 0:
                            used_slots |= 1 << s
                            iw[O_NAT + base + s] -= 1
                        else:
                            need += 1
                    n_melds += 1
                    iw[O_GT + d] = G_CHOW
                    iw[O_GB + d] = base
                    iw[O_GC + d] = used_slots
                wilds_left -= need
                iw[O_GW + d] = need
                i1 = i
                while i1 < C.N_PLAY and iw[O_NAT + i1] == 0:
                    i1 += 1
                d += 1
                iw[O_LVPOS + d] = i1
                if i1 < C.N_PLAY:
                    iw[O_LVOPT + d] = _options(iw, i1, wilds_left, n_pairs, n_melds,
                                               n_meld_slots, pair_slots, opt if i1 == i else 0)
                continue
        # pop: undo the group of the level above
        d -= 1
        if d >= 0:
            gtype = iw[O_GT + d]
            if gtype == G_CHOW:
                for s in range(3):
                    if iw[O_GC + d] & (1 << s):
                        iw[O_NAT + iw[O_GB + d] + s] += 1
                n_melds -= 1
            else:
                iw[O_NAT + iw[O_GB + d]] += iw[O_GC + d]
                if gtype == G_PAIR:
                    n_pairs -= 1
                else:
                    n_melds -= 1
            wilds_left += iw[O_GW + d]
    return leaves

"""The hand-level Ningbo tai items (Numba; docs/rules.md §6): the items read
from the hand as a whole (flowers, how and when it was won, the wilds it
holds), not from one reading of it.

Each item has a reading function ``f(rules, h) -> int``, named by its row
of the item registry (``items.TAI_ITEM_TABLE``, level ``"hand"``): how
many times the item applies to the winning situation ``h`` (``HandFacts``),
0 when it does not. ``tai_hand_items`` calls them all, in table order, with
the dispatch technique of ``policies.registry`` (``numba.literal_unroll``
over the functions the table names: each call is compiled direct), and
writes each item's tai into the scratch. A reading function is only asked
how many times its item applies; whether the variant has the item
(``scoring.tai.<id>``) and what it is worth is read from ``rules`` by the
dispatch.
"""
import warnings
from collections import namedtuple

from numba import literal_unroll
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.extending import overload

from nbsim.kernels import codes as C
from nbsim.kernels.items import HAND_TAI_ITEMS
from nbsim.kernels.jit import njit
from nbsim.kernels.scoring.readings.descriptor import has_item, item_tai
from nbsim.kernels.scoring.scratch import O_HAND_ITEMS

# numba types a tuple of compiled functions through its first-class function
# machinery and warns that it is experimental; the calls below are direct
# (as in ``policies.registry``)
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)

HandFacts = namedtuple("HandFacts", (
    "n_flowers", "set_a", "set_b", "seat_a", "seat_b", "win_by", "ctx", "win_wild", "wilds",
    "holds_all3", "wild_single_wait"))
HandFacts.__doc__ = """What the hand-level items read (int64 or bool fields):
n_flowers (flowers set aside), set_a / set_b (of group A 1f-4f / group B
5f-8f), seat_a / seat_b (seat flowers among them), win_by (``codes.WIN_*``),
ctx (``codes.CTX_*`` bits), win_wild (the winning tile is a wild), wilds
(wilds among the 14 concealed tiles), holds_all3 (the hand holds all three
wilds), wild_single_wait (the 13 tiles less one wild are complete melds)."""


@njit(cache=True, inline="always")
def flower_counts(rules, flowers, seat):
    """(flowers set aside, of group A 1f-4f, of group B 5f-8f, seat flowers
    of group A, seat flowers of group B) for ``flowers`` int8[8] (1: set
    aside) and the winner's ``seat`` 0..3 (docs/rules.md §6, §8)."""
    n_flowers = 0
    set_a = 0
    set_b = 0
    seat_a = 0
    seat_b = 0
    for f in range(C.N_FLOWERS):
        if flowers[f]:
            n_flowers += 1
            is_seat = rules[C.R_SEAT_FLOWERS + seat * 8 + f] != 0
            if f < 4:
                set_a += 1
                if is_seat:
                    seat_a += 1
            else:
                set_b += 1
                if is_seat:
                    seat_b += 1
    return n_flowers, set_a, set_b, seat_a, seat_b


# ---------------------------------------------------------------- the readings
@njit(cache=True, inline="always")
def _self_drawn(h):
    return h.win_by == C.WIN_SELF_DRAW


@njit(cache=True, inline="always")
def _heavenly(h):
    return (h.ctx & C.CTX_HEAVENLY) != 0


@njit(cache=True, inline="always")
def _all_flowers_apply(rules, h):
    return h.n_flowers == 8 and has_item(rules, C.T_ALL_FLOWERS)


@njit(cache=True, inline="always")
def self_drawn(rules, h):
    """``self_drawn`` 自摸: the winner drew the winning tile."""
    return 1 if _self_drawn(h) else 0


@njit(cache=True, inline="always")
def out_with_replacement(rules, h):
    """``out_with_replacement`` 杠上开花: a self-drawn win on a kong or
    flower replacement."""
    return 1 if _self_drawn(h) and (h.ctx & C.CTX_AFTER_KONG) else 0


@njit(cache=True, inline="always")
def no_wilds(rules, h):
    """``no_wilds`` 硬胡: no wild among the 14 concealed tiles."""
    return 1 if h.wilds == 0 else 0


@njit(cache=True, inline="always")
def three_wilds(rules, h):
    """``three_wilds`` 三财神: a self-drawn win holding all three wilds."""
    return 1 if _self_drawn(h) and h.holds_all3 else 0


@njit(cache=True, inline="always")
def robbing_the_kong(rules, h):
    """``robbing_the_kong`` 抢杠: a win on another seat's added-kong tile."""
    return 1 if h.win_by == C.WIN_ROBBING_KONG else 0


@njit(cache=True, inline="always")
def last_tile_draw(rules, h):
    """``last_tile_draw`` 海底捞月: a self-drawn win on the last drawable tile."""
    return 1 if _self_drawn(h) and (h.ctx & C.CTX_LAST_TILE) else 0


@njit(cache=True, inline="always")
def heavenly_hand(rules, h):
    """``heavenly_hand`` 天胡: the dealer's dealt hand is complete."""
    return 1 if _heavenly(h) else 0


@njit(cache=True, inline="always")
def earthly_hand(rules, h):
    """``earthly_hand`` 地胡: the earthly context (``win.earthly_hand_rule``)."""
    return 1 if h.ctx & C.CTX_EARTHLY else 0


@njit(cache=True, inline="always")
def seat_flower(rules, h):
    """``seat_flower`` 正花: each seat flower set aside, except in a group
    that makes a ``flower_set`` and when ``all_flowers`` applies."""
    if _all_flowers_apply(rules, h):
        return 0
    has_set = has_item(rules, C.T_FLOWER_SET)
    return ((0 if (h.set_a == 4 and has_set) else h.seat_a)
            + (0 if (h.set_b == 4 and has_set) else h.seat_b))


@njit(cache=True, inline="always")
def flower_set(rules, h):
    """``flower_set`` 四花: each group of four flowers set aside (where the
    variant has the item), unless ``all_flowers`` applies."""
    if _all_flowers_apply(rules, h) or not has_item(rules, C.T_FLOWER_SET):
        return 0
    return (1 if h.set_a == 4 else 0) + (1 if h.set_b == 4 else 0)


@njit(cache=True, inline="always")
def all_flowers(rules, h):
    """``all_flowers`` 八花: all eight flowers set aside."""
    return 1 if _all_flowers_apply(rules, h) else 0


@njit(cache=True, inline="always")
def wild_single_wait(rules, h):
    """``wild_single_wait`` 抛搭: the 13 tiles less one wild were complete melds."""
    return 1 if h.wild_single_wait else 0


@njit(cache=True, inline="always")
def wild_drawn(rules, h):
    """``wild_drawn`` 摸搭: a self-drawn win on a wild (not the heavenly hand)."""
    return 1 if _self_drawn(h) and h.win_wild and not _heavenly(h) else 0


# ---------------------------------------------------------------- the dispatch
_READINGS = tuple(globals()[r.reading] for r in HAND_TAI_ITEMS)
_ITEMS = tuple(getattr(C, r.const) for r in HAND_TAI_ITEMS)


def tai_hand_items(rules, iw, h):
    """Every hand-level tai item applying to ``h`` (``HandFacts``): its tai
    (times the count of its reading) into iw[O_HAND_ITEMS + item] (iw:
    int64[scratch.IW_LEN], those entries zeroed by the caller). Returns the
    bit mask of the items that apply (bit t: item t of ``codes.TAI_ITEMS``),
    items worth 0 tai included, items the variant lacks left out.
    (Compiled by numba.)"""
    raise NotImplementedError("a kernel: call it from compiled code")


@overload(tai_hand_items, jit_options={"_nrt": False, "error_model": "numpy"})
def _tai_hand_items(rules, iw, h):
    fns = _READINGS
    items = _ITEMS

    def impl(rules, iw, h):
        present = 0
        i = 0
        for f in literal_unroll(fns):
            n = f(rules, h)
            if n > 0:
                item = items[i]
                iw[O_HAND_ITEMS + item] = n * item_tai(rules, item)
                if has_item(rules, item):
                    present |= 1 << item
            i += 1  # noqa: SIM113 (enumerate does not unroll)
        return present
    return impl

"""The exact own-draw chance (``exact_own_draws``) against references that
share no code with it (tests/exact_own_draw_reference.py): an enumeration
of every arrangement of small walls, a recursion over turns and a Monte
Carlo on real walls, in Ningbo and in Ninghai, with and without unseen
flowers, with tiles that left the wall unlisted and with Ninghai's reserve
(a kong adding its stack). The table's numbers (unseen tiles by kind, the
others' concealed tiles, the reserve) and the winning kinds
(tests/naive_hand.py) are derived here from the table's tiles.
"""
from __future__ import annotations

import re
from collections import Counter
from math import comb

import pytest
from exact_own_draw_reference import (
    EVERY_CONTEXT,
    Table,
    enumerate_walls,
    simulate,
    table_numbers,
    turn_chain,
)

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.play.advice.state import position_from_state
from nbsim.play.evaluation import exact_own_draws, own_draw_chain
from nbsim.rules.tiles import KIND_NAMES, parse_tile, parse_tiles

from naive_hand import naive_complete

SEATS = "ESWN"
FLOWERS = {KIND_NAMES[k] for k in range(C.FLOWER0, C.N_KINDS)}


def _tiles(text: str) -> list[str]:
    return [KIND_NAMES[k] for k in parse_tiles(text, max_copies=None)]


def _meld_tiles(text: str) -> list[str]:
    return _tiles(text.split(":", 1)[1].split("@")[0])


def late_state(*, hand: str, drawn: str, melds: dict[str, list[str]], unseen: str,
               flowers: dict[str, str], indicator: str | None = None,
               wall_left: int | None = None) -> dict:
    """A table state for East to discard where every tile but ``unseen``
    is on the table: the tiles not in the hand, the melds, the flowers set
    aside, the indicator or ``unseen`` go to the four ponds in turn."""
    left = Counter({k: 4 for k in KIND_NAMES[:C.N_PLAY]} | {k: 1 for k in FLOWERS})
    shown = _tiles(hand) + _tiles(unseen) + [t for ms in melds.values() for m in ms
                                              for t in _meld_tiles(m)]
    shown += [t for f in flowers.values() for t in _tiles(f)] + ([indicator] if indicator else [])
    left.subtract(Counter(shown))
    assert min(left.values()) >= 0, left
    rest = sorted(left.elements(), key=parse_tile)
    assert not set(rest) & FLOWERS, "every flower is set aside or unseen"
    ponds = {s: "".join(rest[i::4]) for i, s in enumerate(SEATS)}
    state = {"seat": "E", "hand": hand, "drawn": drawn, "melds": melds, "flowers": flowers,
             "discards": ponds}
    if indicator:
        state["indicator"] = indicator
    if wall_left is not None:
        state["wall_left"] = wall_left
    return state


def _unseen(state: dict, face_down: tuple[str, ...] = ()) -> dict[str, int]:
    """Unseen copies by kind: the set less the tiles shown (a discard in
    parentheses is counted in its meld) and the ``face_down`` kongs."""
    seen = Counter(_tiles(state["hand"]) + [k for k in face_down for _ in range(4)])
    for ms in state.get("melds", {}).values():
        seen.update(t for m in ms if m != "ckong" for t in _meld_tiles(m))
    for text in state.get("discards", {}).values():
        seen.update(_tiles(re.sub(r"\([^)]*\)", "", text.replace("*", ""))))
    for text in state.get("flowers", {}).values():
        seen.update(_tiles(text))
    if state.get("indicator"):
        seen[state["indicator"]] += 1
    return {k: (1 if k in FLOWERS else 4) - seen[k] for k in KIND_NAMES}


def numbers(state: dict, *, reserve: int, wild: set[str] = frozenset(),
            face_down: tuple[str, ...] = ()):
    """The reference Table of a state (East discards ``drawn``): unseen
    copies by kind from the tiles shown (a discard in parentheses is
    counted in its meld), the winning kinds by naive completeness (a wild
    unseen wins too), legal in every context. ``face_down``: the kinds of
    the others' face-down kongs (``ckong`` melds), out of the unseen."""
    unseen = {k: n for k, n in _unseen(state, face_down).items() if n > 0}
    after = Counter(_tiles(state["hand"]))
    after[state["drawn"]] -= 1
    counts = [0] * C.N_PLAY
    for k, n in after.items():
        if k not in wild:
            counts[parse_tile(k)] += n
    n_wilds = sum(after[k] for k in wild)
    winning = {}
    for k in unseen:
        if k in wild:
            winning[k] = EVERY_CONTEXT
        elif k not in FLOWERS:
            c = list(counts)
            c[parse_tile(k)] += 1
            if naive_complete(c, n_wilds):
                winning[k] = EVERY_CONTEXT
    melds = state.get("melds", {})
    concealed = sum(13 - 3 * len(melds.get(s, [])) for s in SEATS[1:])
    most = sum(unseen.values()) - concealed - reserve
    drawable = state.get("wall_left", most)
    flower_kinds = FLOWERS - wild
    return table_numbers(unseen_by_kind=unseen, flower_kinds=flower_kinds, winning=winning,
                         drawable=drawable, reserve=reserve, concealed=concealed,
                         most_drawable=most), set(winning)


FOUR_MELDS = {"S": ["pung:111p", "pung:222p", "pung:333p", "pung:444p"],
              "W": ["pung:555p", "pung:666p", "pung:777p", "pung:888p"],
              "N": ["pung:111s", "pung:222s", "pung:333s", "pung:444s"]}

SMALL = {
    # Ningbo: a nine-gates full flush of m waits on every m; 2 of them, 2
    # flowers and 11 other tiles unseen, 12 drawable (3 own draws at most)
    "ningbo": ("ningbo-3baida", 0, late_state(
        hand="1112345678999m5z", drawn="5z", indicator="9p", melds=FOUR_MELDS,
        unseen="57m1s5678s123z567z12f", flowers={"E": "3f4f", "S": "5f6f", "N": "7f8f"})),
    # the same with 4 tiles gone from the wall unlisted (wall_left 8 of 12)
    "ningbo-unlisted": ("ningbo-3baida", 0, late_state(
        hand="1112345678999m5z", drawn="5z", indicator="9p", melds=FOUR_MELDS,
        unseen="57m1s5678s123z567z12f", flowers={"E": "3f4f", "S": "5f6f", "N": "7f8f"},
        wall_left=8)),
    # Ninghai: a single wait on 5p, one unseen, 2 flowers; nine reserved
    # stacks and one more for North's kong: 20 tiles never drawn
    "ninghai": ("ninghai", 20, late_state(
        hand="123m456m789m123p5p5z", drawn="5z",
        melds={"S": ["pung:444p", "pung:666p", "pung:777p", "pung:888p"],
               "W": ["pung:999p", "pung:111s", "pung:222s", "pung:333s"],
               "N": ["pung:111m", "pung:222m", "pung:333m", "kong:4444s"]},
        unseen="5p" + "5678s" * 3 + "1234567z" * 2 + "9s9s7f8f",
        flowers={"E": "1f2f", "S": "3f4f", "W": "5f6f"})),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_exact_equals_every_arrangement_of_a_small_wall(name):
    rules, reserve, state = SMALL[name]
    pos = position_from_state(rules, state)
    table, waits = numbers(state, reserve=reserve, wild={"9p"} if rules != "ninghai" else set())
    assert table.flowers > 0 and table.winning
    exact = exact_own_draws(rules, pos)[parse_tile(state["drawn"])]
    assert {KIND_NAMES[k] for k in exact.waits} == waits
    assert exact.flowers_unseen == table.flowers and exact.drawable == table.drawable
    truth = enumerate_walls(table)
    assert exact.p_win == pytest.approx(float(truth), abs=1e-12)
    # the hypergeometric chance over every fourth drawable tile is too high
    w, u, n = exact.winning_unseen, exact.unseen, exact.draws
    assert 1 - comb(u - w, n) / comb(u, n) > float(truth) + 0.01


README = {"seat": "E", "indicator": "9m", "hand": "123m456p789s1155z3p", "drawn": "3p",
          "discards": {"E": "19m", "S": "9s1z", "W": "5p", "N": "2z(7z)"},
          "melds": {"W": ["pung:777z"]}}
REAL = {
    # the README's table: 8 unseen flowers, 84 drawable tiles
    "ningbo-readme": ("ningbo-3baida", 0, {"9m"}, README),
    # Ninghai mid-deal: a kong (one more reserved stack), 3 flowers set aside
    "ninghai": ("ninghai", 20, set(), {
        "seat": "E", "hand": "123m456m789m23p55p9s", "drawn": "9s",
        "discards": {"E": "19p", "S": "9s1z7z", "W": "5s2z", "N": "3z4z(6z)"},
        "melds": {"S": ["kong:6666z@N"]}, "flowers": {"E": "1f", "W": "3f7f"}}),
    # Ningbo 7-baida with 12 tiles gone unlisted (wall_left 60)
    "7baida-unlisted": ("ningbo-7baida", 0, {"5s", "6s"}, {
        "seat": "E", "indicator": "5s", "hand": "11122233344m77z5z", "drawn": "5z",
        "discards": {"E": "9p1z", "S": "2z", "W": "8p", "N": "3z"}, "wall_left": 60}),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_exact_equals_the_turn_chain_on_real_walls(name):
    rules, reserve, wild, state = REAL[name]
    pos = position_from_state(rules, state)
    table, waits = numbers(state, reserve=reserve, wild=wild)
    assert table.flowers > 0 and table.drawable > 40
    exact = exact_own_draws(rules, pos)[parse_tile(state["drawn"])]
    assert {KIND_NAMES[k] for k in exact.waits} == waits
    assert exact.p_win == pytest.approx(turn_chain(table), abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_exact_agrees_with_a_simulation_of_real_walls(name):
    rules, reserve, wild, state = REAL[name]
    table, _ = numbers(state, reserve=reserve, wild=wild)
    exact = exact_own_draws(rules, position_from_state(rules, state))
    p, se = simulate(table, 20_000, seed=43)
    assert abs(exact[parse_tile(state["drawn"])].p_win - p) < 4.5 * se


def _table(drawable, reserve, unlisted, concealed, flowers, winning):
    pool = concealed + drawable + reserve + unlisted - flowers
    return Table(drawable, reserve, unlisted, concealed, flowers,
                 pool - sum(n for n, _ in winning), winning)


ONLY = frozenset
MIXED = [
    # (drawable, reserve, unlisted, concealed, flowers, ((tiles, contexts), ...)):
    # contexts 1 a replacement, 2 the last tile, 3 both
    _table(10, 0, 0, 3, 2, ((2, ONLY({1, 3})), (1, EVERY_CONTEXT))),
    _table(9, 2, 1, 2, 2, ((1, ONLY({2, 3})), (2, EVERY_CONTEXT))),
    _table(9, 0, 1, 2, 2, ((1, ONLY({3})), (1, ONLY({1, 3})), (1, EVERY_CONTEXT))),
    _table(9, 0, 0, 2, 2, ((1, ONLY({2, 3})), (1, ONLY({1, 3})), (1, ONLY({3})))),
    _table(10, 0, 0, 1, 3, ((2, ONLY({1})), (1, ONLY({2})))),
    _table(8, 18, 0, 3, 2, ((2, EVERY_CONTEXT),)),
]


@pytest.mark.parametrize("table", MIXED)
def test_the_chain_equals_every_arrangement_when_wins_need_a_context(table):
    """A hand below the minimum on a live draw may win on a flower's
    replacement or on the last tile (out_with_replacement, last_tile_draw):
    the chain against the enumeration, contexts as bits (docs/rules.md §6)."""
    slots = table.drawable + table.reserve + table.unlisted
    pool = table.concealed + slots - table.flowers
    bits = tuple(sum(1 << c for c in ctx) for _, ctx in table.winning)
    got = own_draw_chain(table.drawable, slots, table.flowers, pool,
                         tuple(n for n, _ in table.winning), bits)
    assert got == pytest.approx(float(enumerate_walls(table)), abs=1e-12)


@pytest.mark.parametrize("rules, reserve", [("ningbo-3baida", 0), ("ninghai", 18)])
def test_without_unseen_flowers_the_chance_is_hypergeometric(rules, reserve):
    """Every flower set aside: the seat's every fourth draw is a uniform
    sample of the unseen tiles, drawn or never drawn (hands, reserve)."""
    state = {"seat": "E", "hand": "1112345678999m9s", "drawn": "9s",
             "discards": {"S": "1z", "W": "2z"},
             "flowers": {"E": "1f2f", "S": "3f4f", "W": "5f6f", "N": "7f8f"}}
    wild = set() if rules == "ninghai" else {"9p"}
    if wild:
        state["indicator"] = "9p"
    table, _ = numbers(state, reserve=reserve, wild=wild)
    exact = exact_own_draws(rules, position_from_state(rules, state))[parse_tile("9s")]
    assert table.flowers == exact.flowers_unseen == 0
    w, u, n = exact.winning_unseen, exact.unseen, exact.draws
    assert exact.p_win == pytest.approx(1 - comb(u - w, n) / comb(u, n), abs=1e-12)
    assert exact.p_win == pytest.approx(turn_chain(table), abs=1e-12)


def test_a_face_down_kong_is_any_kind_out_of_sight_alike():
    """South's face-down kong: four copies of a kind of which East sees
    none, each such kind alike; the chance is the mean over those kinds."""
    rules = "ninghai"
    state = {"seat": "E", "hand": "123m456m789m23p55p9s", "drawn": "9s",
             "discards": {"E": "19p", "S": "9s1z7z", "W": "5s2z", "N": "3z4z6z"},
             "melds": {"S": ["ckong"]}, "flowers": {"E": "1f", "W": "3f7f"}}
    exact = exact_own_draws(rules, position_from_state(rules, state))[parse_tile("9s")]
    table, _ = numbers(state, reserve=20)
    out_of_sight = [k for k in KIND_NAMES[:C.N_PLAY]
                    if _unseen(state)[k] == 4]
    assert "1p" not in out_of_sight and "4p" in out_of_sight      # 4p wins: a kong of it
    chances = [turn_chain(numbers(state, reserve=20, face_down=(k,))[0]) for k in out_of_sight]
    assert exact.p_win == pytest.approx(sum(chances) / len(chances), abs=1e-12)


def test_exact_own_draws_is_for_a_discard():
    pos = position_from_state("ninghai", {"hand": "123m456m789m23p55p", "offered": "9s",
                                          "from": "N"})
    with pytest.raises(RunError, match="not the seat's discard"):
        exact_own_draws("ninghai", pos)

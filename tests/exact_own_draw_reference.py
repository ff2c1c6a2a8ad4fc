"""Slow references for the exact own-draw chance (``exact_own_draws``),
written apart from ``nbsim.play.evaluation`` and sharing no code with it.

The table is reduced to a few numbers, derived here from the table's tiles
(``table_numbers``): the drawable tiles, the wall's reserve (never drawn),
the tiles that left the wall unlisted, the others' concealed tiles, the
unseen flowers, and the unseen winning tiles by the draw contexts they win
in (a live draw, a flower's replacement, the last drawable tile).

* ``enumerate_walls``: every distinct arrangement of the unseen tiles over
  the others' hands, the unlisted tiles and the wall (a flower never in a
  hand), each played by the engine's draw rules (docs/rules.md §2: live
  draws from the front, a drawn flower set aside and replaced from the
  tail in the same turn, the play ends when only the reserve is left);
  exact (a Fraction), for small walls.
* ``turn_chain``: the same play as a recursion over turns (state: draws
  made, flowers left, winning tiles left, seat to draw), for real walls.
* ``simulate``: the play on random real walls (Monte Carlo).

The deciding seat has just discarded; seats 0, 1, 2 after it draw first,
then it (seat 3 here), and so on; nobody else wins, claims or declares a
kong, and the seat discards every tile that does not win.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

FLOWER = "F"
OTHER = "O"
LIVE, REPLACEMENT, LAST = 0, 1, 2          # context bits: a replacement, the last tile


@dataclass(frozen=True)
class Table:
    """What the draws depend on. ``winning``: per group of winning kinds,
    (unseen tiles, contexts it wins in: a frozenset of 0..3, bit 1 a
    replacement, bit 2 the last drawable tile)."""
    drawable: int
    reserve: int
    unlisted: int
    concealed: int
    flowers: int
    others: int
    winning: tuple[tuple[int, frozenset[int]], ...]


EVERY_CONTEXT = frozenset(range(4))


def table_numbers(*, unseen_by_kind: dict[str, int], flower_kinds: set[str],
                  winning: dict[str, frozenset[int]], drawable: int, reserve: int,
                  concealed: int, most_drawable: int) -> Table:
    """The Table of a position: ``unseen_by_kind`` (kind name -> copies the
    seat has not seen), the non-wild flower kinds among them, the winning
    kinds with their contexts, the drawable tiles (``wall_left``), the
    reserve, the others' concealed tiles, and the most drawable tiles the
    table allows (what is unseen less the hands and the reserve)."""
    flowers = sum(n for k, n in unseen_by_kind.items() if k in flower_kinds)
    groups: dict[frozenset[int], int] = {}
    for k, ctx in winning.items():
        groups[ctx] = groups.get(ctx, 0) + unseen_by_kind.get(k, 0)
    win = tuple(sorted(((n, c) for c, n in groups.items() if n), key=lambda x: sorted(x[1])))
    non_flower = sum(n for k, n in unseen_by_kind.items() if k not in flower_kinds)
    others = non_flower - sum(n for n, _ in win)
    assert most_drawable + reserve + concealed == sum(unseen_by_kind.values())
    return Table(drawable, reserve, most_drawable - drawable, concealed, flowers, others, win)


def _play(wall: list[str], reserve: int, wins: dict[str, frozenset[int]]) -> bool:
    """One wall (draw order: live end first) played out; True when the
    deciding seat (turn 4, 8, ...) draws a tile that wins where drawn."""
    live, tail = 0, len(wall) - 1
    seat = 0
    while True:
        from_tail = False
        while True:
            if tail - live + 1 - reserve <= 0:
                return False
            if from_tail:
                tile = wall[tail]
                tail -= 1
            else:
                tile = wall[live]
                live += 1
            if tile != FLOWER:
                break
            from_tail = True
        if seat == 3 and tile in wins:
            ctx = (REPLACEMENT if from_tail else 0) | \
                (LAST if tail - live + 1 - reserve == 0 else 0)
            if ctx in wins[tile]:
                return True
        seat = (seat + 1) % 4


def enumerate_walls(t: Table) -> Fraction:
    """Exact by enumeration: every distinct arrangement of the unseen tiles
    over the others' hands (no flower there), the unlisted tiles and the
    wall, equally likely; the share the deciding seat wins."""
    n_wall = t.drawable + t.reserve
    slots = t.concealed + t.unlisted + n_wall          # hands first, then unlisted, then wall
    labels = [(FLOWER, t.flowers)] + [(f"W{i}", n) for i, (n, _) in enumerate(t.winning)]
    wins = {f"W{i}": c for i, (_, c) in enumerate(t.winning)}
    hit = total = 0

    def place(i: int, free: tuple[int, ...], where: dict[int, str]) -> None:
        nonlocal hit, total
        if i == len(labels):
            wall = [where.get(p, OTHER) for p in range(slots - n_wall, slots)]
            total += 1
            hit += _play(wall, t.reserve, wins)
            return
        name, n = labels[i]
        allowed = [p for p in free if name != FLOWER or p >= t.concealed]
        for chosen in itertools.combinations(allowed, n):
            rest = tuple(p for p in free if p not in chosen)
            place(i + 1, rest, {**where, **{p: name for p in chosen}})

    place(0, tuple(range(slots)), {})
    return Fraction(hit, total)


def turn_chain(t: Table) -> float:
    """The same chance by a recursion over turns (floats): from the start of
    a turn, the seat draws flowers (each replaced) then a tile of the
    non-flower pool, every undrawn one equally likely."""
    slots = t.drawable + t.reserve + t.unlisted
    pool = t.concealed + slots - t.flowers
    assert pool == t.others + sum(n for n, _ in t.winning)

    @cache
    def turn(drawn: int, flowers: int, left: tuple[int, ...], seat: int) -> float:
        p_here = 1.0
        out = 0.0
        replacement = False
        while drawn < t.drawable and p_here > 0:
            p_flower = flowers / (slots - drawn)
            undrawn = pool - (drawn - (t.flowers - flowers))
            last = LAST if drawn + 1 == t.drawable else 0
            ctx = last | (REPLACEMENT if replacement else 0)
            if undrawn > 0:
                for i, (_, wins_in) in enumerate(t.winning):
                    p = p_here * (1 - p_flower) * left[i] / undrawn
                    if not p:
                        continue
                    if seat == 3 and ctx in wins_in:
                        out += p
                    else:
                        nxt = tuple(n - (j == i) for j, n in enumerate(left))
                        out += p * turn(drawn + 1, flowers, nxt, (seat + 1) % 4)
                p = p_here * (1 - p_flower) * (undrawn - sum(left)) / undrawn
                if p:
                    out += p * turn(drawn + 1, flowers, left, (seat + 1) % 4)
            p_here *= p_flower
            flowers -= 1
            drawn += 1
            replacement = True
        return out

    return turn(0, t.flowers, tuple(n for n, _ in t.winning), 0)


def simulate(t: Table, trials: int, seed: int) -> tuple[float, float]:
    """Monte Carlo: ``trials`` random deals of the unseen tiles (the flowers
    among the wall and the unlisted tiles, every such arrangement equally
    likely), each played as ``enumerate_walls`` plays it. Returns the share
    won and its standard error."""
    rng = random.Random(seed)
    n_wall = t.drawable + t.reserve
    non_hand = t.unlisted + n_wall
    tiles = [OTHER] * t.others
    for i, (n, _) in enumerate(t.winning):
        tiles += [f"W{i}"] * n
    wins = {f"W{i}": c for i, (_, c) in enumerate(t.winning)}
    hit = 0
    for _ in range(trials):
        flower_at = set(rng.sample(range(non_hand), t.flowers))
        rng.shuffle(tiles)
        rest = iter(tiles[t.concealed:])          # the first ones fill the hands
        row = [FLOWER if p in flower_at else next(rest) for p in range(non_hand)]
        hit += _play(row[t.unlisted:], t.reserve, wins)
    p = hit / trials
    return p, (p * (1 - p) / trials) ** 0.5

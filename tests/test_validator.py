"""The independent validator (tests/validator.py) against the game engine.

* Every seeded deal of every variant and policy seating is valid (a quick
  sweep here, a much larger one under ``-m validate``), matches included
  (dealer rotation, round winds, Ninghai's first go-around).
* Special situations found by searching seeds (robbing the kong, declined
  wins, heavenly and earthly hands, kong-feeder and bound payments, Ninghai
  liability, the chow-swap restriction, the first go-around) are replayed
  and counted, so the checks that cover them provably ran.
* Tampered logs and rows (a dropped draw, a discard not held, a claim by
  the wrong seat, a payment changed, a draw after the end, a wild claimed,
  ...) are reported: the validator can fail.
* The validator's own complete-hand check agrees with tests/naive_hand.py.
"""
from __future__ import annotations

import copy
from collections import Counter
from functools import cache

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nbsim.rules.lookups import load_tables
from nbsim.rules.ruleset import load_rules
from nbsim.run import game_mode as game
from nbsim.run.simulate import deal_frame

import naive_hand
import validator as V

VARIANTS = ("ningbo-3baida", "ningbo-3baida-tianyi", "ningbo-7baida", "ningbo-tongchengyou",
            "ninghai")
SEATINGS = {
    "random": ("random",) * 4,
    "greedy": ("greedy",) * 4,
    "value": ("value",) * 4,
    "mixed_rgvg": ("random", "greedy", "value", "greedy"),
    "mixed_vrgv": ("value", "random", "greedy", "value"),
    "defend": ("defend",) * 4,
    "defend_cautious": ("defend:caution=0.9",) * 4,
    "mixed_dvdg": ("defend", "value", "defend:caution=0.8", "greedy"),
}
QUICK_DEALS = 200          # per variant and seating in `make test` (25 runs)
LONG_DEALS = 2000          # per variant and seating under -m validate


@cache
def rules(name):
    return load_rules(name)


@cache
def tables():
    return load_tables()


def _seed(name, seating, base):
    return base + 1000 * VARIANTS.index(name) + list(SEATINGS).index(seating)


def _show(bad, n=3):
    out = []
    for k, errs in list(bad.items())[:n]:
        out.append(f"deal {k}: " + "; ".join(errs[:5]))
    return "\n".join(out)


def _frame(name, policies, seed, start, stop):
    return game.game_frame(rules(name), seed, start, stop, policies, tables(),
                           with_events=True)


# ---------------------------------------------------------------- sweeps
@pytest.mark.parametrize("seating", list(SEATINGS))
@pytest.mark.parametrize("name", VARIANTS)
def test_seeded_deals_are_valid(name, seating):
    seed = _seed(name, seating, 500)
    df, ev = _frame(name, SEATINGS[seating], seed, 0, QUICK_DEALS)
    stats = Counter()
    bad = V.validate_frame(rules(name), df, ev, stats)
    assert not bad, f"{name} {seating} seed {seed}:\n{_show(bad)}"
    assert stats["deals"] == QUICK_DEALS
    ended = stats["exhausted"] + sum(stats[f"win_checked_{w}"] for w in V.WIN_KINDS)
    assert ended == QUICK_DEALS          # every deal was replayed to its end


@pytest.mark.validate
@pytest.mark.parametrize("seating", list(SEATINGS))
@pytest.mark.parametrize("name", VARIANTS)
def test_many_seeded_deals_are_valid(name, seating):
    seed = _seed(name, seating, 90_000)
    stats = Counter()
    step = 1000
    for start in range(0, LONG_DEALS, step):
        df, ev = _frame(name, SEATINGS[seating], seed, start, start + step)
        bad = V.validate_frame(rules(name), df, ev, stats)
        assert not bad, f"{name} {seating} seed {seed}:\n{_show(bad)}"
    assert stats["deals"] == LONG_DEALS
    print(f"{name} {seating}: {LONG_DEALS} deals valid; {dict(stats)}")


def _match_check(name, policies, seed, n_matches, stats):
    rs = rules(name)
    df, tot, ev = game.match_frame(rs, seed, 0, n_matches, policies, tables(), with_events=True)
    bad = V.validate_frame(rs, df, ev, stats, match=True)
    assert not bad, f"{name} matches seed {seed}:\n{_show(bad)}"
    for m in range(n_matches):
        rows = df.filter(pl.col("match") == m).sort("deal").to_dicts()
        totals = {r["player"]: r["total"] for r in tot.filter(pl.col("match") == m).to_dicts()}
        errs = V.validate_match(rs, rows, totals)
        assert not errs, f"{name} match {m}: {errs}"
    return df


@pytest.mark.parametrize("name", VARIANTS)
def test_matches_are_valid(name):
    stats = Counter()
    df = _match_check(name, ("random", "greedy", "value", "greedy"), 77 + VARIANTS.index(name),
                      2, stats)
    assert stats["deals"] == df.height >= 8
    if rules(name).config.claims.first_round_restrictions == "first_hand":
        # the first deal of each match played the first go-around: 4 discards each
        assert stats["first_go_around_discards"] == 2 * 4


@pytest.mark.validate
@pytest.mark.parametrize("name", VARIANTS)
def test_many_matches_are_valid(name):
    stats = Counter()
    _match_check(name, ("value", "greedy", "random", "value"), 9100 + VARIANTS.index(name),
                 40, stats)
    print(f"{name}: {stats['deals']} match deals valid; {dict(stats)}")


def test_every_hand_first_go_around():
    """first_round_restrictions = every_hand: every independent deal plays it."""
    rs = load_rules("ninghai", ("claims.first_round_restrictions=\"every_hand\"",))
    df, ev = game.game_frame(rs, 5, 0, 60, ("random", "value", "greedy", "random"), tables(),
                             with_events=True)
    stats = Counter()
    bad = V.validate_frame(rs, df, ev, stats)
    assert not bad, _show(bad)
    assert stats["first_go_around_discards"] == 60 * 4


def test_game_deals_are_deal_mode_deals():
    """Game mode deals the same hands as deal mode (same seed and index)."""
    for name in ("ningbo-3baida", "ningbo-7baida", "ninghai"):
        g, _ = game.game_frame(rules(name), 3, 10, 60, ("greedy",) * 4, tables())
        d = deal_frame(rules(name), 3, 10, 60, tables())
        assert g.select(d.columns).equals(d)


# ---------------------------------------------------------------- special situations
def _select(df, ev, deals):
    keep = set(deals)
    return df.filter(pl.col("deal").is_in(keep)), ev.filter(pl.col("deal").is_in(keep))


def _validate_some(name, df, ev, deals, stats):
    sdf, sev = _select(df, ev, deals)
    bad = V.validate_frame(rules(name), sdf, sev, stats)
    assert not bad, f"{name}:\n{_show(bad)}"
    return sdf.height


@pytest.mark.parametrize("name", VARIANTS)
def test_special_situations_are_checked(name):
    """Search seeds for the rare situations and replay them: robbing wins,
    wins after kongs, last-tile wins, declined wins, bound and kong-feeder
    payments, chow-swap restrictions that applied, Ninghai liability."""
    rs = rules(name)
    stats = Counter()
    df, ev = _frame(name, ("greedy", "value", "greedy", "value"), 4242, 0, 3000)
    picks = set()

    def take(expr, k=6):
        picks.update(df.filter(expr)["deal"].head(k).to_list())

    take(pl.col("outcome") == "robbing_kong")
    take(pl.col("context").list.contains("after_kong"), 30)
    take(pl.col("context").list.contains("last_tile"))
    take(pl.col("kongs") >= 2, 3)
    if rs.config.scoring.system == "fan_fu":
        take(pl.col("liable").is_not_null(), 10)
    # bound players: 3 or more melds claimed from one player's discards
    bound = (ev.filter(pl.col("action").is_in(["chow", "pung", "kong"]))
             .group_by("deal", "seat", "from_seat").len().filter(pl.col("len") >= 3))
    take(pl.col("deal").is_in(bound["deal"].unique().implode()) & pl.col("winner").is_not_null(),
         10)
    kongs = ev.filter(pl.col("action") == "added_kong")["deal"].unique().sort().head(40)
    take(pl.col("deal").is_in(kongs.implode()), 40)
    n = _validate_some(name, df, ev, picks, stats)
    assert n == len(picks)
    # random seatings decline wins (pass_win rows)
    df2, ev2 = _frame(name, ("random", "random", "greedy", "random"), 4243, 0, 1500)
    passes = ev2.filter(pl.col("action") == "pass_win")["deal"].unique().head(15).to_list()
    _validate_some(name, df2, ev2, passes, stats)
    print(name, dict(stats))
    assert stats["win_on_exposed_kong_replacement"] >= 1
    assert stats["ctx_after_kong"] >= 1
    assert stats["ctx_last_tile"] >= 1
    assert stats["win_robbing_kong"] >= 1
    assert stats["pass_win_self_draw"] + stats["pass_win_discard"] >= 1
    assert stats["win_with_bound_player"] >= 1
    if rs.config.claims.allow_chow:
        assert stats["chow_swap_kind_held"] >= 1
        assert stats["chow_big_single_exception"] >= 1
    if rs.config.scoring.system == "fan_fu":
        assert stats["liable_win"] >= 1
    # the variant's win restrictions refused some complete hands
    win = rs.config.win
    if win.min_tai > 0:
        assert stats["not_legal_self_draw_below_min_tai"] >= 1
    if win.self_draw_only:
        assert stats["not_legal_discard_self_draw_only"] >= 1
    if not win.wild_single_wait_can_rob:
        assert stats["not_legal_robbing_kong_wild_single_cannot_rob"] >= 1
    if win.allowed_patterns:
        assert stats["not_legal_discard_pattern_not_allowed"] >= 1
    if win.discard_win_wild_rule != "allow" and not win.self_draw_only:
        assert stats["not_legal_discard_wild_discard_rule"] >= 1


def _robbing_declined(name, policies, seed, deals, stats):
    """Validate the given deals; return those holding a declined robbing."""
    found = []
    for k in deals:
        df, ev = _frame(name, policies, seed, k, k + 1)
        bad = V.validate_frame(rules(name), df, ev, stats)
        assert not bad, _show(bad)
        if ev.filter((pl.col("action") == "pass_win")
                     & (pl.col("meld") == "robbing_kong")).height:
            found.append(k)
    return found


# Found by test_robbing_declined_search (seed 31, random seats, deals 0..19999):
# a player declines to rob an added kong. Declined robbing is rare (about 1
# deal in 7000); if an engine change moves it, rerun that search.
ROBBING_DECLINED = ("ningbo-3baida", ("random",) * 4, 31, (200, 8820, 19618))


def test_robbing_declined_is_checked():
    """A player declining to rob a kong (pass_win robbing_kong) is replayed."""
    name, pol, seed, deals = ROBBING_DECLINED
    stats = Counter()
    found = _robbing_declined(name, pol, seed, deals, stats)
    assert found, f"no declined robbing in {deals}: rerun test_robbing_declined_search"
    assert stats["pass_win_robbing_kong"] >= 1


@pytest.mark.validate
def test_robbing_declined_search():
    name, pol, seed, _ = ROBBING_DECLINED
    hits = []
    for start in range(0, 20_000, 5000):
        _, ev = _frame(name, pol, seed, start, start + 5000)
        hits += ev.filter((pl.col("action") == "pass_win")
                          & (pl.col("meld") == "robbing_kong"))["deal"].unique().to_list()
    stats = Counter()
    found = _robbing_declined(name, pol, seed, sorted(hits), stats)
    print("declined robbing in deals", found)
    assert found and stats["pass_win_robbing_kong"] >= len(found)


@pytest.mark.parametrize("name,ctx", [("ningbo-3baida", "heavenly"),
                                      ("ningbo-7baida", "heavenly"),
                                      ("ningbo-3baida", "earthly"),
                                      ("ningbo-3baida-tianyi", "earthly")])
def test_heavenly_and_earthly_wins_are_checked(name, ctx):
    """Heavenly hands (found in deal mode: the dealer's dealt hand complete)
    and earthly hands (dealer_first_discard in 3-baida, first_draw in
    tianyi) replayed and counted."""
    rs = rules(name)
    stats = Counter()
    if ctx == "heavenly":
        d = deal_frame(rs, 8, 0, 60_000, tables())
        deals = d.filter(pl.col("dealer_complete"))["deal"].head(12).to_list()
        assert deals
        for k in deals:
            df, ev = _frame(name, ("greedy",) * 4, 8, k, k + 1)
            bad = V.validate_frame(rs, df, ev, stats)
            assert not bad, _show(bad)
    else:
        df, _ = game.game_frame(rs, 9, 0, 20_000, ("greedy",) * 4, tables())
        deals = df.filter(pl.col("context").list.contains("earthly"))["deal"].head(5).to_list()
        assert deals
        for k in deals:
            df1, ev1 = _frame(name, ("greedy",) * 4, 9, k, k + 1)
            bad = V.validate_frame(rs, df1, ev1, stats)
            assert not bad, _show(bad)
    print(name, ctx, dict(stats))
    assert stats[f"ctx_{ctx}"] >= 1


# ---------------------------------------------------------------- tampering
@cache
def _pool(name, seating, n=120):
    df, ev = _frame(name, SEATINGS[seating], 606 + VARIANTS.index(name), 0, n)
    return [(row, evs) for row, evs in V.iter_deals(df, ev)]


def _tamper_all(name, seating, fn, limit=3):
    """Apply ``fn(row, events) -> bool`` (edits in place; False: does not
    apply) to copies of valid deals; returns the violations of up to
    ``limit`` tampered deals."""
    rs = rules(name)
    found = []
    for row, evs in _pool(name, seating):
        r2, e2 = copy.deepcopy(row), copy.deepcopy(evs)
        if not fn(r2, e2):
            continue
        assert V.validate_deal(rs, row, evs) == []      # the original is valid
        found.append(V.validate_deal(rs, r2, e2))
        if len(found) >= limit:
            break
    assert found, "no deal to tamper with"
    return found


def _idx(evs, action, start=0, pred=lambda e: True):
    for i in range(start, len(evs)):
        if evs[i]["action"] == action and pred(evs[i]):
            return i
    return -1


def _play_start(evs):
    return _idx(evs, "discard")


def _hand_at(evs, i, seat):
    """Concealed counts of ``seat`` just before event i (a tiny replay)."""
    h = Counter()
    for e in evs[:i]:
        if e["seat"] != seat:
            continue
        a, t = e["action"], e["tile"]
        if a in ("deal", "draw", "replace"):
            h[t] += 1
        elif a in ("flower", "discard", "added_kong"):
            h[t] -= 1
        elif a == "concealed_kong":
            h[t] -= 4
        elif a == "pung":
            h[t] -= 2
        elif a == "kong":
            h[t] -= 3
        elif a == "chow":
            typ, lo = V.parse_meld(e["meld"])
            for k in (lo, lo + 1, lo + 2):
                if k != V.kind_of(t):
                    h[V.KIND_NAMES[k]] -= 1
    return {k: v for k, v in h.items() if v > 0}


def drop_draw(row, evs):
    i = _idx(evs, "draw", _play_start(evs) + 1)
    if i < 0:
        return False
    del evs[i]
    return True


def discard_not_held(row, evs):
    i = _idx(evs, "discard", 0)
    held = _hand_at(evs, i, evs[i]["seat"])
    for k in V.KIND_NAMES[:34]:
        if k not in held:
            evs[i]["tile"] = k
            return True
    return False


def pung_by_wrong_seat(row, evs):
    i = _idx(evs, "pung")
    if i < 0:
        return False
    e = evs[i]
    for s in V.SEATS:
        if s not in (e["seat"], e["from_seat"]) and _hand_at(evs, i, s).get(e["tile"], 0) < 2:
            e["seat"] = s
            return True
    return False


def chow_by_non_next(row, evs):
    i = _idx(evs, "chow")
    if i < 0:
        return False
    frm = V.SEATS.index(evs[i]["from_seat"])
    evs[i]["seat"] = V.SEATS[(frm + 2) % 4]
    return True


def change_payment(row, evs):
    row["pay_e"] += 1
    row["pay_s"] -= 1
    return True


def payments_not_zero_sum(row, evs):
    row["pay_w"] += 1
    return True


def draw_after_end(row, evs):
    last = max(e["pos"] for e in evs if e["action"] == "draw")
    evs.append(dict(step=len(evs), seat="E", action="draw", tile="1m", meld=None,
                    from_seat=None, pos=last + 1))
    return True


def claim_a_wild(row, evs):
    wild = set(row["wild_kinds"])
    for i, e in enumerate(evs):
        if (e["action"] == "discard" and e["tile"] in wild and i + 1 < len(evs)
                and evs[i + 1]["action"] == "draw"):
            s = V.SEATS[(V.SEATS.index(e["seat"]) + 2) % 4]
            evs.insert(i + 1, dict(step=None, seat=s, action="pung", tile=e["tile"],
                                   meld=V.meld_text("pung", V.kind_of(e["tile"])),
                                   from_seat=e["seat"], pos=-1))
            return True
    return False


def drop_pass_win(row, evs):
    i = _idx(evs, "pass_win")
    if i < 0:
        return False
    del evs[i]
    return True


def pass_win_without_win(row, evs):
    i = _idx(evs, "discard", _play_start(evs) + 4)
    if i < 0 or evs[i + 1]["action"] in ("win", "pass_win"):
        return False
    s = V.SEATS[(V.SEATS.index(evs[i]["seat"]) + 1) % 4]
    evs.insert(i + 1, dict(step=None, seat=s, action="pass_win", tile=evs[i]["tile"],
                           meld="discard", from_seat=evs[i]["seat"], pos=-1))
    return True


def win_by_other_seat(row, evs):
    i = _idx(evs, "win")
    if i < 0:
        return False
    e = evs[i]
    for s in V.SEATS:
        if s not in (e["seat"], e["from_seat"]):
            e["seat"] = s
            row["winner"] = s
            return True
    return False


def move_indicator(row, evs):
    i = _idx(evs, "indicator")
    if i < 0:
        return False
    evs[i]["pos"] -= 2
    return True


def change_row_dice(row, evs):
    row["dice"] = [7 - d for d in row["dice"]]
    return True


def change_tai_item(row, evs):
    if row.get("tai") is None:
        return False
    row["tai_no_wilds"] += 1
    row["tai"] += 1
    return True


def change_context(row, evs):
    if row["outcome"] != "self_drawn":
        return False
    ctx = list(row["context"])
    row["context"] = [c for c in ctx if c != "last_tile"] if "last_tile" in ctx \
        else ctx + ["last_tile"]
    return True


def drop_flower_in_play(row, evs):
    start = _play_start(evs)
    i = _idx(evs, "flower", start)
    if i < 0:
        return False
    del evs[i]
    return True


def drop_kong_replacement(row, evs):
    for i, e in enumerate(evs):
        if e["action"] in ("kong", "concealed_kong") and evs[i + 1]["action"] == "replace":
            del evs[i + 1]
            return True
    return False


def swap_draw_positions(row, evs):
    i = _idx(evs, "draw", _play_start(evs))
    j = _idx(evs, "draw", i + 1)
    if i < 0 or j < 0:
        return False
    evs[i]["pos"], evs[j]["pos"] = evs[j]["pos"], evs[i]["pos"]
    return True


def chow_swap_discard(row, evs):
    for i, e in enumerate(evs):
        if e["action"] != "chow" or evs[i + 1]["action"] != "discard":
            continue
        typ, lo = V.parse_meld(e["meld"])
        d = V.kind_of(e["tile"])
        held = _hand_at(evs, i + 1, e["seat"])
        if sum(held.values()) <= 2:
            continue
        wild = {V.kind_of(k) for k in row["wild_kinds"]}
        cands = [d]
        if d == lo and (lo + 3) // 9 == lo // 9:
            cands.append(lo + 3)
        if d == lo + 2 and lo % 9 > 0:
            cands.append(lo - 1)
        for k in cands:
            name = V.KIND_NAMES[k]
            if held.get(name, 0) > 0 and k not in wild and name != evs[i + 1]["tile"]:
                evs[i + 1]["tile"] = name
                return True
    return False


def change_melds_row(row, evs):
    for x in V.SUFFIX:
        if row[f"melds_{x}"]:
            row[f"melds_{x}"] = list(row[f"melds_{x}"])[:-1]
            return True
    return False


def change_turns(row, evs):
    row["turns"] += 1
    return True


def change_kongs(row, evs):
    row["kongs"] += 1
    return True


def change_tiles_left(row, evs):
    row["tiles_left"] += 2
    return True


def exhausted_early(row, evs):
    i = _idx(evs, "discard", _play_start(evs) + 10)
    if i < 0 or evs[i + 1]["action"] != "draw":
        return False
    del evs[i + 1:]
    evs.append(dict(step=None, seat=None, action="exhausted", tile=None, meld=None,
                    from_seat=None, pos=-1))
    row.update(outcome="wall_exhausted", winner=None, discarder=None, win_tile=None,
               context=[], wilds_win=None)
    return True


def draw_beyond_reserve(row, evs):
    if row["outcome"] != "wall_exhausted":
        return False
    last = evs[-2]
    if last["action"] != "discard":
        return False
    nxt = V.SEATS[(V.SEATS.index(last["seat"]) + 1) % 4]
    live = max(e["pos"] for e in evs if e["action"] in ("draw", "deal"))
    evs.insert(len(evs) - 1, dict(step=None, seat=nxt, action="draw", tile="1m", meld=None,
                                  from_seat=None, pos=live + 1))
    return True


def change_dealt_hand(row, evs):
    h = row["hand_s"]
    row["hand_s"] = h[:-2] + ("1" if h[-2] != "1" else "2") + h[-1]
    return True


def swap_deal_seats(row, evs):
    i = _idx(evs, "deal")
    evs[i]["seat"], evs[i + 4]["seat"] = evs[i + 4]["seat"], evs[i]["seat"]
    return True


def change_wild_kinds(row, evs):
    if not row["wild_kinds"]:
        return False
    row["wild_kinds"] = ["1z" if row["wild_kinds"][0] != "1z" else "2z"]
    return True


def flip_dealer_complete(row, evs):
    row["dealer_complete"] = not row["dealer_complete"]
    return True


def fifth_copy(row, evs):
    """A drawn-and-discarded tile late in the deal turned into a kind whose
    4 copies were all drawn before: a fifth copy."""
    wild = set(row["wild_kinds"])
    for i in range(len(evs) - 2, 0, -1):
        e, nx = evs[i], evs[i + 1]
        if not (e["action"] == "draw" and nx["action"] == "discard" and nx["seat"] == e["seat"]
                and nx["tile"] == e["tile"]):
            continue
        seen = Counter(x["tile"] for x in evs[:i]
                       if x["action"] in ("deal", "draw", "replace", "indicator"))
        full = [k for k, v in seen.items() if v == 4 and k not in wild]
        if full:
            e["tile"] = nx["tile"] = full[0]
            return True
    return False


def concealed_kong_of_three(row, evs):
    i = _idx(evs, "concealed_kong")
    if i < 0:
        return False
    held = _hand_at(evs, i, evs[i]["seat"])
    wild = set(row["wild_kinds"])
    for k, v in held.items():
        if v < 4 and V.kind_of(k) < 34 and k not in wild:
            evs[i]["tile"] = k
            evs[i]["meld"] = V.meld_text("ckong", V.kind_of(k))
            return True
    return False


def change_liable(row, evs):
    if row["outcome"] != "discard":
        return False
    row["liable"] = row["discarder"] if row["liable"] is None else None
    return True


def change_player_fu(row, evs):
    x = next(x for x in V.SUFFIX if V.SEATS[V.SUFFIX.index(x)] != row["winner"])
    row[f"fu_{x}"] += 2
    return True


def renumber_steps(row, evs):
    evs[10]["step"], evs[11]["step"] = evs[11]["step"], evs[10]["step"]
    return True


def kong_after_pung(row, evs):
    """An exposed kong by a seat that punged, on a discard before its next
    turn (docs/rules.md §4: no kong of any kind until then)."""
    for i, e in enumerate(evs):
        if e["action"] != "pung":
            continue
        x = e["seat"]
        for j in range(i + 1, len(evs)):
            f = evs[j]
            if f["seat"] == x and f["action"] in ("draw", "chow"):
                break
            if f["action"] == "discard" and f["seat"] != x:
                k = j + 1
                while k < len(evs) and evs[k]["action"] == "pass_win":
                    k += 1
                if k < len(evs) and evs[k]["action"] in ("win", "pung", "chow", "kong"):
                    break
                t = f["tile"]
                evs.insert(k, dict(step=None, seat=x, action="kong", tile=t,
                                   meld=f"kong:{t[0] * 4}{t[1]}", from_seat=f["seat"], pos=-1))
                return True
    return False


def flip_zero_tai_item(row, evs):
    """chicken_hand (worth 0 tai in 3-baida: only its has_ column shows it)
    flipped on a win: the tai columns still agree, the presence does not."""
    if row.get("tai") is None:
        return False
    row["has_chicken_hand"] = not row["has_chicken_hand"]
    return True


def has_item_on_exhausted(row, evs):
    if row["outcome"] != "wall_exhausted":
        return False
    row["has_no_wilds"] = True
    return True


def move_fu_item(row, evs):
    """Ninghai: the self-drawn fu of a win booked as a flower's: same total fu."""
    if row["outcome"] != "self_drawn":
        return False
    row["fu_self_drawn"] -= 2
    row["fu_flower"] += 2
    return True


def change_fan_item(row, evs):
    if row["outcome"] == "wall_exhausted":
        return False
    row["fan_half_flush"] += 2
    return True


def drop_flower_end(row, evs):
    """A flower set aside in play missing from the row's flowers_end."""
    for e in evs[_play_start(evs):]:
        if e["action"] == "flower":
            col = f"flowers_end_{e['seat'].lower()}"
            fl = [f for f in V._split_flowers(row[col]) if f != e["tile"]]
            row[col] = "".join(f[0] for f in fl) + ("f" if fl else "")
            return True
    return False


def wall_exhausted_win_payments(row, evs):
    if row["outcome"] != "wall_exhausted":
        return False
    row["pay_e"], row["pay_n"] = 8, -8
    return True


TAMPERS = [
    # (function, variant, seating, expected text in a violation)
    (drop_draw, "ningbo-3baida", "greedy", "expected"),
    (discard_not_held, "ningbo-3baida", "value", "without holding it"),
    (pung_by_wrong_seat, "ningbo-3baida", "value", "pung with"),
    (chow_by_non_next, "ningbo-3baida", "greedy", "not the next player"),
    (change_payment, "ningbo-3baida", "value", "!= reference"),
    (change_payment, "ninghai", "value", "!= reference"),
    (payments_not_zero_sum, "ningbo-7baida", "greedy", "do not sum to zero"),
    (wall_exhausted_win_payments, "ningbo-3baida", "random", "payments on an exhaustive draw"),
    (draw_after_end, "ningbo-3baida", "random", "after the end"),
    (draw_after_end, "ningbo-3baida", "value", "after the end"),
    (claim_a_wild, "ningbo-3baida", "random", "claim of a wild"),
    (claim_a_wild, "ningbo-7baida", "random", "claim of a wild"),
    (drop_pass_win, "ningbo-3baida", "random", "neither won nor declined"),
    (drop_pass_win, "ninghai", "random", "neither won nor declined"),
    (pass_win_without_win, "ningbo-3baida", "value", "not legal"),
    (win_by_other_seat, "ningbo-3baida", "value", ("not legal", "neither won nor declined")),
    (move_indicator, "ningbo-3baida", "greedy", "indicator at position"),
    (change_row_dice, "ninghai", "greedy", "row dice"),
    (change_tai_item, "ningbo-3baida-tianyi", "value", "tai_no_wilds"),
    (change_context, "ningbo-7baida", "value", "row context"),
    (drop_flower_in_play, "ningbo-3baida", "greedy", "set aside"),
    (drop_kong_replacement, "ningbo-tongchengyou", "greedy", "expected replace"),
    (swap_draw_positions, "ninghai", "value", "drawn from position"),
    (chow_swap_discard, "ningbo-3baida", "random", "forbid_chow_swap"),
    (chow_swap_discard, "ninghai", "random", "forbid_chow_swap"),
    (change_melds_row, "ningbo-3baida", "value", "row melds_"),
    (change_turns, "ninghai", "greedy", "row turns"),
    (change_kongs, "ningbo-7baida", "greedy", "row kongs"),
    (change_tiles_left, "ninghai", "value", "row tiles_left"),
    (exhausted_early, "ningbo-3baida", "value", "to draw"),
    (draw_beyond_reserve, "ninghai", "random", "expected exhausted"),
    (change_dealt_hand, "ningbo-3baida", "value", "row hand_s"),
    (swap_deal_seats, "ningbo-7baida", "value", "expected deal by"),
    (change_wild_kinds, "ningbo-7baida", "value", "wild_kinds"),
    (flip_dealer_complete, "ningbo-3baida", "value", "dealer_complete"),
    (fifth_copy, "ningbo-3baida", "random", "5 copies of"),
    (concealed_kong_of_three, "ningbo-3baida", "random", "concealed kong of"),
    (renumber_steps, "ninghai", "value", "steps"),
    (kong_after_pung, "ningbo-3baida", "greedy", "after its pung"),
    (kong_after_pung, "ningbo-7baida", "defend", "after its pung"),
    (change_liable, "ninghai", "value", "row liable"),
    (change_player_fu, "ninghai", "random", "row fu_"),
    (flip_zero_tai_item, "ningbo-3baida", "value", "row has_chicken_hand"),
    (has_item_on_exhausted, "ningbo-3baida", "greedy", "has_no_wilds true on an exhaustive"),
    (move_fu_item, "ninghai", "value", "row fu_self_drawn"),
    (change_fan_item, "ninghai", "value", "row fan_half_flush"),
    (drop_flower_end, "ningbo-3baida", "greedy", "row flowers_end_"),
    (drop_flower_end, "ninghai", "random", "row flowers_end_"),
]


@pytest.mark.parametrize("fn,name,seating,text", TAMPERS,
                         ids=[f"{t[0].__name__}-{t[1]}" for t in TAMPERS])
def test_tampered_deals_are_reported(fn, name, seating, text):
    texts = (text,) if isinstance(text, str) else text
    for errs in _tamper_all(name, seating, fn):
        assert errs, f"{fn.__name__}: the tampered deal passed"
        assert any(t in e for e in errs for t in texts), f"{fn.__name__}: {errs[:4]}"


def test_kong_lock_after_a_pung_is_exercised():
    """Greedy bots often hold three of a kind that another seat discards
    right after they punged: the engine must pass on the exposed kong until
    the seat's next turn (docs/rules.md §4), and the validator sees it."""
    stats = Counter()
    df, ev = _frame("ningbo-3baida", ("greedy",) * 4, 31337, 0, 600)
    bad = V.validate_frame(rules("ningbo-3baida"), df, ev, stats)
    assert not bad, _show(bad)
    assert stats["kong_lock_bites"] >= 1


def test_first_go_around_discard_is_reported():
    """Ninghai match, first deal: a wind/dragon/s discard while holding m/p."""
    rs = rules("ninghai")
    df, _, ev = game.match_frame(rs, 12, 0, 3, ("greedy",) * 4, tables(), with_events=True)
    hits = 0
    for row, evs in V.iter_deals(df, ev, ("match", "deal")):
        if row["deal"] != 0:
            continue
        assert V.validate_deal(rs, row, evs, restrict_first=True) == []
        # without the restriction flag the deal is valid too
        assert V.validate_deal(rs, row, evs, restrict_first=False) == []
        for i in [j for j, e in enumerate(evs) if e["action"] == "discard"][:4]:
            held = _hand_at(evs, i, evs[i]["seat"])
            other = [k for k in held if V.kind_of(k) >= 18]
            if other and any(V.kind_of(k) < 18 for k in held):
                e2 = copy.deepcopy(evs)
                e2[i]["tile"] = other[0]
                errs = V.validate_deal(rs, row, e2, restrict_first=True)
                assert any("first go-around" in e for e in errs), errs
                hits += 1
                break
    assert hits >= 1


def test_claim_in_first_go_around_is_reported():
    """The first deal of Ninghai matches (first go-around): a pung inserted
    after one of the first four discards is reported."""
    rs = rules("ninghai")
    df, _, ev = game.match_frame(rs, 14, 0, 12, ("greedy",) * 4, tables(), with_events=True)
    hits = 0
    for row, evs in V.iter_deals(df.filter(pl.col("deal") == 0), ev, ("match", "deal")):
        ds = [j for j, e in enumerate(evs) if e["action"] == "discard"]
        for i, s in [(i, s) for i in ds[:4] for s in V.SEATS]:
            t = evs[i]["tile"]
            if s != evs[i]["seat"] and _hand_at(evs, i, s).get(t, 0) >= 2:
                e2 = copy.deepcopy(evs)
                e2.insert(i + 1, dict(step=None, seat=s, action="pung", tile=t,
                                      meld=V.meld_text("pung", V.kind_of(t)),
                                      from_seat=evs[i]["seat"], pos=-1))
                errs = V.validate_deal(rs, row, e2, restrict_first=True)
                assert any("first go-around" in e for e in errs), errs
                hits += 1
                break
    assert hits >= 1


def test_match_sequence_tampering_is_reported():
    rs = rules("ningbo-3baida")
    df, tot, _ = game.match_frame(rs, 21, 0, 1, ("value",) * 4, tables())
    rows = df.sort("deal").to_dicts()
    totals = {r["player"]: r["total"] for r in tot.to_dicts()}
    assert V.validate_match(rs, rows, totals) == []
    assert V.validate_match(rs, rows[:-1], totals)           # stops early
    bad = copy.deepcopy(rows)
    bad[1]["round_wind"] = "W"
    assert any("round wind" in e for e in V.validate_match(rs, bad))
    bad = copy.deepcopy(rows)
    bad[2]["player_e"], bad[2]["player_s"] = bad[2]["player_s"], bad[2]["player_e"]
    assert any("players by seat" in e for e in V.validate_match(rs, bad))
    t2 = dict(totals)
    t2[0] += 1
    assert any("match total" in e for e in V.validate_match(rs, rows, t2))


def test_malformed_events_give_messages_not_tracebacks():
    rs = rules("ningbo-3baida")
    row, evs = _pool("ningbo-3baida", "value")[0]
    assert V.validate_deal(rs, row, []) != []
    e2 = copy.deepcopy(evs)
    e2[60]["seat"] = "X"
    assert V.validate_deal(rs, row, e2) != []
    e2 = copy.deepcopy(evs)
    e2[70]["tile"] = None
    assert V.validate_deal(rs, row, e2) != []
    e2 = copy.deepcopy(evs)
    del e2[3]
    assert V.validate_deal(rs, row, e2) != []


# ---------------------------------------------------------------- the complete check
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 33), min_size=0, max_size=14), st.integers(0, 7))
def test_is_complete_matches_naive(kinds, wilds):
    counts = [0] * 34
    for k in kinds:
        counts[k] += 1
    assume(all(c <= 4 for c in counts))
    if (len(kinds) + wilds) % 3 != 2:
        assert not V.is_complete(counts, wilds)
    else:
        assert V.is_complete(counts, wilds) == naive_hand.naive_complete(counts, wilds)


@pytest.mark.parametrize("text,wilds,ok", [
    ("11m", 0, True), ("1m", 1, True), ("", 2, True), ("89m", 0, False), ("89m11p", 1, True),
    ("1112345678999m", 1, True), ("111234567899m", 2, True), ("1112345678999m", 0, False),
    ("1357m", 1, False),
    ("19m19p19s1234567z", 0, False), ("1z", 4, True), ("1234m", 1, True),
])
def test_is_complete_cases(text, wilds, ok):
    counts = V._counts(V.parse_tiles(text))[:34]
    assert V.is_complete(counts, wilds) == ok


def test_kong_right_after_a_pung_when_allowed():
    """no_kong_after_pung = false: the engine offers kongs right after a pung
    (random players take some), and the validator accepts them; with the
    default (true) no such sequence appears in the other tests' deals."""
    rs = load_rules("ningbo-3baida", ("claims.no_kong_after_pung=false",))
    df, ev = game.game_frame(rs, 23, 0, 400, ("random",) * 4, tables(), with_events=True)
    stats = Counter()
    bad = V.validate_frame(rs, df, ev, stats)
    assert not bad, _show(bad)
    rows = ev.select("deal", "seat", "action").to_dicts()
    seen = sum(1 for a, b in zip(rows, rows[1:], strict=False)
               if a["action"] == "pung" and b["action"] in ("concealed_kong", "added_kong")
               and a["seat"] == b["seat"] and a["deal"] == b["deal"])
    assert seen > 0

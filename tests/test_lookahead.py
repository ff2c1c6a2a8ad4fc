"""The lookahead evaluator and policy on positions whose answer is known.

* A ready-making discard ranks first (a full flush one discard from ready).
* Far from ready, against an opponent who shows a ready one-suit hand, the
  tile that is safe against it is preferred to a tile of its suit.
* The exact own-draw answer's waits are those of the slow reference, and
  unseen flowers lower it (its exact references: tests/test_exact_own_draw.py).
* Seeds reproduce; the policy plays reproducible deals.
* A playout from a claim plays the answer it is given (pass, pung, chow),
  and the claim search is reproducible and really changes play.
* The second stage (``confirm``) keeps a real gain, drops a tie, and
  changes play; the refined opponents (``opponents``) keep the hidden
  tiles and hold more connected hands (1), and lean to a flush where only
  flushes win (2); by default the rules choose the model (3 where only
  some patterns win, else 0).
"""
from __future__ import annotations

from math import comb

import numpy as np
import pytest
from numba import njit

from nbsim.errors import HandError, RunError
from nbsim.kernels import codes as C
from nbsim.kernels.policies.view import MAX_POND
from nbsim.play.evaluation import evaluate, evaluate_claims, exact_own_draws, own_draws_left
from nbsim.play.position import Position
from nbsim.play.worlds import ADVICE_OPPONENTS as DEFAULT_OPPONENTS
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import parse_counts, parse_tile, parse_tiles

from naive_hand import naive_complete


def position(hand: str, *, seat=0, tiles_left=60, indicator="9p", melds=None, ponds=None,
             drawn=None, round_wind=0) -> Position:
    """A Position for the seat to discard, from notation: ``melds`` {seat:
    [(type, first kind text, from seat)]}, ``ponds`` {seat: "tiles"}."""
    m = np.zeros((4, C.MAX_MELDS, 3), np.int8)
    n_m = np.zeros(4, np.int64)
    for s, rows in (melds or {}).items():
        for i, (typ, kind, frm) in enumerate(rows):
            m[s, i] = (typ, parse_tile(kind), frm)
        n_m[s] = len(rows)
    pond = np.zeros((4, MAX_POND), np.int8)
    n_p = np.zeros(4, np.int64)
    for s, text in (ponds or {}).items():
        ks = parse_tiles(text)
        pond[s, :len(ks)] = ks
        n_p[s] = len(ks)
    return Position(seat=seat, to_play=seat, round_wind=round_wind,
                    indicator=parse_tile(indicator) if indicator else -1,
                    tiles_left=tiles_left, hand=parse_counts(hand).astype(np.int8), melds=m,
                    n_melds=n_m, flowers=np.zeros(4, np.uint8), pond=pond,
                    pond_flags=np.zeros((4, MAX_POND), np.int8), n_pond=n_p,
                    drawn=parse_tile(drawn) if drawn else -1)


@pytest.fixture(scope="module")
def rs():
    return load_rules("ningbo-3baida")


def test_ready_making_discard_ranks_first(rs):
    # a full flush of m one discard from ready, late in the deal (3 own
    # draws): only the red dragon keeps every wait
    pos = position("1112345678999m7z", drawn="7z", tiles_left=12)
    ev = evaluate(rs, pos, samples=200, seed=3)
    assert ev.best_kind == parse_tile("7z")
    best = ev.candidates[0]
    others = ev.candidates[1:]
    assert all(c.p_win < best.p_win for c in others)
    # its payment beats every other's beyond the paired error
    assert all(c.diff < -2 * c.diff_se for c in others)


def test_safe_tile_preferred_against_a_ready_flush(rs):
    # South shows four melds of p: it holds one tile and is ready on its
    # pair (a full flush when it is a p tile). Every copy of 1z and of the
    # wild (9s, indicator 8s) is in sight, so nobody can win on our 1z,
    # while South wins on 5p whenever its tile is 5p. Our hand is far from
    # ready, 20 tiles before the wall ends (about five more discards of ours).
    melds = {1: [(C.MELD_PUNG, "2p", 0), (C.MELD_CHOW, "4p", 0), (C.MELD_PUNG, "8p", 2),
                 (C.MELD_PUNG, "9p", 3)]}
    ponds = {0: "9s1z", 1: "1z3m9s", 2: "2s6z1z", 3: "4z9m9s"}
    pos = position("159m258s1z5p7m3s6m4s2z6z", melds=melds, ponds=ponds, tiles_left=20,
                   seat=0, indicator="8s")
    safe, risky = parse_tile("1z"), parse_tile("5p")
    ev = evaluate(rs, pos, samples=2000, seed=5, kinds=[safe, risky])
    by = {c.kind: c for c in ev.candidates}
    # over the rest of the deal (a later discard of the 5p kept deals in
    # too), the risky discard deals in to South more often and pays less,
    # beyond the paired error: with the default opponent model (3: South's
    # hand leans to p, the suit of its melds) South's deal-in rate is 0.059
    # .. 0.072 for 5p against 0.009 .. 0.017 for 1z, 5p worse by 0.68 .. 0.90
    # points, on 8 seeds of 8 (1 .. 8), 2,000 samples each; with uniform hands
    # (opponents 0) 0.030 .. 0.041 against 0.011 .. 0.019, worse by 0.18 ..
    # 0.35. Earlier in the deal (40 tiles left) the 5p kept is thrown later
    # in most samples and the two differ by less than the noise.
    assert by[risky].p_deal_in_to[1] > by[safe].p_deal_in_to[1]
    assert by[risky].diff < -1.5 * by[risky].diff_se
    assert ev.best_kind == safe


def test_guard_leaves_out_discards_more_dangerous_than_defends(rs):
    """``lookahead:guard=G``: the searched candidates are defend's best
    discards less those whose danger (defend's ``scr.danger``, points)
    exceeds that of defend's choice by more than G; 1000 leaves none out.
    Against South's ready p flush (the position above), the eight
    candidates without the guard include kinds more dangerous than defend's
    choice; guard 0 leaves out each of them and keeps the others."""
    from nbsim.kernels import rng
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.policies import defend as D
    from nbsim.kernels.policies import lookahead as LA
    from nbsim.kernels.policies.catalog import code_of
    from nbsim.kernels.ref import ref_of
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    melds = {1: [(C.MELD_PUNG, "2p", 0), (C.MELD_CHOW, "4p", 0), (C.MELD_PUNG, "8p", 2),
                 (C.MELD_PUNG, "9p", 3)]}
    ponds = {0: "9s1z", 1: "1z3m9s", 2: "2s6z1z", 3: "4z9m9s"}
    pos = position("159m258s1z5p7m3s6m4s2z6z", melds=melds, ponds=ponds, tiles_left=20,
                   seat=0, indicator="8s")
    view = view_of(rs, pos)
    params = np.ascontiguousarray(PL.DEFAULT_PARAMS[code_of("lookahead")])
    scr = ES.new_state().pscr
    allowed = view.hand > 0
    prng = np.zeros(rng.RNG_LEN, np.uint64)

    @njit
    def defend_discard(view, params, prng, scr, allowed):
        # a kernel-only function, taking its View and scratch by their addresses
        return D.choose_discard(ref_of(view), params, prng, ref_of(scr), allowed)

    def cands(guard: float) -> list[int]:
        k0 = defend_discard(view, params, prng, scr, allowed)
        out = np.zeros(8, np.int64)
        n, _ = LA.candidates(view, scr, allowed, k0, np.int64(8), guard, out)
        return [int(k) for k in out[:n]]

    free, guarded = cands(1000.0), cands(0.0)
    k0 = free[0]
    assert guarded[0] == k0 and len(free) == 8
    riskier = [k for k in free if scr.danger[k] > scr.danger[k0]]
    assert riskier and not set(riskier) & set(guarded)
    assert all(scr.danger[k] <= scr.danger[k0] for k in guarded)
    # of the unguarded candidates, exactly those no more dangerous stay
    assert set(guarded) & set(free) == {k for k in free if scr.danger[k] <= scr.danger[k0]}


@pytest.mark.parametrize("tiles_left", [4, 8, 12])
def test_exact_own_draws_waits_and_flowers(rs, tiles_left):
    # a full flush of m: discarding the red dragon leaves it ready
    hand = "23455567888m99m7z"
    pos = position(hand, tiles_left=tiles_left, indicator="1p")
    res = exact_own_draws(rs, pos)
    k = parse_tile("7z")
    assert k in res
    e = res[k]
    # the waits are kinds that complete the hand (slow reference, the
    # indicator's kind 1p being the wild of 3baida); the wild completes any
    counts = parse_counts(hand).astype(np.int64)
    counts[k] -= 1
    ref = {t for t in range(C.N_PLAY) if t != parse_tile("1p")
           and naive_complete(counts + np.eye(C.N_KINDS, dtype=np.int64)[t], 0)}
    ref.add(parse_tile("1p"))
    assert set(e.waits) <= ref and len(e.waits) >= 2
    assert e.draws == own_draws_left(pos) == tiles_left // 4
    # no flower is set aside: all 8 are unseen, and each one drawn takes a
    # drawable tile without a turn, so the chance is below the
    # hypergeometric one over every fourth drawable tile (the exact
    # references: tests/test_exact_own_draw.py)
    assert e.flowers_unseen == 8 and e.drawable == tiles_left
    hyper = 1 - comb(e.unseen - e.winning_unseen, e.draws) / comb(e.unseen, e.draws)
    assert 0 < e.p_win < hyper


def test_seeds_reproduce(rs):
    pos = position("1112345678999m7z", drawn="7z")
    a = evaluate(rs, pos, samples=16, seed=11)
    b = evaluate(rs, pos, samples=16, seed=11)
    c = evaluate(rs, pos, samples=16, seed=12)
    assert a == b
    assert a != c
    # the opponent model deals other worlds, and is recorded
    d = evaluate(rs, pos, samples=16, seed=11, opponents=0)
    assert a.opponents == DEFAULT_OPPONENTS == 3 and d.opponents == 0
    assert d != a and d == evaluate(rs, pos, samples=16, seed=11, opponents=0)


def test_bad_positions_are_one_error(rs):
    pos = position("1112345678999m7z", drawn="7z")
    with pytest.raises(RunError, match="not held"):
        evaluate(rs, pos, samples=4, kinds=[parse_tile("5p")])
    with pytest.raises(RunError, match="samples"):
        evaluate(rs, pos, samples=0)
    with pytest.raises(RunError, match="base policy"):
        evaluate(rs, pos, samples=4, base="lookahead")
    with pytest.raises(RunError, match="opponents 9: allowed 0"):
        evaluate(rs, pos, samples=4, opponents=9)
    # more tiles left than the wall holds: the position does not fit the
    # variant (checked before any world is dealt, as advise checks it)
    with pytest.raises(HandError, match="does not fit ningbo-3baida: .*at most"):
        evaluate(rs, position("1112345678999m7z", tiles_left=140), samples=4)


def test_evaluate_checks_its_arguments_like_advise(rs):
    """The Python API's evaluator takes a variant's name as advise does, and
    refuses with one NbsimError each (no raw TypeError, OverflowError or
    IndexError) a non-Position, a position of another variant, seeds out of
    0 .. 2**64 - 1 or fractional, candidate kinds that are not kinds (a
    string, a bool, a negative index, 200) and kongs that are not a
    sequence."""
    from nbsim.play.evaluation import evaluate_claims, exact_own_draws
    pos = position("1112345678999m7z", drawn="7z")
    by_name = evaluate("ningbo-3baida", pos, samples=4, seed=3)
    assert by_name == evaluate(rs, pos, samples=4, seed=3)
    with pytest.raises(HandError, match="expected a Position"):
        evaluate(rs, None, samples=4)
    with pytest.raises(HandError, match="does not fit ninghai: indicator"):
        evaluate("ninghai", pos, samples=4)
    with pytest.raises(HandError, match="does not fit ninghai"):
        exact_own_draws("ninghai", pos)
    for seed, msg in ((-1, "seed must be 0..18446744073709551615, got -1"),
                      (2**64, "seed must be 0..18446744073709551615"),
                      (1.5, "seed must be a whole number")):
        with pytest.raises(RunError, match=msg):
            evaluate(rs, pos, samples=4, seed=seed)
    with pytest.raises(RunError, match="samples must be a whole number, got 2.5"):
        evaluate(rs, pos, samples=2.5)
    for kinds, msg in (([200], "kinds: each kind must be 0..41, got 200"),
                       ([-42], "kinds: each kind must be 0..41, got -42"),
                       ([True], "kinds: each kind must be a whole number"),
                       ("3p", "kinds: expected a sequence of tile kinds")):
        with pytest.raises(RunError, match=msg):
            evaluate(rs, pos, samples=4, kinds=kinds)
    with pytest.raises(RunError, match="kongs: expected a sequence of tile kinds"):
        evaluate(rs, pos, samples=4, kongs=None)
    with pytest.raises(RunError, match="base policy 7"):
        evaluate(rs, pos, samples=4, base=7)
    with pytest.raises(RunError, match="offers no discard"):
        evaluate_claims(rs, pos, "01")


def test_policy_plays_reproducible_deals(tables):
    from nbsim.run.game_mode import game_frame
    rs = load_rules("ningbo-3baida")
    pols = ("lookahead:samples=8:gap=1000", "defend", "defend", "defend")
    a, _ = game_frame(rs, 4, 0, 3, pols, tables)
    b, _ = game_frame(rs, 4, 0, 3, pols, tables)
    assert a.equals(b)
    assert a["policy_e"][0].startswith("lookahead")


def _first_event(rs, pos, answer: int, q: int, kong: int = -2) -> tuple[int, ...]:
    """The first event of a playout of ``pos`` (a discard offered to the
    seat) started at its claims with the seat's answer fixed; with ``kong``
    >= -1, ``pos`` is the seat's own turn and the playout starts at its kong
    question with the answer ``kong`` (-1: none, else the kind konged)."""
    from nbsim.kernels import rng
    from nbsim.kernels.engine import loop as E
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.engine.loop import policy_record
    from nbsim.kernels.policies.catalog import code_of
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    view = view_of(rs, pos, kong_turn=kong >= -1)
    sr = ES.new_search(1, 1)
    g = ES.search_game(sr)
    st = np.zeros(rng.RNG_LEN, np.uint64)
    rng.stream_init(np.uint64(5), np.int64(0), rng.STREAM_USER, st)
    assert PL.build_world(view, g, st, sr.pool, sr.unseen, np.int64(0), sr.out) == 0
    for s in range(4):
        rng.stream_init(np.uint64(5), np.int64(0), rng.STREAM_POLICY + s, g.prng[s])
    codes = np.full(4, code_of("defend"), np.int64)
    pols = policy_record(codes, PL.DEFAULT_PARAMS[codes], rs.array, view.tables)
    log = np.zeros((400, C.EV_LEN), np.int32)
    if kong >= -1:
        E.play_from(rs.array, view.tables, pols, g, sr.out, log, sr.probe,
                    np.int64(-1), np.int64(-1), np.int64(0), np.int64(0), np.int64(kong))
    else:
        E.play_from(rs.array, view.tables, pols, g, sr.out, log, sr.probe,
                    np.int64(pos.offered), np.int64(pos.seat), np.int64(q),
                    np.int64(answer), np.int64(-2))
    return tuple(int(x) for x in log[0, :C.EV_POS])


def test_a_playout_from_a_claim_plays_the_given_answer(rs):
    from nbsim.play.advice.state import position_from_options
    # South holds a pair of East's discard 5z: nobody else can pung it
    pung = position_from_options(rs, hand="123m456p789s155z3p", indicator="9m", seat="S",
                                 discards=["E:19m"], offered="5z", offered_from="E")
    z5 = parse_tile("5z")
    assert _first_event(rs, pung, 1, 0) == (1, C.A_PUNG, z5, z5, 0)
    # a pass: South draws next
    seat, action, *_ = _first_event(rs, pung, 0, 1)
    assert (seat, action) == (1, C.A_DRAW)
    # South chows East's 3m with its 12m
    chow = position_from_options(rs, hand="12m456p789s1155z3p", indicator="9m", seat="S",
                                 offered="3m", offered_from="E")
    m3 = parse_tile("3m")
    assert _first_event(rs, chow, 3 + 2, 1) == (1, C.A_CHOW, m3, parse_tile("1m"), 0)


def test_claim_evaluation(rs):
    from nbsim.play.advice.state import position_from_options
    pos = position_from_options(rs, hand="123m456p789s155z3p", indicator="9m", seat="S",
                                discards=["E:19m"], offered="5z", offered_from="E")
    ev = evaluate_claims(rs, pos, [0, 1], samples=24, seed=2)
    assert sorted(c.kind for c in ev.candidates) == [0, 1]
    assert all(c.n == 24 for c in ev.candidates)
    assert ev == evaluate_claims(rs, pos, [0, 1], samples=24, seed=2)
    assert ev != evaluate_claims(rs, pos, [0, 1], samples=24, seed=3)
    with pytest.raises(RunError, match="claim answers"):
        evaluate_claims(rs, pos, [9], samples=4)
    for bad, msg in (("01", "claim answers: expected a sequence of claim codes"),
                     ([1.5], "claim answers: each code must be a whole number"),
                     (None, "claim answers: expected a sequence of claim codes")):
        with pytest.raises(RunError, match=msg):
            evaluate_claims(rs, pos, bad, samples=4)
    with pytest.raises(RunError, match="offers no discard"):
        evaluate_claims(rs, position("123m456p789s1155z3p"), [0], samples=4)


def _reproduces_and_changes_play(tables, on: str, off: str, deals: int) -> None:
    """Every seat playing ``on`` replays the same ``deals`` deals of
    ningbo-3baida from the same seed, and they differ from ``off``'s."""
    from nbsim.run.game_mode import game_frame
    rs = load_rules("ningbo-3baida")
    pols = ["policy_e", "policy_s", "policy_w", "policy_n"]
    a, _ = game_frame(rs, 6, 0, deals, (on,) * 4, tables)
    assert a.equals(game_frame(rs, 6, 0, deals, (on,) * 4, tables)[0])
    assert not a.drop(pols, strict=False).equals(
        game_frame(rs, 6, 0, deals, (off,) * 4, tables)[0].drop(pols, strict=False))


@pytest.mark.parametrize("variant, model, other",
                         [("ningbo-tongchengyou", 3, 0), ("ningbo-3baida", 0, 3)])
def test_default_opponents_are_read_from_the_rules(tables, variant, model, other):
    """``opponents`` -1, the default, plays every deal as the model the
    variant's ``win.allowed_patterns`` picks (3 where only some patterns
    win, 0 where any hand does), and that model plays differently from the
    other one."""
    from nbsim.kernels.policies.lookahead import opponent_model
    from nbsim.run.game_mode import game_frame
    rs = load_rules(variant)
    assert opponent_model(rs.array, -1.0) == model
    assert opponent_model(rs.array, 2.0) == 2
    pols = ["policy_e", "policy_s", "policy_w", "policy_n"]
    base = "lookahead:samples=8:z=0:confirm=0"

    def frame(spec):
        return game_frame(rs, 6, 0, 3, (spec, "defend", "defend", "defend"),
                          tables)[0].drop(pols, strict=False)
    a = frame(base)
    assert a.equals(frame(f"{base}:opponents={model}"))
    assert not a.equals(frame(f"{base}:opponents={other}"))


def test_claim_search_reproduces_and_changes_play(tables):
    _reproduces_and_changes_play(tables, "lookahead:samples=8:z=0:confirm=0:claims=1",
                                 "lookahead:samples=8:z=0:confirm=0", 3)


def test_playout_hold_sets_defend_hold_in_the_playouts(rs):
    """``evaluate_into``'s ``hold``: < 0 keeps defend's default row (hold
    0.15), the value itself replaces it; the playouts of lookahead's
    default (``playout_hold`` 0) are those of ``defend:hold=0``, and they
    differ from the default's when lone scoring honours are held."""
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import _key, view_of
    from nbsim.policy_specs import parse_policy
    assert ("playout_hold", 0.0) in parse_policy("lookahead").params
    assert parse_policy("defend").params[-1] == ("hold", 0.15)
    pos = position("159m258s37p1z5z6z7z4s", drawn="2z", tiles_left=60, seat=0)
    view = view_of(rs, pos)
    cands = [parse_tile(t) for t in ("1m", "9m", "7z")]

    def pays(hold):
        sr = ES.new_search(len(cands), 64)
        sr.cands[:len(cands)] = cands
        PL.evaluate_into(view, sr, np.int64(len(cands)), np.int64(64), _key(3),
                         np.int64(PL.DEFEND), np.int64(-1), np.int64(-1), hold,
                         np.int64(0))
        return sr.pays[:len(cands), :64].copy()

    default, same, zero = pays(-1.0), pays(0.15), pays(0.0)
    assert np.array_equal(default, same)
    assert not np.array_equal(default, zero)


# East holds four 1m (a concealed kong) and its pung of 5z's fourth copy
KONG_HAND = dict(hand="1111m456p788s5z", melds=["pung:555z@N"], indicator="9p",
                 discards=["E:3s", "S:4s", "W:9s", "N:(5z)"], drawn="8s")


def test_a_playout_from_a_kong_question_plays_the_given_answer(rs):
    """``play_from``'s ``kong_kind`` fixes the seat's first own-turn kong
    answer: the kong of that kind (concealed or added), or none."""
    from nbsim.play.advice.state import position_from_options
    pos = position_from_options(rs, **KONG_HAND)
    m1, z5 = parse_tile("1m"), parse_tile("5z")
    assert _first_event(rs, pos, 0, 0, kong=m1)[:3] == (0, C.A_CONCEALED_KONG, m1)
    assert _first_event(rs, pos, 0, 0, kong=z5)[:3] == (0, C.A_ADDED_KONG, z5)
    seat, action, *_ = _first_event(rs, pos, 0, 0, kong=-1)
    assert (seat, action) == (0, C.A_DISCARD)         # no kong: East discards


def test_kong_evaluation_shares_the_discards_worlds(rs):
    """``evaluate``'s ``kongs``: rows marked ``kong``, on the discards'
    worlds (a discard's row is the same with or without them), reproducible
    by seed; a kind the seat cannot kong is one error."""
    from nbsim.play.advice.state import position_from_options
    from nbsim.play.evaluation import kong_kinds
    pos = position_from_options(rs, **KONG_HAND)
    m1, z5 = parse_tile("1m"), parse_tile("5z")
    assert kong_kinds(rs, pos) == [m1, z5]
    ev = evaluate(rs, pos, samples=24, seed=2, kinds=[parse_tile("8s")], kongs=[m1, z5])
    assert sorted((c.kong, c.kind) for c in ev.candidates) == [
        (False, parse_tile("8s")), (True, m1), (True, z5)]
    assert all(c.n == 24 for c in ev.candidates)
    alone = evaluate(rs, pos, samples=24, seed=2, kinds=[parse_tile("8s")])
    row = next(c for c in ev.candidates if not c.kong)
    assert (row.mean_pay, row.p_win) == (alone.candidates[0].mean_pay, alone.candidates[0].p_win)
    assert ev == evaluate(rs, pos, samples=24, seed=2, kinds=[parse_tile("8s")], kongs=[m1, z5])
    with pytest.raises(RunError, match="not a kong the seat may declare"):
        evaluate(rs, pos, samples=4, kongs=[parse_tile("4p")])


def test_kong_search_reproduces_and_changes_play(tables):
    """``lookahead:kongs=1`` plays the same deals from the same seed, and
    its kong answers (z 0: any paired gain) differ from defend's somewhere in
    40 deals (gap 0: the discards are searched only at defend's exact ties)."""
    from nbsim.kernels.policies.lookahead import kong_candidates
    cands = np.zeros(8, np.int64)
    opts = np.array([[C.MELD_CKONG, 3, 0], [C.MELD_KONG, 30, 0]], np.int64)
    assert kong_candidates(1, opts, 2, cands) == 3 and list(cands[:3]) == [30, -1, 3]
    assert kong_candidates(-1, opts, 2, cands) == 3 and list(cands[:3]) == [-1, 3, 30]
    _reproduces_and_changes_play(tables, "lookahead:samples=8:z=0:gap=0:confirm=0:kongs=1",
                                 "lookahead:samples=8:z=0:gap=0:confirm=0", 40)


def test_confirmation_reproduces_and_changes_play(tables):
    """``lookahead:confirm=N``: a challenger that beat defend's discard is
    played again on N fresh worlds; with z 0 and 8 first-stage worlds many
    challengers win by luck and lose the second stage, so play changes."""
    _reproduces_and_changes_play(tables, "lookahead:samples=8:z=0:confirm=32",
                                 "lookahead:samples=8:z=0:confirm=0", 3)


def test_confirmation_keeps_a_real_gain_and_drops_a_tie(rs):
    """``settle``: the ready-keeping discard (7z, row 2) beats 5m and 2m on
    the first stage and again on fresh worlds, and is played; a candidate
    identical to defend's (the same kind twice) never gains, so row 0 is
    played. The candidates are left as given, and the second stage draws
    one more key from the seat's stream only when a challenger won."""
    from nbsim.kernels import rng
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.policies import lookahead as LA
    from nbsim.kernels.policies.catalog import code_of
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    pos = position("1112345678999m7z", drawn="7z", tiles_left=12)
    view = view_of(rs, pos)
    params = np.ascontiguousarray(PL.DEFAULT_PARAMS[code_of("lookahead")])
    params[LA.P_SAMPLES] = 64
    params[LA.P_Z] = 0.0

    def settle(kinds: str, confirm: int) -> tuple[int, list[int], np.ndarray]:
        params[LA.P_CONFIRM] = confirm
        sr = ES.new_search(8, 64)
        ks = parse_tiles(kinds)
        sr.cands[:len(ks)] = ks
        prng = np.zeros(rng.RNG_LEN, np.uint64)
        rng.stream_init(np.uint64(9), np.int64(0), rng.STREAM_POLICY, prng)
        row = LA.settle(view, params, prng, sr, np.int64(len(ks)), np.int64(-1), np.int64(-1))
        return int(row), [int(k) for k in sr.cands[:len(ks)]], prng

    row, cands, after_both = settle("5m2m7z", 64)
    assert row == 2 and cands == parse_tiles("5m2m7z")
    row, _, after_one = settle("5m2m7z", 0)
    assert row == 2 and not np.array_equal(after_both, after_one)
    row, _, after_tie = settle("7z7z", 64)
    assert row == 0 and np.array_equal(after_tie, after_one)


REFINE_PONDS = {0: "9m1p", 1: "1m9p1s9s5z6z", 2: "2m8p2s7z", 3: "9s1s8m2p3z"}


def _refined_worlds(rules, refines, n=200, ponds=None):
    """For each ``refine`` of ``build_world`` and each of ``n`` worlds of one
    position (the same stream for every refine; ``ponds`` default
    ``REFINE_PONDS``): the hidden tiles (the others' hands and the wall, a
    kind count), the seat's own hand, the others' total ``keep_score`` and
    their mean share of tiles in their best flush (one suit and the
    honours), and the others' hands (int8[4, 42])."""
    from nbsim.kernels import rng
    from nbsim.kernels import wall as W
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    pos = position("123m456p789s1z2z3z4z", drawn="4z", tiles_left=50,
                   ponds=REFINE_PONDS if ponds is None else ponds)
    view = view_of(rules, pos)
    sr = ES.new_search(1, 1)
    g = ES.search_game(sr)
    st = np.zeros(rng.RNG_LEN, np.uint64)
    out: dict[int, list] = {r: [] for r in refines}
    for j in range(n):
        for r in refines:
            rng.stream_init(np.uint64(11), np.int64(j), rng.STREAM_USER, st)
            assert PL.build_world(view, g, st, sr.pool, sr.unseen, np.int64(r), sr.out) == 0
            ws = g.ws
            hidden = g.hands[[1, 2, 3]].sum(axis=0).astype(np.int64)
            for p in range(ws[W.WS_LIVE], ws[W.WS_TAIL] + 1):
                if p != ws[W.WS_INDICATOR]:
                    hidden[W.tile_kind(np.int64(g.wall[p]))] += 1
            keep = sum(PL.keep_score(g.hands[s].astype(np.int64), view.wild, k) * g.hands[s, k]
                       for s in (1, 2, 3) for k in range(C.N_PLAY)
                       if g.hands[s, k] > 0 and not view.wild[k])
            flush = np.mean([max(g.hands[s, 9 * u:9 * u + 9].sum() for u in range(3))
                             + g.hands[s, 27:C.N_PLAY].sum() for s in (1, 2, 3)]) / 13.0
            out[r].append((hidden, g.hands[0].copy(), float(keep), float(flush),
                           g.hands.copy()))
    return pos, out


def test_refined_opponents_keep_the_hidden_tiles_and_hold_more_pairs(rs):
    """``build_world``'s ``refine`` 1 (``lookahead:opponents=1``): from the
    same stream, the others' hands and the wall together hold exactly the
    tiles of the uniform world (only their places differ), the seat's own
    hand is untouched, and the refined hands hold more pairs and touching
    tiles (``keep_score``) on average over 200 worlds."""
    pos, out = _refined_worlds(rs, (0, 1))
    for (h0, own0, *_), (h1, own1, *_) in zip(out[0], out[1], strict=True):
        assert np.array_equal(h0, h1) and np.array_equal(own0, own1)
        assert np.array_equal(own0[:C.N_PLAY], pos.hand[:C.N_PLAY])
    flat = np.mean([w[2] for w in out[0]])
    refined = np.mean([w[2] for w in out[1]])
    assert refined > flat + 30.0     # 164 against 105 on these worlds


def test_target_refined_opponents_lean_to_a_flush_where_only_flushes_win():
    """``refine`` 2 (``lookahead:opponents=2``) on ningbo-tongchengyou, where
    only flushes, all honours and all pungs win: the hidden multiset and the
    seat's hand are kept as with ``refine`` 1, and the others' hands hold
    more tiles of their best flush (one suit and the honours) than uniform
    or ``refine`` 1 hands. On ningbo-3baida, where an open hand wins, the
    value player's target is mostly the open hand and the two models
    differ less."""
    tcy = load_rules("ningbo-tongchengyou")
    pos, out = _refined_worlds(tcy, (0, 1, 2))
    for (h0, own0, *_), (h2, own2, *_) in zip(out[0], out[2], strict=True):
        assert np.array_equal(h0, h2) and np.array_equal(own0, own2)
    share = {r: np.mean([w[3] for w in out[r]]) for r in (0, 1, 2)}
    assert share[2] > share[1] + 0.08 and share[2] > share[0] + 0.08
    _, ref = _refined_worlds(load_rules("ningbo-3baida"), (1, 2))
    lean = np.mean([w[3] for w in ref[2]]) - np.mean([w[3] for w in ref[1]])
    assert lean < share[2] - share[1]


def test_read_suit_takes_the_melds_suit_else_the_suit_discarded_least(rs):
    """``playout.read_suit``: a seat with a declared suited meld is read as
    collecting that suit; one without as collecting the suit it has
    discarded least (wilds not counted); a tie is broken at random among
    the tied suits only."""
    from nbsim.kernels import rng
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    pos = position("123m456p789s1z2z3z4z", drawn="4z", tiles_left=50,
                   melds={2: [(C.MELD_PUNG, "5p", 1)]},
                   ponds={0: "9m1p", 1: "1m2m9m1p8p9p1s", 2: "1s2s3s4s", 3: "1m1p"})
    view = view_of(rs, pos)
    st = np.zeros(rng.RNG_LEN, np.uint64)
    seen = {s: set() for s in (1, 2, 3)}
    for j in range(40):
        rng.stream_init(np.uint64(3), np.int64(j), rng.STREAM_USER, st)
        for s in (1, 2, 3):
            seen[s].add(int(PL.read_suit(view, st, np.int64(s))))
    assert seen[1] == {2}          # 3 m, 2 p (9p is wild), 1 s discarded: souzu
    assert seen[2] == {1}          # the pung of 5p, whatever the discards
    assert seen[3] == {2}          # 1 m, 1 p, 0 s


def test_read_opponents_lean_to_the_suit_their_discards_point_to():
    """``refine`` 3 (``lookahead:opponents=3``) on ningbo-tongchengyou: the
    hidden multiset and the seat's own hand are those of the uniform world;
    an opponent that has thrown manzu and pinzu and no souzu holds more
    souzu and honours than with ``refine`` 2, which picks its flush from
    its random hand alone."""
    tcy = load_rules("ningbo-tongchengyou")
    ponds = {0: "9m1p", 1: "1m2m8m9m1p2p8p9p", 2: "2m8p2s7z", 3: "9s1s8m2p3z"}
    _, out = _refined_worlds(tcy, (0, 2, 3), ponds=ponds)
    for (h0, own0, *_), (h3, own3, *_) in zip(out[0], out[3], strict=True):
        assert np.array_equal(h0, h3) and np.array_equal(own0, own3)
    souzu = {r: np.mean([(w[4][1, 18:27].sum() + w[4][1, 27:C.N_PLAY].sum()) / 13.0
                         for w in out[r]]) for r in (0, 2, 3)}
    assert souzu[3] > souzu[2] + 0.1 and souzu[3] > souzu[0] + 0.1


def test_worlds_are_played_by_the_views_engine(rs):
    """The evaluator plays its worlds out with the engine of ``View.playout``
    (called by its address): with it, every sample is played; with no
    engine (the pair (0, 0)), none is and every one counts as failed."""
    from nbsim.kernels.engine import loop as EL
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.entry import entry_at
    from nbsim.kernels.search import playout as PL
    from nbsim.play.evaluation import view_of
    pos = position("1112345678999m7z", drawn="7z", tiles_left=12)
    view = view_of(rs, pos)
    assert entry_at(view.playout.engine[0]).dispatcher is EL.play_from
    failed = {}
    for name, v in (("engine", view), ("null", view._replace(
            playout=view.playout._replace(engine=np.zeros(2, np.int64))))):
        sr = ES.new_search(2, 8)
        sr.cands[:2] = (parse_tile("7z"), parse_tile("1m"))
        failed[name] = int(PL.evaluate_into(v, sr, np.int64(2), np.int64(8), np.uint64(5),
                                            np.int64(PL.DEFEND), np.int64(-1), np.int64(-1),
                                            -1.0, np.int64(0)))
        if name == "engine":
            assert sr.stats[:2, PL.ST_N].tolist() == [8.0, 8.0]
        else:
            assert sr.stats[:2, PL.ST_FAILED].tolist() == [8.0, 8.0]
    assert failed == {"engine": 0, "null": 16}

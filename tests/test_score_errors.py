"""Invalid input (docs/rules.md §10 and the tile counts) gives one clear
HandError / TileError / ConfigError naming what is wrong, never a score or a
traceback; the kernel returns the matching E_* code."""
import numpy as np
import pytest

from nbsim.errors import ConfigError, HandError, TileError
from nbsim.kernels import codes as C
from nbsim.rules.cases import score_case
from nbsim.rules.scorer import score_hand
from nbsim.rules.tiles import parse_counts

ALL_CHOWS = dict(hand="234m567p345s67s55m", win_tile="8s", seat="S", round_wind="E")


def _err(exc, match, config="ningbo-3baida", **kw):
    args = dict(ALL_CHOWS, indicator="9m")
    args.update(kw)
    with pytest.raises(exc, match=match) as ei:
        score_hand(config, **args)
    msg = str(ei.value)
    assert "\n" not in msg and len(msg) < 400
    return msg


@pytest.mark.parametrize("kw,match", [
    (dict(hand="123m456m789m12p"), r"holds 11 tiles.*needs 13"),
    (dict(hand="123m456m789m12p55s", melds=["pung:777z"]), r"with 1 melds the hand needs 10"),
    (dict(hand="1111m234m567p9s55z", win_tile="1m"), r"too many copies of 1m"),
    (dict(hand="9999m567p345s67s5m", win_tile="8s"), r"too many copies of 9m"),  # + indicator
    (dict(hand="234m567p345s67s5m1f", win_by="self_draw"), r"flower 1f in the hand"),
    (dict(win_tile="1f", hand="234m567p345s67s5m8s"), r"flower 1f"),
    (dict(flowers="2f", indicator="1f"), r"flowers set aside include 2f"),
    (dict(flowers="1f", indicator="1f"), r"flowers set aside include 1f"),
    (dict(hand="234m567p345s67s", melds=["pung:999m"], win_tile="5m"), r"meld holds a wild"),
    (dict(win_by="robbing_kong", win_tile="9m", hand="234m567p345s678s5m"),
     r"robbing a kong on 9m"),
    (dict(context=["after_kong"]), r"after_kong context on a win that is not self-drawn"),
    (dict(context=["heavenly"], win_by="self_draw"), r"only the dealer"),
    (dict(context=["heavenly"], seat="E", win_by="discard", discarder="S"), r"heavenly"),
    (dict(context=["earthly"], win_by="self_draw"), r"earthly context does not fit"),
    (dict(context=["earthly"], seat="E", discarder="S"), r"earthly"),
    (dict(context=["earthly"], discarder="W"), r"dealer's \(E\) first discard"),
    (dict(discarder="S"), r"discarder S is the winner's own seat"),
    (dict(discarder="N", win_by="self_draw"), r"discarder given on a self-drawn win"),
    (dict(fed={"W": 1}), r"fed counts 1 melds .* only 0 claimed"),
    (dict(fed={"S": 1}, hand="234m567p67s55m", melds=["chow:345s"]), r"own seat S"),
    (dict(fed_by_winner={"S": 2}), r"own seat S"),
    (dict(kong_from="W", win_by="self_draw", context=["after_kong"]), r"kong_from needs"),
    (dict(seat="X"), r"seat 'X': expected one of E S W N"),
    (dict(discarder="Q"), r"discarder 'Q'"),
    (dict(win_by="tsumo"), r"win_by 'tsumo': expected one of self_draw, discard, robbing_kong"),
    (dict(context=["rinshan"]), r"context 'rinshan'"),
    (dict(indicator=None), r"the indicator tile is required"),
    (dict(fed={"W": 9}), r"fed\[W\]: 9 is not a number of melds"),
    (dict(flowers="5m"), r"5m is not a flower"),
])
def test_hand_errors(kw, match):
    _err(HandError, match, **kw)


def test_chow_meld_where_chow_is_not_allowed():
    _err(HandError, r"chow melds are not allowed in ningbo-7baida", config="ningbo-7baida",
         hand="234m567p67s55m", melds=["chow:345s"])


def test_indicator_in_a_variant_without_wilds():
    _err(HandError, r"ninghai has no wilds", config="ninghai")


@pytest.mark.parametrize("kw,match", [
    (dict(hand="0m23m456m789m12p55s"), r"bad rank '0'"),
    (dict(hand="123x"), r"unknown suit letter 'x'|unexpected"),
    (dict(win_tile="8s8s"), r"expected exactly one tile"),
    (dict(melds=["pung:776z"]), r"a pung needs 3 identical"),
    (dict(melds=["chow:135s"]), r"a chow needs 3 consecutive"),
    (dict(hand="22222m"), r"5 copies of 2m"),
])
def test_tile_errors(kw, match):
    _err(TileError, match, **kw)


def test_config_errors():
    with pytest.raises(ConfigError, match="no such file or shipped config"):
        score_hand("no-such-variant", **ALL_CHOWS)
    with pytest.raises(ConfigError, match="unknown key"):
        score_hand("ningbo-3baida", indicator="9m", overrides=("win.nope=1",), **ALL_CHOWS)


def test_case_fields_are_checked():
    base = dict(id="x", config="ningbo-3baida", hand="234m567p345s67s55m", win_tile="8s",
                win_by="discard", seat="S", round="E", indicator="9m")
    with pytest.raises(HandError, match="unknown field 'colour'"):
        score_case(dict(base, colour="red"))
    with pytest.raises(HandError, match="missing field 'win_tile'"):
        score_case({k: v for k, v in base.items() if k != "win_tile"})
    with pytest.raises(HandError, match="expected a mapping seat"):
        score_case(dict(base, fed=[3]))
    assert score_case(base).complete


def _kernel(config="ningbo-3baida", hand="234m567p345s67s55m", win_tile="8s", **kw):
    """Call the kernel directly with raw arrays (what the engine does)."""
    from nbsim.kernels.scoring.score import HandTiles, Win, score_win
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules
    from nbsim.rules.tiles import parse_counts, parse_tile
    rs = load_rules(config)
    a = dict(hand=parse_counts(hand) if isinstance(hand, str) else hand,
             melds=np.zeros((4, 3), np.int8), n_melds=0,
             flowers=np.zeros(8, np.int8),
             win_tile=parse_tile(win_tile) if isinstance(win_tile, str) else win_tile,
             win_by=C.WIN_DISCARD, ctx=0, seat=1, round_wind=0, indicator=8, discarder=-1,
             fed=np.zeros(4, np.int8), fed_by_winner=np.zeros(4, np.int8), kong_from=-1,
             liable=-1)
    a.update(kw)
    res = np.zeros(C.RES_LEN, np.int64)
    code = score_win(rs.array, load_tables(),
                     HandTiles(a["hand"], a["melds"], a["n_melds"], a["flowers"]),
                     Win(a["win_tile"], a["win_by"], a["ctx"], a["seat"], a["round_wind"],
                         a["indicator"], a["discarder"], a["fed"], a["fed_by_winner"],
                         a["kong_from"], a["liable"]), res)
    assert res[C.RES_ERROR] == code
    return code, res


@pytest.mark.parametrize("kw,code", [
    (dict(win_by=3), C.E_BAD_ARG),
    (dict(ctx=16), C.E_BAD_ARG),
    (dict(seat=4), C.E_BAD_SEAT),
    (dict(round_wind=-1), C.E_BAD_SEAT),
    (dict(n_melds=5), C.E_BAD_MELD),
    (dict(win_tile=42), C.E_BAD_ARG),
    (dict(indicator=-1), C.E_NO_INDICATOR),
    (dict(indicator=42), C.E_BAD_ARG),
    (dict(melds=np.array([[7, 0, -1], [0, 0, 0], [0, 0, 0], [0, 0, 0]], np.int8), n_melds=1,
          hand=None), C.E_BAD_MELD),
    (dict(melds=np.array([[0, 7, -1], [0, 0, 0], [0, 0, 0], [0, 0, 0]], np.int8), n_melds=1,
          hand=None), C.E_BAD_MELD),
    (dict(liable=2), C.E_BAD_LIABLE),
    (dict(flowers=np.array([2, 0, 0, 0, 0, 0, 0, 0], np.int8)), C.E_BAD_ARG),
    (dict(fed=np.array([-1, 0, 0, 0], np.int8)), C.E_BAD_FED),
    (dict(discarder=1), C.E_BAD_SEAT),
])
def test_kernel_error_codes(kw, code):
    if "hand" in kw and kw["hand"] is None:
        kw = dict(kw, hand=parse_counts("234m567p67s55m"))
    got, res = _kernel(**kw)
    assert got == code, C.ERROR_NAMES[got]
    assert res[C.RES_WIN] == 0 and res[C.RES_COMPLETE] == 0


def test_kernel_negative_count_and_liability_ok_in_ninghai():
    h = parse_counts("234m567p345s67s55m")
    h[0] = -1
    assert _kernel(hand=h)[0] == C.E_BAD_ARG
    code, res = _kernel(config="ninghai", indicator=-1, liable=2, discarder=2)
    assert code == C.OK and res[C.RES_WIN] == 1
    # the liable player pays all three shares (docs/rules.md §8)
    s = res[C.RES_SILVER]
    assert list(res[C.RES_PAY:C.RES_PAY + 4]) == [0, 3 * s, -3 * s, 0]


def test_compact_wild_set_matches_wild_mask(shipped_config):
    """The scorer tests wilds with (kind a, kind b, flower bits)
    (kernels/scoring/validation.py); it must give the same sets as wilds.wild_mask
    for every indicator (docs/rules.md §3)."""
    from nbsim.kernels.scoring.validation import is_wild, wild_set
    from nbsim.kernels.wilds import wild_mask
    from nbsim.rules.ruleset import load_rules
    config = shipped_config
    has_wilds = load_rules(config).config.wilds.wilds != "none"
    for over in ((), ("wilds.dragon_successor=5z6z7z",)):
        if over and not has_wilds:
            continue
        rules = load_rules(config, over).array
        for ind in range(-1, C.N_KINDS):
            mask = np.zeros(C.N_KINDS, np.bool_)
            n = wild_mask(rules, ind, mask)
            wa, wb, fm, n2 = wild_set(rules, ind)
            assert n2 == n
            assert [bool(is_wild(k, wa, wb, fm)) for k in range(C.N_KINDS)] == list(mask)

"""Tile notation (docs/rules.md §1): kind ids, parse/format round trips
(hypothesis), melds, seats, and errors that name the offending text."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbsim.errors import TileError
from nbsim.kernels import codes as C
from nbsim.rules.tiles import (
    KIND_NAMES,
    format_counts,
    format_meld,
    format_tiles,
    kind_name,
    parse_counts,
    parse_meld,
    parse_seat,
    parse_tile,
    parse_tiles,
    to_counts,
)


def test_kind_ids_follow_the_notation():
    assert KIND_NAMES[:3] == ("1m", "2m", "3m")
    assert kind_name(0) == "1m" and kind_name(8) == "9m"
    assert kind_name(9) == "1p" and kind_name(18) == "1s"
    assert kind_name(27) == "1z" and kind_name(30) == "4z"      # East .. North
    assert kind_name(31) == "5z" and kind_name(33) == "7z"      # White Green Red
    assert kind_name(34) == "1f" and kind_name(41) == "8f"
    assert len(set(KIND_NAMES)) == C.N_KINDS == 42


def test_digits_share_the_following_suit_letter():
    assert parse_tiles("123m55z1f") == [0, 1, 2, 31, 31, 34]
    assert parse_tiles(" 1 2 3 m ") == [0, 1, 2]                 # whitespace ignored
    assert parse_tiles("") == [] and parse_tiles(None) == []
    assert format_tiles(parse_tiles("55z1f123m")) == "123m55z1f"  # sorted m p s z f


# multisets of tiles: at most 4 copies of a suited/honor kind, 1 of a flower
_counts = st.lists(st.integers(0, 4), min_size=34, max_size=34).flatmap(
    lambda c: st.lists(st.integers(0, 1), min_size=8, max_size=8).map(lambda f: c + f))


@settings(max_examples=300, deadline=None)
@given(_counts)
def test_counts_round_trip(counts):
    text = format_counts(counts)
    assert list(parse_counts(text)) == counts
    assert format_counts(parse_counts(text)) == text
    # the canonical text is suits in order m p s z f, each used at most once
    assert re.fullmatch(r"(\d+m)?(\d+p)?(\d+s)?(\d+z)?(\d+f)?", text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, C.N_KINDS - 1), max_size=20), st.randoms())
def test_any_order_parses_to_the_same_multiset(kinds, rnd):
    kinds = [k for i, k in enumerate(kinds) if kinds[:i].count(k) < (1 if k >= 34 else 4)]
    shuffled = list(kinds)
    rnd.shuffle(shuffled)
    text = "".join(kind_name(k) for k in shuffled)     # one tile per group: '1m5z2m'
    assert sorted(parse_tiles(text)) == sorted(kinds)
    assert list(to_counts(parse_tiles(text))) == list(to_counts(kinds))


@pytest.mark.parametrize("text,needle", [
    ("0m", "bad rank '0' in 0m (ranks for m are 1-9)"),
    ("8z", "bad rank '8' in 8z (ranks for z are 1-7)"),
    ("9f", "bad rank '9' in 9f (ranks for f are 1-8)"),
    ("123x", "unknown suit letter 'x' after '123' (allowed: m p s z f)"),
    ("123", "digits '123' have no suit letter"),
    ("12m3", "digits '3' have no suit letter"),
    ("m12", "unexpected 'm'"),
    ("1m-2m", "unexpected '-'"),
    ("11111m", "5 copies of 1m (at most 4)"),
    ("1f1f", "2 copies of 1f (at most 1 of a flower)"),
])
def test_errors_name_the_offending_text(text, needle):
    with pytest.raises(TileError) as e:
        parse_tiles(text, what="hand")
    assert needle in str(e.value)
    assert str(e.value).startswith("hand ")


def test_copy_limit_can_be_lifted_and_non_text_is_refused():
    assert parse_tiles("11111m", max_copies=None) == [0] * 5
    with pytest.raises(TileError, match="expected tile notation text, got int 5"):
        parse_tiles(5)


def test_single_tile():
    assert parse_tile("5p") == 13
    with pytest.raises(TileError, match="expected exactly one tile such as '5p', got 2"):
        parse_tile("55p")
    with pytest.raises(TileError, match="got 0"):
        parse_tile("")
    with pytest.raises(TileError, match="not a tile kind"):
        kind_name(42)


@pytest.mark.parametrize("text", ["chow:345s", "pung:777z", "kong:1111m", "ckong:9999s",
                                  "chow:789p"])
def test_meld_round_trip(text):
    assert format_meld(*parse_meld(text)) == text


@pytest.mark.parametrize("text,needle", [
    ("pung:77z", "a pung needs 3 identical"),
    ("chow:890m", "bad rank '0'"),
    ("chow:899m", "a chow needs 3 consecutive ranks"),
    ("chow:123z", "a chow needs 3 consecutive ranks"),
    ("chow:9m1p2p", "a chow needs 3 consecutive ranks"),
    ("kong:111m", "a kong needs 4 identical"),
    ("pung:111f", "copies of 1f"),
    ("triple:777z", "expected TYPE:TILES"),
    ("777z", "expected TYPE:TILES"),
])
def test_meld_errors(text, needle):
    with pytest.raises(TileError, match=re.escape(needle)):
        parse_meld(text)


def test_seats():
    assert [parse_seat(s) for s in "ESWN"] == [0, 1, 2, 3]
    assert parse_seat(" s ") == 1
    with pytest.raises(TileError, match="seat 'X': expected one of E S W N"):
        parse_seat("X")

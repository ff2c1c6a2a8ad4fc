"""``nbsim replay``: one deal as a player would read it, in tile notation.

The deal is played by the same engine, wall and random streams as
``nbsim simulate --mode game`` (``nbsim.run.game_mode.play_one``), so the replay's row
is exactly the simulated row of that deal.
"""
from __future__ import annotations

import json
from pathlib import Path

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.policy_specs import as_policies
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.run.files import MAX_DEALS
from nbsim.run.game_mode import DealRecord, play_one

SEAT_WORDS = {"E": "East", "S": "South", "W": "West", "N": "North"}


def replay(config: RuleSet | str | Path, seed: int, deal: int, policies=None) -> DealRecord:
    """Play deal ``deal`` of ``seed`` with ``policies`` (one policy spec for
    every seat, or 4 per seat from the dealer; default: the default policy,
    ``nbsim.policy_specs``) and return its row and event log
    (``nbsim.run.game_mode.DealRecord``). config: a RuleSet, shipped name or path.

    Raises ConfigError for a bad config, RunError for a seed outside
    0 .. 2**64 - 1, a deal outside 0 .. 2**62 - 1 or a bad policy list."""
    from nbsim.args import whole_number
    rs = as_rules(config)
    seed = whole_number(seed, "--seed", error=RunError)
    deal = whole_number(deal, "--deal", error=RunError)
    if not 0 <= seed < 2**64:
        raise RunError(f"--seed must be 0 .. 2**64 - 1, got {seed}")
    if not 0 <= deal < MAX_DEALS:
        raise RunError(f"--deal must be 0 .. 2**62 - 1, got {deal}")
    return play_one(rs, int(seed), int(deal), as_policies(policies))


def _seat(s) -> str:
    return f"{s} ({SEAT_WORDS[s]}{', dealer' if s == 'E' else ''})" if s else "-"


# event action -> its sentence; fields s (seat), t (tile), frm (from seat), meld
_EVENT_TEXT = {
    "draw": "{s} draws {t}",
    "replace": "{s} draws {t} from the tail (replacement)",
    "flower": "{s} sets flower {t} aside",
    "discard": "{s} discards {t}",
    "chow": "{s} chows {t} from {frm}: {meld}",
    "pung": "{s} pungs {t} from {frm}: {meld}",
    "kong": "{s} kongs {t} from {frm}: {meld}",
    "added_kong": "{s} adds {t} to its pung: {meld}",
    "concealed_kong": "{s} declares a concealed kong: {meld}",
    "pass_win": "{s} could win on {t} ({how}) but passes",
    "exhausted": "the wall is exhausted: no winner",
}
_SETUP = ("dice", "indicator", "deal", "flower", "replace")   # before the first play action


def _event_text(e: dict, wilds=frozenset(), heavenly: bool = False) -> str:
    """One event of the log as a sentence in tile notation (a wild tile in
    brackets: [9m]). heavenly: the deal ended in a heavenly hand, whose win
    has no winning tile (docs/rules.md §6, §10.1)."""
    a, meld = e["action"], e["meld"]
    if a == "win" and heavenly:
        return f"{e['seat']} wins with a heavenly hand (天胡): the dealt 14 tiles are complete"

    t = e["tile"]
    if t in wilds:
        t = f"[{t}]"
    fields = dict(s=e["seat"], t=t, frm=e["from_seat"], meld=meld,
                  how=(meld or "").replace("_", " "))
    if a == "win":
        if meld == "self_draw":
            return "{s} wins on {t} (self-drawn)".format(**fields)
        return "{s} wins on {t} ({how} from {frm})".format(**fields)
    return _EVENT_TEXT.get(a, "{s} " + a + " {t}").format(**fields)


def play_start(events: list[dict]) -> int:
    """Index of the first play action: the deal and the one-time flower
    replacement (dice, indicator, deal, flower, replace) come before it."""
    for i, e in enumerate(events):
        if e["action"] not in _SETUP:
            return i
    return len(events)


def show_hand(kinds: list[int], wilds: frozenset) -> str:
    """A hand in notation with its wild tiles apart, in brackets:
    '123m456p11z [9m][9m]'."""
    from nbsim.rules.tiles import format_tiles, parse_tile
    wild_k = {parse_tile(w) for w in wilds}
    plain = [k for k in kinds if k not in wild_k]
    marked = "".join(f"[{format_tiles([k])}]" for k in sorted(k for k in kinds if k in wild_k))
    return (format_tiles(sorted(plain)) + (" " + marked if marked else "")).strip() or "-"


def final_hands(row: dict, events: list[dict]) -> dict[str, list[int]]:
    """Each seat's concealed tiles (kinds) at the end of the deal
    (``hands_at`` after every event). Raises RunError if the log does not
    fit."""
    return hands_at(row, events, len(events))


def hands_at(row: dict, events: list[dict], upto: int) -> dict[str, list[int]]:
    """Each seat's concealed tiles (sorted kinds) after ``events[:upto]``,
    from the hands after the flower replacement and the play events: draws
    and replacements add a tile, discards and flowers set aside remove one,
    claims remove the tiles they take from the hand, and the winner's hand
    gets the winning tile. ``upto`` before the first play action gives the
    hands after the flower replacement. Raises RunError if the log does not
    fit."""
    from nbsim.rules.tiles import parse_meld, parse_tile, parse_tiles
    hands = {s: parse_tiles(row[f"hand_{s.lower()}"], max_copies=None) for s in C.SEAT_NAMES}

    def take(seat, tile, n=1):
        k = parse_tile(tile)
        for _ in range(n):
            if k not in hands[seat]:
                raise RunError(f"replay log: {seat} does not hold {tile}")
            hands[seat].remove(k)

    for e in events[play_start(events):upto]:
        a, s, t = e["action"], e["seat"], e["tile"]
        if a in ("draw", "replace"):
            hands[s].append(parse_tile(t))
        elif a in ("discard", "flower"):
            take(s, t)
        elif a in ("pung", "kong"):
            take(s, t, 2 if a == "pung" else 3)
        elif a == "chow":
            typ, low = parse_meld(e["meld"])
            for k in (low, low + 1, low + 2):
                if k != parse_tile(t):
                    hands[s].remove(k)
        elif a == "added_kong":
            take(s, t)
        elif a == "concealed_kong":
            take(s, t, 4)
        elif a == "win" and e["meld"] != "self_draw":
            hands[s].append(parse_tile(t))
    return {s: sorted(h) for s, h in hands.items()}


def _score_lines(row: dict) -> list[str]:
    """The win's scoring with Chinese names beside the ids: the tai items
    that apply (those worth 0 tai too, from the has_<item> columns), or
    Ninghai fan and fu and their items (fan_<item>, fu_<item>: fan before the
    cap) with the points of every scheme (docs/rules.md §6, §8)."""
    from nbsim.rules.names import fan_label, fu_label, scheme_label, tai_label
    if "tai" in row:
        items = [(k[4:], v) for k, v in row.items()
                 if k.startswith("tai_") and (v or row.get(f"has_{k[4:]}"))]
        return [f"  tai {row['tai']}: " + ", ".join(f"{tai_label(k)} {v}" for k, v in items)]
    out = []
    fan_items = [(k[4:], v) for k, v in row.items()
                 if k.startswith("fan_") and k[4:] in C.FAN_ITEMS and v]
    fu_items = [(k[3:], v) for k, v in row.items()
                if k.startswith("fu_") and k[3:] in C.FU_ITEMS and v]
    if fan_items:
        out.append("  fan items: " + ", ".join(f"{fan_label(k)} {v}" for k, v in fan_items))
    if fu_items:
        out.append("  fu items: " + ", ".join(f"{fu_label(k)} {v}" for k, v in fu_items))
    pts = ", ".join(f"{scheme_label(k[7:])} {v}" for k, v in row.items()
                    if k.startswith("points_"))
    out.append(f"  fan {row['fan']}, fu {row['fu']}; points {pts}"
               + (f"; liable: {row['liable']}" if row.get("liable") else ""))
    return out


def format_text(rs: RuleSet, rec: DealRecord) -> str:
    """The replay as readable text: dice and break, indicator and wilds, the
    hands after the flower replacement (wild tiles apart, in brackets), every
    play action numbered from 1 (the first action after the deal), the end,
    every player's final hand and melds, the tai items with their Chinese
    names (or fan/fu/points and the fan and fu items), the flowers set aside
    at the end of the deal and the payments (docs/rules.md §2-§8). A heavenly
    hand is shown without a winning tile. Each line is wrapped to
    ``stats.TEXT_WIDTH`` columns."""
    from nbsim.rules.names import WILD
    from nbsim.rules.tiles import parse_tiles
    from nbsim.stats import fill
    row, ev = rec.row, rec.events
    wilds = frozenset(row.get("wild_kinds") or [])
    pols = [row["policy_" + s.lower()] for s in C.SEAT_NAMES]
    lines = [f"{rs.name}, seed {row['seed']}, deal {row['deal']}: round wind "
             f"{SEAT_WORDS[row['round_wind']]}; policies "
             + (f"of every seat {pols[0]}" if len(set(pols)) == 1 else
                ", ".join(f"{s} {p}" for s, p in zip(C.SEAT_NAMES, pols, strict=True)))]
    dice = row["dice"]
    lines.append(f"dice: {' '.join(str(d) for d in dice)} (sum {sum(dice[:2])})")
    if row["indicator"]:
        lines.append(f"indicator: {row['indicator']}; wilds ({WILD}, shown in brackets): "
                     f"{' '.join(row['wild_kinds'])}")
    lines.append("hands after the flower replacement:")
    for s in C.SEAT_NAMES:
        suf = s.lower()
        fl = row[f"flowers_{suf}"]
        hand = show_hand(parse_tiles(row["hand_" + suf], max_copies=None), wilds)
        lines.append(f"  {_seat(s):<20} {hand:<30}" + (f" flowers {fl}" if fl else ""))
    lines.append("play (steps numbered from the deal):")
    heavenly = "heavenly" in (row["context"] or [])
    for n, e in enumerate(ev[play_start(ev):], 1):
        lines.append(f"  {n:>4}  {_event_text(e, wilds, heavenly)}")
    lines.append("end:")
    if row["winner"]:
        ctx = f" [{', '.join(row['context'])}]" if row["context"] else ""
        on = (f"on {row['win_tile']}" if row["win_tile"] is not None
              else "with the dealt 14 tiles (no winning tile)")
        lines.append(f"  {_seat(row['winner'])} wins by {row['outcome'].replace('_', ' ')} "
                     f"{on}{ctx}")
        lines += _score_lines(row)
    else:
        lines.append(f"  wall exhausted after {row['turns']} discards")
    lines.append("final hands:")
    try:
        finals = final_hands(row, ev)
    except (RunError, ValueError, KeyError):      # a log this formatter cannot follow
        finals = None
    for s in C.SEAT_NAMES:
        melds = row[f"melds_{s.lower()}"]
        hand = show_hand(finals[s], wilds) if finals is not None else "(not reconstructed)"
        won = " (winning hand)" if row["winner"] == s else ""
        lines.append(f"  {s}: {hand}" + (f"  melds {' '.join(melds)}" if melds else "") + won)
    ends = [f"{s} {row[f'flowers_end_{s.lower()}']}" for s in C.SEAT_NAMES
            if row.get(f"flowers_end_{s.lower()}")]
    if ends:
        lines.append("flowers set aside at the end: " + ", ".join(ends))
    lines.append("payments: " + ", ".join(f"{s} {row['pay_' + s.lower()]:+d}"
                                          for s in C.SEAT_NAMES))
    return fill("\n".join(lines), indent="    ")


def format_json(rec: DealRecord) -> str:
    """The replay as JSON: {"row": the simulated row, "events": [...]}."""
    return json.dumps({"row": rec.row, "events": rec.events}, ensure_ascii=False, indent=1,
                      default=str)


def hidden_at(row: dict, events: list[dict], upto: int
              ) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """What the other seats hide after ``events[:upto]`` of a played deal
    (``nbsim.play.replays.replay``'s row and events): each seat's concealed
    kinds and the kinds of its face-down kongs in the order declared, both
    by seat index (0 E .. 3 N), as ``nbsim.play.worlds.real_world`` takes them."""
    from nbsim.rules.tiles import parse_tile
    hands = {C.SEAT_NAMES.index(s): t for s, t in hands_at(row, events, upto).items()}
    kongs = {C.SEAT_NAMES.index(s): [parse_tile(e["tile"]) for e in events[:upto]
                                     if e["action"] == "concealed_kong" and e["seat"] == s]
             for s in C.SEAT_NAMES}
    return hands, kongs

"""``nbsim replay``: one deal as a player would read it, in tile notation.

The deal is played by the same engine, wall and random streams as
``nbsim simulate --mode game`` (``nbsim.game.play_one``), so the replay's row
is exactly the simulated row of that deal.
"""
from __future__ import annotations

import json
from pathlib import Path

from nbsim.errors import RunError
from nbsim.game import DealRecord, play_one
from nbsim.policies import as_policies
from nbsim.kernels import codes as C
from nbsim.rules import RuleSet, as_rules
from nbsim.runs import MAX_DEALS

SEAT_WORDS = {"E": "East", "S": "South", "W": "West", "N": "North"}


def replay(config: RuleSet | str | Path, seed: int, deal: int, policies=None) -> DealRecord:
    """Play deal ``deal`` of ``seed`` with ``policies`` (one policy spec for
    every seat, or 4 per seat from the dealer; default: the default policy,
    ``nbsim.policies``) and return its row and event log
    (``nbsim.game.DealRecord``). config: a RuleSet, shipped name or path.

    Raises ConfigError for a bad config, RunError for a seed outside
    0 .. 2**64 - 1, a deal outside 0 .. 2**62 - 1 or a bad policy list."""
    rs = as_rules(config)
    if not 0 <= int(seed) < 2**64:
        raise RunError(f"--seed must be 0 .. 2**64 - 1, got {seed}")
    if not 0 <= int(deal) < MAX_DEALS:
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


def _event_text(e: dict) -> str:
    """One event of the log as a sentence in tile notation."""
    a, meld = e["action"], e["meld"]
    fields = dict(s=e["seat"], t=e["tile"], frm=e["from_seat"], meld=meld,
                  how=(meld or "").replace("_", " "))
    if a == "win":
        if meld == "self_draw":
            return "{s} wins on {t} (self-drawn)".format(**fields)
        return "{s} wins on {t} ({how} from {frm})".format(**fields)
    return _EVENT_TEXT.get(a, "{s} " + a + " {t}").format(**fields)


def format_text(rs: RuleSet, rec: DealRecord) -> str:
    """The replay as readable text: dice and break, indicator and wilds, the
    hands after the flower replacement, every draw, discard, claim, kong and
    flower, the end, the tai items (or fan/fu/points) and the payments."""
    row, ev = rec.row, rec.events
    lines = [f"{rs.name}, seed {row['seed']}, deal {row['deal']}: round wind "
             f"{SEAT_WORDS[row['round_wind']]}; policies "
             + ", ".join(f"{s} {row['policy_' + s.lower()]}" for s in C.SEAT_NAMES)]
    dice = row["dice"]
    lines.append(f"dice: {' '.join(str(d) for d in dice)} (sum {sum(dice[:2])})")
    if row["indicator"]:
        lines.append(f"indicator: {row['indicator']}; wilds: {' '.join(row['wild_kinds'])}")
    lines.append("hands after the flower replacement:")
    for s in C.SEAT_NAMES:
        suf = s.lower()
        fl = row[f"flowers_{suf}"]
        lines.append(f"  {_seat(s):<20} {row['hand_' + suf]:<24}"
                     + (f" flowers {fl}" if fl else ""))
    lines.append("play:")
    turn = 0
    for e in ev:
        a = e["action"]
        if a in ("dice", "indicator", "deal"):
            continue
        if a == "flower" and turn == 0:
            continue   # the one-time replacement is already in the hands above
        if a == "replace" and turn == 0:
            continue
        if a == "discard":
            turn += 1
        text = _event_text(e)
        lines.append(f"  {e['step']:>4}  {text}")
    lines.append("end:")
    if row["winner"]:
        ctx = f" [{', '.join(row['context'])}]" if row["context"] else ""
        lines.append(f"  {_seat(row['winner'])} wins by {row['outcome'].replace('_', ' ')} "
                     f"on {row['win_tile']}{ctx}")
        if "tai" in row:
            items = [(k[4:], v) for k, v in row.items()
                     if k.startswith("tai_") and v]
            lines.append(f"  tai {row['tai']}: " + ", ".join(f"{k} {v}" for k, v in items))
        else:
            pts = ", ".join(f"{k[7:]} {v}" for k, v in row.items() if k.startswith("points_"))
            lines.append(f"  fan {row['fan']}, fu {row['fu']}; points {pts}"
                         + (f"; liable: {row['liable']}" if row.get("liable") else ""))
    else:
        lines.append(f"  wall exhausted after {row['turns']} discards")
    for s in C.SEAT_NAMES:
        melds = row[f"melds_{s.lower()}"]
        if melds:
            lines.append(f"  melds {s}: {' '.join(melds)}")
    lines.append("payments: " + ", ".join(f"{s} {row['pay_' + s.lower()]:+d}"
                                          for s in C.SEAT_NAMES))
    return "\n".join(lines)


def format_json(rec: DealRecord) -> str:
    """The replay as JSON: {"row": the simulated row, "events": [...]}."""
    return json.dumps({"row": rec.row, "events": rec.events}, ensure_ascii=False, indent=1,
                      default=str)

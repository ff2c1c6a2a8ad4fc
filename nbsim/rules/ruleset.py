"""Variant configs: TOML -> validated, frozen ``RuleSet`` -> flat int64 array.

A config is named by a path or by the name of a shipped config
(``configs/<name>.toml``, installed with the package). The layout and every
option come from docs/rules.md §9; unknown keys, wrong types and
out-of-range values are refused with one ``ConfigError`` naming the file, the
key and what is allowed. ``--set table.key=value`` overrides are applied to the
parsed TOML before validation, so they are checked the same way.

A config may start from another (``extends = "ningbo-3baida"``: a shipped
name or a path relative to the file) and change a few keys: the two are
merged table by table, a value the file gives (a number, a text, a list)
replacing the base's whole (``merge_tables``); ``name`` and ``description``
are the file's own (docs/variants.md). A config under which no hand can reach
``win.min_tai`` is refused (``min_tai_bound``).
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from nbsim.errors import ConfigError, NbsimError
from nbsim.kernels import codes as C
from nbsim.rules.tiles import parse_tiles

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"

Seat = Literal["E", "S", "W", "N"]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class WallRules(_Table):
    """[wall]: dice, the end of the wall, dealer rotation (docs/rules.md §2).

    dealer_keeps_on_draw: the dealer keeps the deal when the wall is
    exhausted (荒庄: a deal that ends without a winner; "draw" in the key's
    name means that, not drawing a tile)."""
    dice_throws: int = Field(1, ge=1, le=2, description=(
        "throws of two dice that set where the wall is broken (§2)"))
    reserve_stacks: int = Field(0, ge=0, le=30, description=(
        "stacks left undrawn at the end of the wall (§2)"))
    reserve_stacks_per_kong: int = Field(0, ge=0, le=4, description=(
        "one more stack left undrawn per kong declared (§2)"))
    dealer_keeps_on_draw: bool = Field(True, description=(
        "the dealer deals again after a deal that ends with the wall exhausted (§2)"))


class WildRules(_Table):
    """[wilds]: which tiles are wild (docs/rules.md §3)."""
    wilds: Literal["none", "3baida", "7baida"] = Field("3baida", description=(
        "which tiles are wild: none; the three other copies of the indicator's kind "
        "(3baida); or those and the four of the next kind (7baida) (§3)"))
    dragon_successor: str = Field("7z6z5z", description=(
        "the three dragons in cycle order, each followed by its next kind, for the "
        "next kind of a dragon indicator in 7-baida (§3)"))

    @field_validator("dragon_successor")
    @classmethod
    def _dragons(cls, v: str) -> str:
        try:
            kinds = parse_tiles(v, what="dragon_successor")
        except NbsimError as e:
            raise ValueError(str(e)) from None
        if sorted(kinds) != [C.WHITE, C.GREEN, C.RED]:
            raise ValueError("must list the three dragons 5z 6z 7z once each, in cycle "
                             "order (e.g. '7z6z5z': Red -> Green -> White -> Red)")
        return v


class FlowerRules(_Table):
    """[flowers]: seat flowers (正花) per seat wind (docs/rules.md §6 and §8)."""
    seat_flowers: dict[Seat, list[str]] = Field(
        default_factory=lambda: {"E": ["1f", "5f"], "S": ["2f", "6f"],  # type: ignore[arg-type]
                                 "W": ["3f", "8f"], "N": ["4f", "7f"]},
        description="each seat's own flowers (正花), which score seat_flower (§6, §8)")

    @field_validator("seat_flowers")
    @classmethod
    def _flowers(cls, v):
        if sorted(v) != sorted(C.SEAT_NAMES):
            raise ValueError("needs one entry for each seat E, S, W, N")
        owner: dict[int, str] = {}
        for seat, tiles in v.items():
            for t in tiles:
                try:
                    ks = parse_tiles(t, what=f"seat_flowers.{seat}")
                except NbsimError as e:
                    raise ValueError(str(e)) from None
                if len(ks) != 1 or ks[0] < C.FLOWER0:
                    raise ValueError(f"seat_flowers.{seat}: {t!r} is not one flower 1f-8f")
                if ks[0] in owner:
                    raise ValueError(f"seat_flowers.{seat}: {t!r} is already a seat flower of "
                                     f"{owner[ks[0]]}; each flower belongs to at most one seat")
                owner[ks[0]] = seat
        return v


class ClaimRules(_Table):
    """[claims]: chow, pung, kong restrictions (docs/rules.md §4)."""
    allow_chow: bool = Field(True, description="chows may be claimed (§4)")
    forbid_chow_swap: bool = Field(True, description=(
        "after a chow the player may not discard a tile that makes the same chow "
        "(吃张打张), unless one tile is left in hand (§4)"))
    no_kong_after_pung: bool = Field(True, description=(
        "after a pung the player must discard: no kong until its next turn (§4)"))
    first_round_restrictions: Literal["off", "first_hand", "every_hand"] = Field(
        "off", description=("Ninghai's first go-around: characters or dots only at each "
                            "player's first discard, and no claims; in the first deal "
                            "of a match, in every deal, or off (§4)"))


class WinRules(_Table):
    """[win]: what makes a legal win (docs/rules.md §5)."""
    min_tai: int = Field(4, ge=0, le=100, description=(
        "tai a win needs, three_wilds left out (fan with scoring.system fan_fu) (§5)"))
    self_draw_only: bool = Field(False, description=(
        "wins only by self-draw or by robbing a kong (§5)"))
    discard_win_wild_rule: Literal["allow", "forbid_wild_pair", "forbid_any_wild_use"] = \
        Field("forbid_wild_pair", description=(
            "a win on a discard whose winning tile leans on a wild: allowed; refused when "
            "the tile only pairs with a wild; or refused when it needs a wild at all (§5)"))
    allowed_patterns: list[Literal["full_flush", "half_flush", "all_honors", "all_pungs"]] = \
        Field(default_factory=list, description=(
            "patterns a win needs one of; empty: any complete hand (§5)"))
    wait_needs_single_kind: bool = Field(False, description=(
        "the edge, closed, single and dual-pung wait items need a hand that waits on "
        "exactly one kind (two for dual-pung) (§6)"))
    earthly_hand_rule: Literal["dealer_first_discard", "first_draw"] = Field(
        "dealer_first_discard", description=(
            "an earthly hand (地胡) is a non-dealer's win on the dealer's first discard, "
            "or on its own first draw before any claim (§6)"))
    three_wilds_self_draw_only: bool = Field(False, description=(
        "holding all three wilds forbids a win on a discard, the other reading of "
        "三财神必须自摸 (§10.3)"))
    wild_single_wait_can_rob: bool = Field(True, description=(
        "a player waiting on a wild single (抛搭) may rob a kong (§7)"))


# the most an item of each item table may be worth: tai, fan, fu (docs/rules.md §6, §8)
ITEM_MAX = {"tai": 100, "fan": 100, "fu": 1000}


def _check_items(v: dict[str, int], names: tuple[str, ...], label: str, hi: int):
    for k, n in v.items():
        if k not in names:
            raise ValueError(f"unknown {label} item {k!r}; allowed: {', '.join(names)}")
        if not 0 <= n <= hi:
            raise ValueError(f"{label} item {k!r}: value {n!r} must be a whole number 0-{hi}")
    return v


class PointsRules(_Table):
    """[scoring.points]: Ninghai points schemes (docs/rules.md §8)."""
    points_scheme: Literal["yao_ban_san", "yao_ban_liu", "yao_er_liu", "tui_dao_ba"] = \
        Field("yao_ban_san", description="the Ninghai points scheme payments use (§8)")
    fan_cap: int = Field(3, ge=0, le=10, description="the most fan a hand counts (§8)")
    silver_rounding: bool = Field(True, description=(
        "pay silver rounded to fifties in 幺半六 and 幺二六; false pays points one for "
        "one (§8)"))


class ScoringRules(_Table):
    """[scoring]: the scoring system and its item tables (docs/rules.md §6, §8)."""
    system: Literal["tai", "fan_fu"] = Field("tai", description=(
        "how wins are scored: Ningbo tai (§6), or Ninghai fan and fu (§8)"))
    tai: dict[str, int] = Field(default_factory=dict, description=(
        "tai of each Ningbo item the variant has; an item left out does not apply (§6)"))
    fan: dict[str, int] = Field(default_factory=dict, description=(
        "fan of each Ninghai fan item, before the cap (§8)"))
    fu: dict[str, int] = Field(default_factory=dict, description=(
        "fu of each Ninghai fu item (§8)"))
    points: PointsRules = Field(default_factory=PointsRules)

    @field_validator("tai")
    @classmethod
    def _tai(cls, v):
        return _check_items(v, C.TAI_ITEMS, "tai", ITEM_MAX["tai"])

    @field_validator("fan")
    @classmethod
    def _fan(cls, v):
        return _check_items(v, C.FAN_ITEMS, "fan", ITEM_MAX["fan"])

    @field_validator("fu")
    @classmethod
    def _fu(cls, v):
        return _check_items(v, C.FU_ITEMS, "fu", ITEM_MAX["fu"])


class PaymentRules(_Table):
    """[payments]: who pays how much (docs/rules.md §7 and §8)."""
    payment_rule: Literal["ningbo", "ningbo_5x", "ninghai"] = Field("ningbo", description=(
        "who pays how much: Ningbo with bound pairs (三摊) up to 10T, the five-times "
        "rules, or Ninghai's points (§7, §8)"))
    base_points: int = Field(0, ge=0, le=100, description=(
        "points added to the tai before paying (§7)"))
    bound_discarder_pays: int = Field(4, ge=0, le=100, description=(
        "multiple of T a bound discarder pays for a win on its discard (§7)"))
    cap: int = Field(1000, ge=0, le=10**9, description=(
        "the most a player wins or loses in one deal, points; 0: no cap (§7)"))
    three_melds_liability: bool = Field(False, description=(
        "Ninghai's liability (三摊): against a player showing three melds of one suit "
        "(or three pungs), a player not ready who discards the winning tile of that "
        "suit (or a terminal or honour) pays the whole win (§8)"))


class RuleConfig(_Table):
    """A whole variant config (docs/rules.md §9)."""
    name: str = Field(description="the variant's name, which labels its runs, reports and "
                      "comparisons (§9)")
    description: str = Field("", description="one line on the variant (§9)")
    sources: list[str] = Field(default_factory=list,
                               description="the rule texts the variant comes from (§9)")
    wall: WallRules = Field(default_factory=WallRules)
    wilds: WildRules = Field(default_factory=WildRules)
    flowers: FlowerRules = Field(default_factory=FlowerRules)
    claims: ClaimRules = Field(default_factory=ClaimRules)
    win: WinRules = Field(default_factory=WinRules)
    scoring: ScoringRules = Field(default_factory=ScoringRules)
    payments: PaymentRules = Field(default_factory=PaymentRules)


_TABLE_MODELS: dict[str, type[BaseModel]] = {
    "": RuleConfig, "wall": WallRules, "wilds": WildRules, "flowers": FlowerRules,
    "claims": ClaimRules, "win": WinRules, "scoring": ScoringRules,
    "scoring.points": PointsRules, "payments": PaymentRules,
}


@dataclass(frozen=True)
class RuleSet:
    """A validated variant: the parsed config, its source, overrides and hash.

    Attributes:
        config: the validated ``RuleConfig`` (frozen pydantic model).
        source: path of the TOML file it was read from.
        overrides: the ``--set`` overrides applied, as given.
        array: the flat int64[R_LEN] array the kernels read (``codes.R_*``).
        hash: sha256 hex digest of the resolved rules (16 chars), stable
            across runs and machines.
        extends: the files the config was built on (``extends``), nearest
            first; empty for a config that extends none.
    """
    config: RuleConfig
    source: str
    overrides: tuple[str, ...] = ()
    array: np.ndarray = field(repr=False, compare=False, default=None)  # type: ignore[arg-type]
    hash: str = ""
    extends: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The variant's name (``name`` in the config)."""
        return self.config.name

    def to_dict(self) -> dict[str, Any]:
        """Resolved rules as plain data (every option, defaults filled in)."""
        return self.config.model_dump()

    def to_toml(self) -> str:
        """Resolved rules as TOML text (``nbsim rules`` prints this)."""
        return tomli_w.dumps(self.to_dict())

    @property
    def tai_items(self) -> list[str]:
        """Ids of the tai items this variant has (present in [scoring.tai])."""
        return [n for n in C.TAI_ITEMS if n in self.config.scoring.tai]

    @property
    def fan_items(self) -> list[str]:
        """Ids of the Ninghai fan items this variant lists in [scoring.fan], in
        ``codes.FAN_ITEMS`` order (docs/rules.md §8)."""
        return [n for n in C.FAN_ITEMS if n in self.config.scoring.fan]

    @property
    def fu_items(self) -> list[str]:
        """Ids of the Ninghai fu items this variant lists in [scoring.fu], in
        ``codes.FU_ITEMS`` order (docs/rules.md §8)."""
        return [n for n in C.FU_ITEMS if n in self.config.scoring.fu]


def shipped_configs() -> list[str]:
    """Names of the configs installed with the package."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.toml"))


def resolve_path(config: str | Path) -> Path:
    """A config path, or the name of a shipped config, -> existing Path.

    Raises ConfigError naming the shipped configs when neither exists."""
    from nbsim.args import config_name
    p = Path(config_name(config))
    if p.is_file():
        return p
    if p.exists():
        raise ConfigError(f"config {str(config)!r} is not a file")
    named = CONFIG_DIR / f"{config}.toml"
    if "/" not in str(config) and named.is_file():
        return named
    raise ConfigError(f"config {str(config)!r}: no such file or shipped config; "
                      f"shipped configs: {', '.join(shipped_configs())}")


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(data: dict, overrides, source: str = "--set") -> dict:
    """Apply ``table.key=value`` overrides (TOML values; bare words are
    strings) to parsed config data in place. Raises ConfigError on a malformed
    override or a key that does not exist."""
    for ov in overrides:
        if "=" not in ov:
            raise ConfigError(f"{source} {ov!r}: expected TABLE.KEY=VALUE, e.g. win.min_tai=5")
        path, value = ov.split("=", 1)
        parts = [p.strip() for p in path.strip().split(".") if p.strip()]
        if not parts:
            raise ConfigError(f"{source} {ov!r}: empty key")
        table = ".".join(parts[:-1])
        key = parts[-1]
        model = _TABLE_MODELS.get(table)
        item_tables = {"scoring.tai": C.TAI_ITEMS, "scoring.fan": C.FAN_ITEMS,
                       "scoring.fu": C.FU_ITEMS}
        if table in item_tables:
            if key not in item_tables[table]:
                raise ConfigError(f"{source} {ov!r}: unknown item {key!r} in [{table}]; "
                                  f"allowed: {', '.join(item_tables[table])}")
        elif model is None:
            raise ConfigError(f"{source} {ov!r}: unknown table {table!r}; allowed: "
                              f"{', '.join(t for t in _TABLE_MODELS if t)}, "
                              f"{', '.join(item_tables)}")
        elif key not in model.model_fields:
            raise ConfigError(f"{source} {ov!r}: unknown key {key!r} in "
                              f"[{table or 'top level'}]; allowed: "
                              f"{', '.join(model.model_fields)}")
        node = data
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{source} {ov!r}: {p!r} is not a table")
        node[key] = _parse_value(value.strip())
    return data


def _override_of(loc: str, overrides) -> str | None:
    """The ``--set`` override that set the key at ``loc`` (or a table above
    it), or None when the value comes from the file."""
    for ov in reversed(tuple(overrides)):
        path = ".".join(p.strip() for p in ov.split("=", 1)[0].split(".") if p.strip())
        if loc == path or loc.startswith(path + "."):
            return ov
    return None


def _format_validation_error(err: ValidationError, source: str, overrides=()) -> str:
    """One line naming the file (or the ``--set`` override) for each bad key."""
    msgs = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"])
        ov = _override_of(loc, overrides)
        if ov is not None:
            msg = e["msg"].removeprefix("Value error, ")
            msgs.append(f"--set {ov!r}: {loc}: {msg}")
            continue
        if e["type"] == "extra_forbidden":
            table = ".".join(str(x) for x in e["loc"][:-1])
            model = _TABLE_MODELS.get(table)
            allowed = ", ".join(model.model_fields) if model else "?"
            msgs.append(f"unknown key {loc!r}; allowed in [{table or 'top level'}]: {allowed}")
        elif e["type"] == "missing":
            msgs.append(f"missing key {loc!r}")
        else:
            msg = e["msg"].removeprefix("Value error, ")
            got = e.get("input")
            got_s = "" if isinstance(got, dict) else f" (got {got!r})"
            msgs.append(f"{loc}: {msg}{got_s}")
    return f"{source}: " + "; ".join(msgs)


def build_array(cfg: RuleConfig) -> np.ndarray:
    """Flatten a validated config into the int64[R_LEN] rules array."""
    a = np.zeros(C.R_LEN, dtype=np.int64)
    w, cl, wn, sc, pay = cfg.wall, cfg.claims, cfg.win, cfg.scoring, cfg.payments
    a[C.R_WILDS] = C.WILDS_NAMES.index(cfg.wilds.wilds)
    a[C.R_DICE_THROWS] = w.dice_throws
    a[C.R_RESERVE_STACKS] = w.reserve_stacks
    a[C.R_RESERVE_STACKS_PER_KONG] = w.reserve_stacks_per_kong
    a[C.R_DEALER_KEEPS_ON_DRAW] = w.dealer_keeps_on_draw
    a[C.R_ALLOW_CHOW] = cl.allow_chow
    a[C.R_FORBID_CHOW_SWAP] = cl.forbid_chow_swap
    a[C.R_NO_KONG_AFTER_PUNG] = cl.no_kong_after_pung
    a[C.R_FIRST_ROUND] = C.FIRST_ROUND_NAMES.index(cl.first_round_restrictions)
    a[C.R_MIN_TAI] = wn.min_tai
    a[C.R_SELF_DRAW_ONLY] = wn.self_draw_only
    a[C.R_DISCARD_WIN_WILD_RULE] = C.DWW_NAMES.index(wn.discard_win_wild_rule)
    mask = 0
    for p in wn.allowed_patterns:
        mask |= 1 << C.PATTERN_NAMES.index(p)
    a[C.R_ALLOWED_PATTERNS] = mask
    a[C.R_WAIT_NEEDS_SINGLE_KIND] = wn.wait_needs_single_kind
    a[C.R_EARTHLY_RULE] = C.EARTHLY_NAMES.index(wn.earthly_hand_rule)
    a[C.R_THREE_WILDS_SELF_DRAW_ONLY] = wn.three_wilds_self_draw_only
    a[C.R_WILD_SINGLE_CAN_ROB] = wn.wild_single_wait_can_rob
    a[C.R_SYSTEM] = C.SYSTEM_NAMES.index(sc.system)
    a[C.R_PAYMENT_RULE] = C.PAY_NAMES.index(pay.payment_rule)
    a[C.R_BASE_POINTS] = pay.base_points
    a[C.R_BOUND_DISCARDER_PAYS] = pay.bound_discarder_pays
    a[C.R_CAP] = pay.cap
    a[C.R_FAN_CAP] = sc.points.fan_cap
    a[C.R_POINTS_SCHEME] = C.SCHEME_NAMES.index(sc.points.points_scheme)
    a[C.R_SILVER_ROUNDING] = sc.points.silver_rounding
    a[C.R_THREE_MELDS_LIABILITY] = pay.three_melds_liability
    cycle = parse_tiles(cfg.wilds.dragon_successor)
    for i, k in enumerate(cycle):
        a[C.R_DRAGON_SUCC + k - C.WHITE] = cycle[(i + 1) % 3]
    for i, name in enumerate(C.TAI_ITEMS):
        a[C.R_TAI + i] = sc.tai.get(name, C.TAI_ABSENT)
    for i, name in enumerate(C.FAN_ITEMS):
        a[C.R_FAN + i] = sc.fan.get(name, 0)
    for i, name in enumerate(C.FU_ITEMS):
        a[C.R_FU + i] = sc.fu.get(name, 0)
    for s, seat in enumerate(C.SEAT_NAMES):
        for t in cfg.flowers.seat_flowers[seat]:  # type: ignore[index]
            a[C.R_SEAT_FLOWERS + s * 8 + parse_tiles(t)[0] - C.FLOWER0] = 1
    for i in range(C.N_SCHEMES):
        a[C.R_SCHEME_BASE + i] = C.SCHEME_BASE[i]
        a[C.R_SCHEME_USES_FU + i] = C.SCHEME_USES_FU[i]
        a[C.R_SCHEME_CAP + i] = C.SCHEME_CAP[i]
        a[C.R_SCHEME_SILVER_ROUND + i] = C.SCHEME_SILVER_ROUND[i]
    a.setflags(write=False)
    return a


# ---------------------------------------------------------------- reaching the minimum
_WAIT_ITEMS = ("chicken_hand", "all_chows", "edge_wait", "closed_wait", "single_wait",
               "dual_pung_wait")
_SHAPE_ITEMS = ("full_flush", "half_flush", "all_honors")
_FLOWER_ITEMS = ("seat_flower", "flower_set", "all_flowers")
_FIRST_ITEMS = ("heavenly_hand", "earthly_hand")
_NOT_FOR_MIN = ("three_wilds",)
_GROUPED = set(_WAIT_ITEMS + _SHAPE_ITEMS + _FLOWER_ITEMS + _FIRST_ITEMS + _NOT_FOR_MIN
               + ("big_single_wait", "dragon_pung"))


def _flower_bound(cfg: RuleConfig, seat_value: int, set_value: int) -> int:
    """Most a winner's flowers can give under the seat-flower and
    flower-set values: for each seat, each group of four flowers (1f-4f,
    5f-8f) gives its flower set or its seat flowers, whichever is more."""
    best = 0
    for tiles in cfg.flowers.seat_flowers.values():
        kinds = [parse_tiles(t)[0] - C.FLOWER0 for t in tiles]
        groups = (sum(k < 4 for k in kinds), sum(k >= 4 for k in kinds))
        best = max(best, sum(max(set_value, seat_value * n) for n in groups))
    return best


def min_tai_bound(cfg: RuleConfig) -> tuple[int, list[str]]:
    """The most tai (fan under ``scoring.system = "fan_fu"``) any winning
    hand can count toward ``win.min_tai`` under ``cfg``, as an upper bound,
    and the terms it adds up ("item x count" texts, docs/rules.md §5, §6, §8).

    Method: every item the config lists is taken at its value as if it
    applied, except where the rules make items exclude each other or count
    a bounded number of times, which only lowers the bound where no hand
    could do better: one wait item at most (the largest of ``chicken_hand``
    .. ``dual_pung_wait``) plus ``big_single_wait``; one of ``full_flush``,
    ``half_flush``, ``all_honors``; one of ``heavenly_hand`` (the dealer) and
    ``earthly_hand`` (a non-dealer); three dragon pungs at most; the flowers
    as the best seat's two groups of four, each giving its flower set or its
    seat flowers, or ``all_flowers``; ``three_wilds`` does not count toward
    the minimum (§5). Any other item counts once. Fan are capped at
    ``scoring.points.fan_cap``. No hand can score more, so a minimum above
    the bound is out of every hand's reach; a minimum at or below it may
    still be hard to reach (the bound adds items that rarely meet)."""
    sc = cfg.scoring
    terms: list[str] = []

    def add(label: str, value: int) -> int:
        if value > 0:
            terms.append(f"{label} {value}")
        return value

    if sc.system == "fan_fu":
        f = sc.fan
        total = add("flowers", _flower_bound(cfg, f.get("seat_flower", 0),
                                             f.get("flower_set", 0)))
        total += add("dragon_pung x 3", 3 * f.get("dragon_pung", 0))
        total += add("one of full_flush/half_flush/all_honors",
                     max(f.get(k, 0) for k in _SHAPE_ITEMS))
        total += add("all_pungs", f.get("all_pungs", 0))
        if total > sc.points.fan_cap:
            terms.append(f"capped at fan_cap {sc.points.fan_cap}")
        return min(total, sc.points.fan_cap), terms
    t = sc.tai
    total = add("one wait item", max(t.get(k, 0) for k in _WAIT_ITEMS))
    total += add("big_single_wait", t.get("big_single_wait", 0))
    total += add("one of full_flush/half_flush/all_honors",
                 max(t.get(k, 0) for k in _SHAPE_ITEMS))
    total += add("one of heavenly_hand/earthly_hand", max(t.get(k, 0) for k in _FIRST_ITEMS))
    total += add("dragon_pung x 3", 3 * t.get("dragon_pung", 0))
    total += add("flowers", max(t.get("all_flowers", 0), _flower_bound(
        cfg, t.get("seat_flower", 0), t.get("flower_set", 0))))
    for k in C.TAI_ITEMS:
        if k not in _GROUPED:
            total += add(k, t.get(k, 0))
    return total, terms


def _check_reachable(cfg: RuleConfig, source: str, overrides=()) -> None:
    """Raise ConfigError when ``win.min_tai`` is above ``min_tai_bound``:
    no hand could ever win, every deal would run to the end of the wall."""
    need = cfg.win.min_tai
    if need == 0:
        return
    bound, terms = min_tai_bound(cfg)
    if need <= bound:
        return
    unit, table, sec = ("fan", "scoring.fan", "§5, §8") if cfg.scoring.system == "fan_fu" \
        else ("tai", "scoring.tai", "§5, §6")
    ov = _override_of("win.min_tai", overrides)
    where = f"--set {ov!r}: " if ov else ""
    if not terms:
        why = f"[{table}] lists no item worth more than 0 {unit}"
    else:
        why = (f"the most {unit} any hand can count toward it is {bound} "
               f"({' + '.join(terms)})")
    raise ConfigError(f"{source}: {where}no hand can win: win.min_tai is {need} but {why} "
                      f"(docs/rules.md {sec}); lower win.min_tai or give [{table}] items "
                      f"(docs/variants.md)")


# ---------------------------------------------------------------- extends
EXTENDS = "extends"
_OWN_KEYS = ("name", "description")     # a file's own: never taken from its base


def merge_tables(base: dict, changes: dict) -> dict:
    """``changes`` laid over ``base`` (neither changed): a table in both is
    merged key by key (recursively); any other value of ``changes`` (a
    number, text, boolean or list) replaces the base's value whole, so a
    list is given in full, never appended to."""
    out = dict(base)
    for k, v in changes.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge_tables(out[k], v)
        else:
            out[k] = v
    return out


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: TOML syntax error: {e}") from None


def _base_path(ref: Any, source: str, folder: Path | None) -> Path:
    """The file ``extends = ref`` names: a path relative to ``folder`` (the
    extending file's folder), else a shipped config's name."""
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(f"{source}: {EXTENDS} must be the name of a shipped config or a "
                          f"path relative to this file, e.g. {EXTENDS} = \"ningbo-3baida\" "
                          f"(got {ref!r})")
    if folder is not None and (folder / ref).is_file():
        return (folder / ref).resolve()
    named = CONFIG_DIR / f"{ref}.toml"
    if "/" not in ref and named.is_file():
        return named
    raise ConfigError(f"{source}: {EXTENDS} = {ref!r}: no such file"
                      f"{f' in {folder}' if folder is not None else ''} nor shipped config; "
                      f"shipped configs: {', '.join(shipped_configs())}")


def _expand(data: dict, source: str, folder: Path | None,
            chain: tuple[Path, ...] = ()) -> tuple[dict, tuple[str, ...]]:
    """Config data with its ``extends`` resolved (the bases validated
    first, each under its own name): (merged data, the base files nearest
    first). Raises ConfigError: a bad or missing base, a loop of
    ``extends``, a file without its own name."""
    if EXTENDS not in data:
        return data, ()
    data = dict(data)
    path = _base_path(data.pop(EXTENDS), source, folder)
    if path in chain:
        loop = " -> ".join(str(p) for p in (*chain, path))
        raise ConfigError(f"{source}: {EXTENDS} makes a loop: {loop}")
    if "name" not in data:
        raise ConfigError(f"{source}: a config that extends another needs its own name "
                          f"(name = \"...\"), so that its runs are not taken for "
                          f"{path.stem}'s")
    base, bases = _expand(_read_toml(path), str(path), path.parent, (*chain, path))
    try:
        RuleConfig.model_validate(base)
    except ValidationError as e:
        raise ConfigError(_format_validation_error(e, str(path))) from None
    base = {k: v for k, v in base.items() if k not in _OWN_KEYS}
    return merge_tables(base, data), (str(path), *bases)


def from_dict(data: dict, source: str = "<dict>", overrides=(),
              folder: str | Path | None = None) -> RuleSet:
    """Validate parsed config data into a RuleSet. ``extends`` (a shipped
    name, or a path relative to ``folder``) is merged first
    (``merge_tables``). Raises ConfigError: as ``load_rules``."""
    overrides = _overrides(overrides)
    data, bases = _expand(data, source, None if folder is None else Path(folder))
    data = apply_overrides(json.loads(json.dumps(data)), overrides, source="--set")
    try:
        cfg = RuleConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_format_validation_error(e, source, overrides)) from None
    _check_reachable(cfg, source, overrides)
    canon = json.dumps(cfg.model_dump(), sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(canon.encode()).hexdigest()[:16]
    return RuleSet(config=cfg, source=source, overrides=tuple(overrides),
                   array=build_array(cfg), hash=digest, extends=bases)


def origin_lines(rs: RuleSet) -> list[str]:
    """Where a config's rules come from, as comment lines for ``nbsim rules``:
    the files it extends and every option it changes from the nearest one
    ("win.min_tai = 5 (ningbo-3baida: 4)"). Empty for a config that extends
    none."""
    if not rs.extends:
        return []
    base = load_rules(rs.extends[0])
    lines = [f"# extends {' <- '.join(rs.extends)}"]
    for key, was, now in _differences(base.to_dict(), rs.to_dict()):
        if key not in _OWN_KEYS:
            lines.append(f"#   {key} = {now} ({base.name}: {was})")
    return lines


def rules_text(rs: RuleSet, rules: dict[str, Any]) -> str:
    """What ``nbsim rules`` prints for ``rs``: comment lines (its name,
    source file and hash, ``origin_lines``, its --set overrides), then
    ``rules`` (``rs.to_dict()``, the description possibly replaced) as TOML.
    Every line fits ``stats.TEXT_WIDTH`` columns where it can: comments are
    wrapped, and a longer string value is written as a multi-line TOML
    string whose line-ending backslashes join its lines, so the TOML reads
    back as ``rules`` (a long word, e.g. a path, is kept whole)."""
    from nbsim.stats import TEXT_WIDTH, fill
    comments = [f"{rs.name} from {rs.source} (hash {rs.hash})",
                *(line[2:] for line in origin_lines(rs)),
                *(f"--set {ov}" for ov in rs.overrides)]
    out = ["# " + line for c in comments
           for line in fill(c, TEXT_WIDTH - 2, indent="    ").split("\n")]
    for line in tomli_w.dumps(rules).splitlines():
        out.append(_long_string(line, TEXT_WIDTH))
    return "\n".join(out) + "\n"


def _long_string(line: str, width: int) -> str:
    """A TOML line ``key = "long value"`` wider than ``width`` columns as a
    multi-line basic string cut at single spaces (each line ends in a backslash,
    which TOML joins with the next line's text); any other line as it is."""
    from nbsim.stats import fill, text_columns
    key, sep, value = line.partition(' = "')
    if not sep or text_columns(line) <= width or not value.endswith('"') or "  " in value:
        return line
    body = value[:-1]
    parts = fill(body, width - 3).split("\n")     # room for " \\" and the closing """
    text = f'{key} = """\n' + " \\\n".join(parts) + '"""'
    try:
        same = tomllib.loads(text) == tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        same = False
    return text if same else line


def _differences(a: dict, b: dict, prefix: str = "") -> list[tuple[str, str, str]]:
    """(dotted key, value in a, value in b) for every leaf that differs."""
    out = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if isinstance(x, dict) and isinstance(y, dict):
            out += _differences(x, y, f"{prefix}{k}.")
        elif x != y:
            out.append((f"{prefix}{k}", _value_text(x), _value_text(y)))
    return out


def _value_text(v: Any) -> str:
    return "(absent)" if v is None else json.dumps(v, ensure_ascii=False)   # TOML-alike


def _overrides(overrides) -> tuple[str, ...]:
    """``--set`` overrides as a tuple: one string is one override."""
    from nbsim.args import text_items
    return text_items(overrides, "overrides", "['win.min_tai=5']", ConfigError)


def load_rules(config: str | Path, overrides=()) -> RuleSet:
    """Load a variant config by path or shipped name, apply ``--set``
    overrides (``"win.min_tai=5"``, ...), validate, and flatten.

    A file with ``extends = "NAME-OR-PATH"`` is merged over that config
    first (``merge_tables``; docs/variants.md).

    Returns:
        RuleSet with ``.array`` (int64[R_LEN]) for the kernels.
    Raises:
        ConfigError: bad path, TOML syntax error, unknown key, wrong type or
        out-of-range value, a bad ``extends``, or a ``win.min_tai`` no hand
        can reach (``min_tai_bound``); the message names the file, key and
        what is allowed.
        ``overrides`` is a list of strings; one string is one override.
    """
    overrides = _overrides(overrides)
    path = resolve_path(config)
    return from_dict(_read_toml(path), source=str(path), overrides=tuple(overrides),
                     folder=path.parent)


def as_rules(config: RuleSet | str | Path, overrides=()) -> RuleSet:
    """``config`` itself when it is a loaded RuleSet (no overrides allowed
    then), else ``load_rules(config, overrides)``: what every public function
    taking CONFIG accepts (a RuleSet, a shipped name or a path).

    Raises:
        ConfigError: as ``load_rules``, or overrides given with a RuleSet.
    """
    overrides = _overrides(overrides)
    if isinstance(config, RuleSet):
        if overrides:
            raise ConfigError("overrides cannot be applied to an already loaded RuleSet; "
                              "pass the config name or path instead")
        return config
    return load_rules(config, overrides)

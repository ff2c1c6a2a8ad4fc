"""Statistics and number formatting shared by ``nbsim report``, ``nbsim
compare`` and ``nbsim sweep``: one home for the intervals, the tests and the
way numbers are printed, so that every table says the same thing the same way.

Every estimate comes with a 95% interval (``CONFIDENCE``):

    wilson(k, n)             Wilson score interval of a proportion
                             (``scipy.stats.binomtest``)
    t_interval(n, mean, sd)  t interval of a mean (``scipy.stats.t``)
    prop_row / mean_row      the table rows built from them
    newcombe_interval        p2 - p1 of two independent proportions: Newcombe's
                             hybrid score interval (Newcombe 1998, method 10;
                             ``statsmodels.stats.proportion.confint_proportions_2indep``)
    rate_test                two-proportion z test or Fisher's exact test (scipy)
    welch                    mean(b) - mean(a) of independent samples: Welch's t
                             (``scipy.stats.ttest_ind``)
    paired_mean_diff         mean of per-deal differences b_i - a_i with the paired
                             standard error sd(d)/sqrt(n): a t interval (the paired t
                             test, ``scipy.stats.t``)
    paired_ratio_diff        R_b - R_a of two ratio estimators on the same deals
                             (mean tai of wins = sum of tai / number of wins): delta
                             method on the per-deal linearised values, normal interval
                             (``scipy.stats.norm``)

Formatting: ``fmt`` (one number), ``markdown_table``, ``text_table`` (at
most ``TEXT_WIDTH`` columns), ``fill`` (prose to that width), ``json_safe``,
``p_text``.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats as _st

CONFIDENCE = 0.95
PCT = int(CONFIDENCE * 100)
WILSON_NOTE = f"{PCT}% Wilson score intervals (scipy.stats.binomtest)"
T_NOTE = (f"{PCT}% t intervals: mean +- t(0.975, n-1) x sd / sqrt(n) "
          f"(scipy.stats.t)")
MIN_EXPECTED = 5            # below this expected count the rate test is Fisher's exact
TEXT_WIDTH = 100            # terminal columns of the printed tables and prose


# ------------------------------------------------------------------ one sample
def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (scipy.stats.binomtest).
    (nan, nan) when n is 0."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence,
                                                     method="wilson")
    return float(ci.low), float(ci.high)


def t_interval(n: int, mean: float, sd: float,
               confidence: float = CONFIDENCE) -> tuple[float, float]:
    """t interval of a mean from n values with sample standard deviation sd
    (ddof 1): mean +- t((1+confidence)/2, n-1) sd/sqrt(n) (scipy.stats.t).
    (nan, nan) for n < 2; a zero-width interval when sd is 0."""
    if n is None or n < 2 or mean is None or sd is None or math.isnan(sd):
        return (math.nan, math.nan)
    if sd == 0:
        return (float(mean), float(mean))
    lo, hi = _st.t.interval(confidence, n - 1, loc=mean, scale=sd / math.sqrt(n))
    return float(lo), float(hi)


def prop_row(k: int, n: int) -> dict:
    """{count, n, p, se, ci_low, ci_high}: k of n with its 95% Wilson interval
    (se is the binomial standard error sqrt(p(1-p)/n))."""
    k, n = int(k or 0), int(n or 0)
    lo, hi = wilson(k, n)
    p = k / n if n else math.nan
    se = math.sqrt(p * (1 - p) / n) if n else math.nan
    return {"count": k, "n": n, "p": p, "se": se, "ci_low": lo, "ci_high": hi}


def mean_row(n, mean, sd) -> dict:
    """{n, mean, sd, se, ci_low, ci_high}: a mean with its 95% t interval."""
    n = int(n or 0)
    mean = math.nan if mean is None or n == 0 else float(mean)
    sd = math.nan if sd is None or n < 2 else float(sd)
    se = sd / math.sqrt(n) if n >= 2 else math.nan
    lo, hi = t_interval(n, mean, sd)
    return {"n": n, "mean": mean, "sd": sd, "se": se, "ci_low": lo, "ci_high": hi}


# ------------------------------------------------------------------ two independent samples
def newcombe_interval(k1: int, n1: int, k2: int, n2: int,
                      confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p2 - p1 (Newcombe 1998, method
    10; ``statsmodels.stats.proportion.confint_proportions_2indep`` with
    method="newcomb"), p1 = k1/n1 and p2 = k2/n2 from independent samples."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    lo, hi = confint_proportions_2indep(int(k2), int(n2), int(k1), int(n1), method="newcomb",
                                        compare="diff", alpha=1 - confidence)
    return float(lo), float(hi)


def rate_test(k1: int, n1: int, k2: int, n2: int) -> tuple[float, str]:
    """Two-sided p-value for p1 == p2 of independent samples: the
    two-proportion z test (pooled; scipy.stats.chi2_contingency without
    continuity correction, chi2 = z^2), or Fisher's exact test when an
    expected count is below 5. Returns (p-value, test name)."""
    table = np.array([[k1, n1 - k1], [k2, n2 - k2]], dtype=np.int64)
    col = table.sum(axis=0)
    expected = np.outer([n1, n2], col) / (n1 + n2)
    if expected.min() < MIN_EXPECTED:
        return float(_st.fisher_exact(table).pvalue), "Fisher exact"
    return float(_st.chi2_contingency(table, correction=False).pvalue), "z test"


def welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Welch's t test of mean(b) - mean(a): (ci_low, ci_high, p-value), via
    scipy.stats.ttest_ind(b, a, equal_var=False). nan when a sample has
    fewer than 2 values; an exact result when both have no spread."""
    if len(a) < 2 or len(b) < 2:
        return (math.nan, math.nan, math.nan)
    d = float(b.mean() - a.mean())
    if a.std() == 0 and b.std() == 0:
        return (d, d, 1.0 if d == 0 else 0.0)
    r = _st.ttest_ind(b, a, equal_var=False)
    ci = r.confidence_interval(confidence_level=CONFIDENCE)
    return float(ci.low), float(ci.high), float(r.pvalue)


def welch_se(a: np.ndarray, b: np.ndarray) -> float:
    """Standard error of mean(b) - mean(a) for independent samples
    (sqrt(var_a/n_a + var_b/n_b), the one Welch's test uses)."""
    if len(a) < 2 or len(b) < 2:
        return math.nan
    return float(math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)))


# ------------------------------------------------------------------ paired samples
def paired_mean_diff(n: int, mean_d: float, sd_d: float,
                     confidence: float = CONFIDENCE) -> dict:
    """Paired difference from the per-pair differences d_i = b_i - a_i (n
    pairs, their mean and sample sd): {diff, se, ci_low, ci_high, p_value}
    with se = sd/sqrt(n), the t interval and the two-sided paired t test
    (scipy.stats.t; the same numbers as scipy.stats.ttest_rel). With no
    spread the interval has zero width and p is 1 (no difference) or 0."""
    if n is None or n < 2 or mean_d is None or sd_d is None or math.isnan(sd_d):
        return {"diff": math.nan if mean_d is None else float(mean_d), "se": math.nan,
                "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}
    mean_d, sd_d = float(mean_d), float(sd_d)
    se = sd_d / math.sqrt(n)
    if se == 0:
        return {"diff": mean_d, "se": 0.0, "ci_low": mean_d, "ci_high": mean_d,
                "p_value": 1.0 if mean_d == 0 else 0.0}
    lo, hi = _st.t.interval(confidence, n - 1, loc=mean_d, scale=se)
    p = 2 * _st.t.sf(abs(mean_d / se), n - 1)
    return {"diff": mean_d, "se": se, "ci_low": float(lo), "ci_high": float(hi),
            "p_value": float(p)}


def paired_ratio_diff(ya: np.ndarray, wa: np.ndarray, yb: np.ndarray, wb: np.ndarray,
                      confidence: float = CONFIDENCE) -> dict:
    """R_b - R_a for ratio estimators R = sum(y) / sum(w) measured on the same
    n deals (pairs i; e.g. y = tai of the deal's win, 0 without one, w = 1 on
    a win: R = mean tai of wins). Delta method: z_i = (y_i - R w_i) / mean(w)
    linearises each ratio, the difference's standard error is
    sd(zb - za) / sqrt(n), and the interval is normal (scipy.stats.norm).
    Returns {diff, se, ci_low, ci_high, p_value}."""
    n = len(ya)
    if n < 2 or wa.sum() == 0 or wb.sum() == 0:
        return {"diff": math.nan, "se": math.nan, "ci_low": math.nan, "ci_high": math.nan,
                "p_value": math.nan}
    ra, rb = ya.sum() / wa.sum(), yb.sum() / wb.sum()
    za = (ya - ra * wa) / wa.mean()
    zb = (yb - rb * wb) / wb.mean()
    d = float(rb - ra)
    se = float(np.std(zb - za, ddof=1) / math.sqrt(n))
    if se == 0:
        return {"diff": d, "se": 0.0, "ci_low": d, "ci_high": d,
                "p_value": 1.0 if d == 0 else 0.0}
    lo, hi = _st.norm.interval(confidence, loc=d, scale=se)
    return {"diff": d, "se": se, "ci_low": float(lo), "ci_high": float(hi),
            "p_value": float(2 * _st.norm.sf(abs(d / se)))}


# ------------------------------------------------------------------ formatting
def fmt(x) -> str:
    """One cell: '-' for None/nan, 4 decimals (scientific below 1e-3,
    thousands separators from 1e4), integers with separators."""
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if x == 0:
            return "0"
        if abs(x) < 1e-3:
            return f"{x:.3e}"
        if abs(x) >= 1e4:
            return f"{x:,.1f}"
        return f"{x:.4f}"
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,}"
    return str(x)


def markdown_table(df: pl.DataFrame) -> str:
    """A DataFrame as a Markdown table (cells through ``fmt``)."""
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    for row in df.iter_rows():
        lines.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return "\n".join(lines)


def text_columns(text: str) -> int:
    """Terminal columns of ``text`` (Chinese characters take two)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def text_table(df: pl.DataFrame, width: int | None = None, keep: int = 1,
               left: bool = False) -> str:
    """A DataFrame as right-aligned plain-text columns (cells through
    ``fmt``; Chinese text counted two columns a character) no wider than
    ``width`` terminal columns (default ``TEXT_WIDTH``). A wider table
    first wraps the headers longer than their cells (down to
    ``HEADER_MIN`` columns), then its first ``keep`` columns (the row
    names, down to ``KEEP_MIN``) over several lines; if it is still too
    wide, its columns are split into
    blocks stacked one under the other (a blank line between), each
    repeating the first ``keep`` columns. ``left``: the first ``keep``
    columns are left-aligned (labels read from their start)."""
    width = TEXT_WIDTH if width is None else width
    cells = [[str(c) for c in df.columns]] + [[fmt(v) for v in row] for row in df.iter_rows()]
    n = len(df.columns)
    keep = min(keep, n)
    room = [_room(cells, j, j < keep) for j in range(n)]
    blocks: list[list[int]] = []
    for j in range(keep, n):
        if blocks and sum(room[i] for i in blocks[-1] + [j]) + 2 * len(blocks[-1]) <= width:
            blocks[-1].append(j)
        else:
            blocks.append(list(range(keep)) + [j])
    return "\n\n".join(_block_text(cells, b, keep, width, keep if left else 0)
                       for b in blocks or [list(range(n))])


KEEP_MIN = 24                # the row-name columns are wrapped down to this many columns
HEADER_MIN = 12              # a header longer than its cells is wrapped down to this


def _room(cells: list[list[str]], j: int, is_key: bool) -> int:
    """The columns column ``j`` needs once its header (or, for a row-name
    column, its cells) are wrapped as far as ``text_table`` wraps them."""
    body = max((text_columns(r[j]) for r in cells[1:]), default=0)
    head = text_columns(cells[0][j])
    if is_key:
        return min(max(body, head), KEEP_MIN)
    return max(body, min(head, max(body, HEADER_MIN)))


def _wrap_columns(line: str, target: int) -> list[str]:
    """``line`` wrapped into lines of at most ``target`` terminal columns
    (a Chinese character counts two)."""
    import textwrap
    for chars in range(max(target, 4), 3, -1):
        parts = textwrap.wrap(line, chars) or [""]
        if max(text_columns(p) for p in parts) <= target:
            return parts
    return parts


def _block_text(cells: list[list[str]], cols: list[int], keep: int, width: int,
                left: int = 0) -> str:
    """The columns ``cols`` of ``cells`` as text, wrapped to fit ``width``:
    headers longer than their cells first, then the row-name columns, then
    (last resort) the widest column; the first ``left`` columns
    left-aligned, the others right-aligned."""
    rows = [[[r[i]] for i in cols] for r in cells]          # each cell: its lines

    def col_width(j: int, first: int = 0) -> int:
        return max((text_columns(line) for r in rows[first:] for line in r[j]), default=0)

    def excess() -> int:
        return sum(col_width(j) for j in range(len(cols))) + 2 * (len(cols) - 1) - width

    def wrap(j: int, target: int, header_only: bool = False) -> None:
        for r in rows[:1] if header_only else rows:
            r[j] = [w for line in r[j] for w in _wrap_columns(line, target)]

    for j in range(len(cols)):
        if excess() > 0 and cols[j] >= keep and col_width(j) > col_width(j, 1):
            wrap(j, max(HEADER_MIN, col_width(j, 1), col_width(j) - excess()), True)
    for j in range(len(cols)):
        if excess() > 0 and cols[j] < keep:
            wrap(j, max(KEEP_MIN, col_width(j) - excess()))
    for _ in range(4 * len(cols)):
        over = excess()
        if over <= 0:
            break
        j = max(range(len(cols)), key=col_width)
        if col_width(j) - over < 8:
            break
        wrap(j, col_width(j) - over)
    widths = [col_width(j) for j in range(len(cols))]
    out = []
    for r in rows:
        for k in range(max(len(c) for c in r)):
            parts = [c[k] if k < len(c) else "" for c in r]
            out.append("  ".join(p + " " * (w - text_columns(p)) if j < left
                                 else " " * (w - text_columns(p)) + p
                                 for j, (p, w) in enumerate(zip(parts, widths, strict=True)))
                       .rstrip())
    return "\n".join(out)


def fill(text: str, width: int | None = None, indent: str = "") -> str:
    """Prose for the terminal: each line of ``text`` wrapped to ``width``
    columns (default ``TEXT_WIDTH``), continuation lines indented by
    ``indent`` plus the line's own leading spaces; long words (paths)
    are kept whole; a Chinese character counts two columns."""
    import textwrap
    width = TEXT_WIDTH if width is None else width
    out = []
    for line in text.split("\n"):
        if text_columns(line) <= width:                 # fits: kept as it is (aligned columns)
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip())]
        for chars in range(width, max(width // 2, 1) - 1, -1):
            wrapped = textwrap.fill(line, chars, subsequent_indent=lead + indent,
                                    break_long_words=False, break_on_hyphens=False) or line
            if all(text_columns(w) <= width for w in wrapped.split("\n")):
                break
        out.append(wrapped)
    return "\n".join(out)


def json_safe(x):
    """nan -> None (JSON null); anything else unchanged."""
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


def p_text(df: pl.DataFrame, col: str = "p_value") -> pl.DataFrame:
    """``col`` as text; a p-value below the smallest double shows as '< 1e-300'."""
    return df.with_columns(pl.col(col).map_elements(
        lambda p: "< 1e-300" if p == 0 else fmt(p), return_dtype=pl.String))


def interval_cell(est, lo, hi) -> str:
    """'estimate [low, high]' ('-' without an estimate)."""
    if est is None or (isinstance(est, float) and math.isnan(est)):
        return "-"
    return f"{fmt(float(est))} [{fmt(float(lo))}, {fmt(float(hi))}]"

"""report.html and compare.html: self-contained pages (no network), every
table present, every image a data URI that a real browser decodes.

The browser check renders the pages in headless Chromium (Debian's package,
installed by ``make browser`` / ``.ci/run`` where it is missing) with
``--dump-dom``: a small script appended to a copy of the page waits for the
load event and writes, into the DOM, how many tables it found and which
images did not decode (naturalWidth 0). Without a browser the test is
skipped and says why."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nbsim.analysis.compare import compare as CMP
from nbsim.analysis.report import report as R
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM

CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium",
                             shutil.which("chromium-browser"), shutil.which("google-chrome"))
                 if p and Path(p).exists()), None)
PROBE = """
<script>
window.addEventListener("load", () => {
  const imgs = Array.from(document.images);
  const broken = imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt);
  const out = document.createElement("pre");
  out.id = "nbsim-probe";
  out.textContent = "tables=" + document.querySelectorAll("table.nbsim-table").length +
    " images=" + imgs.length + " broken=" + broken.join(",");
  document.body.appendChild(out);
});
</script>
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    base = tmp_path_factory.mktemp("html")
    a, b, d = base / "a", base / "b", base / "d"
    SIM.simulate("ningbo-3baida", mode="game", deals=300, seed=5, out=a)
    SIM.simulate("ningbo-3baida", mode="game", deals=300, seed=5, out=b,
                 overrides=["win.min_tai=5"], policies=("value", "greedy", "greedy", "greedy"))
    SIM.simulate("ningbo-7baida", deals=3_000, seed=5, out=d)
    R.write_report(a)
    R.write_report(d)
    comp = CMP.compare([a, b], out=base / "cmp")
    return {"report": a / FILES.REPORT_HTML, "deal_report": d / FILES.REPORT_HTML,
            "compare": base / "cmp" / CMP.COMPARE_HTML, "comp": comp}


def _offline(html: str):
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "external resource"
    assert "<script" not in html.lower()            # nothing to run: plain HTML and CSS


def test_pages_are_self_contained(pages):
    for key in ("report", "deal_report", "compare"):
        html = pages[key].read_text(encoding="utf-8")
        _offline(html)
        imgs = re.findall(r'<img src="([^"]+)"', html)
        assert imgs and all(u.startswith("data:image/png;base64,") for u in imgs)
    rep = pages["report"].read_text(encoding="utf-8")
    for s in ("table-main", "table-tai_items", "table-by_seat", "seed", "5",
              "policies (seats E S W N)", "清一色", "full_flush", "config file as run",
              'min_tai = 4'):
        assert s in rep, s
    cmp = pages["compare"].read_text(encoding="utf-8")
    for s in ("table-headline", "table-seats", "table-diff", "paired",
              "ningbo-3baida (win.min_tai=5) [value,greedy,greedy,greedy]",
              "win.min_tai=5"):
        assert s in cmp, s


def test_pages_escape_text(pages, tmp_path):
    from nbsim.analysis import html as H
    page = H.render_page("<b>x</b>", facts=[("k", "<script>alert(1)</script>")])
    assert "<script>alert" not in page and "&lt;script&gt;" in page


needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium: install Debian's chromium package (make browser) to "
                             "render the HTML pages")


def browser_probe(html: str, tmp_path: Path) -> tuple[int, int, str]:
    """Render ``html`` in headless Chromium; (tables, images, names of the
    images that did not decode). Skips the test when Chromium cannot run."""
    probe = tmp_path / "page.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    profile = tmp_path / "profile"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
           "--dump-dom", probe.as_uri()]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"chromium could not be run: {e}")
    m = re.search(r'id="nbsim-probe">tables=(\d+) images=(\d+) broken=([^<]*)<', res.stdout)
    assert m, f"no probe output (exit {res.returncode}): {res.stderr[-2000:]}"
    return int(m[1]), int(m[2]), m[3]


@needs_browser
@pytest.mark.parametrize("key", ["report", "deal_report", "compare"])
def test_browser_renders_tables_and_images(pages, key, tmp_path):
    html = pages[key].read_text(encoding="utf-8")
    tables, images, broken = browser_probe(html, tmp_path)
    expected_tables = html.count('class="nbsim-table"')
    assert tables == expected_tables and tables >= 4
    assert images == html.count("<img ") and images >= 1
    assert broken == "", f"images that did not load: {broken}"

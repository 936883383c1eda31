#!/usr/bin/python3
"""`kex report` in a real browser: Debian's headless Chromium loads the page of two
results files (the fixture tests/data/report-run.json.gz, a short real run of the config
in tests/data/README.md, the golden run: so the comparison is there, and the kex explain
fixture tests/data/explain-run.json.gz: so the Why section is there) and
- logs no console message (the page runs no script; a blocked load would be a CSP error),
- has every section, and each in-page link (#id) names an id the page has, no id twice,
- renders every figure: in a screenshot each figure's area holds a drawing (enough
  non-white pixels and colours), at the place the page's own layout puts it.
Exit 77 (ctest's SKIP_RETURN_CODE) when chromium is not installed; make test installs it.
Needs the Debian python3 with python3-pil (both in the Makefile's DEBS).
Usage: test_report_browser.py SOURCE_DIR KEX_BINARY
"""
import gzip
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

root, kex = sys.argv[1], sys.argv[2]
chromium = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
if not chromium:
    print("SKIP: chromium is not installed (apt-get install chromium; make test installs it)")
    sys.exit(77)
from PIL import Image, ImageChops  # noqa: E402  (python3-pil)

WIDTH = 1200
# px: the tallest screenshot taken in one piece. Debian 12's headless Chromium draws the
# fixture's whole page (1200x18302, every figure inked) in one: 3 Chromium starts, not 6.
MAX_SHOT = 24000
SECTIONS = ["machine", "summary", "noise", "findings", "why", "figures", "presets", "segments", "comparison"]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def browse(page, work, *extra):
    """Chromium on file://page with `extra` switches: (stdout, stderr)."""
    profile = tempfile.mkdtemp(dir=work)
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
           "--force-device-scale-factor=1", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
           *extra, "file://" + page]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"chromium exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout, p.stderr


class Dom(html.parser.HTMLParser):
    """The ids, in-page links and sections of a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.sections = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "section":
            self.sections.append(a.get("id"))
        for key in ("href", "xlink:href"):
            if (a.get(key) or "").startswith("#"):
                self.links.append(a[key][1:])


# The in-page script of the layout copy: where each figure's drawing is, and the page's height.
MEASURE = """<pre id="kex-test-layout"></pre><script>
window.kexErrors = [];
window.addEventListener('error', e => window.kexErrors.push(String(e.message)));
const r = [...document.querySelectorAll('figure svg')].map(s => {
  const b = s.getBoundingClientRect();
  return {x: b.left + scrollX, y: b.top + scrollY, w: b.width, h: b.height,
          name: s.parentElement.querySelector('figcaption').textContent};
});
document.getElementById('kex-test-layout').textContent =
  JSON.stringify({figures: r, height: document.documentElement.scrollHeight, errors: window.kexErrors});
</script>"""


def drawn(img, f):
    """Whether the screenshot's area of figure `f` holds a drawing: non-white pixels and colours."""
    box = (int(f["x"]) + 2, int(f["y"]) + 2, int(f["x"] + f["w"]) - 2, int(f["y"] + f["h"]) - 2)
    area = img.crop(box).convert("RGB")
    # A pixel is ink when any channel is below 200: each band thresholded, then their maximum.
    dark = [band.point(lambda v: 255 if v < 200 else 0) for band in area.split()]
    ink = ImageChops.lighter(ImageChops.lighter(dark[0], dark[1]), dark[2]).histogram()[255]
    colours = len(area.getcolors(maxcolors=area.width * area.height) or [])
    return ink / max(1, area.width * area.height), colours


def measure(text, work, name):
    """The layout Chromium gives `text`: its figures' boxes and its height, from a copy
    with a measuring script (the page's own policy allows none: the copy drops it)."""
    copy = os.path.join(work, name + "-layout.html")
    if '<meta http-equiv="Content-Security-Policy"' in text:
        start = text.index('<meta http-equiv="Content-Security-Policy"')
        text = text[:start] + text[text.index(">", start) + 1:]
    open(copy, "w", encoding="utf-8").write(text.replace("</body>", MEASURE + "</body>"))
    dom_text, _ = browse(copy, work, "--dump-dom", f"--window-size={WIDTH},900")
    start = dom_text.index('id="kex-test-layout">') + len('id="kex-test-layout">')
    layout = json.loads(html.unescape(dom_text[start:dom_text.index("</pre>", start)]))
    check(not layout["errors"], f"script errors: {layout['errors']}")
    return layout


def check_drawn(text, work, name, layout):
    """A screenshot of `text` as written: each figure's area holds a drawing. Returns how many were checked."""
    page = os.path.join(work, name + ".html")
    open(page, "w", encoding="utf-8").write(text)
    shot = os.path.join(work, name + ".png")
    height = layout["height"]
    browse(page, work, f"--screenshot={shot}", f"--window-size={WIDTH},{height}")
    img = Image.open(shot)
    check(img.size == (WIDTH, height), f"{name}: screenshot {img.size}, asked {WIDTH}x{height}")
    for f in layout["figures"]:
        check(f["w"] >= 300 and f["h"] >= 150, f"figure {f['name']}: {f['w']:.0f}x{f['h']:.0f} px")
        ink, colours = drawn(img, f)
        check(ink > 0.01 and colours >= 4, f"figure {f['name']}: blank ({ink:.3%} ink, {colours} colours)")
    return len(layout["figures"])


def main():
    work = tempfile.mkdtemp(prefix="kex-browser-")
    page = os.path.join(work, "report.html")
    fixture = os.path.join(work, "report-run.json")
    with gzip.open(os.path.join(root, "tests", "data", "report-run.json.gz"), "rb") as z:
        open(fixture, "wb").write(z.read())
    golden = os.path.join(root, "tests", "golden", "run.json")
    explained = os.path.join(work, "explain-run.json")
    with gzip.open(os.path.join(root, "tests", "data", "explain-run.json.gz"), "rb") as z:
        open(explained, "wb").write(z.read())
    r = subprocess.run([kex, "report", fixture, golden, explained, "-o", page], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print(f"FAIL: kex report exited {r.returncode}: {r.stderr}")
        return 1
    text = open(page, encoding="utf-8").read()
    check("<script" not in text.lower(), "the page holds a script")

    # 1. The page as written: no console message, every section, links to ids that exist.
    dom_text, log = browse(page, work, "--dump-dom")
    console = [line for line in log.splitlines() if "CONSOLE" in line]
    check(not console, "console messages: " + "\n".join(console))
    dom = Dom()
    dom.feed(dom_text)
    for s in SECTIONS:
        check(s in dom.sections, f"section #{s} missing from the loaded page")
    dupes = sorted({i for i in dom.ids if dom.ids.count(i) > 1})
    check(not dupes, f"ids used twice: {dupes[:10]}")
    missing = sorted({link for link in dom.links if link not in dom.ids})
    check(not missing, f"in-page links to ids the page lacks: {missing[:10]}")
    check(len([link for link in dom.links if link in SECTIONS]) == len(SECTIONS), "the contents link every section")

    # 2. Every figure drawn: screenshots of the page, or of pages of its figures in turn when
    # the page is taller than one screenshot takes.
    layout = measure(text, work, "layout")
    figures = layout["figures"]
    check(len(figures) >= 4, f"{len(figures)} figures in the page")
    check(any(f["name"] == "why-1" for f in figures), "the Why section's figure why-1 is not in the page")
    if layout["height"] <= MAX_SHOT:
        checked = check_drawn(text, work, "page", layout)
    else:
        checked, chunk, tall = 0, [], 0
        blocks = re.findall(r"<figure>.*?</figure>", text, re.S)
        check(len(blocks) == len(figures), f"{len(blocks)} <figure> blocks, {len(figures)} figures laid out")
        head = text[:text.index("<body>") + len("<body>")]
        for i, (block, f) in enumerate(zip(blocks, figures)):
            if chunk and tall + f["h"] + 100 > MAX_SHOT * 0.8:
                part = head + "\n".join(chunk) + "\n</body>\n</html>\n"
                checked += check_drawn(part, work, f"part{i}", measure(part, work, f"part{i}"))
                chunk, tall = [], 0
            chunk.append(block)
            tall += f["h"] + 100
        part = head + "\n".join(chunk) + "\n</body>\n</html>\n"
        checked += check_drawn(part, work, "last", measure(part, work, "last"))
    check(checked == len(figures), f"{checked} of {len(figures)} figures checked in screenshots")
    print(f"{len(figures)} figures drawn, page {layout['height']} px, {len(dom.ids)} ids, "
          f"{len(dom.links)} in-page links")
    if fails:
        print("FAIL:\n" + "\n".join(fails))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


sys.exit(main())

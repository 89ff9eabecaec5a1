"""``minibatcher inspect --html``: the page renders in a real headless Chromium, and the
numbers it shows equal ``inspect --json``'s, for every format. Skipped, with the reason, where
no Chromium is installed (Debian: ``apt-get install chromium``; .ci/run installs it).

Artifacts: each case's page and Chromium's screenshot of it (``<case>.html``, ``<case>.png``)
are kept in ``$MINIBATCHER_TEST_ARTIFACTS/html_report/`` when that variable names a folder,
else in ``<pytest basetemp>/artifacts/html_report/`` (e.g.
``/tmp/pytest-of-$USER/pytest-current/artifacts/html_report/``, which pytest removes after three
more runs; ``--basetemp DIR`` moves it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minibatcher.cli import main
from minibatcher.tfds.testing import write_dataset

DATA = Path(__file__).resolve().parents[1] / "data"
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(b)), None)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no headless Chromium installed "
                                   "(apt-get install chromium)")
BAR_COLOR = (0x3B, 0x7D, 0xD8)


class Page(HTMLParser):
    """The charts (source, [(label, value)]), the figure cells and the problem count of a DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[tuple[str, list[tuple[str, int]]]] = []
        self.cells: dict[str, str] = {}
        self.problems: str | None = None
        self._cell: str | None = None
        self._in_count = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "figure" and "data-source" in a:
            self.charts.append((a["data-source"], []))
        elif tag == "g" and a.get("class") == "bar":
            self.charts[-1][1].append((a["data-label"], int(a["data-value"])))
        elif tag == "td" and "data-key" in a:
            self._cell = a["data-key"]
        elif a.get("id") == "problem-count":
            self._in_count = True

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self.cells[self._cell] = data
            self._cell = None
        elif self._in_count:
            self.problems, self._in_count = data, False


def expected(report: dict, source: str) -> list[tuple[str, int]]:
    """The (label, value) pairs at ``source`` of the JSON report, read independently."""
    if source == "histogram":
        return [(str(b["min"]) if b["min"] == b["max"] else f"{b['min']}-{b['max']}", b["count"])
                for b in report["histogram"]]
    if source.startswith("files[]."):
        key = source.split(".", 1)[1]
        return [(Path(f["file"]).name, f[key]) for f in report["files"]]
    if source.startswith("sections[]."):
        key = source.split(".", 1)[1]
        return [(sec["section"], sec[key]) for sec in report["sections"] if key in sec]
    if source.startswith("splits["):
        i, key = int(source[7:source.index("]")]), source.split(".", 1)[1]
        return [(str(k), v) for k, v in enumerate(report["splits"][i][key])]
    node: Any = report
    for part in source.split("."):
        node = node[part]
    return [(k, v) for k, v in node.items()]


def browse(page: Path, tmp: Path, screenshot: Path) -> str:
    """The DOM Chromium built for ``page``, and a screenshot of it (one browser run)."""
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", f"--user-data-dir={tmp / 'profile'}",
                           "--window-size=1200,2400", f"--screenshot={screenshot}", "--dump-dom",
                           page.as_uri()], check=True, capture_output=True, text=True, timeout=120)
    return done.stdout


def reports(tmp_path: Path, capsys: pytest.CaptureFixture, argv: list[str]) -> dict:
    page = tmp_path / "report.html"
    assert main(["inspect", *argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["inspect", *argv, "--html", str(page)]) == 0
    capsys.readouterr()
    return report


SUBSET = DATA / "an4" / "subset"
GOLDEN = DATA / "tfds_golden"
CASES = ["ctf", "tfds", "tfds-names", "mlf", "tfrecord", "scp", "htk", "text", "config"]


def cases(tmp_path: Path) -> dict[str, list[str]]:
    ctf = tmp_path / "labels.ctf"
    ctf.write_text("".join(f"{i} |x {i} {i % 3} |y {i % 4}:1\n" for i in range(40)) +
                   "40 |x 1 2 |y 9:1\n41 |x 1 2,5\n")  # a problem: the bad value
    tfds = write_dataset(tmp_path / "tfds", {"train": [5, 3, 4], "test": [2]})
    (tmp_path / "corpus.de").write_bytes("".join(f"{'ein ' * (i % 7)}Satz Nummer {i}\n"
                                                 for i in range(60)).encode() + b"kaputt \xff\n")
    (tmp_path / "r.cntk").write_text(
        f'Train = [ reader = [ readerType = "CNTKTextFormatReader"; file = "{ctf}"\n'
        '  maxErrors = 5; input = [ x = [ dim = 2; format = "dense" ] ] ] ]\n'
        f'Test = [ reader = [ readerType = "HTKMLFReader"; readMethod = "none"\n'
        f'  features = [ scpFile = "{SUBSET / "an4_subset.scp"}"; dim = 33 ]\n'
        f'  labels = [ mlfFile = "{SUBSET / "an4_subset.mlf"}"\n'
        f'    labelMappingFile = "{DATA / "an4/state.list"}"; labelDim = 132 ] ] ]\n')
    return {"ctf": [str(ctf)], "tfds": [str(tfds), "--verify"],
            "tfds-names": [str(GOLDEN / "htk/feats/1.0.0")],
            "mlf": [str(SUBSET / "an4_subset.mlf"), "--labels", str(DATA / "an4/state.list")],
            "tfrecord": [str(tfds / "toy-train.tfrecord-*")],
            "scp": [str(SUBSET / "an4_subset.scp"), "--base-dir", str(SUBSET)],
            "htk": [str(SUBSET / "an4_subset.htk")], "text": [str(tmp_path / "corpus.de")],
            "config": [str(tmp_path / "r.cntk"), "--base-dir", str(SUBSET)]}


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where pages and screenshots are kept (see the module)."""
    root = os.environ.get("MINIBATCHER_TEST_ARTIFACTS")
    folder = (Path(root) if root else tmp_path_factory.getbasetemp() / "artifacts") / "html_report"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def check_sources(case: str, report: dict, sources: set[str]) -> None:
    """The charts each format's page must have."""
    wanted = {"ctf": {"histogram", "labels.y"}, "tfds-names": {"labels.train.labels"},
              "mlf": {"histogram", "labels"}, "scp": {"histogram"}, "htk": set(),
              "text": {"histogram", "top_tokens"},
              "config": {"sections[].sequences", "sections[].samples"},
              "tfrecord": {"histogram", "files[].records", "files[].size"}}
    if case == "tfds":
        assert "labels.train.label" in sources and "splits[0].shard_lengths" in sources
    else:
        assert wanted[case] <= sources, sources
    if case == "ctf":
        assert report["problems"] == 2 and ":42:" in report["first_problems"][0]  # 2,5 and no y
    if case == "tfds-names":  # class names from labels.labels.txt, not indices
        assert report["labels"]["train"]["labels"] == {"sil": 3, "ah": 6, "eh": 5}
    if case == "text":
        assert report["problems"] == 1 and "0xff is not UTF-8" in report["first_problems"][0]
    if case == "config":
        assert [s["sequences"] for s in report["sections"]] == [42, 1918]  # frame mode: frames


@needs_browser
@pytest.mark.parametrize("case", CASES)
def test_the_page_shows_the_json_numbers_in_a_real_browser(case: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture,
                                                           artifacts: Path) -> None:
    report = reports(tmp_path, capsys, cases(tmp_path)[case])
    page, shot = artifacts / f"{case}.html", artifacts / f"{case}.png"
    shutil.copyfile(tmp_path / "report.html", page)
    dom = Page()
    dom.feed(browse(page, tmp_path, shot))
    for source, bars in dom.charts:
        assert bars == expected(report, source), source
    check_sources(case, report, {s for s, _ in dom.charts})
    assert dom.cells, "the browser's DOM has no figure"
    for key, text in dom.cells.items():
        assert text == str(report[key]), key
    assert dom.problems == str(report["problems"])
    from PIL import Image

    with Image.open(shot) as image:
        pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
    bars = int((pixels == BAR_COLOR).all(axis=1).sum())
    assert bars > 500 if dom.charts else bars == 0, f"{bars} bar pixels"


def test_the_page_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    reports(tmp_path, capsys, cases(tmp_path)["tfds"])
    text = (tmp_path / "report.html").read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in text and "<script src" not in text and "<link" not in text
    assert text.count("<svg") >= 3 and 'type="application/json"' in text

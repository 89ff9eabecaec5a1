"""``minibatcher inspect PATH --html FILE``: the report as one self-contained page.

The page has no script and loads nothing (inline CSS and SVG): a table of the
report's figures, bar charts of the length histograms, label distributions
(MLF labels, ClassLabel features by class name, CTF label streams), shard and
file sizes, the sequences of a config's reader sections, and the problems
found. Every chart is drawn from the same report ``inspect --json``
prints, and says where its numbers are in it (``data-source``), so that a test
can compare what a browser shows with the JSON.

Example:
    >>> page = render({"format": "text", "file": "c.txt", "lines": 2, "problems": 0,
    ...                "first_problems": [], "histogram": [{"min": 1, "max": 1, "count": 2}],
    ...                "top_tokens": {"a": 2}})
    >>> page.startswith("<!DOCTYPE html>"), page.count('class="bar"'), "<script src" in page
    (True, 2, False)
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Bars drawn per chart at most (the chart says how many there are).
MAX_BARS = 300
_ROW, _LABEL_W, _BAR_W = 18, 180, 420
_STYLE = """
body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}td,th{padding:2px 12px 2px 0;text-align:left;vertical-align:top}
.bar rect{fill:#3b7dd8}.bar text{font-size:12px}.note{color:#666;font-size:12px}
.problems li{font-family:monospace;font-size:12px}.error{color:#b00020;font-weight:bold}
"""


@dataclass(frozen=True)
class Chart:
    """One bar chart: ``title``, ``(label, count)`` items and ``source``, the
    place of the numbers in the report (``"labels.y"``, ``"histogram"``).

    Example:
        >>> Chart("t", [("a", 1)], "x").items
        [('a', 1)]
    """

    title: str
    items: list[tuple[str, int]]
    source: str


def _histogram(r: dict[str, Any], title: str) -> list[Chart]:
    items = [(str(b["min"]) if b["min"] == b["max"] else f"{b['min']}-{b['max']}", b["count"])
             for b in r.get("histogram") or []]
    return [Chart(title, items, "histogram")] if items else []


def _labels(counts: dict[str, Any], title: str, source: str) -> list[Chart]:
    return [Chart(title, [(str(k), int(v)) for k, v in counts.items()], source)] if counts else []


def _records_charts(r: dict[str, Any]) -> list[Chart]:
    names = [Path(f["file"]).name for f in r["files"]]
    return (_histogram(r, f"{r['histogram_of']} (histogram)")
            + [Chart("records per file", [(n, f["records"]) for n, f in zip(names, r["files"])],
                     "files[].records"),
               Chart("bytes per file", [(n, f["size"]) for n, f in zip(names, r["files"])],
                     "files[].size")])


def _tfds_charts(r: dict[str, Any]) -> list[Chart]:
    out = []
    for i, s in enumerate(r["splits"]):
        out.append(Chart(f"examples per shard ({s['name']})",
                         [(str(k), n) for k, n in enumerate(s["shard_lengths"])],
                         f"splits[{i}].shard_lengths"))
        if all(b is not None for b in s["shard_bytes"]):
            out.append(Chart(f"bytes per shard ({s['name']})",
                             [(str(k), n) for k, n in enumerate(s["shard_bytes"])],
                             f"splits[{i}].shard_bytes"))
    for split, features in r["labels"].items():
        for key, counts in features.items():
            out += _labels(counts, f"classes of {key} ({split})", f"labels.{split}.{key}")
    return out


def _config_charts(r: dict[str, Any]) -> list[Chart]:
    """Sequences and samples of every section that can be read."""
    readable = [s for s in r["sections"] if "sequences" in s]
    return [Chart(f"{key} per reader section", [(s["section"], s[key]) for s in readable],
                  f"sections[].{key}") for key in ("sequences", "samples") if readable]


def charts(r: dict[str, Any]) -> list[Chart]:
    """The charts of a report, by its format.

    Example:
        >>> [c.title for c in charts({"format": "mlf", "histogram": [], "labels": {"sil": 9}})]
        ['frames per label']
    """
    kind = r["format"]
    if kind == "ctf":
        return _histogram(r, "sequence lengths (rows)") + [
            c for name, counts in r["labels"].items()
            for c in _labels(counts, f"classes of label stream {name}", f"labels.{name}")]
    if kind == "scp":
        return _histogram(r, "utterance lengths (frames)")
    if kind == "mlf":
        return _histogram(r, "entry lengths (frames)") + _labels(
            r.get("labels") or {}, "frames per label", "labels")
    if kind == "tfrecord":
        return _records_charts(r)
    if kind == "tfds":
        return _tfds_charts(r)
    if kind == "text":
        return _histogram(r, "tokens per line") + _labels(r.get("top_tokens") or {},
                                                          "most frequent tokens", "top_tokens")
    if kind == "config":
        return _config_charts(r)
    return []  # an HTK file: its header is the table of figures


def svg(chart: Chart) -> str:
    """A horizontal bar chart as inline SVG (one ``<g class="bar">`` per item).

    Example:
        >>> 'data-value="3"' in svg(Chart("t", [("a", 3)], "x"))
        True
    """
    shown = chart.items[:MAX_BARS]
    top = max((v for _, v in shown), default=0) or 1
    rows = []
    for i, (label, value) in enumerate(shown):
        y, width = i * _ROW, max(1.0, _BAR_W * value / top)
        rows.append(
            f'<g class="bar" data-label="{html.escape(label)}" data-value="{value}">'
            f'<text x="{_LABEL_W - 6}" y="{y + 13}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{_LABEL_W}" y="{y + 2}" width="{width:.1f}" height="{_ROW - 4}"/>'
            f'<text x="{_LABEL_W + width + 6:.1f}" y="{y + 13}">{value}</text></g>')
    height = max(_ROW, len(shown) * _ROW)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_LABEL_W + _BAR_W + 120}" '
            f'height="{height}" role="img">{"".join(rows)}</svg>')


def _figure(chart: Chart) -> str:
    more = len(chart.items) - MAX_BARS
    note = (f'<p class="note">the first {MAX_BARS} of {len(chart.items)} bars</p>' if more > 0
            else "")
    return (f'<figure class="chart" data-source="{html.escape(chart.source)}" '
            f'data-items="{len(chart.items)}"><h2>{html.escape(chart.title)}</h2>'
            f"{svg(chart)}{note}</figure>")


def _figures_table(r: dict[str, Any]) -> str:
    rows = [f"<tr><th>{html.escape(k.replace('_', ' '))}</th><td data-key=\"{html.escape(k)}\">"
            f"{html.escape(str(v))}</td></tr>"
            for k, v in r.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
    return f'<table class="figures">{"".join(rows)}</table>'


def _problems(r: dict[str, Any]) -> str:
    count = r.get("problems") or 0
    items = "".join(f"<li>{html.escape(p)}</li>" for p in r.get("first_problems") or [])
    shown = len(r.get("first_problems") or [])
    more = f'<p class="note">the first {shown}; minibatcher validate lists every one</p>' \
        if count > shown else ""
    error = (f'<p class="error" id="error">{html.escape(r["error"])}</p>' if r.get("error")
             else "")
    return (f'<h2>problems: <span id="problem-count">{count}</span></h2>{error}'
            f'<ul class="problems">{items}</ul>{more}')


def render(r: dict[str, Any]) -> str:
    """The whole page of a report."""
    title = f"{r.get('file') or r.get('folder')}: {r['format']}"
    body = "".join(_figure(c) for c in charts(r))
    data = html.escape(json.dumps(r), quote=False)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>{_figures_table(r)}{body}{_problems(r)}"
            f'<script type="application/json" id="report">{data}</script></body></html>\n')


def write_report(r: dict[str, Any], path: Path) -> None:
    """Writes :func:`render`'s page to ``path``."""
    path.write_text(render(r), encoding="utf-8")


__all__ = ["Chart", "MAX_BARS", "charts", "render", "svg", "write_report"]

"""SVG plots of a results file: push throughput and latency against concurrency, and the fleet's
active parts over time. Standard library only."""

import math
import os

from .breakdown import breakdown_svg

SERIES = [("ours", "#1a73e8", "ours (adaptive group commit)", ""),
          ("bare", "#5f6368", "bare handler (204, no work)", ""),
          ("direct", "#12b5cb", "direct: one INSERT per message, no handler", ""),
          ("async", "#f29900", "async-insert peer (synchronous on this engine)", ""),
          ("naive", "#d93025", "naive: one INSERT per message", ""),
          ("ceiling", "#188038", "ClickHouse ceiling: one RowBinary INSERT", "")]
PALETTE = ["#9334e6", "#0b4ea2", "#f538a0", "#7cb342", "#795548", "#e8710a"]
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'


def _fmt(v):
    if v >= 1000:
        return "{:,.0f}".format(v)
    return "%g" % v


def _log_ticks(lo, hi):
    """1, 2, 5 times powers of ten between lo and hi (inclusive)."""
    ticks = []
    decade = 10 ** math.floor(math.log10(lo))
    while decade <= hi:
        for m in (1, 2, 5):
            v = m * decade
            if lo <= v <= hi:
                ticks.append(v)
        decade *= 10
    return ticks


class Panel:
    """One chart: a log-scale y axis, x either categorical or linear."""

    def __init__(self, left, top, width, height, title, y_label, x_label):
        self.left, self.top, self.width, self.height = left, top, width, height
        self.title, self.y_label, self.x_label = title, y_label, x_label
        self.parts = []

    def frame(self, lo, hi, x_ticks):
        """x_ticks: [(x pixel, label)]."""
        self.lo = 10 ** math.floor(math.log10(lo))
        self.hi = 10 ** math.ceil(math.log10(hi))
        if self.hi <= self.lo:
            self.hi = self.lo * 10
        p = self.parts
        p.append('<text x="%d" y="%d" font-size="16" font-weight="bold">%s</text>'
                 % (self.left, self.top - 28, self.title))
        p.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>'
                 % (self.left, self.top, self.width, self.height))
        for v in _log_ticks(self.lo, self.hi):
            y = self.y(v)
            major = abs(math.log10(v) - round(math.log10(v))) < 1e-9
            p.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>'
                     % (self.left, y, self.left + self.width, y, "#ddd" if major else "#f1f1f1"))
            p.append('<text x="%d" y="%.1f" text-anchor="end" font-size="13">%s</text>'
                     % (self.left - 6, y + 4, _fmt(v)))
        for x, label in x_ticks:
            p.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#f1f1f1"/>'
                     % (x, self.top, x, self.top + self.height))
            p.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="13">%s</text>'
                     % (x, self.top + self.height + 18, label))
        p.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="14">%s</text>'
                 % (self.left + self.width / 2, self.top + self.height + 40, self.x_label))
        p.append('<text transform="translate(%d,%.1f) rotate(-90)" text-anchor="middle"'
                 ' font-size="14">%s</text>' % (self.left - 62, self.top + self.height / 2,
                                                 self.y_label))

    def y(self, v):
        v = min(max(v, self.lo), self.hi)
        span = math.log10(self.hi) - math.log10(self.lo)
        return self.top + self.height - self.height * (math.log10(v) - math.log10(self.lo)) / span

    def line(self, points, colour, dash="", width=2.5, dots=True):
        if not points:
            return
        self.parts.append('<polyline fill="none" stroke="%s" stroke-width="%s"'
                          ' stroke-dasharray="%s" points="%s"/>' % (
                              colour, width, dash or "none",
                              " ".join("%.1f,%.1f" % (x, self.y(v)) for x, v in points)))
        if dots:
            for x, v in points:
                self.parts.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>'
                                  % (x, self.y(v), colour))


def _legend(entries, left, top, width):
    out = []
    x, y = left, top
    for colour, label, dash in entries:
        w = 34 + 7.2 * len(label)
        if x + w > left + width:
            x, y = left, y + 22
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"'
                   ' stroke-dasharray="%s"/>' % (x, y, x + 24, y, colour, dash or "none"))
        out.append('<text x="%d" y="%d" font-size="13">%s</text>' % (x + 30, y + 5, label))
        x += w
    return out, y


def _svg(width, height, body, footer):
    return "\n".join(['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" %s>'
                      % (width, height, FONT), '<rect width="100%" height="100%" fill="white"/>']
                     + body + ['<text x="20" y="%d" fill="#555" font-size="12">%s</text>'
                               % (height - 10, footer), "</svg>"]) + "\n"


def _series(results):
    series = list(SERIES)
    for i, v in enumerate(results["push"].get("variants", [])):
        series.append((v["name"], PALETTE[i % len(PALETTE)], "variant " + v["name"], "6,4"))
    return series


def _footer(results):
    return "One run of scripts/bench, %s; %s" % (results["date"], results["machine"]["cpu"])


def throughput_svg(results):
    rows = results["push"]["rows"]
    levels = results["args"]["concurrency"]
    panel = Panel(100, 60, 760, 420, "Messages per second", "messages/s (log scale)",
                  "concurrent push requests (wrk connections)")
    xs = {c: panel.left + 30 + (panel.width - 60) * i / max(len(levels) - 1, 1)
          for i, c in enumerate(levels)}
    values = [r["msgs_per_s"] for r in rows if r.get("msgs_per_s")]
    panel.frame(min(values), max(values), [(xs[c], str(c)) for c in levels])
    entries = []
    for target, colour, label, dash in _series(results):
        points = [(xs[r["concurrency"]], r["msgs_per_s"]) for r in rows
                  if r["target"] == target and r.get("msgs_per_s") and r["concurrency"] in xs]
        if points:
            panel.line(points, colour, dash)
            entries.append((colour, label, dash))
    legend, bottom = _legend(entries, 100, 545, 760)
    return _svg(900, bottom + 40, panel.parts + legend, _footer(results))


def latency_svg(results):
    rows = results["push"]["rows"]
    levels = results["args"]["concurrency"]
    panel = Panel(100, 60, 760, 420, "Latency: p50 (solid) and p99 (dashed)",
                  "milliseconds (log scale)", "concurrent push requests (wrk connections)")
    xs = {c: panel.left + 30 + (panel.width - 60) * i / max(len(levels) - 1, 1)
          for i, c in enumerate(levels)}
    values = [r[k] for r in rows for k in ("p50_ms", "p99_ms") if r.get(k)]
    panel.frame(min(values), max(values), [(xs[c], str(c)) for c in levels])
    entries = []
    for target, colour, label, dash in _series(results):
        if target == "ceiling":
            continue
        mine = [r for r in rows if r["target"] == target and r["concurrency"] in xs]
        if not mine:
            continue
        panel.line([(xs[r["concurrency"]], r["p50_ms"]) for r in mine], colour, dash)
        panel.line([(xs[r["concurrency"]], r["p99_ms"]) for r in mine], colour, "3,4", 1.5,
                   dots=False)
        entries.append((colour, label, dash))
    legend, bottom = _legend(entries, 100, 545, 760)
    return _svg(900, bottom + 40, panel.parts + legend, _footer(results))


def fleet_svg(results):
    fleet = results["fleet"]
    runs = fleet["rows"]
    duration = max((s[0] for r in runs for s in r["parts_series"]), default=1)
    panel = Panel(100, 60, 760, 420, "Fleet: active parts in the table over time",
                  "active parts (log scale)", "seconds into the measured run")
    values = [max(s[1], 1) for r in runs for s in r["parts_series"]]
    if not values:
        return None
    ticks = [(panel.left + panel.width * t / duration, str(t))
             for t in range(0, int(duration) + 1, max(1, int(duration) // 10 or 1))]
    limit = max(r["parts_to_delay_insert"] for r in runs)
    panel.frame(1, max(max(values), limit), ticks)
    y = panel.y(limit)
    panel.parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d93025"'
                       ' stroke-dasharray="2,3"/>' % (panel.left, y, panel.left + panel.width, y))
    panel.parts.append('<text x="%d" y="%.1f" font-size="12" fill="#d93025">parts_to_delay_insert'
                       ' = %d</text>' % (panel.left + 6, y - 5, limit))
    colours = {"flow": ["#1a73e8", "#0b4ea2", "#062c5c"], "off": ["#f28b82", "#d93025", "#8c1d18"],
               "async": ["#f29900"]}
    entries = []
    for r in runs:
        sizes = sorted({x["instances"] for x in runs if x["mode"] == r["mode"]})
        colour = colours.get(r["mode"], PALETTE)[sizes.index(r["instances"]) % 3]
        points = [(panel.left + panel.width * s[0] / duration, max(s[1], 1))
                  for s in r["parts_series"]]
        panel.line(points, colour, "", 2, dots=False)
        label = {"flow": "flow control", "off": "no flow control",
                 "async": "async inserts"}.get(r["mode"], r["mode"])
        entries.append((colour, "%d instance%s, %s" % (r["instances"],
                                                       "" if r["instances"] == 1 else "s", label),
                        ""))
    legend, bottom = _legend(entries, 100, 545, 760)
    return _svg(900, bottom + 40, panel.parts + legend, _footer(results))


def write_plots(results, directory):
    """Writes the plots this results file has data for; returns their paths."""
    written = []
    for name, make, needs in [("push-throughput.svg", throughput_svg, "push"),
                              ("push-latency.svg", latency_svg, "push"),
                              ("push-breakdown.svg",
                               lambda r: breakdown_svg(r, _footer(r)), "push"),
                              ("fleet-parts.svg", fleet_svg, "fleet")]:
        if results.get(needs):
            svg = make(results)
            if svg:
                path = os.path.join(directory, name)
                with open(path, "w") as f:
                    f.write(svg)
                written.append(path)
    return written

#!/usr/bin/env python3
"""Log-log SVG of bench/scale.sh's table: sim wall against ranks, with p log p and p^2 drawn through
the first point (what "grows no faster than p log p" is read against).
usage: scale_plot.py TABLE.md OUT.svg"""
import math
import re
import sys

rows = []
for line in open(sys.argv[1]):
    m = re.match(r"\|\s*(\d+)\s*\|\s*([0-9.]+) s\s*\|", line)
    if m:
        rows.append((int(m.group(1)), float(m.group(2))))
if len(rows) < 2:
    sys.exit("scale_plot.py: fewer than two rows in " + sys.argv[1])
W, H, L, R, T, B = 560, 360, 70, 20, 30, 50
p0, w0 = rows[0]
xs = [p for p, _ in rows]
lo_x, hi_x = math.log(min(xs)), math.log(max(xs))
curves = {
    "measured": [(p, w) for p, w in rows],
    "p log p": [(p, w0 * p * math.log(p) / (p0 * math.log(p0))) for p in xs],
    "p^2": [(p, w0 * (p / p0) ** 2) for p in xs],
}
ys = [w for c in curves.values() for _, w in c]
lo_y, hi_y = math.log(min(ys)) - 0.2, math.log(max(ys)) + 0.2
def X(p): return L + (math.log(p) - lo_x) / (hi_x - lo_x) * (W - L - R)
def Y(w): return H - B - (math.log(w) - lo_y) / (hi_y - lo_y) * (H - T - B)
style = {"measured": 'stroke="#1f5fa8" stroke-width="2.5"', "p log p": 'stroke="#444" stroke-dasharray="6 4"',
         "p^2": 'stroke="#b33" stroke-dasharray="2 4"'}
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{W / 2}" y="18" text-anchor="middle">1 GiB ring all-reduce: sim wall (s, log) against ranks (log)</text>',
       f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
       f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>']
for p in xs:
    out.append(f'<text x="{X(p):.1f}" y="{H - B + 18}" text-anchor="middle">{p}</text>')
k = math.floor(lo_y / math.log(10))
while k * math.log(10) <= hi_y:
    for m in (1, 3):
        v = m * 10.0 ** k
        if lo_y <= math.log(v) <= hi_y:
            out.append(f'<text x="{L - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
            out.append(f'<line x1="{L}" y1="{Y(v):.1f}" x2="{W - R}" y2="{Y(v):.1f}" stroke="#ddd"/>')
    k += 1
for i, (name, pts) in enumerate(curves.items()):
    path = " ".join(f"{X(p):.1f},{Y(w):.1f}" for p, w in pts)
    out.append(f'<polyline points="{path}" fill="none" {style[name]}/>')
    if name == "measured":
        out += [f'<circle cx="{X(p):.1f}" cy="{Y(w):.1f}" r="3.5" fill="#1f5fa8"/>' for p, w in pts]
    out.append(f'<line x1="{L + 15}" y1="{T + 12 + 16 * i}" x2="{L + 45}" y2="{T + 12 + 16 * i}" {style[name]}/>')
    out.append(f'<text x="{L + 52}" y="{T + 16 + 16 * i}">{name}</text>')
out.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">ranks (one per node, one switch)</text>')
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")

"""Shrinks a scenario while one invariant's violation persists: drops keys and list elements,
lowers counts, turns GPU objects into a preset, one candidate at a time (greedy, to a fixpoint or
a budget of runs). A candidate the loader refuses simply does not reproduce the violation."""

import copy
import re

from .runner import check

# Keys the loader requires (docs/scenario-format.md): dropping them only draws a refusal.
REQUIRED = {("trainvp",), ("cluster",), ("cluster", "node"), ("cluster", "node", "gpu")}


def paths(node, path=()):
    """Every (path, value) below node, parents before children."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path + (k,), v
            yield from paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield path + (i,), v
            yield from paths(v, path + (i,))


def get(node, path):
    for p in path:
        node = node[p]
    return node


def candidates(sc):
    # Whole sections first, then deeper keys: a smaller scenario sooner.
    items = sorted(paths(sc), key=lambda pv: len(pv[0]))
    for path, value in items:
        parent = get(sc, path[:-1])
        if path in REQUIRED or path[-1] in ("name", "trainvp"):
            continue
        if isinstance(parent, dict):
            c = copy.deepcopy(sc)
            del get(c, path[:-1])[path[-1]]
            yield f"drop {'/'.join(map(str, path))}", c
        elif isinstance(parent, list) and len(parent) > 1:
            c = copy.deepcopy(sc)
            del get(c, path[:-1])[path[-1]]
            yield f"drop {'/'.join(map(str, path))}", c
    for path, value in items:
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and value > 1:
            for smaller in sorted({1, value // 2, value - 1}):
                if smaller < value:
                    c = copy.deepcopy(sc)
                    get(c, path[:-1])[path[-1]] = smaller
                    yield f"{'/'.join(map(str, path))} = {smaller}", c
        if path[-1] == "gpu" and isinstance(value, dict):
            c = copy.deepcopy(sc)
            get(c, path[:-1])[path[-1]] = value.get("preset", "H100-SXM5-80GB")
            yield f"{'/'.join(map(str, path))} = preset", c


def size(sc):
    return sum(1 for _ in paths(sc))


def signature(v):
    """What must persist while shrinking: the invariant and the words of its message (numbers and
    names of devices change as the scenario shrinks; a different failure must not take over)."""
    words = re.sub(r"[-+]?[0-9][0-9.e+-]*", "#", v.message)
    return v.invariant, words[:48]


def shrink(tv, sc, invariant, work, budget=300, log=None, like=None):
    """The smallest scenario found that still violates `invariant` (with a message like `like`'s,
    a Violation, when given), and the runs it took."""
    best = copy.deepcopy(sc)
    runs = 0
    improved = True
    while improved and runs < budget:
        improved = False
        for what, cand in candidates(best):
            if runs >= budget:
                break
            runs += 1
            r = check(tv, cand, work, only=invariant)
            if any(v.invariant == invariant and (like is None or signature(v) == signature(like)) for v in r.violations):
                if log:
                    log(f"  shrink: {what} ({size(cand)} values)")
                best = cand
                improved = True
                break
    return best, runs

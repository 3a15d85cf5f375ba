#!/usr/bin/env python3
"""pv_check.py - check, in the UCI traffic of a match, that every `bestmove`
agrees with the last PV the engine printed, as tournament managers check
("Bestmove does not match beginning of last PV").

Reads the python-chess debug logs that ``../shared/tools/match.py --log FILE``
and ``tests/tools/clock_match.py --log FILE`` write (lines holding
``<UciProtocol (pid=N)>: >> TEXT``, or another protocol class, for what an
engine printed and ``<<`` for what it was sent). For each engine process
and each search, from ``go`` to its ``bestmove``, the last ``info`` line
with a ``pv`` (the ``multipv 1`` line, or one without ``multipv``) must
begin with the best move, and the ``ponder`` move must be its second move
(no ``ponder`` when the line has one move). A search that answers a move without any PV line counts as a
mismatch too; ``bestmove 0000`` and ``(none)`` are not checked. Searches
ended by ``stop`` (a missed ponder) are checked like the others.

    tests/tools/pv_check.py match.log [more.log ...] [--examples N]

Prints the counts by kind and up to N examples (default 5); exit status 0
when there is no mismatch, 1 when there is one, 2 for unreadable input.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field

# python-chess names the protocol object: UciProtocol, or a subclass
# (clock_match.py's StampedUci).
LINE = re.compile(r"<\w+ \(pid=(\d+)\)>: (<<|>>) (.*)$")

NO_PV = "no pv line"
BEST = "bestmove is not the pv's first move"
PONDER = "ponder is not the pv's second move"


@dataclass
class Search:
    """What one engine process has done since its last `go`."""

    commands: list[str] = field(default_factory=list)
    last_pv: list[str] | None = None
    last_line: str = ""


def last_pv_of(text: str) -> list[str] | None:
    """The PV of an info line that counts as the first line, else None."""
    tokens = text.split()
    if not tokens or tokens[0] != "info" or "string" in tokens[:2] or "pv" not in tokens:
        return None
    if "multipv" in tokens:
        i = tokens.index("multipv")
        if i + 1 >= len(tokens) or tokens[i + 1] != "1":
            return None
    return tokens[tokens.index("pv") + 1:]


def verdict(pv: list[str] | None, best: str, ponder: str | None) -> str | None:
    if pv is None:
        return NO_PV
    if not pv or pv[0] != best:
        return BEST
    second = pv[1] if len(pv) > 1 else None
    if second != ponder:
        return PONDER
    return None


def check(paths: list[str], examples: int) -> int:
    searches = 0
    ponder_searches = 0
    bad: Counter[str] = Counter()
    shown: list[str] = []
    for path in paths:
        running: dict[str, Search] = {}
        try:
            f = open(path, encoding="utf-8", errors="replace")
        except OSError as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
        with f:
            for raw in f:
                m = LINE.search(raw.rstrip("\n"))
                if not m:
                    continue
                pid, direction, text = m.group(1), m.group(2), m.group(3).strip()
                if direction == "<<":
                    if text.startswith("go"):
                        running[pid] = Search(commands=[text])
                    elif pid in running and text in ("stop", "ponderhit"):
                        running[pid].commands.append(text)
                    continue
                search = running.get(pid)
                if search is None:
                    continue
                pv = last_pv_of(text)
                if pv is not None:
                    search.last_pv, search.last_line = pv, text
                    continue
                if not text.startswith("bestmove"):
                    continue
                del running[pid]
                tokens = text.split()
                best = tokens[1] if len(tokens) > 1 else ""
                if best in ("0000", "(none)", ""):
                    continue
                ponder = tokens[3] if len(tokens) > 3 and tokens[2] == "ponder" else None
                searches += 1
                ponder_searches += any(c.startswith("go ponder") for c in search.commands)
                what = verdict(search.last_pv, best, ponder)
                if what is None:
                    continue
                bad[what] += 1
                if len(shown) < examples:
                    shown.append(
                        f"-- {path} pid {pid}: {what}\n   {' / '.join(search.commands)}\n"
                        f"   last pv line: {search.last_line or '(none)'}\n   {text}"
                    )
    total = sum(bad.values())
    print(f"{searches} searches ({ponder_searches} ponder searches) checked: {total} mismatches")
    for what in (NO_PV, BEST, PONDER):
        print(f"  {what}: {bad[what]}")
    for s in shown:
        print(s)
    return 1 if total else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", metavar="LOG", help="python-chess debug log of a match")
    ap.add_argument("--examples", type=int, default=5, metavar="N", help="mismatches to show (default 5)")
    args = ap.parse_args()
    return check(args.logs, args.examples)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `| head`: end quietly, as other tools do
        sys.stderr.close()
        sys.exit(0)

#!/usr/bin/env python3
"""elo_calibrate.py - calibrate Forsyth's UCI_Elo against Stockfish's (issue 31).

For each level L (default 1400 1800 2200 2400 2600), plays ``--games`` games (default
100) of Forsyth with ``UCI_LimitStrength=true UCI_Elo=L`` against Stockfish
(default ``/usr/games/stockfish``, 15.1) with the same two options, with
``../shared/tools/match.py``: 10 s + 0.1 s, Threads 1, Hash 16, OwnBook
false, the openings of ``8moves_v3.epd`` (each played twice, colours
reversed). Then prints one table row per level: the setting, games,
W/D/L, Forsyth's score, the Elo difference with its 95% error (match.py's
pentanomial figure), whether the score is within 40-60%, and the games
lost by a forfeit, an illegal move or a crash (by either side; a
calibration counts only without any).

    python3 tests/tools/elo_calibrate.py [--levels 1400 1800 2200 2400 2600]
        [--games 100] [--tc 10+0.1] [--concurrency 1] [--engine PATH]
        [--stockfish PATH] [--openings FILE] [--random-seed N] [--out DIR]

Each level's PGN and match.py's JSON summary are written to ``--out``
(default ``target/elo-calibration``), replacing those of an earlier run.
Exit status:
0 when every level was played and within 40-60% without faults, 1 when not,
2 when a match could not be run.

This needs python-chess (``pip install chess``), which match.py needs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# ../shared, beside the checkout.
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
MATCH = os.path.join(SHARED, "tools", "match.py")
OPENINGS = os.path.join(SHARED, "data", "openings", "8moves_v3.epd")

LOW, HIGH = 0.40, 0.60


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Calibrate UCI_Elo against Stockfish's, by games.")
    p.add_argument("--levels", type=int, nargs="+", default=[1400, 1800, 2200, 2400, 2600],
                   help="UCI_Elo settings to play (default 1400 1800 2200 2400 2600)")
    p.add_argument("--games", type=int, default=100, help="games per level (default 100)")
    p.add_argument("--tc", default="10+0.1", help="time control BASE+INC in seconds (default 10+0.1)")
    p.add_argument("--concurrency", type=int, default=1, help="games at a time (default 1)")
    p.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "forsyth"),
                   help="the Forsyth binary (default target/release/forsyth)")
    p.add_argument("--stockfish", default="/usr/games/stockfish",
                   help="the Stockfish binary (default /usr/games/stockfish)")
    p.add_argument("--openings", default=OPENINGS, help="openings (default 8moves_v3.epd)")
    p.add_argument("--random-seed", type=int, default=None,
                   help="shuffle the openings with this seed (default: file order)")
    p.add_argument("--match", default=MATCH, help="match.py (default ../shared/tools/match.py)")
    p.add_argument("--out", default=os.path.join(ROOT, "target", "elo-calibration"),
                   help="folder for the PGN and JSON of each level")
    args = p.parse_args(argv)
    if args.games < 2 or args.games % 2:
        p.error("--games must be even and at least 2 (games are played in pairs)")
    for level in args.levels:
        if not 1350 <= level <= 2850:
            p.error(f"level {level}: Stockfish's UCI_Elo goes from 1350 to 2850")
    return args


def match_command(args: argparse.Namespace, level: int, pgn: str, summary: str) -> list[str]:
    cmd = [sys.executable, args.match,
           "--engine", f"forsyth={args.engine}",
           "--engine", f"stockfish={args.stockfish}",
           "--tc", args.tc, "--games", str(args.games),
           "--concurrency", str(args.concurrency),
           "--openings", args.openings,
           "--pgn", pgn, "--json", summary]
    # '*': set where the engine has it (Stockfish has no OwnBook).
    for opt in ("Threads=1", "Hash=16", "OwnBook=false"):
        cmd += ["--option", f"*:{opt}"]
    # Named for each engine, so that a missing option is an error.
    for name in ("forsyth", "stockfish"):
        cmd += ["--option", f"{name}:UCI_LimitStrength=true", "--option", f"{name}:UCI_Elo={level}"]
    if args.random_seed is not None:
        cmd += ["--random-seed", str(args.random_seed)]
    return cmd


def play_level(args: argparse.Namespace, level: int) -> dict:
    os.makedirs(args.out, exist_ok=True)
    pgn = os.path.join(args.out, f"elo-{level}.pgn")
    summary = os.path.join(args.out, f"elo-{level}.json")
    for old in (pgn, summary):
        if os.path.exists(old):
            os.remove(old)
    cmd = match_command(args, level, pgn, summary)
    print(f"UCI_Elo {level}: {' '.join(cmd)}", flush=True)
    rc = subprocess.call(cmd)
    if rc != 0 or not os.path.exists(summary):
        sys.exit(f"match.py failed at UCI_Elo {level} (exit status {rc})")
    with open(summary, encoding="utf-8") as f:
        return json.load(f)


def faults(data: dict) -> int:
    return sum(sum(kinds.values()) for kinds in data.get("faults", {}).values())


def row(level: int, data: dict) -> tuple[list[str], bool]:
    score = data["score"]
    within = LOW <= score <= HIGH
    bad = faults(data)
    elo = data.get("elo")
    error = data.get("elo_error95")
    elo_text = "n/a" if elo is None else f"{elo + 0.0:+.0f}"
    # match.py writes an unbounded error (a score of 0 or 1) as null.
    error_text = " ± inf" if error is None else f" ± {error:.0f}"
    ok = within and bad == 0 and data["games"] > 0
    return ([str(level), str(data["games"]),
             f"{data['wins']}/{data['draws']}/{data['losses']}",
             f"{100 * score:.1f}%", elo_text + error_text,
             "yes" if within else "no", str(bad)], ok)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for path, what in ((args.engine, "Forsyth"), (args.stockfish, "Stockfish"), (args.match, "match.py"),
                       (args.openings, "the openings")):
        if not os.path.exists(path):
            print(f"error: {what} not found at {path}", file=sys.stderr)
            return 2
    rows = []
    all_ok = True
    for level in args.levels:
        cells, ok = row(level, play_level(args, level))
        rows.append(cells)
        all_ok &= ok
    head = ["UCI_Elo", "games", "W/D/L (Forsyth)", "score", "Elo diff (95%)", "40-60%", "faults"]
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    print()
    print(f"Forsyth vs Stockfish, both at UCI_Elo L, {args.tc}, Threads 1, Hash 16:")
    rule = ["-" * w for w in widths]
    for r in [head, rule] + rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())

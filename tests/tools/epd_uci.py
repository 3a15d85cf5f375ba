#!/usr/bin/env python3
"""Runs an EPD test suite through any UCI engine, the same way for every
engine, so that engines can be compared like for like.

Each position starts a new game (`ucinewgame`), the engine searches with
`go movetime MS`, and the position counts as solved when the move it plays
is one of the `bm` moves (if any) and none of the `am` moves.

    tests/tools/epd_uci.py ENGINE SUITE.epd --movetime 100 [--threads 1]
        [--hash 16] [--json FILE]

Prints one line per position and a summary (`solved k/n`) on stdout.
Needs python-chess.
"""

import argparse
import json
import sys
import time

import chess
import chess.engine


def read_suite(path):
    """(line number, board, operations) for each EPD record; malformed
    lines are reported on stderr and skipped."""
    records = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                board, ops = chess.Board.from_epd(text)
            except ValueError as e:
                print(f"{path}:{number}: {e}", file=sys.stderr)
                continue
            records.append((number, board, ops))
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine")
    parser.add_argument("suite")
    parser.add_argument("--movetime", type=int, required=True, help="milliseconds per position")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()

    records = read_suite(args.suite)
    engine = chess.engine.SimpleEngine.popen_uci(args.engine)
    name = engine.id.get("name", args.engine)
    engine.configure({"Threads": args.threads, "Hash": args.hash})
    results = []
    start = time.monotonic()
    try:
        for k, (number, board, ops) in enumerate(records, 1):
            bm = ops.get("bm", [])
            am = ops.get("am", [])
            ident = ops.get("id", f"line {number}")
            played = engine.play(
                board, chess.engine.Limit(time=args.movetime / 1000), game=object()
            ).move
            solved = played is not None and (not bm or played in bm) and played not in am
            san = board.san(played) if played else "(none)"
            expected = "; ".join(
                f"{name_} {' '.join(board.san(m) for m in moves)}"
                for name_, moves in (("bm", bm), ("am", am))
                if moves
            )
            print(f"{k:4}/{len(records)} {ident:12} {'ok  ' if solved else 'FAIL'} {san:8} ({expected})", flush=True)
            results.append({"line": number, "id": ident, "played": san, "solved": solved})
    finally:
        engine.quit()

    solved = [r for r in results if r["solved"]]
    failed = [r["id"] for r in results if not r["solved"]]
    print(f"engine: {name}")
    print(f"suite: {args.suite}, movetime {args.movetime} ms, Threads {args.threads}, Hash {args.hash}")
    print(f"solved {len(solved)}/{len(results)} in {time.monotonic() - start:.0f} s")
    print(f"failed: {' '.join(failed) if failed else '(none)'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "engine": name,
                    "suite": args.suite,
                    "movetime_ms": args.movetime,
                    "solved": len(solved),
                    "total": len(results),
                    "failed": failed,
                    "positions": results,
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()

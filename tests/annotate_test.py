#!/usr/bin/env python3
"""`forsyth annotate` read back by python-chess, as other tools will read it.

Usage: python3 tests/annotate_test.py [path/to/forsyth]   (default target/release/forsyth)

Annotates a file of games (comments, NAGs, nested variations, a game from a
FEN with Black to move, Chess960 with Shredder-FEN castling, a missed mate)
and checks with chess.pgn.read_game that each game comes back with no
parse error, the same tags plus [Annotator], the same main line, every
input comment, NAG and variation still there, an evaluation readable by
node.eval() after every move, the same evaluations as --json gives, and the
mate line on the blunder. Exits non-zero on the first failure.
"""

import io
import json
import os
import subprocess
import sys
import tempfile

import chess
import chess.engine
import chess.pgn

GAMES = """\
[Event "Variations"]
[Site "?"]
[White "A"]
[Black "B"]
[Result "1-0"]

{ A start comment. } 1. e4 $1 { King's pawn } (1. d4 d5 (1... Nf6 2. c4 e6) 2. c4)
1... e5 2. Nf3 Nc6 $6 3. Bb5 { The Spanish } a6 (3... Nf6 4. O-O) 4. Ba4 Nf6 1-0

[Event "Black to move"]
[SetUp "1"]
[FEN "4k3/8/4K3/4P3/8/8/8/8 b - - 3 41"]
[Result "1/2-1/2"]

41... Kd8 42. Kd6 Ke8 43. e6 Kd8 44. e7+ Ke8 45. Ke6 1/2-1/2

[Event "Chess960"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1"]
[Result "*"]

1. c4 c5 2. Bc2 Bc7 3. O-O-O O-O-O 4. Nb3 Nb6 *

[Event "Missed mate in 2"]
[SetUp "1"]
[FEN "2r3k1/5ppp/8/8/8/1q6/3R1PPP/3R2K1 w - - 0 1"]
[Result "*"]

1. h3 h6 2. Kh2 *
"""


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}")


def run(binary, path, *args):
    cmd = [binary, "annotate", path, "--depth", "5", "--threads", "1", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def games_of(text):
    stream = io.StringIO(text)
    games = []
    while (g := chess.pgn.read_game(stream)) is not None:
        games.append(g)
    return games


def lines(node):
    """Every line of the tree below `node`, as tuples of UCI moves."""
    out = set()

    def walk(n, prefix):
        if not n.variations:
            out.add(prefix)
        for v in n.variations:
            walk(v, prefix + (v.move.uci(),))

    walk(node, ())
    return out


def flat(text):
    return " ".join(text.split())


def check_game(i, before, after, record):
    name = before.headers.get("Event")
    check(not after.errors, f"{name}: read back without errors")
    for k, v in before.headers.items():
        if k == "Result" and k not in after.headers:
            continue
        check(after.headers.get(k) == v, f"{name}: tag {k} kept")
    check(after.headers.get("Annotator", "").startswith("Forsyth "), f"{name}: [Annotator]")
    check(
        [m.uci() for m in before.mainline_moves()] == [m.uci() for m in after.mainline_moves()],
        f"{name}: the same main line",
    )
    check(lines(before) <= lines(after), f"{name}: every variation kept")
    check(flat(before.comment) in flat(after.comment), f"{name}: the game comment kept")
    plies = record["plies"]
    check(len(plies) == len(list(after.mainline())), f"{name}: one JSON ply a move")
    for node, old, ply in zip(after.mainline(), before.mainline(), plies):
        check(flat(old.comment) in flat(node.comment), f"{name}: comment of {node.san()} kept")
        check(old.nags <= node.nags, f"{name}: NAGs of {node.san()} kept")
        score = node.eval()
        check(score is not None, f"{name}: {node.san()} has an evaluation")
        white = score.white()
        want = ply["eval_after"]
        if "mate" in want:
            # python-chess reads a mate given as mated for the side to move.
            if want["mate"] == 0:
                check(white.is_mate() and white.mate() == 0, f"{name}: {node.san()} mates")
            else:
                check(white.mate() == want["mate"], f"{name}: {node.san()} mate as in JSON")
        else:
            check(white.score() == want["cp"], f"{name}: {node.san()} {white} as in JSON")
        check(ply["san"] == node.san(), f"{name}: JSON san {ply['san']}")
        check(ply["uci"] == node.move.uci(), f"{name}: JSON uci {ply['uci']}")
        mark = {"?!": chess.pgn.NAG_DUBIOUS_MOVE, "?": chess.pgn.NAG_MISTAKE,
                "??": chess.pgn.NAG_BLUNDER}.get(ply["mark"])
        if mark is not None and not (old.nags & set(range(1, 7))):
            check(mark in node.nags, f"{name}: {node.san()} marked {ply['mark']}")
            best = [v for v in node.parent.variations[1:] if v.move.uci() == ply["best_uci"]]
            check(len(best) == 1, f"{name}: the better line {ply['best']} is a variation")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/forsyth"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "games.pgn")
        with open(path, "w") as f:
            f.write(GAMES)
        pgn = run(binary, path)
        records = [json.loads(line) for line in run(binary, path, "--json").splitlines()]
    before = games_of(GAMES)
    after = games_of(pgn)
    check(len(after) == len(before) == len(records) == 4, "four games in, four out")
    for i, (b, a, r) in enumerate(zip(before, after, records)):
        check_game(i, b, a, r)
    check(after[2].board().chess960, "Chess960: read as Chess960")
    check([m.uci() for m in after[2].mainline_moves()][4] == "c1b1", "Chess960: O-O-O is c1b1")
    first = after[3].next()
    check(chess.pgn.NAG_BLUNDER in first.nags, "missed mate: 1. h3 is a blunder")
    better = first.parent.variations[1]
    line = [better.san()] + [n.san() for n in better.mainline()]
    check(line == ["Rd8+", "Rxd8", "Rxd8#"], f"missed mate: the variation is the mate {line}")
    check(better.eval().white() == chess.engine.Mate(2),
          "missed mate: the variation is evaluated #2")
    print("annotate: all checks passed")


if __name__ == "__main__":
    main()

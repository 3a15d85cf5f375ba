#!/usr/bin/env python3
"""End-to-end test with a real UCI client: python-chess drives the engine.

Usage: python3 tests/client_test.py [path/to/forsyth]   (default target/release/forsyth)

Checks, in order: the handshake and option list as python-chess reads them;
configuring Hash, Threads and Move Overhead; a MultiPV 3 analysis (three
distinct legal moves, each with a score, best first); a full game of the
engine against itself at a fast time control, every move legal, until the
game ends or 300 plies; a clean quit. Exits non-zero on the first failure.
"""

import sys
import time

import chess
import chess.engine

MAX_PLIES = 300


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}")


def check_options(engine):
    opts = engine.options
    expected = {
        "Hash": ("spin", 16, 1, 33554432),
        "Threads": ("spin", 1, 1, 1024),
        "MultiPV": ("spin", 1, 1, 256),
        "Move Overhead": ("spin", 20, 0, 5000),
        "Ponder": ("check", False, None, None),
        "UCI_Chess960": ("check", False, None, None),
        "UCI_LimitStrength": ("check", False, None, None),
        "UCI_Elo": ("spin", 2600, 1350, 2600),
        "UCI_ShowWDL": ("check", False, None, None),
        "Clear Hash": ("button", None, None, None),
        "OwnBook": ("check", False, None, None),
        # python-chess keeps the spec's spelling of an empty default.
        "BookFile": ("string", "<empty>", None, None),
        "Book Depth": ("spin", 40, 0, 1000),
        "Book Variety": ("spin", 50, 0, 100),
        "SyzygyPath": ("string", "<empty>", None, None),
        "SyzygyProbeDepth": ("spin", 1, 1, 100),
        "Syzygy50MoveRule": ("check", True, None, None),
        "SyzygyProbeLimit": ("spin", 7, 0, 7),
        "EvalFile": ("string", "<empty>", None, None),
    }
    check(set(opts) == set(expected), f"options are {sorted(expected)}")
    for name, (kind, default, lo, hi) in expected.items():
        o = opts[name]
        got = (o.type, o.default, o.min, o.max)
        check(got == (kind, default, lo, hi), f"option {name} is {got}")


def check_multipv(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    check(len(infos) == 3, "MultiPV 3 analysis gives 3 lines")
    firsts = []
    for i, info in enumerate(infos, 1):
        check(info.get("multipv") == i, f"line {i} is numbered multipv {i}")
        pv = info.get("pv")
        check(bool(pv), f"line {i} has a pv")
        check(pv[0] in board.legal_moves, f"line {i} starts with the legal move {pv[0]}")
        replay = board.copy()
        for mv in pv:
            check(mv in replay.legal_moves, f"pv move {mv} of line {i} is legal")
            replay.push(mv)
        check("score" in info, f"line {i} has a score ({info.get('score')})")
        check(info.get("depth") == 6, f"line {i} reached depth 6")
        firsts.append(pv[0])
    check(len(set(firsts)) == 3, f"the 3 lines start with distinct moves {firsts}")
    # Best first, as README promises: a later line may come out better than
    # an earlier one (each is searched on its own), and the engine sorts
    # them before it reports the iteration.
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    check(scores == sorted(scores, reverse=True), f"the 3 lines are ordered best first: {scores}")


def play_game(engine):
    board = chess.Board()
    clock = {chess.WHITE: 3.0, chess.BLACK: 3.0}
    inc = 0.03
    lowest = dict(clock)
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        limit = chess.engine.Limit(
            white_clock=clock[chess.WHITE],
            black_clock=clock[chess.BLACK],
            white_inc=inc,
            black_inc=inc,
        )
        start = time.monotonic()
        result = engine.play(board, limit, ponder=False)
        spent = time.monotonic() - start
        side = board.turn
        clock[side] += inc - spent
        lowest[side] = min(lowest[side], clock[side])
        move = result.move
        if move is None or move not in board.legal_moves:
            raise AssertionError(f"illegal move {move} at ply {board.ply()} in {board.fen()}")
        if clock[side] <= 0:
            raise AssertionError(f"{'white' if side else 'black'} lost on time at ply {board.ply()}")
        if result.ponder is not None:
            after = board.copy()
            after.push(move)
            if result.ponder not in after.legal_moves:
                raise AssertionError(f"illegal ponder move {result.ponder} after {move} in {board.fen()}")
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    print(
        f"ok: played {board.ply()} plies, every move legal; "
        f"result {outcome.result() if outcome else 'unfinished at the ply limit'}"
        f" ({outcome.termination.name if outcome else '-'}); "
        f"clocks left {clock[chess.WHITE]:.2f}s / {clock[chess.BLACK]:.2f}s, "
        f"lowest {lowest[chess.WHITE]:.2f}s / {lowest[chess.BLACK]:.2f}s"
    )
    check(board.ply() > 0, "the game has moves")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "target/release/forsyth"
    engine = chess.engine.SimpleEngine.popen_uci(path, timeout=10)
    try:
        check(engine.id.get("name", "").startswith("Forsyth "), f"id name is {engine.id.get('name')}")
        check_options(engine)
        # MultiPV is managed by python-chess (analyse(multipv=...)), so it
        # is not set through configure.
        engine.configure({"Hash": 32, "Threads": 2, "Move Overhead": 100})
        print("ok: configured Hash 32, Threads 2, Move Overhead 100")
        engine.ping()
        check_multipv(engine)
        # Options may change between searches.
        engine.configure({"Hash": 16, "Threads": 1})
        engine.ping()
        print("ok: reconfigured Hash 16, Threads 1 after a search")
        play_game(engine)
        engine.ping()
        print("ok: the engine answers isready after the game")
    finally:
        start = time.monotonic()
        engine.quit()
        print(f"ok: quit in {time.monotonic() - start:.3f}s")
    print("client test passed")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - any failure must fail the run
        print(f"FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)

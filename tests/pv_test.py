#!/usr/bin/env python3
"""The tournament managers' PV checks, applied to the engine's own games.

Usage: python3 tests/pv_test.py [path/to/forsyth]   (default target/release/forsyth)

fastchess replays every `info ... pv` line an engine prints on the game's
board, the moves already played included, and warns when a PV move is
illegal, when the PV goes on after the game is over (a threefold repetition
counted with the game's moves, the fifty-move rule, checkmate, stalemate),
and when `bestmove` is not the first move of the last PV. With
`-check-mate-pvs` it adds three checks on an exact mate score (no
`lowerbound` or `upperbound`): the PV is too short for the mate, too long,
or does not end in checkmate. `check_search` below applies those rules, in
fastchess's order and with its words, plus what README promises besides:
the `ponder` move is the last PV's second move, and there is none after a
move that ends the game.

First the checker is shown to catch each kind of fault, on lines written
to break the rules (among them the one that a 240-game soak against
Ethereal 12 drew 14 warnings for: a line printed again before `bestmove`
with its second move, the ponder move, taken from the hash table, after a
move that repeats a position for the third time). Then the engine plays
short games against itself at a fixed node count, from openings chosen to
end by the rules soon: positions whose history already holds repetitions
(given as `position ... moves ...`, so that they count), positions close
to the fifty-move limit, mates in a few moves for either side, drawish
endings that shuffle, and a few ordinary openings with MultiPV; every
line of every search is checked. The searches are on one thread at a
fixed node count, so the games are the same on every run. Exits non-zero
when any check fails, listing each fault with its position.
"""

import os
import queue
import re
import subprocess
import sys
import threading
import time

import chess

UCI_MOVE = re.compile(r"^[a-h][0-9][a-h][0-9][nbrq]?$")
TIMEOUT = 30.0


# ------------------------------------------------------------- the rules


def game_end(board):
    """How the rules end the game on `board` (its move stack is the whole
    game), as fastchess asks of each position of a PV: the fifty-move rule
    first (mate on the hundredth ply is mate), then the threefold
    repetition, then mate and stalemate. None while the game goes on."""
    if board.halfmove_clock >= 100:
        return "checkmate" if board.is_checkmate() else "fifty-move rule"
    if board.is_repetition(3):
        return "threefold repetition"
    if not any(board.generate_legal_moves()):
        return "checkmate" if board.is_check() else "stalemate"
    return None


class Info:
    """The parts of an `info` line the checks read."""

    def __init__(self, line):
        tokens = line.split()
        self.line = line
        self.multipv = 1
        self.score = None  # ("cp" or "mate", value)
        self.bound = None  # None, "lowerbound" or "upperbound"
        self.pv = []
        for i, t in enumerate(tokens):
            if t == "multipv" and i + 1 < len(tokens):
                self.multipv = int(tokens[i + 1])
            elif t == "score" and i + 2 < len(tokens):
                self.score = (tokens[i + 1], int(tokens[i + 2]))
                if i + 3 < len(tokens) and tokens[i + 3] in ("lowerbound", "upperbound"):
                    self.bound = tokens[i + 3]
            elif t == "pv":
                # As fastchess reads it: up to the first token that is not
                # shaped like a move.
                for mv in tokens[i + 1:]:
                    if not UCI_MOVE.match(mv):
                        break
                    self.pv.append(mv)
                break

    @staticmethod
    def parse(line):
        """An Info for an `info` line with a `pv`, else None."""
        tokens = line.split()
        if not tokens or tokens[0] != "info" or "string" in tokens or "pv" not in tokens:
            return None
        return Info(line)

    def exact_mate(self):
        """The N of an exact `score mate N`, else None."""
        if self.score and self.score[0] == "mate" and self.bound is None:
            return self.score[1]
        return None


def check_line(board, info):
    """fastchess's warning for one PV line from `board`, or None."""
    b = board.copy()
    for text in info.pv:
        end = game_end(b)
        if end is not None:
            return f"PV continues after {end} - move {text}"
        try:
            move = chess.Move.from_uci(text)
        except ValueError:  # shaped like a move, but no square (a9)
            move = None
        if move not in b.legal_moves:
            return f"Illegal PV move - move {text}"
        b.push(move)
    n = info.exact_mate()
    if n is not None:
        plies = 2 * n - 1 if n > 0 else -2 * n
        if len(info.pv) < plies:
            return "Incomplete mating PV"
        if len(info.pv) > plies:
            return "Too long mating PV"
        if not b.is_checkmate():
            return "Mating PV does not end with checkmate"
    return None


def check_search(board, lines):
    """Every fault of one search's output (`info` lines up to the
    `bestmove` line) played from `board`: the PV checks on each line, then
    the best move against the last `multipv 1` PV, and the ponder move."""
    faults = []
    last = None
    for line in lines:
        info = Info.parse(line)
        if info is None:
            continue
        fault = check_line(board, info)
        if fault:
            faults.append(f"{fault}\n    {line}")
        if info.multipv == 1:
            last = info
    tokens = lines[-1].split() if lines else []
    if len(tokens) < 2 or tokens[0] != "bestmove":
        return faults + [f"no bestmove line: {lines[-1:]}"]
    best = tokens[1]
    ponder = tokens[3] if len(tokens) > 3 and tokens[2] == "ponder" else None
    if best == "0000":
        return faults
    if last is None or not last.pv or last.pv[0] != best:
        faults.append(
            f"Bestmove does not match beginning of last PV - move {best}\n    "
            f"{last.line if last else '(no pv line)'}"
        )
    if ponder is not None:
        after = board.copy()
        after.push(chess.Move.from_uci(best))
        end = game_end(after)
        if end is not None:
            faults.append(f"ponder move {ponder} after the {end} that {best} makes")
        elif chess.Move.from_uci(ponder) not in after.legal_moves:
            faults.append(f"illegal ponder move {ponder} after {best}")
        if last is not None and last.pv[1:2] != [ponder]:
            faults.append(f"ponder {ponder} is not the last PV's second move\n    {last.line}")
    return faults


# ------------------------------------------------- the checker, checked


def board_after(fen, moves):
    board = chess.Board(fen) if fen else chess.Board()
    for m in moves.split():
        board.push_uci(m)
    return board


# (what, FEN or None, moves played, the search's output, the faults).
BROKEN = [
    (
        "the soak's case: a ponder move from the hash table after a threefold repetition",
        None,
        "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3h4 f6g8",
        ["info depth 9 score cp 0 pv h4f3", "info depth 9 score cp 0 pv h4f3 d7d5", "bestmove h4f3 ponder d7d5"],
        [
            "PV continues after threefold repetition - move d7d5\n    info depth 9 score cp 0 pv h4f3 d7d5",
            "ponder move d7d5 after the threefold repetition that h4f3 makes",
        ],
    ),
    (
        "the same line is clean without the game's history",
        "rnbqkbnr/pppppppp/8/8/7N/8/PPPPPPPP/RNBQKB1R w KQkq - 8 5",
        "",
        ["info depth 9 score cp 0 pv h4f3 d7d5", "bestmove h4f3 ponder d7d5"],
        [],
    ),
    (
        "a line past the fifty-move rule",
        "4k3/8/8/8/8/8/4P3/4K2R w - - 98 80",
        "",
        ["info depth 3 score cp 400 pv h1h2 e8d8 h2h1", "bestmove h1h2 ponder e8d8"],
        ["PV continues after fifty-move rule - move h2h1\n    info depth 3 score cp 400 pv h1h2 e8d8 h2h1"],
    ),
    (
        "a line past checkmate",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        "",
        ["info depth 2 score mate 1 pv d1d8 g8h8", "bestmove d1d8"],
        ["PV continues after checkmate - move g8h8\n    info depth 2 score mate 1 pv d1d8 g8h8"],
    ),
    (
        "a line past stalemate, and an illegal move",
        "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1",
        "",
        ["info depth 1 score cp 0 pv f1f7 h8g8", "info depth 2 score cp 900 pv f1e1 h8h6", "bestmove f1e1"],
        [
            "PV continues after stalemate - move h8g8\n    info depth 1 score cp 0 pv f1f7 h8g8",
            "Illegal PV move - move h8h6\n    info depth 2 score cp 900 pv f1e1 h8h6",
        ],
    ),
    (
        "exact mates with too short, too long and mateless lines; bounds pass",
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        "",
        [
            "info depth 3 score mate 2 pv d5f6 g7f6",
            "info depth 3 score mate 1 pv d5f6 g7f6 c4f7",
            "info depth 3 score mate 2 pv d5f6 g7f6 a2a3",
            "info depth 3 score mate 2 lowerbound pv d5f6",
            "info depth 4 score mate 2 pv d5f6 g7f6 c4f7",
            "bestmove d5f6 ponder g7f6",
        ],
        [
            "Incomplete mating PV\n    info depth 3 score mate 2 pv d5f6 g7f6",
            "Too long mating PV\n    info depth 3 score mate 1 pv d5f6 g7f6 c4f7",
            "Mating PV does not end with checkmate\n    info depth 3 score mate 2 pv d5f6 g7f6 a2a3",
        ],
    ),
    (
        "bestmove and ponder that are not the last line's",
        None,
        "",
        [
            "info depth 5 multipv 1 score cp 30 pv e2e4 e7e5",
            "info depth 5 multipv 2 score cp 20 pv d2d4 d7d5",
            "bestmove d2d4 ponder d7d5",
        ],
        [
            "Bestmove does not match beginning of last PV - move d2d4\n"
            "    info depth 5 multipv 1 score cp 30 pv e2e4 e7e5",
            "ponder d7d5 is not the last PV's second move\n    info depth 5 multipv 1 score cp 30 pv e2e4 e7e5",
        ],
    ),
]


def check_the_checker():
    for what, fen, moves, lines, expected in BROKEN:
        got = check_search(board_after(fen, moves), lines)
        if got != expected:
            raise AssertionError(f"checker on {what}:\n  got {got}\n  expected {expected}")
        print(f"ok: the checker finds {len(expected)} faults in {what}")


# ------------------------------------------------------------ the games


class Engine:
    """The engine over pipes; a reader thread queues its lines so that
    every wait has a timeout."""

    def __init__(self, path):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, prefix):
        got = []
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no '{prefix}' within {TIMEOUT} s; last lines {got[-5:]}")
            if line is None:
                raise AssertionError(f"the engine exited; last lines {got[-5:]}")
            got.append(line)
            if line.startswith(prefix):
                return got

    def quit(self):
        self.send("quit")
        self.proc.wait(timeout=TIMEOUT)


STARTPOS = chess.STARTING_FEN
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TABLES = os.path.join(DATA, "syzygy")
KNIGHTS_DANCE = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6"

# (what, FEN, moves before the game, options, nodes a move, plies at most).
# The moves are sent with every `position`, so that the repetitions they
# hold count. Each game ends by the rules or at its ply limit.
GAMES = [
    # The history holds the position after 1. Nf3 twice; a knight, back
    # from elsewhere, can bring it about a third time (the soak's case).
    ("a third occurrence in reach", STARTPOS, KNIGHTS_DANCE + " f3h4 f6g8", {}, 4000, 24),
    ("Black can repeat a third time", STARTPOS, KNIGHTS_DANCE + " f3g1 f6h5 g1f3", {}, 4000, 24),
    (
        "a queen down, White repeats a third time",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1",
        KNIGHTS_DANCE + " f3h4 f6g8",
        {},
        4000,
        24,
    ),
    (
        "a queen down, Black repeats a third time",
        "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        KNIGHTS_DANCE + " f3g1 f6h5 g1f3",
        {"MultiPV": 2},
        4000,
        24,
    ),
    # Both sides shuffle, the history holding each position once already.
    (
        "a locked position repeated once",
        "4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/8/4K3 w - - 0 1",
        "e1d1 e8d8 d1e1 d8e8",
        {},
        3000,
        40,
    ),
    ("a rook ending shuffles", "8/8/4k3/8/2r5/8/4K3/3R4 w - - 30 60", "d1d2 c4c5 d2d1 c5c4", {}, 3000, 60),
    ("opposite bishops shuffle", "8/5k2/4bp2/8/3B1P2/4K3/8/8 w - - 0 50", "", {"MultiPV": 2}, 3000, 60),
    ("rook against bishop in the tables", "8/8/4k3/8/8/3K4/3R4/5b2 w - - 0 70", "", {"SyzygyPath": TABLES}, 3000, 40),
    # Close to the fifty-move rule, the count given by the FEN.
    ("the fiftieth move in a rook ending", "8/8/3k4/8/8/2K5/1R6/4r3 w - - 92 70", "", {}, 4000, 30),
    ("the fiftieth move, queen against rook", "8/8/3k4/3r4/8/8/8/2KQ4 w - - 94 80", "", {"MultiPV": 2}, 4000, 30),
    (
        "the fiftieth move, queen against rook in the tables",
        "8/8/3k4/3r4/8/8/8/2KQ4 w - - 80 80",
        "",
        {"SyzygyPath": TABLES},
        4000,
        30,
    ),
    ("a mate in reach of the fifty-move rule", "7k/8/5K2/8/8/8/8/6R1 w - - 96 90", "", {}, 4000, 30),
    ("a mate just after the fifty-move rule", "8/8/8/8/8/2k5/8/K6Q w - - 97 90", "", {}, 4000, 30),
    # Mates, for the side to move and against it.
    ("mate in one", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "", {}, 3000, 10),
    ("a back rank to defend", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "", {}, 3000, 10),
    ("mate in two", "7k/8/5K2/8/8/8/8/6R1 w - - 0 1", "", {}, 4000, 12),
    ("mate in two with MultiPV", "7k/8/5K2/8/8/8/8/6R1 w - - 0 1", "", {"MultiPV": 3}, 4000, 12),
    ("Légal's mate", "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "", {}, 6000, 12),
    ("being mated after Légal's sacrifice", "r2qkb1r/pp2nppp/3p1N2/2p1N1B1/2BnP3/3P4/PPP2PPP/R2bK2R b KQkq - 2 1", "", {}, 6000, 12),
    ("queen and king mate", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "", {}, 6000, 40),
    ("rook and king mate", "8/8/8/4k3/8/8/8/KR6 w - - 0 1", "", {"MultiPV": 2}, 6000, 60),
    ("a stalemate trap", "7k/5Q2/8/6K1/8/8/8/8 w - - 0 1", "", {"MultiPV": 2}, 3000, 20),
]


def opening_games():
    """Ordinary games: a few of the test books' openings, some with
    MultiPV 3."""
    games = []
    for name, step in (("8moves_v3-every97.epd", 60), ("noob_3moves-every1000.epd", 40)):
        with open(os.path.join(DATA, "openings", name), encoding="utf-8") as f:
            fens = [line.strip() for line in f if line.strip()]
        for i, fen in enumerate(fens[::step]):
            options = {"MultiPV": 3} if i % 2 else {}
            games.append((f"{name} line {1 + i * step}", fen, "", options, 3000, 24))
    return games


def search(engine, fen, board, nodes):
    """Has the engine search `board` (a game from `fen`) at `nodes` nodes;
    returns its lines and their faults."""
    played = " ".join(m.uci() for m in board.move_stack)
    engine.send(f"position fen {fen} moves {played}" if played else f"position fen {fen}")
    engine.send(f"go nodes {nodes}")
    lines = engine.read_until("bestmove")
    faults = [f"position fen {fen} moves {played}:\n  {f}" for f in check_search(board, lines)]
    return lines, faults


def tally_lines(board, lines, tally):
    """Counts the lines checked, their exact mates and mate bounds, and
    how the lines that reach the end of the game end."""
    for line in lines:
        info = Info.parse(line)
        if info is None:
            continue
        tally["lines"] += 1
        tally["exact mates"] += info.exact_mate() is not None
        tally["mate bounds"] += bool(info.score and info.score[0] == "mate" and info.bound)
        end = board.copy()
        for mv in info.pv:
            end.push_uci(mv)
        reason = game_end(end)
        if reason:
            tally[f"lines ending in {reason}"] += 1


def play(engine, what, fen, moves, options, nodes, max_plies, tally):
    """Plays one game from `fen`: first the moves given, each position
    searched as in a game (so that the hash table holds what a game
    leaves in it) but the given move played, then the engine's moves.
    Returns the faults, the plies the engine played and how the game
    ended."""
    engine.send("ucinewgame")
    for name, default in (("MultiPV", 1), ("SyzygyPath", "<empty>")):
        engine.send(f"setoption name {name} value {options.get(name, default)}")
    engine.send("isready")
    engine.read_until("readyok")
    board = chess.Board(fen)
    faults = []
    given = moves.split()
    plies = 0
    while plies < max_plies:
        end = game_end(board) or ("insufficient material" if board.is_insufficient_material() else None)
        if end:
            break
        lines, found = search(engine, fen, board, nodes)
        tally["searches"] += 1
        faults += found
        if found:
            # What the counts read assumes legal lines.
            break
        tally_lines(board, lines, tally)
        if len(board.move_stack) < len(given):
            board.push_uci(given[len(board.move_stack)])
            continue
        best = chess.Move.from_uci(lines[-1].split()[1])
        board.push(best)
        plies += 1
    return faults, plies, end or "unfinished"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "target/release/forsyth"
    check_the_checker()
    started = time.monotonic()
    engine = Engine(path)
    engine.send("uci")
    engine.read_until("uciok")
    tally = {
        "games": 0,
        "searches": 0,
        "lines": 0,
        "exact mates": 0,
        "mate bounds": 0,
        "lines ending in threefold repetition": 0,
        "lines ending in fifty-move rule": 0,
        "lines ending in checkmate": 0,
        "lines ending in stalemate": 0,
    }
    faults = []
    try:
        for game in GAMES + opening_games():
            f, plies, end = play(engine, *game, tally)
            tally["games"] += 1
            faults += f
            print(f"{'FAIL' if f else 'ok'}: {game[0]}: {plies} plies, {end}")
            for fault in f:
                print(f"  {fault}")
    finally:
        engine.quit()
    print(", ".join(f"{v} {k}" for k, v in tally.items()) + f" in {time.monotonic() - started:.1f} s")
    if faults:
        raise AssertionError(f"{len(faults)} faults")
    # The games reach what they are meant to: lines that end in each way
    # the rules end a game, and exact mates, all checked.
    for k, v in tally.items():
        if k.startswith("lines ending") or k == "exact mates":
            if v == 0:
                raise AssertionError(f"no {k}: the games no longer test it")
    print("pv test passed")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - any failure must fail the run
        print(f"FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)

#!/usr/bin/env python3
"""clock_match.py - play two UCI engines against each other under a strictly
enforced clock, optionally with pondering, and check that neither loses on
time, plays an illegal move or crashes.

Two clocks:
  * ``--moves M --seconds S``: "M moves in S seconds, repeating".  The engine
    is sent ``go wtime W btime B movestogo K``.  The clock starts at S seconds;
    after every M-th move of a side S seconds are added (unused time carries
    over).  The sudden-death runner in /work/shared/tools/match.py never sends
    ``movestogo``, so this exercises that code path.
  * ``--tc BASE+INC``: sudden death with an increment, as match.py plays it
    (``go wtime W btime B winc I binc I``): the clock starts at BASE seconds
    and INC seconds are added after each move.

``--ponder NAME`` (repeatable, ``*`` for both) lets that engine ponder: after
each of its moves it is sent ``go ponder`` on the position after its expected
reply, and ``ponderhit`` when the opponent plays that reply (``stop`` and a
fresh ``go`` otherwise).  This is python-chess's ``play(..., ponder=True)``.

The time of a move runs from the moment the runner writes ``go`` (or
``ponderhit``) until it reads ``bestmove``; if it is more than the time left
(plus --timemargin) the mover loses on time.  Time spent pondering, and the
bestmove of a ponder search that was stopped, are not counted.

Example::

    clock_match.py --engine forsyth=target/release/forsyth \\
        --engine sf=/usr/games/stockfish --option '*:Hash=16' --option '*:Threads=1' \\
        --moves 40 --seconds 2 --games 6 --concurrency 1 \\
        --openings ../shared/data/openings/8moves_v3.epd --pgn out.pgn --json out.json

    clock_match.py --engine forsyth=target/release/forsyth --engine eth=/usr/games/ethereal-chess \\
        --option forsyth:Threads=2 --option '*:Hash=16' --tc 5+0.05 --ponder '*' --games 200

Other faults: an illegal, null or unparsable bestmove loses ("illegal move");
an engine that dies or breaks the protocol loses ("crash").  Games also end by
checkmate, stalemate, insufficient material, the fifty-move rule, threefold
repetition, or (optional) resign/draw adjudication on the engines' scores.

The summary gives W/D/L for the first engine and, per engine, the number of
time forfeits, illegal moves and crashes, the number of ponderhits, and the
"closest call": the least time left on that engine's clock after any of its
moves (before the top-up or increment).

Exit status: 0 when the match was played (whatever the engines did), 1 when an
engine could not be started or configured, 2 for bad arguments, 130 when
interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import logging
import math
import random
import shlex
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Optional

try:
    import chess
    import chess.engine
    import chess.pgn
except ImportError:  # pragma: no cover
    sys.exit("clock_match.py needs python-chess (pip install chess)")

STARTUP_SECONDS = 20.0     # engine start, uciok, option setting, isready
QUIT_SECONDS = 1.0         # grace for "quit" before the process is killed
LATE_GRACE = 0.05          # how long past the clock we keep waiting before declaring the forfeit
MATE_CP = 100_000
INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE
FAULT_KINDS = ("time", "illegal", "crash")
FAULT_WORDS = {"time": "time forfeit", "illegal": "illegal move", "crash": "crash"}
PGN_TERMINATION = {"time": "time forfeit", "illegal": "rules infraction", "crash": "abandoned"}


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

@dataclass
class Player:
    name: str
    argv: list[str]
    forced: dict[str, str] = field(default_factory=dict)     # NAME:OPT=VALUE, must exist
    wildcard: dict[str, str] = field(default_factory=dict)   # *:OPT=VALUE, set where it exists
    ponder: bool = False                                      # --ponder NAME or '*'


def make_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description="Match two UCI engines at a repeating 'M moves in S seconds' control "
                    "(go wtime/btime/movestogo) or at BASE+INC, enforcing the clock strictly, "
                    "optionally with pondering.")
    ap.add_argument("--engine", action="append", default=[], required=True, metavar="NAME=CMD",
                    help="engine name and command line (shell quoting allowed); give it twice")
    ap.add_argument("--option", action="append", default=[], metavar="NAME:OPT=VALUE",
                    help="UCI option for engine NAME; NAME '*' = every engine that has OPT (repeatable)")
    ap.add_argument("--moves", type=int, default=40, metavar="M", help="moves per control (default 40)")
    ap.add_argument("--seconds", type=float, default=2.0, metavar="S",
                    help="seconds added for every M moves, also the starting clock (default 2)")
    ap.add_argument("--tc", type=parse_tc, metavar="BASE+INC",
                    help="sudden death with increment instead of --moves/--seconds, e.g. 5+0.05")
    ap.add_argument("--ponder", action="append", default=[], metavar="NAME",
                    help="let engine NAME ponder ('*' = both; repeatable)")
    ap.add_argument("--games", type=int, default=2, metavar="N",
                    help="number of games; games 2i and 2i+1 share an opening with colours reversed (default 2)")
    ap.add_argument("--concurrency", type=int, default=1, metavar="K", help="games played at once (default 1)")
    ap.add_argument("--openings", metavar="FILE",
                    help="EPD/FEN file, one position per line ('#' comments); game pair i uses line i")
    ap.add_argument("--random-seed", type=int, metavar="N", help="shuffle the opening lines with this seed")
    ap.add_argument("--pgn", metavar="OUT", help="write the games as PGN (clock in every move comment)")
    ap.add_argument("--json", metavar="OUT", help="write the summary as JSON")
    ap.add_argument("--log", metavar="FILE", help="write all UCI traffic (python-chess debug log) to FILE")
    ap.add_argument("--timemargin", type=int, default=0, metavar="MS",
                    help="slack beyond the clock before a move counts as a time forfeit (default 0)")
    ap.add_argument("--resign-score", type=int, metavar="CP",
                    help="adjudicate a loss when an engine's own score is <= -CP for --resign-moves moves")
    ap.add_argument("--resign-moves", type=int, default=3, metavar="N", help="(default 3)")
    ap.add_argument("--draw-score", type=int, metavar="CP",
                    help="adjudicate a draw when both engines' |score| <= CP for --draw-moves moves each")
    ap.add_argument("--draw-moves", type=int, default=8, metavar="N", help="(default 8)")
    ap.add_argument("--draw-start-move", type=int, default=40, metavar="M",
                    help="no draw adjudication before full move M (default 40)")
    ap.add_argument("--verbose", action="store_true", help="print every move with its clock")
    return ap


def read_players(args: argparse.Namespace, ap: argparse.ArgumentParser) -> list[Player]:
    players = []
    for item in args.engine:
        name, eq, cmd = item.partition("=")
        name = name.strip()
        if not eq or not name or not cmd.strip():
            ap.error(f"--engine {item!r}: expected NAME=CMD")
        if name == "*" or ":" in name:
            ap.error(f"--engine {item!r}: the name may not be '*' or contain ':'")
        players.append(Player(name, shlex.split(cmd)))
    if len(players) != 2:
        ap.error("exactly two --engine arguments are needed")
    if players[0].name == players[1].name:
        ap.error("the two engines must have different names")
    for item in args.option:
        who, colon, rest = item.partition(":")
        opt, eq, value = rest.partition("=")
        opt = opt.strip()
        if not colon or not eq or not opt:
            ap.error(f"--option {item!r}: expected NAME:OPT=VALUE")
        if who == "*":
            for p in players:
                p.wildcard[opt] = value.strip()
            continue
        match = [p for p in players if p.name == who]
        if not match:
            ap.error(f"--option {item!r}: there is no engine called {who!r}")
        match[0].forced[opt] = value.strip()
    for who in args.ponder:
        match = [p for p in players if who in ("*", p.name)]
        if not match:
            ap.error(f"--ponder {who!r}: there is no engine called {who!r}")
        for p in match:
            if opt_named(p, "ponder"):
                ap.error(f"--ponder {who!r}: do not also set the Ponder option, --ponder sets it")
            p.ponder = True
    return players


def opt_named(p: Player, name: str) -> bool:
    return any(o.lower() == name for o in (*p.forced, *p.wildcard))


def parse_tc(text: str) -> tuple[float, float]:
    """'5+0.05' -> (5.0, 0.05); argparse's type for --tc, so a bad value is
    refused with the argument's name before anything starts."""
    base, plus, inc = text.partition("+")
    try:
        b, i = float(base), float(inc) if plus else 0.0
    except ValueError:
        b = i = math.nan
    if not (b > 0 and i >= 0 and math.isfinite(b) and math.isfinite(i)):
        raise argparse.ArgumentTypeError(f"{text!r}: expected BASE+INC with BASE > 0 and INC >= 0")
    return b, i


def read_openings(path: str, seed: Optional[int]) -> list[tuple[str, chess.Board]]:
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        rows = [(n, ln.strip()) for n, ln in enumerate(fh, 1)]
    rows = [(n, ln) for n, ln in rows if ln and not ln.startswith("#")]
    if seed is not None:
        random.Random(seed).shuffle(rows)
    for n, line in rows:
        label = f"line {n}"
        try:
            board = chess.Board(line)
        except ValueError:
            try:
                board, ops = chess.Board.from_epd(line)
            except ValueError as err:
                raise ValueError(f"{path}:{n}: neither FEN nor EPD ({err})") from None
            if ops.get("id"):
                label = str(ops["id"])
        if not board.is_valid() or board.is_game_over(claim_draw=True):
            raise ValueError(f"{path}:{n}: position is not playable")
        out.append((label, board))
    if not out:
        raise ValueError(f"{path}: no positions")
    return out


# ---------------------------------------------------------------------------
# Engine wrapper with go -> bestmove timestamps
# ---------------------------------------------------------------------------

class StampedUci(chess.engine.UciProtocol):
    """UciProtocol that notes when the clock of a move starts ('go', or
    'ponderhit' after 'go ponder') and when its 'bestmove' is read.  A 'go
    ponder' starts no clock, so the bestmove of a stopped ponder search is not
    taken for the answer to the next move."""

    go_at: Optional[float] = None
    bestmove_at: Optional[float] = None
    armed = False          # a timed search runs: its bestmove stops the clock
    hit = False            # the clock of the current move was started by 'ponderhit'

    def send_line(self, line: str) -> None:
        words = line.split()
        if words[:1] == ["go"] and "ponder" not in words[1:] or words == ["ponderhit"]:
            self.go_at = time.perf_counter()
            self.bestmove_at = None
            self.armed = True
            self.hit = words == ["ponderhit"]
        super().send_line(line)

    def line_received(self, line: str) -> None:
        if self.armed and line.split(maxsplit=1)[:1] == ["bestmove"]:
            self.bestmove_at = time.perf_counter()
            self.armed = False
        super().line_received(line)


class Seat:
    """One engine process, restarted on demand."""

    def __init__(self, player: Player):
        self.player = player
        self.transport = None
        self.uci: Optional[StampedUci] = None
        self.missing: list[str] = []

    def running(self) -> bool:
        return self.uci is not None and not self.uci.returncode.done()

    async def open(self) -> None:
        await self.shut()
        self.transport, self.uci = await asyncio.wait_for(
            StampedUci.popen(self.player.argv, setpgrp=True), STARTUP_SECONDS)
        try:
            await self._setup()
        except BaseException:
            await self.shut()
            raise

    async def _setup(self) -> None:
        await asyncio.wait_for(self.uci.initialize(), STARTUP_SECONDS)
        config = {}
        for opt, value in self.player.wildcard.items():
            if opt in self.uci.options:
                config[opt] = value
        self.missing = [o for o in self.player.wildcard if o not in self.uci.options]
        config.update(self.player.forced)
        # Typed values (16, not "16"): python-chess compares the configured
        # values with the ones it sent and, on a mismatch, never sends
        # 'ponderhit' (it stops the ponder search and starts a new one).
        for opt, value in config.items():
            if opt in self.uci.options:
                try:
                    config[opt] = self.uci.options[opt].parse(value)
                except chess.engine.EngineError:
                    pass                    # configure() reports it
        await asyncio.wait_for(self.uci.configure(config), STARTUP_SECONDS)
        await asyncio.wait_for(self.uci.ping(), STARTUP_SECONDS)

    async def fresh_game(self) -> None:
        """ucinewgame + isready, before any clock runs."""
        if not self.running():
            await self.open()
        # A ping ends a ponder search left over from the last game (python-chess
        # sends 'stop' and waits for its bestmove) before ucinewgame is written.
        await asyncio.wait_for(self.uci.ping(), STARTUP_SECONDS)
        self.uci.send_line("ucinewgame")
        self.uci.first_game = False      # keep python-chess from sending it again inside play()
        await asyncio.wait_for(self.uci.ping(), STARTUP_SECONDS)

    async def shut(self) -> None:
        transport, uci = self.transport, self.uci
        self.transport = self.uci = None
        if transport is None:
            return
        try:
            if not uci.returncode.done():
                await asyncio.wait_for(uci.quit(), QUIT_SECONDS)
        except Exception:
            pass
        finally:
            transport.close()


def explain(err: BaseException) -> str:
    if isinstance(err, asyncio.TimeoutError):
        return "no answer in time"
    return str(err) or type(err).__name__


# ---------------------------------------------------------------------------
# Bookkeeping
# ---------------------------------------------------------------------------

@dataclass
class Outcome:
    index: int
    white: str
    black: str
    opening: str
    result: str
    reason: str
    termination: str = "normal"
    fault: Optional[str] = None
    culprit: Optional[str] = None
    plies: int = 0
    clock_left: dict = field(default_factory=dict)       # name -> seconds at game end
    at_controls: dict = field(default_factory=dict)      # name -> [seconds left just before each top-up]

    def points(self, name: str) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        return 1.0 if (self.white if self.result == "1-0" else self.black) == name else 0.0


class Book:
    def __init__(self, names: list[str]):
        self.names = names
        self.outcomes: list[Outcome] = []
        self.faults = {n: dict.fromkeys(FAULT_KINDS, 0) for n in names}
        self.closest: dict[str, Optional[float]] = dict.fromkeys(names)
        self.moves = dict.fromkeys(names, 0)
        self.thinking = dict.fromkeys(names, 0.0)
        self.longest = dict.fromkeys(names, 0.0)
        self.topups = dict.fromkeys(names, 0)
        self.ponderhits = dict.fromkeys(names, 0)
        self.endings: dict[str, int] = {}

    def timed_move(self, name: str, used: float, left: float) -> None:
        self.moves[name] += 1
        self.thinking[name] += used
        self.longest[name] = max(self.longest[name], used)
        if self.closest[name] is None or left < self.closest[name]:
            self.closest[name] = left

    def add(self, o: Outcome) -> None:
        self.outcomes.append(o)
        if o.fault:
            self.faults[o.culprit][o.fault] += 1
            key = FAULT_WORDS[o.fault]
        elif o.termination == "adjudication":
            key = "resign adjudication" if "resigns" in o.reason else "draw adjudication"
        else:
            key = "checkmate" if "mates" in o.reason else o.reason
        self.endings[key] = self.endings.get(key, 0) + 1

    def wdl(self) -> tuple[int, int, int]:
        pts = [o.points(self.names[0]) for o in self.outcomes]
        return pts.count(1.0), pts.count(0.5), pts.count(0.0)


def fmt_cp(score: Optional[chess.engine.Score]) -> str:
    if score is None:
        return "?"
    if score.is_mate():
        return f"#{score.mate()}"
    return f"{score.score() / 100:+.2f}"


def fmt_clk(seconds: float) -> str:
    seconds = max(seconds, 0.0)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h)}:{int(m):02d}:{s:06.3f}"


# ---------------------------------------------------------------------------
# The match
# ---------------------------------------------------------------------------

class Runner:
    def __init__(self, args: argparse.Namespace, players: list[Player],
                 openings: list[tuple[str, chess.Board]]):
        self.args = args
        self.players = players
        self.names = [p.name for p in players]
        self.openings = openings
        self.book = Book(self.names)
        self.ids: dict[str, str] = {}
        self.queue = iter(range(args.games))
        self.tasks: list[asyncio.Task] = []
        self.interrupted = False
        self.pgn_out = open(args.pgn, "w", encoding="utf-8") if args.pgn else None
        self.tc: Optional[tuple[float, float]] = args.tc
        self.t0 = time.monotonic()

    @property
    def control(self) -> str:
        if self.tc:
            text = f"{self.tc[0]:g}s + {self.tc[1]:g}s"
        else:
            text = f"{self.args.moves} moves in {self.args.seconds:g}s, repeating"
        pondering = [p.name for p in self.players if p.ponder]
        return text + (f", ponder on for {', '.join(pondering)}" if pondering else "")

    # -- one game -----------------------------------------------------------

    async def game(self, index: int, seats: dict[str, Seat]) -> Outcome:
        a = self.args
        label, start = self.openings[(index // 2) % len(self.openings)]
        names = {chess.WHITE: self.names[index % 2], chess.BLACK: self.names[1 - index % 2]}
        board = start.copy()
        start_clock = self.tc[0] if self.tc else a.seconds
        clock = {chess.WHITE: start_clock, chess.BLACK: start_clock}
        made = {chess.WHITE: 0, chess.BLACK: 0}
        at_controls: dict[str, list[float]] = {names[chess.WHITE]: [], names[chess.BLACK]: []}
        notes: list[str] = []
        bad = {chess.WHITE: 0, chess.BLACK: 0}
        quiet = {chess.WHITE: 0, chess.BLACK: 0}
        margin = a.timemargin / 1000.0

        def finish(result: str, reason: str, termination: str = "normal",
                   fault: Optional[str] = None, culprit: Optional[str] = None) -> Outcome:
            o = Outcome(index, names[chess.WHITE], names[chess.BLACK], label, result, reason,
                        termination, fault, culprit, len(notes),
                        {names[c]: round(clock[c], 4) for c in (chess.WHITE, chess.BLACK)},
                        {k: [round(x, 4) for x in v] for k, v in at_controls.items()})
            self.save_pgn(o, start, board, notes)
            return o

        async def forfeit(color: bool, fault: str, reason: str) -> Outcome:
            await seats[names[color]].shut()          # a fresh process for the next game
            return finish("0-1" if color == chess.WHITE else "1-0", reason,
                          PGN_TERMINATION[fault], fault, names[color])

        for color in (chess.WHITE, chess.BLACK):
            try:
                await seats[names[color]].fresh_game()
            except (chess.engine.EngineError, asyncio.TimeoutError, OSError) as err:
                return await forfeit(color, "crash", f"{names[color]} could not start a game: {explain(err)}")

        while True:
            if board.is_checkmate():
                return finish("0-1" if board.turn == chess.WHITE else "1-0",
                              ("Black" if board.turn == chess.WHITE else "White") + " mates")
            if board.is_stalemate():
                return finish("1/2-1/2", "stalemate")
            if board.is_insufficient_material():
                return finish("1/2-1/2", "insufficient material")
            if board.is_fifty_moves():
                return finish("1/2-1/2", "fifty-move rule")
            if board.is_repetition(3):
                return finish("1/2-1/2", "threefold repetition")
            if a.resign_score is not None:
                for c in (chess.WHITE, chess.BLACK):
                    if bad[c] >= a.resign_moves:
                        return finish("0-1" if c == chess.WHITE else "1-0",
                                      f"{names[c]} resigns (score <= -{a.resign_score} cp "
                                      f"for {a.resign_moves} moves)", "adjudication")
            if (a.draw_score is not None and board.fullmove_number >= a.draw_start_move
                    and min(quiet.values()) >= a.draw_moves):
                return finish("1/2-1/2", f"draw adjudication (|score| <= {a.draw_score} cp "
                                         f"for {a.draw_moves} moves each)", "adjudication")

            side = board.turn
            name = names[side]
            seat = seats[name]
            to_go = None if self.tc else a.moves - made[side] % a.moves
            # Tell the engine whole milliseconds, never more than it really has.
            told = {c: max(math.floor(clock[c] * 1000.0), 1) / 1000.0 for c in (chess.WHITE, chess.BLACK)}
            inc = self.tc[1] if self.tc else None
            limit = chess.engine.Limit(white_clock=told[chess.WHITE], black_clock=told[chess.BLACK],
                                       white_inc=inc, black_inc=inc, remaining_moves=to_go)
            uci = seat.uci
            uci.go_at = uci.bestmove_at = None
            uci.armed = uci.hit = False
            asked = time.perf_counter()
            thinking = asyncio.ensure_future(uci.play(board, limit, info=INFO, ponder=seat.player.ponder))
            while not thinking.done():
                # The deadline runs from the moment 'go' was written (or from now, until it is).
                wait = (uci.go_at or asked) + clock[side] + margin + LATE_GRACE - time.perf_counter()
                if wait <= 0:
                    break
                await asyncio.wait({thinking}, timeout=wait)
            if not thinking.done():
                thinking.cancel()
                used = time.perf_counter() - (uci.go_at or asked)
                self.book.timed_move(name, used, clock[side] - used)
                return await forfeit(side, "time", f"{name} did not answer within its "
                                     f"{clock[side]:.3f}s (waited {used:.3f}s{self.mtg(to_go)})")
            try:
                reply = thinking.result()
            except chess.engine.EngineTerminatedError as err:
                return await forfeit(side, "crash", f"{name} died: {err}")
            except chess.engine.EngineError as err:
                if err.args and isinstance(err.args[0], ValueError):
                    return await forfeit(side, "illegal", f"{name} sent an illegal or unparsable move ({err})")
                return await forfeit(side, "crash", f"{name} protocol error: {err}")
            if uci.go_at is None or uci.bestmove_at is None:   # should not happen; fall back to the outer measure
                used = time.perf_counter() - asked
            else:
                used = uci.bestmove_at - uci.go_at
            left = clock[side] - used
            self.book.timed_move(name, used, left)
            self.book.ponderhits[name] += uci.hit
            if used > clock[side] + margin:
                return await forfeit(side, "time", f"{name} used {used:.3f}s with {clock[side]:.3f}s "
                                     f"on its clock{self.mtg(to_go)}")
            move = reply.move
            if move is None or not move or move not in board.legal_moves:
                text = "(none)" if move is None else move.uci()
                return await forfeit(side, "illegal", f"{name} played illegal move {text}")

            before = clock[side]
            clock[side] = max(left, 0.0)
            made[side] += 1
            topped = not self.tc and made[side] % a.moves == 0
            if topped:
                at_controls[name].append(clock[side])
                clock[side] += a.seconds
                self.book.topups[name] += 1
            elif self.tc:
                clock[side] += self.tc[1]

            pov = reply.info.get("score")
            score = pov.pov(side) if pov is not None else None
            cp = None if score is None else score.score(mate_score=MATE_CP)
            depth = reply.info.get("depth", 0)
            mtg = f" mtg={to_go}" if to_go else ""
            notes.append(f"{fmt_cp(score)}/{depth} {used:.3f}s{mtg} [%clk {fmt_clk(clock[side])}]")
            if a.verbose:
                print(f"  g{index + 1} {board.fullmove_number:>3}{'.' if side else '...'} "
                      f"{board.san(move):<7} {name:<10}{self.mtg(to_go)}  clock {before:6.3f}s "
                      f"- {used:.3f}s = {max(left, 0):6.3f}s" + (f"  +{a.seconds:g}s -> {clock[side]:.3f}s" if topped else ""),
                      flush=True)
            board.push(move)

            bad[side] = bad[side] + 1 if a.resign_score is not None and cp is not None and cp <= -a.resign_score else 0
            quiet[side] = quiet[side] + 1 if a.draw_score is not None and cp is not None and abs(cp) <= a.draw_score else 0

    @staticmethod
    def mtg(to_go: Optional[int]) -> str:
        return f", movestogo {to_go}" if to_go else ""

    def save_pgn(self, o: Outcome, start: chess.Board, board: chess.Board, notes: list[str]) -> None:
        if not self.pgn_out:
            return
        g = chess.pgn.Game()
        g.setup(start)
        h = g.headers
        h["Event"] = f"clock_match {self.names[0]} vs {self.names[1]}"
        h["Site"] = "?"
        h["Date"] = datetime.date.today().strftime("%Y.%m.%d")
        h["Round"] = str(o.index + 1)
        h["White"], h["Black"], h["Result"] = o.white, o.black, o.result
        h["TimeControl"] = (f"{self.tc[0]:g}+{self.tc[1]:g}" if self.tc
                            else f"{self.args.moves}/{self.args.seconds:g}")
        h["Opening"] = o.opening
        h["Termination"] = o.termination
        h["PlyCount"] = str(len(notes))
        node = g
        for move, note in zip(board.move_stack[len(start.move_stack):], notes):
            node = node.add_variation(move, comment=note)
        node.comment = (node.comment + " " if node.comment else "") + o.reason
        print(g, file=self.pgn_out, end="\n\n", flush=True)

    # -- scheduling ---------------------------------------------------------

    async def worker(self) -> None:
        seats = {p.name: Seat(p) for p in self.players}
        try:
            for index in self.queue:
                if self.interrupted:
                    break
                o = await self.game(index, seats)
                self.book.add(o)
                w, d, l = self.book.wdl()
                controls = "" if self.tc else " | left at controls (s): " + "; ".join(
                    f"{n} " + (",".join(f"{x:.2f}" for x in v) or "-") for n, v in o.at_controls.items())
                print(f"Game {len(self.book.outcomes):>3}/{self.args.games} (#{o.index + 1} {o.opening}) "
                      f"{o.white} vs {o.black}: {o.result} {{{o.reason}}} {o.plies} plies"
                      f"{controls} | {self.names[0]} +{w}={d}-{l}", flush=True)
        finally:
            for s in seats.values():
                await s.shut()

    async def check_engines(self) -> bool:
        ok = True
        for p in self.players:
            seat = Seat(p)
            try:
                await seat.open()
            except (chess.engine.EngineError, asyncio.TimeoutError, OSError) as err:
                print(f"error: engine {p.name} ({shlex.join(p.argv)}): {explain(err)}", file=sys.stderr)
                ok = False
            else:
                self.ids[p.name] = seat.uci.id.get("name", "?")
                extra = f"  (no option {', '.join(seat.missing)})" if seat.missing else ""
                print(f"  {p.name}: {self.ids[p.name]}  [{shlex.join(p.argv)}]{extra}", flush=True)
            finally:
                await seat.shut()
        return ok

    def stop(self) -> None:
        if not self.interrupted:
            print("interrupted: abandoning running games", file=sys.stderr, flush=True)
        self.interrupted = True
        for t in self.tasks:
            t.cancel()

    async def run(self) -> int:
        a = self.args
        src = a.openings or "start position"
        print(f"clock_match: {self.names[0]} vs {self.names[1]} | {self.control} | {a.games} games, "
              f"concurrency {a.concurrency} | timemargin {a.timemargin} ms | openings: {src}", flush=True)
        if not await self.check_engines():
            return 1
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stop)
        self.tasks = [asyncio.create_task(self.worker()) for _ in range(a.concurrency)]
        try:
            done = await asyncio.gather(*self.tasks, return_exceptions=True)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        self.report()
        if self.pgn_out:
            self.pgn_out.close()
        for r in done:
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                raise r
        return 130 if self.interrupted else 0

    # -- report -------------------------------------------------------------

    def report(self) -> None:
        b, a = self.book, self.args
        w, d, l = b.wdl()
        n = len(b.outcomes)
        first, second = self.names
        score = (w + d / 2) / n if n else 0.0
        lines = [
            "",
            f"=== {first} vs {second}: {n} games at {self.control}, {time.monotonic() - self.t0:.0f}s"
            + (" (interrupted)" if self.interrupted else ""),
            f"{first}: W {w}  D {d}  L {l}   score {score:.1%}",
            f"{'Faults (loss by)':<22}{'time forfeit':>13}{'illegal move':>14}{'crash':>7}"
            f"{'closest call':>15}{'moves':>7}{'avg move':>10}{'longest':>9}{'ponderhits':>12}",
        ]
        for name in self.names:
            f = b.faults[name]
            close = b.closest[name]
            close_s = "-" if close is None else f"{close * 1000:.0f} ms"
            avg = b.thinking[name] / b.moves[name] * 1000 if b.moves[name] else 0.0
            lines.append(f"  {name:<20}{f['time']:>13}{f['illegal']:>14}{f['crash']:>7}{close_s:>15}"
                         f"{b.moves[name]:>7}{avg:>8.0f}ms{b.longest[name] * 1000:>7.0f}ms{b.ponderhits[name]:>12}")
        lines.append("(closest call = least time left on the clock after any move, before a top-up or increment)")
        lines.append("Endings: " + (", ".join(f"{k} {v}" for k, v in sorted(b.endings.items(), key=lambda kv: -kv[1])) or "-"))
        print("\n".join(lines), flush=True)
        if a.json:
            self.write_json(w, d, l, score)

    def write_json(self, w: int, d: int, l: int, score: float) -> None:
        b, a = self.book, self.args
        data = {
            "engines": [{"name": p.name, "cmd": p.argv, "id": self.ids.get(p.name),
                         "options": {**p.wildcard, **p.forced}} for p in self.players],
            "control": ({"base": self.tc[0], "increment": self.tc[1]} if self.tc
                        else {"moves": a.moves, "seconds": a.seconds, "repeating": True}),
            "ponder": [p.name for p in self.players if p.ponder],
            "timemargin_ms": a.timemargin,
            "games_requested": a.games,
            "games": len(b.outcomes),
            "interrupted": self.interrupted,
            "wins": w, "draws": d, "losses": l, "score": score,
            "faults": {name: {**b.faults[name],
                              "closest_call_ms": None if b.closest[name] is None else round(b.closest[name] * 1000, 1),
                              "moves": b.moves[name],
                              "avg_move_ms": round(b.thinking[name] / b.moves[name] * 1000, 1) if b.moves[name] else None,
                              "longest_move_ms": round(b.longest[name] * 1000, 1),
                              "topups": b.topups[name],
                              "ponderhits": b.ponderhits[name]}
                       for name in self.names},
            "endings": b.endings,
            "game_list": [vars(o) for o in sorted(b.outcomes, key=lambda o: o.index)],
        }
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")


def main(argv: Optional[list[str]] = None) -> int:
    ap = make_parser()
    args = ap.parse_args(argv)
    players = read_players(args, ap)
    for flag in ("moves", "games", "concurrency", "resign_moves", "draw_moves"):
        if getattr(args, flag) < 1:
            ap.error(f"--{flag.replace('_', '-')} must be at least 1")
    if not args.seconds > 0:
        ap.error("--seconds must be positive")
    if args.timemargin < 0:
        ap.error("--timemargin must not be negative")
    if args.random_seed is not None and not args.openings:
        ap.error("--random-seed needs --openings")

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.log:
        fh = logging.FileHandler(args.log, mode="w", encoding="utf-8")
        fh.setFormatter(logging.Formatter("%(relativeCreated)10.1f %(message)s"))
        fh.setLevel(logging.DEBUG)
        logging.getLogger().handlers[0].setLevel(logging.WARNING)
        logging.getLogger().addHandler(fh)
        logging.getLogger("chess.engine").setLevel(logging.DEBUG)

    if args.openings:
        try:
            openings = read_openings(args.openings, args.random_seed)
        except (OSError, ValueError) as err:
            ap.error(str(err))
        pairs = (args.games + 1) // 2
        if pairs > len(openings):
            print(f"note: {pairs} game pairs but {len(openings)} openings; openings repeat", file=sys.stderr)
    else:
        openings = [("start position", chess.Board())]

    try:
        return asyncio.run(Runner(args, players, openings).run())
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""spsa.py - tune Forsyth's search constants by SPSA over game pairs.

The constants are the table of src/engine/search/params.rs. A tuning build
(`make tune-build`: target/tune/release/forsyth, `--features tune`) lists
each of them as a UCI spin option and prints the table, with each entry's
range and SPSA step, as JSON for `forsyth spsa-params`.

Each iteration plays one game pair (one opening, colours reversed) between
the build at theta + delta and at theta - delta, with the games of
../shared/tools/match.py (imported as a module: its rules, fault checks and
PGN writer), and moves theta by the pair's result. The schedule is
OpenBench's, per parameter:

    N = iterations, A = 0.1 N, alpha = 0.602, gamma = 0.101
    c   = c_end * N^gamma                  a   = r_end * c_end^2 * (A + N)^alpha
    c_k = max(c / k^gamma, 0.5 for ints)   a_k = a / (A + k)^alpha,  r_k = a_k / c_k^2
    delta_i = +-c_k (a fair coin per parameter), integers rounded at random
    theta_i += r_k * c_k * (W - L) * flip_i   (W, L: theta + delta's wins and losses in the pair)

so that the perturbation ends at c_end and the last steps move a parameter
by about r_end * c_end per game won.

The constants not tuned are held at the values the tuning build had when
the tune began (the state's "held"), and sent to both sides like the tuned
ones: the tune is the same whichever tuning build resumes it, so one that
started from another tune's theta resumes from a plain `make tune-build`.

The state (theta, the held values, the iteration, the seed, the totals and
every pair's result) is written atomically to --state after every pair: a killed run
started again with the same --state goes on from the last pair finished.
The coin flips, the random rounding and the opening of iteration k come from
a generator seeded with (seed, k), so nothing else need be saved, and at a
fixed node count with one pair at a time a resumed run plays the same
games as one never stopped.

A crash, a time forfeit or an illegal move stops the run before its pair
counts (exit status 3), with the pair's games in <state>.fault.pgn: a fault
says nothing about the constants, and fed into theta it would only be noise.

Example (2 cores, 2 pairs at once):

    make tune-build
    nice python3 tests/tools/spsa.py --engine target/tune/release/forsyth \\
        --tc 4+0.04 --iterations 3000 --concurrency 2 \\
        --openings ../shared/data/openings/8moves_v3.epd \\
        --state ../spsa-state.json

Exit status: 0 when the iterations asked for are done (or --stop-after
stopped it), 1 for an engine that cannot be used, 2 for bad arguments, 3
for a faulty game, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import importlib.util
import io
import json
import math
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[2]
DEFAULT_MATCH = REPO.parent / "shared" / "tools" / "match.py"
STATE_VERSION = 1
ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
FAULT_EXIT = 3


def load_match(path: Path):
    """match.py as a module (it lives outside the repository, in ../shared)."""
    if not path.is_file():
        sys.exit(f"spsa.py: no match.py at {path} (give --match)")
    spec = importlib.util.spec_from_file_location("forsyth_match", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["forsyth_match"] = module       # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def engine_table(cmd: list[str]) -> list[dict]:
    """The tuning build's table: name, default, min, max, step, reason."""
    try:
        out = subprocess.run(cmd + ["spsa-params"], capture_output=True, text=True, timeout=60)
    except OSError as err:
        sys.exit(f"spsa.py: cannot run {shlex.join(cmd)}: {err}")
    if out.returncode != 0:
        sys.exit(f"spsa.py: {shlex.join(cmd)} spsa-params failed ({out.stderr.strip()}); "
                 "is it a tuning build (make tune-build)?")
    return json.loads(out.stdout)


# --------------------------------------------------------------------------
# SPSA
# --------------------------------------------------------------------------

def schedule(p: dict, iterations: int, k: int) -> tuple[float, float]:
    """c_k and r_k of parameter p at iteration k (1-based)."""
    big_a = A_RATIO * iterations
    c = p["c_end"] * iterations ** GAMMA
    a = p["r_end"] * p["c_end"] ** 2 * (big_a + iterations) ** ALPHA
    c_k = max(c / k ** GAMMA, 0.5)          # every constant of the table is an integer
    a_k = a / (big_a + k) ** ALPHA
    return c_k, a_k / c_k ** 2


def perturb(state: dict, k: int) -> dict:
    """The two sides of iteration k: the flips and the values sent."""
    rng = random.Random(f"{state['seed']}:{k}")
    flips, plus, minus, steps = {}, {}, {}, {}
    for p in state["params"]:
        name, theta = p["name"], state["theta"][p["name"]]
        c_k, r_k = schedule(p, state["iterations"], k)
        flip = rng.choice((-1, 1))
        # Rounded at random, both sides by the same draw, so that the
        # integer sent is theta +- c_k on average.
        u = rng.random()
        clip = lambda x: min(max(x, p["min"]), p["max"])   # noqa: E731
        plus[name] = int(clip(math.floor(theta + flip * c_k + u)))
        minus[name] = int(clip(math.floor(theta - flip * c_k + u)))
        flips[name] = flip
        steps[name] = (c_k, r_k)
    opening = rng.randrange(1 << 30)
    return {"flips": flips, "plus": plus, "minus": minus, "steps": steps, "opening": opening}


def apply(state: dict, k: int, side: dict, result: int) -> None:
    """theta after iteration k, whose pair theta + delta won by `result` (W - L)."""
    for p in state["params"]:
        name = p["name"]
        c_k, r_k = side["steps"][name]
        theta = state["theta"][name] + r_k * c_k * result * side["flips"][name]
        state["theta"][name] = min(max(theta, p["min"]), p["max"])
    state["iteration"] = k


def moved_most(state: dict, n: int = 3) -> list[tuple[str, float, float]]:
    """The parameters furthest from their start, measured in steps (c_end)."""
    rows = [(p["name"], p["start"], state["theta"][p["name"]], p["c_end"]) for p in state["params"]]
    rows.sort(key=lambda r: -abs(r[2] - r[1]) / r[3])
    return [(name, start, theta) for name, start, theta, _ in rows[:n]]


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------

def save_state(path: Path, state: dict) -> None:
    """Atomically: a kill at any moment leaves the old state or the new."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def new_state(args: argparse.Namespace, table: list[dict]) -> dict:
    chosen = table
    if args.params:
        patterns = [s.strip() for s in args.params.split(",") if s.strip()]
        chosen = [p for p in table if any(fnmatch.fnmatchcase(p["name"], pat) for pat in patterns)]
        unknown = [pat for pat in patterns if not any(fnmatch.fnmatchcase(p["name"], pat) for p in table)]
        if unknown:
            sys.exit(f"spsa.py: --params: no constant matches {', '.join(unknown)}")
    params = [{"name": p["name"], "start": p["default"], "min": p["min"], "max": p["max"],
               "c_end": float(p["step"]), "r_end": args.r_end} for p in chosen]
    tuned = {p["name"] for p in chosen}
    return {
        "version": STATE_VERSION,
        "iterations": args.iterations,
        "seed": args.seed,
        "limit": limit_args(args),
        "openings": args.openings,
        "params": params,
        "theta": {p["name"]: float(p["start"]) for p in params},
        # The others, as the engine had them: sent with every game.
        "held": {p["name"]: p["default"] for p in table if p["name"] not in tuned},
        "iteration": 0,
        "games": 0,
        "wins": 0, "draws": 0, "losses": 0,      # theta + delta's
        "elapsed_s": 0.0,
        # One row per pair: [k, W - L for theta + delta, plies of the two games].
        "history": [],
    }


def limit_args(args: argparse.Namespace) -> list[str]:
    if args.nodes:
        return ["--nodes", str(args.nodes)]
    if args.tc:
        return ["--tc", args.tc]
    return []


# --------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------

class Runner:
    def __init__(self, args: argparse.Namespace, mm, state: dict, openings: list):
        self.args = args
        self.mm = mm
        self.state = state
        self.openings = openings
        self.cmd = shlex.split(args.engine)
        self.next_k = state["iteration"] + 1
        self.done: dict[int, tuple] = {}
        self.fault: Optional[str] = None
        self.started = time.monotonic()
        self.session_games = 0
        self.pairs_this_run = 0
        self.dispatched = 0
        self.stop = False
        self.tasks: list[asyncio.Task] = []

    def match_argv(self, side: dict) -> list[str]:
        a = self.args
        argv = ["--engine", f"plus={shlex.join(self.cmd)}", "--engine", f"minus={shlex.join(self.cmd)}",
                *self.state["limit"], "--games", "2", "--timemargin", str(a.timemargin),
                "--option", "*:Hash=16", "--option", "*:Threads=1"]
        if a.resign_score is not None:
            argv += ["--resign-score", str(a.resign_score)]
        if a.draw_score is not None:
            argv += ["--draw-score", str(a.draw_score)]
        for name, value in held(self.state).items():
            argv += ["--option", f"*:{name}={value}"]
        for who in ("plus", "minus"):
            for name, value in side[who].items():
                argv += ["--option", f"{who}:{name}={value}"]
        return argv

    async def play_pair(self, k: int, side: dict) -> tuple[list, str]:
        mm = self.mm
        parser = mm.build_parser()
        m_args = parser.parse_args(self.match_argv(side))
        specs = mm.parse_engines(m_args, parser)
        opening = self.openings[side["opening"] % len(self.openings)]
        match = mm.Match(m_args, specs, [opening])
        match.pgn = io.StringIO()         # kept only if a game is faulty
        engines = {s.name: mm.Engine(s) for s in specs}
        try:
            games = [await match.play_game(n, engines) for n in (0, 1)]
        finally:
            for e in engines.values():
                await e.close()
        return games, match.pgn.getvalue()

    def stopping(self) -> bool:
        return self.stop or self.fault is not None

    async def slot(self) -> None:
        while not self.stopping() and self.next_k <= self.state["iterations"]:
            # --stop-after N: N pairs begun (and so finished) in this run.
            if self.args.stop_after is not None and self.dispatched >= self.args.stop_after:
                return
            self.dispatched += 1
            k = self.next_k
            self.next_k += 1
            side = perturb(self.state, k)
            games, pgn = await self.play_pair(k, side)
            self.done[k] = (side, games, pgn)
            self.flush()

    def flush(self) -> None:
        """Applies the finished pairs in order of iteration, saving after each."""
        while (k := self.state["iteration"] + 1) in self.done and self.fault is None:
            side, games, pgn = self.done.pop(k)
            faulty = [g for g in games if g.fault]
            if faulty:
                path = Path(self.args.state).with_suffix(".fault.pgn")
                path.write_text(pgn, encoding="utf-8")
                g = faulty[0]
                self.fault = (f"iteration {k}: {g.reason} ({g.fault}, by {g.offender}); "
                              f"the pair is not counted; its games are in {path}")
                return
            score = [g.score_for("plus") for g in games]
            result = sum(1 if s == 1.0 else -1 if s == 0.0 else 0 for s in score)
            st = self.state
            apply(st, k, side, result)
            st["games"] += 2
            st["wins"] += score.count(1.0)
            st["draws"] += score.count(0.5)
            st["losses"] += score.count(0.0)
            st["history"].append([k, result, [g.plies for g in games]])
            now = time.monotonic()
            st["elapsed_s"] = self.elapsed_before + (now - self.started)
            save_state(Path(self.args.state), st)
            self.session_games += 2
            self.pairs_this_run += 1
            self.progress(k)

    def progress(self, k: int) -> None:
        st = self.state
        hours = max(time.monotonic() - self.started, 1e-9) / 3600
        steps = {p["name"]: p["c_end"] for p in st["params"]}
        moved = ", ".join(f"{n} {s:g}->{t:.1f} ({(t - s) / steps[n]:+.1f} steps)"
                          for n, s, t in moved_most(st))
        print(f"iter {k}/{st['iterations']}  games {st['games']} "
              f"(+{st['wins']} ={st['draws']} -{st['losses']} for theta+delta)  "
              f"{self.session_games / hours:.0f} games/h  moved most: {moved}", flush=True)

    async def run(self) -> int:
        self.elapsed_before = self.state["elapsed_s"]
        loop = asyncio.get_running_loop()

        def interrupt() -> None:
            self.stop = True
            for t in self.tasks:
                t.cancel()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, interrupt)
        self.tasks = [asyncio.create_task(self.slot()) for _ in range(max(1, self.args.concurrency))]
        results = await asyncio.gather(*self.tasks, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)
                  and not isinstance(r, asyncio.CancelledError)]
        if errors:
            raise errors[0]
        if self.fault:
            print(f"spsa.py: stopped: {self.fault}", file=sys.stderr, flush=True)
            return FAULT_EXIT
        if self.stop:
            print(f"spsa.py: interrupted; {self.state['iteration']} iterations saved in {self.args.state}",
                  file=sys.stderr, flush=True)
            return 130
        return 0


async def preflight(mm, cmd: list[str], state: dict) -> None:
    """The engine must be a tuning build that has every constant tuned."""
    spec = mm.EngineSpec("check", cmd)
    engine = mm.Engine(spec)
    try:
        await engine.start()
        options = engine.protocol.options
        missing = [p["name"] for p in state["params"] if p["name"] not in options]
        missing += [name for name in held(state) if name not in options]
        if missing:
            sys.exit(f"spsa.py: the engine has no option {', '.join(missing)}")
        for p in state["params"]:
            o = options[p["name"]]
            if (o.min, o.max) != (p["min"], p["max"]):
                print(f"warning: {p['name']}: the engine's range is {o.min}..{o.max}, "
                      f"the state's {p['min']}..{p['max']}", file=sys.stderr)
    finally:
        await engine.close()


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def report(state: dict) -> str:
    lines = [f"theta after {state['iteration']} of {state['iterations']} iterations "
             f"({state['games']} games, +{state['wins']} ={state['draws']} -{state['losses']} "
             f"for theta+delta):",
             f"{'name':<24} {'start':>7} {'theta':>9} {'rounded':>7} {'min':>6} {'max':>6} {'steps':>6}"]
    for p in state["params"]:
        t = state["theta"][p["name"]]
        lines.append(f"{p['name']:<24} {p['start']:>7} {t:>9.2f} {round(t):>7} {p['min']:>6} "
                     f"{p['max']:>6} {(t - p['start']) / p['c_end']:>+6.1f}")
    if held(state):
        lines.append("")
        lines.append("held, not tuned: " + ", ".join(f"{n} {v}" for n, v in held(state).items()))
    lines.append("")
    lines.append("src/engine/search/params.rs defaults (name: default, then the range and step as they are):")
    for name, value in landing(state).items():
        lines.append(f"    {name}: {value},")
    return "\n".join(lines)


def held(state: dict) -> dict:
    """The constants the tune holds (none in a state made before "held")."""
    return state.get("held", {})


def landing(state: dict) -> dict:
    """The defaults that give the engine the tune's theta: the rounded theta
    and the held values."""
    values = {p["name"]: round(state["theta"][p["name"]]) for p in state["params"]}
    values.update(held(state))
    return values


def write_params(path: Path, state: dict) -> int:
    """Puts the rounded theta and the held values into the table's defaults
    in params.rs."""
    text = path.read_text(encoding="utf-8")
    changed = 0
    for name, value in landing(state).items():
        pattern = re.compile(rf"^(\s*{re.escape(name)}:\s*)-?\d+(\s*,)", re.M)
        text, n = pattern.subn(lambda m: f"{m[1]}{value}{m[2]}", text)
        if n != 1:
            sys.exit(f"spsa.py: {path}: found {n} entries for {name}")
        changed += 1
    path.write_text(text, encoding="utf-8")
    return changed


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="SPSA tuning of Forsyth's search constants (see the module doc).")
    p.add_argument("--engine", default=str(REPO / "target" / "tune" / "release" / "forsyth"),
                   help="the tuning build (default target/tune/release/forsyth)")
    p.add_argument("--state", required=True, metavar="FILE",
                   help="state file: made on the first run, resumed from afterwards")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--tc", metavar="BASE+INC", help="clock per game, e.g. 4+0.04")
    limit.add_argument("--nodes", type=int, metavar="N", help="go nodes N")
    p.add_argument("--iterations", type=int, help="game pairs of the whole tune (sets the schedule)")
    p.add_argument("--params", metavar="NAMES",
                   help="comma-separated names or patterns (nmp_*) to tune; default all")
    p.add_argument("--r-end", type=float, default=0.002, help="r_end of every parameter (default 0.002)")
    p.add_argument("--seed", type=int, default=1, help="seed of the flips, roundings and openings")
    p.add_argument("--openings", metavar="FILE", help="EPD/FEN or PGN openings (default: the start position)")
    p.add_argument("--concurrency", type=int, default=1, help="pairs played at the same time")
    p.add_argument("--stop-after", type=int, metavar="N", help="stop after N pairs of this run")
    p.add_argument("--timemargin", type=int, default=0, metavar="MS", help="as match.py's (default 0)")
    p.add_argument("--resign-score", type=int, metavar="CP", help="as match.py's")
    p.add_argument("--draw-score", type=int, metavar="CP", help="as match.py's")
    p.add_argument("--match", default=str(DEFAULT_MATCH), help=f"match.py (default {DEFAULT_MATCH})")
    p.add_argument("--report", action="store_true", help="print the state's theta and exit")
    p.add_argument("--write-params", metavar="PARAMS_RS",
                   help="with --report: put the rounded theta and the held values into the "
                        "defaults of this params.rs")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    state_path = Path(args.state)
    if args.openings:
        # Absolute, so that a run resumed from another folder finds it.
        args.openings = str(Path(args.openings).resolve())

    if args.report:
        if not state_path.is_file():
            parser.error(f"no state file {state_path}")
        state = json.loads(state_path.read_text(encoding="utf-8"))
        print(report(state))
        if args.write_params:
            n = write_params(Path(args.write_params), state)
            print(f"{n} defaults written to {args.write_params}")
        return 0

    mm = load_match(Path(args.match))
    cmd = shlex.split(args.engine)
    if state_path.is_file():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        if state.get("version") != STATE_VERSION:
            parser.error(f"{state_path}: state version {state.get('version')}, expected {STATE_VERSION}")
        # The schedule and the perturbations are the state's: a resumed run
        # goes on with the tune it belongs to.
        for flag, key in (("iterations", "iterations"), ("openings", "openings")):
            given = getattr(args, flag)
            if given is not None and given != state[key]:
                parser.error(f"--{flag} {given}: the state in {state_path} has {state[key]}")
        if (args.tc or args.nodes) and limit_args(args) != state["limit"]:
            parser.error(f"{' '.join(limit_args(args))}: the state has {' '.join(state['limit'])}")
        if state["iteration"] >= state["iterations"]:
            print(f"{state_path}: the tune has finished its {state['iterations']} iterations", flush=True)
        else:
            print(f"resuming {state_path} at iteration {state['iteration'] + 1} of {state['iterations']}", flush=True)
    else:
        if not args.iterations or args.iterations < 1:
            parser.error("a new tune needs --iterations N")
        if not (args.tc or args.nodes):
            parser.error("a new tune needs --tc or --nodes")
        state = new_state(args, engine_table(cmd))
        save_state(state_path, state)
        print(f"new tune in {state_path}: {len(state['params'])} constants "
              f"({len(state['held'])} held), {state['iterations']} iterations, seed {state['seed']}",
              flush=True)
    if args.concurrency < 1 or (args.stop_after is not None and args.stop_after < 0):
        parser.error("--concurrency must be at least 1 and --stop-after at least 0")

    if state["openings"]:
        # Every opening of the file, shuffled by the seed; iteration k plays
        # the one its generator draws.
        openings = mm.load_openings(state["openings"], 10 ** 9, state["seed"])
    else:
        openings = [mm.Opening("startpos", mm.chess.Board(), [])]

    async def go() -> int:
        await preflight(mm, cmd, state)
        return await Runner(args, mm, state, openings).run()

    status = asyncio.run(go())
    if status == 0:
        print(report(state))
    return status


if __name__ == "__main__":
    sys.exit(main())

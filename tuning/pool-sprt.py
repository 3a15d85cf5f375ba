#!/usr/bin/env python3
"""Pool SPRT runs of ../shared/tools/match.py that played the same two engines.

usage: python3 tuning/pool-sprt.py ELO0 ELO1 LOG [LOG ...]

A match stopped before its SPRT decided (a session ending, say) goes on
as a second run with another --random-seed and the very same binaries.
This script reads the standard output of each run (the "Game ..." lines
match.py prints as games end) and pools them by game pairs: games #2k-1
and #2k of a run share an opening with colours reversed, and a pair
counts once both have ended, in the order the runs and their games
ended. After each pair it applies match.py's own formula (sprt_llr over
the pentanomial counts, alpha = beta = 0.05, and, as match.py does, no
decision while all complete pairs had the same outcome) and reports the
first pair at which the pooled LLR leaves its bounds, then the totals
of every complete pair. Games whose partner never ended are left out,
as match.py leaves them out of its pentanomial counts.

Scores are for the first engine named in the first log's header; every
log must name the same two engines.
"""

import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "tools"))
try:
    from match import PAIR_VALUES, elo_error, elo_of, mean_var, sprt_llr
except ImportError as err:
    sys.exit(f"pool-sprt.py needs ../shared/tools/match.py and python-chess: {err}")

HEADER = re.compile(r"^match\.py: (\S+) vs (\S+) \|")
GAME = re.compile(r"^Game\s+\d+/\d+ \(#(\d+), [^)]*\) (\S+) vs (\S+): (1-0|0-1|1/2-1/2) \{(.*)\} \|")
FAULT = re.compile(r"did not move within|used \S+s of|crashed|failed to start|illegal move|protocol error")
SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def read_log(path, names):
    """The engines' names (names if given) and the log's games as (number,
    score for names[0], fault), in the order they ended."""
    seen, games = None, []
    try:
        lines = open(path, encoding="utf-8", errors="replace").readlines()
    except OSError as err:
        sys.exit(f"{path}: {err.strerror}")
    for line in lines:
        m = HEADER.match(line)
        if m:
            seen = (m[1], m[2])
            if names and set(seen) != set(names):
                sys.exit(f"{path}: engines {seen[0]} and {seen[1]}, not {names[0]} and {names[1]}")
            names = names or seen
            continue
        m = GAME.match(line)
        if not m:
            continue
        if seen is None:
            sys.exit(f"{path}: a game before the match.py header line")
        number, white, black, result, reason = int(m[1]), m[2], m[3], m[4], m[5]
        if {white, black} != set(names):
            sys.exit(f"{path}: game #{number} between {white} and {black}")
        score = SCORE[result] if white == names[0] else 1.0 - SCORE[result]
        games.append((number, score, bool(FAULT.search(reason))))
    if seen is None:
        sys.exit(f"{path}: no match.py header line")
    return names, games


def elo_text(pent):
    """Elo and its 95% interval from pentanomial counts, as match.py reports them."""
    mean, var, pairs = mean_var(pent, PAIR_VALUES)
    return f"{elo_of(mean):+.1f} ± {elo_error(mean, var, pairs):.1f}"


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2])
    try:
        elo0, elo1 = float(argv[1]), float(argv[2])
    except ValueError:
        sys.exit(f"ELO0 and ELO1 must be numbers, not {argv[1]!r} and {argv[2]!r}")
    lower, upper = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
    names = None
    pent = [0] * 5
    wdl = [0, 0, 0]           # wins, draws, losses of names[0] in complete pairs
    faults = games = 0
    crossing = None
    for path in argv[3:]:
        open_pairs = {}
        names, played = read_log(path, names)
        for number, score, fault in played:
            faults += fault
            pair = (number - 1) // 2
            if pair not in open_pairs:
                open_pairs[pair] = score
                continue
            both = (open_pairs.pop(pair), score)
            pent[round(sum(both) * 2)] += 1
            games += 2
            for s in both:
                wdl[0 if s == 1.0 else 1 if s == 0.5 else 2] += 1
            llr = sprt_llr(pent, elo0, elo1)
            varied = sum(1 for c in pent if c) >= 2
            if crossing is None and varied and (llr >= upper or llr <= lower):
                verdict = "H1 accepted" if llr >= upper else "H0 accepted"
                crossing = (f"{verdict} after {games} games, {names[0]} {wdl[0]} / {wdl[1]} / {wdl[2]}, "
                            f"pentanomial {pent}, Elo {elo_text(pent)}, LLR {llr:+.2f}")
    llr = sprt_llr(pent, elo0, elo1)
    print(f"{names[0]} vs {names[1]}, {len(argv) - 3} run(s) pooled by pairs, bounds [{elo0:g}, {elo1:g}]")
    print(f"first crossing: {crossing or 'none'}")
    print(f"all complete pairs: {games} games, {names[0]} {wdl[0]} / {wdl[1]} / {wdl[2]}, "
          f"pentanomial {pent}, Elo {elo_text(pent)}, "
          f"LLR {llr:+.2f} [{lower:+.2f}, {upper:+.2f}]")
    print(f"games lost on time, by an illegal move or by a crash: {faults}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

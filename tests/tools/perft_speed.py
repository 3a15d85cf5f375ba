#!/usr/bin/env python3
"""Perft speed, Forsyth against Stockfish, side by side in one run.

Usage: python3 tests/tools/perft_speed.py [forsyth] [stockfish] [rounds]
       (defaults: target/release/forsyth, /usr/games/stockfish, 5)

Both engines get the same UCI commands (`position ...`, `go perft N`) on one
thread. Each measurement is the wall time of the whole process minus the
median start-up time of that engine (measured with `go perft 1`), so that
Stockfish's network loading does not count against it. Rounds alternate the
engines; the medians and their ratio are printed.
"""

import statistics
import subprocess
import sys
import time

CASES = [
    ("startpos perft 6", "position startpos", 6, 119060324),
    ("Kiwipete perft 5",
     "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193690690),
]


def run(cmd, position, depth):
    script = f"uci\nsetoption name Threads value 1\n{position}\ngo perft {depth}\n"
    start = time.perf_counter()
    proc = subprocess.Popen([cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write(script)
    proc.stdin.flush()
    nodes = None
    for line in proc.stdout:
        if line.startswith("Nodes searched"):
            nodes = int(line.split(":")[1])
            break
    elapsed = time.perf_counter() - start
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    return elapsed, nodes


def main():
    forsyth = sys.argv[1] if len(sys.argv) > 1 else "target/release/forsyth"
    stockfish = sys.argv[2] if len(sys.argv) > 2 else "/usr/games/stockfish"
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    engines = {"Forsyth": forsyth, "Stockfish": stockfish}
    startup = {name: statistics.median(run(cmd, "position startpos", 1)[0] for _ in range(rounds))
               for name, cmd in engines.items()}
    print(f"start-up (median of {rounds}): " + ", ".join(f"{n} {t * 1000:.0f} ms" for n, t in startup.items()))
    print(f"{'case':<18} {'Forsyth s':>10} {'Stockfish s':>12} {'SF/Forsyth':>11}  (median of {rounds})")
    for label, position, depth, expected in CASES:
        times = {name: [] for name in engines}
        for _ in range(rounds):
            for name, cmd in engines.items():
                elapsed, nodes = run(cmd, position, depth)
                if nodes != expected:
                    sys.exit(f"{name} {label}: {nodes} nodes, expected {expected}")
                times[name].append(elapsed - startup[name])
        f = statistics.median(times["Forsyth"])
        s = statistics.median(times["Stockfish"])
        print(f"{label:<18} {f:>10.3f} {s:>12.3f} {s / f:>10.2f}x")


if __name__ == "__main__":
    main()

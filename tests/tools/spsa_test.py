#!/usr/bin/env python3
"""spsa_test.py TUNE_BIN MATCH_PY - the SPSA driver resumes where it stopped.

`make spsa-test` runs it (not `make test`: the driver plays with
../shared/tools/match.py, outside the repository). A tiny tune at 200 nodes
a move, one pair at a time, is played three ways: never stopped; stopped by
--stop-after and started again; killed (SIGKILL, at whatever moment it has
reached) and started again. At a fixed node count with one thread Forsyth's
games repeat exactly, and the driver draws each iteration's flips,
roundings and opening from (seed, iteration), so all three must end with
the same theta, the same totals and the same pair results, iteration after
iteration.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DRIVER = HERE / "spsa.py"
OPENINGS = REPO / "tests" / "data" / "openings" / "8moves_v3-every97.epd"
ITERATIONS = 6


# Forsyth behind a relay that exits at the fifth `go` it passes on.
CRASHING = """#!{python}
import subprocess, sys, threading
if sys.argv[1:]:
    sys.exit(subprocess.call([{engine!r}] + sys.argv[1:]))
child = subprocess.Popen([{engine!r}], stdin=subprocess.PIPE, stdout=sys.stdout, text=True, bufsize=1)
goes = 0
for line in sys.stdin:
    goes += line.startswith("go")
    if goes == 5:
        child.kill()
        sys.exit(1)
    child.stdin.write(line)
    child.stdin.flush()
"""


# Forsyth behind a relay that appends every line it is sent to a log.
RECORDING = """#!{python}
import subprocess, sys
if sys.argv[1:]:
    sys.exit(subprocess.call([{engine!r}] + sys.argv[1:]))
child = subprocess.Popen([{engine!r}], stdin=subprocess.PIPE, stdout=sys.stdout, text=True, bufsize=1)
with open({log!r}, "a") as log:
    for line in sys.stdin:
        log.write(line)
        log.flush()
        child.stdin.write(line)
        child.stdin.flush()
child.wait()
"""


def driver(engine, match, state, *extra):
    return [sys.executable, str(DRIVER), "--engine", engine, "--match", match, "--state", str(state),
            "--nodes", "200", "--iterations", str(ITERATIONS), "--seed", "7",
            "--openings", str(OPENINGS), "--r-end", "0.05", *extra]


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {out.returncode}\n{out.stdout}\n{out.stderr}")
    return out.stdout


def load(state):
    return json.loads(Path(state).read_text(encoding="utf-8"))


def same(a, b, what):
    keys = ("iteration", "theta", "games", "wins", "draws", "losses", "history")
    for k in keys:
        if a[k] != b[k]:
            sys.exit(f"FAIL: {what}: {k} differs:\n  {a[k]}\n  {b[k]}")


def main():
    engine, match = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        whole = tmp / "whole.json"
        out = run(driver(engine, match, whole))
        ref = load(whole)
        assert ref["iteration"] == ITERATIONS, ref["iteration"]
        assert [h[0] for h in ref["history"]] == list(range(1, ITERATIONS + 1))
        assert ref["games"] == 2 * ITERATIONS
        assert "games/h" in out and "moved most" in out, out
        # With r_end 0.05 and 6 iterations theta must have moved (had every
        # pair been drawn it would not: then nothing here is tested).
        moved = [p["name"] for p in ref["params"] if ref["theta"][p["name"]] != p["start"]]
        assert moved, "no parameter moved in 6 pairs"
        print(f"uninterrupted: {ITERATIONS} iterations, {len(moved)} of {len(ref['params'])} constants moved")

        # Stopped after 2 pairs, then after 1 more, then to the end.
        parts = tmp / "parts.json"
        run(driver(engine, match, parts, "--stop-after", "2"))
        assert load(parts)["iteration"] == 2, load(parts)["iteration"]
        out = run(driver(engine, match, parts, "--stop-after", "1"))
        assert "resuming" in out and load(parts)["iteration"] == 3, out
        run(driver(engine, match, parts))
        same(ref, load(parts), "stopped and resumed")
        print("--stop-after and resume: same theta and results as uninterrupted")

        # Killed at whatever moment it has reached once a pair is saved.
        killed = tmp / "killed.json"
        p = subprocess.Popen(driver(engine, match, killed), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            if killed.is_file() and load(killed)["iteration"] >= 1:
                break
            time.sleep(0.01)
        at_kill = load(killed)["iteration"] if killed.is_file() else 0
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
        p.wait()
        state = load(killed)
        assert state["iteration"] >= at_kill
        assert [h[0] for h in state["history"]] == list(range(1, state["iteration"] + 1))
        out = run(driver(engine, match, killed))
        same(ref, load(killed), f"killed after iteration {state['iteration']} and resumed")
        print(f"SIGKILL after iteration {state['iteration']} and resume: same as uninterrupted")

        # The report and the landing: the rounded theta written into a copy
        # of params.rs, every other line of it unchanged.
        rs = tmp / "params.rs"
        original = (REPO / "src" / "engine" / "search" / "params.rs").read_text(encoding="utf-8")
        rs.write_text(original, encoding="utf-8")
        report = run([sys.executable, str(DRIVER), "--state", str(whole), "--report",
                      "--write-params", str(rs)])
        assert f"theta after {ITERATIONS} of {ITERATIONS}" in report, report
        written = rs.read_text(encoding="utf-8")
        changed = [(a, b) for a, b in zip(original.splitlines(), written.splitlines()) if a != b]
        expect = {p["name"] for p in ref["params"] if round(ref["theta"][p["name"]]) != p["start"]}
        got = {a.split(":")[0].strip() for a, _ in changed}
        assert got == expect, (got, expect)
        assert len(original.splitlines()) == len(written.splitlines())
        print(f"--write-params: {len(changed)} defaults changed, as theta rounds")

        # A tune of some constants holds the others at the engine's defaults
        # and sends them to both sides with every game: the held values are
        # the state's, whichever build resumes it, and --write-params writes
        # them back with theta.
        table = {p["name"]: p for p in json.loads(run([engine, "spsa-params"]))}
        subset = tmp / "subset.json"
        run(driver(engine, match, subset, "--params", "lmr_*", "--stop-after", "0"))
        state = load(subset)
        tuned = {p["name"] for p in state["params"]}
        assert tuned == {n for n in table if n.startswith("lmr_")}, tuned
        assert state["held"] == {n: p["default"] for n, p in table.items() if n not in tuned}
        spec = table["rfp_margin"]
        held = spec["default"] + 7 if spec["default"] + 7 <= spec["max"] else spec["default"] - 7
        state["held"]["rfp_margin"] = held
        subset.write_text(json.dumps(state), encoding="utf-8")
        log = tmp / "sent.log"
        wrapper = tmp / "recording.py"
        wrapper.write_text(RECORDING.format(python=sys.executable, engine=engine, log=str(log)),
                           encoding="utf-8")
        wrapper.chmod(0o755)
        run(driver(str(wrapper), match, subset, "--stop-after", "1"))
        sent = log.read_text(encoding="utf-8").splitlines()
        games = sum(line.startswith("ucinewgame") for line in sent)
        assert games >= 2, sent
        assert sent.count(f"setoption name rfp_margin value {held}") >= 2, sent
        assert not any(line.startswith("setoption name rfp_margin value ") and
                       not line.endswith(f" {held}") for line in sent), sent
        state = load(subset)
        assert state["iteration"] == 1 and state["held"]["rfp_margin"] == held
        rs.write_text(original, encoding="utf-8")
        run([sys.executable, str(DRIVER), "--state", str(subset), "--report", "--write-params", str(rs)])
        written = rs.read_text(encoding="utf-8")
        changed = {a.split(":")[0].strip()
                   for a, b in zip(original.splitlines(), written.splitlines()) if a != b}
        expect = {"rfp_margin"} | {p["name"] for p in state["params"]
                                   if round(state["theta"][p["name"]]) != p["start"]}
        assert changed == expect, (changed, expect)
        assert f"rfp_margin: {held}," in written
        print(f"--params lmr_*: {len(state['held'])} constants held and sent, written back with theta")

        # An engine that dies at its fifth `go`: the run stops (status 3)
        # with the pair's games saved, and the pair is not counted.
        wrapper = tmp / "crashing.py"
        wrapper.write_text(CRASHING.format(python=sys.executable, engine=engine), encoding="utf-8")
        wrapper.chmod(0o755)
        crashed = tmp / "crashed.json"
        out = subprocess.run(driver(str(wrapper), match, crashed), capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 3, (out.returncode, out.stdout, out.stderr)
        assert "crash" in out.stderr and "not counted" in out.stderr, out.stderr
        state = load(crashed)
        assert state["iteration"] == 0 and state["games"] == 0, state["iteration"]
        pgn = crashed.with_suffix(".fault.pgn").read_text(encoding="utf-8")
        assert '[Termination "abandoned"]' in pgn, pgn
        print("a crash: stopped with status 3, the pair not counted, its PGN saved")
    print("spsa_test: ok")


if __name__ == "__main__":
    main()

# Forsyth build targets. `make` builds the release binary for this machine;
# `make EXE=path` also copies it to `path` (the OpenBench convention).

CARGO    ?= cargo
EXE      ?=
# Tuned for the machine that builds it (POPCNT, BMI2...). Override with
# `make NATIVE=` for a portable binary.
NATIVE   ?= -C target-cpu=native
# Cargo's output folder (CARGO_TARGET_DIR when set, as cargo itself reads it).
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
# The profile the tests build with (Cargo.toml: release without LTO).
TEST_PROFILE ?= testing
PERFT_SUITES = tests/data/perft/standard.epd tests/data/perft/chess960.epd

.PHONY: all build test perft-suite bench book fuzz stress bestmove-pv long-search hash-rss screenshots tune-build spsa-test clean

all: build

build:
	RUSTFLAGS="$(NATIVE) $(RUSTFLAGS)" $(CARGO) build --release
ifneq ($(EXE),)
	cp $(TARGET_DIR)/release/forsyth "$(EXE)"
endif

# The whole test command (README.md, .ci/run): the Rust tests, then
# python-chess driving the binary (tests/client_test.py), checking every
# PV line of short self-play games by the tournament managers' rules
# (tests/pv_test.py) and reading what `forsyth annotate` writes
# (tests/annotate_test.py). Everything the tests
# read is in tests/data/; python-chess comes into a virtual environment of
# its own under $(TARGET_DIR)/ (made once, removed by `make clean`), so the
# user's Python is left as it is.
PYENV        = $(TARGET_DIR)/pyenv
PYTHON       = $(PYENV)/bin/python3
PYTHON_CHESS ?= chess==1.11.2
TEST_BIN     = $(TARGET_DIR)/$(TEST_PROFILE)/forsyth

test: $(PYENV)/installed
	$(CARGO) test --profile $(TEST_PROFILE)
	$(CARGO) build --profile $(TEST_PROFILE)
	$(PYTHON) tests/client_test.py $(TEST_BIN)
	$(PYTHON) tests/pv_test.py $(TEST_BIN)
	$(PYTHON) tests/annotate_test.py $(TEST_BIN)

$(PYENV)/installed:
	@python3 -m venv $(PYENV) || { echo "make: python3 -m venv failed;" \
	  "on Debian and Ubuntu: apt install python3-venv" >&2; exit 1; }
	$(PYENV)/bin/pip install -q "$(PYTHON_CHESS)"
	@touch $@

# Every depth of every perft position (about half an hour on one core).
perft-suite: build
	$(TARGET_DIR)/release/forsyth perft-suite $(PERFT_SUITES)

bench: build
	$(TARGET_DIR)/release/forsyth bench

# The tuning build (CONTRIBUTING.md: Tuning the search): every constant of
# src/engine/search/params.rs as a UCI spin option, and `forsyth spsa-params`.
# In a target folder of its own, $(TUNE_BIN), so that it never replaces
# the normal build's binary (which lists none of those options) and the
# two do not rebuild each other.
TUNE_DIR = $(TARGET_DIR)/tune
TUNE_BIN = $(TUNE_DIR)/release/forsyth

tune-build:
	RUSTFLAGS="$(NATIVE) $(RUSTFLAGS)" CARGO_TARGET_DIR=$(TUNE_DIR) $(CARGO) build --release --features tune

# The SPSA driver's own test (tests/tools/spsa_test.py): a tiny tune at
# 200 nodes a move, stopped and resumed, against one never stopped. Not
# part of `make test`: the driver plays its games with ../shared/tools/
# match.py, which is not in the repository. Also the tuning build's Rust
# tests (its options, and that they reach the search).
MATCH_PY ?= ../shared/tools/match.py

spsa-test: tune-build $(PYENV)/installed
	CARGO_TARGET_DIR=$(TUNE_DIR) $(CARGO) test --profile $(TEST_PROFILE) --features tune --lib every_search_constant
	CARGO_TARGET_DIR=$(TUNE_DIR) $(CARGO) test --profile $(TEST_PROFILE) --features tune --test tune --test uci -- handshake options_change
	$(PYTHON) tests/tools/spsa_test.py $(TUNE_BIN) $(MATCH_PY)

# The pictures README.md shows, docs/diagram.png and docs/report.png: a
# `fen svg` diagram and an `annotate --html` page rendered by headless
# Chromium (Debian's `chromium`; pngquant and ImageMagick if there). Look
# at them after a change to the drawing. Not part of `make test`: CI needs
# no browser.
screenshots: build
	sh tests/tools/screenshots.sh target/release/forsyth docs

# The default opening book: book/*.pgn (curated lines) -> book/forsyth.bin,
# then a second build to embed the new book in the binary. Byte-for-byte
# reproducible (tests/book.rs checks the committed file). --strict: an
# illegal line fails the build instead of being skipped.
book: build
	$(TARGET_DIR)/release/forsyth book build --strict --pgn book/*.pgn --out book/forsyth.bin
	RUSTFLAGS="$(NATIVE) $(RUSTFLAGS)" $(CARGO) build --release

# Fuzzing with cargo-fuzz (libFuzzer: needs the nightly toolchain and
# `cargo install cargo-fuzz`; the engine itself builds on stable): each
# target of fuzz/ in turn, one process at a time, FUZZ_TIME seconds each,
# e.g. `make fuzz FUZZ_TIME=600 FUZZ_TARGETS=uci`. Corpora grow in
# fuzz/corpus (started from fuzz/seeds), crash inputs land in
# fuzz/artifacts, logs in fuzz/logs. A crash input, once fixed, goes to
# fuzz/regressions/<target>/, which tests/fuzz_regressions.rs replays.
FUZZ_TIME    ?= 60
FUZZ_TARGETS ?= fen moves uci epd polyglot pgn games
FUZZ_FLAGS   ?= -jobs=1 -workers=1 -timeout=10 -rss_limit_mb=4096
FUZZ_NICE    ?= nice -n 15

fuzz:
	@mkdir -p fuzz/logs
	@status=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$t; \
	  echo "== fuzz $$t for $(FUZZ_TIME) s"; \
	  (cd fuzz && $(FUZZ_NICE) $(CARGO) +nightly fuzz run $$t corpus/$$t seeds/$$t -- \
	    -max_total_time=$(FUZZ_TIME) $(FUZZ_FLAGS)) || status=1; \
	  mv fuzz/fuzz-0.log fuzz/logs/$$t.log 2>/dev/null; \
	  grep -E 'DONE|^Done|SUMMARY|panicked' fuzz/logs/$$t.log; \
	done; exit $$status

clean:
	$(CARGO) clean

# Reliability runs (CONTRIBUTING.md: Tests and longer runs). Not part of
# `make test`, which runs 1,000 stress cycles.
STRESS_CYCLES ?= 10000
STRESS_SEED   ?= 1
LONG_SECS     ?= 3600
LONG_THREADS  ?= 1
LONG_HASH     ?= 256

# 10,000 go/stop cycles with Threads=2 (about 3 minutes).
stress:
	FORSYTH_STRESS_CYCLES=$(STRESS_CYCLES) FORSYTH_STRESS_SEED=$(STRESS_SEED) \
		$(CARGO) test --profile $(TEST_PROFILE) --test stress -- --nocapture go_stop_cycles

# 20,000 searches stopped at random moments, bestmove and ponder checked
# against the last PV line (tests/bestmove_pv.rs).
PV_SEED ?= 2929
bestmove-pv:
	FORSYTH_PV_SEED=$(PV_SEED) \
		$(CARGO) test --profile $(TEST_PROFILE) --test bestmove_pv -- --ignored --nocapture bestmove_agrees_with_the_last_pv_long

# go infinite for LONG_SECS seconds: memory flat, counters sane.
long-search:
	FORSYTH_LONG_SECS=$(LONG_SECS) FORSYTH_LONG_THREADS=$(LONG_THREADS) FORSYTH_LONG_HASH=$(LONG_HASH) \
		$(CARGO) test --profile $(TEST_PROFILE) --test stress -- --ignored --nocapture long_search

# Resident memory of Hash 16, 256 and 1024 MB (needs about 1.1 GB free).
hash-rss:
	$(CARGO) test --profile $(TEST_PROFILE) --test limits -- --ignored --nocapture hash_rss_report

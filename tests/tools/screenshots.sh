#!/bin/sh
# Renders a board diagram (`forsyth fen svg`) and an annotated-game report
# (`forsyth annotate --html`) to PNG with headless Chromium, to be looked
# at as a person would see them (issue 40): pieces on the right squares,
# the graph's axis right, nothing cut off. Not part of `make test`, so
# that CI needs no browser.
#
#   tests/tools/screenshots.sh [FORSYTH [OUTDIR]]
#
# FORSYTH defaults to target/release/forsyth, OUTDIR to docs (the two
# pictures README.md shows: diagram.png, report.png). Needs Debian's
# `chromium`; `pngquant` (smaller files) and ImageMagick's `convert`
# (the page's empty bottom cut off) are used when there. CHROMIUM names
# another browser binary; DEPTH the analysis depth (default 10).
set -eu

BIN=${1:-target/release/forsyth}
OUT=${2:-docs}
CHROMIUM=${CHROMIUM:-chromium}
DEPTH=${DEPTH:-10}

command -v "$CHROMIUM" >/dev/null || {
    echo "no $CHROMIUM: apt-get install chromium" >&2
    exit 2
}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6??: the last move tinted, the mate in
# one that it allows as an arrow.
"$BIN" fen svg "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4" \
    --last g8f6 --arrow h5f7 --out "$WORK/diagram.svg"

# A short game with known blunders: a queen left hanging and missed.
cat >"$WORK/game.pgn" <<'PGN'
[Event "Hanging queen"]
[Site "Forsyth screenshots"]
[Date "2026.12.04"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. d3 Be7 5. Ng5 O-O 6. Qh5 d6 7. Qf3 *
PGN
"$BIN" annotate "$WORK/game.pgn" --depth "$DEPTH" --threads 1 --html "$WORK/report.html"

# One browser profile for this run only; --no-sandbox for root (CI).
shot() { # FILE.{svg,html} OUT.png WIDTH HEIGHT
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$WORK/profile" --window-size="$3,$4" \
        --screenshot="$2" "file://$1" >"$WORK/chromium.log" 2>&1 || {
        cat "$WORK/chromium.log" >&2
        exit 1
    }
    [ -s "$2" ] || { echo "no $2" >&2; exit 1; }
}
shot "$WORK/diagram.svg" "$WORK/diagram.png" 384 384
# Taller than the page: the white below it is cut off next.
shot "$WORK/report.html" "$WORK/report.png" 800 2400

# ImageMagick, if there, under either of its names.
IM=
for c in magick convert /usr/bin/convert; do
    if "$c" -version 2>/dev/null | grep -q ImageMagick; then IM=$c; break; fi
done
if [ -n "$IM" ]; then
    # Where the page's content ends (trim's box: WxH+X+Y); the full width
    # and the top margin are kept, the white below cut off.
    box=$("$IM" "$WORK/report.png" -format '%@' info:)
    bottom=$(echo "$box" | sed 's/^[0-9]*x\([0-9]*\)+[0-9]*+\([0-9]*\)$/\1 \2/' | awk '{print $1 + $2 + 24}')
    "$IM" "$WORK/report.png" -crop "800x$bottom+0+0" +repage "$WORK/report.png"
fi
for f in diagram report; do
    if command -v pngquant >/dev/null; then
        pngquant --force --quality 60-90 --output "$OUT/$f.png" "$WORK/$f.png"
    else
        cp "$WORK/$f.png" "$OUT/$f.png"
    fi
    echo "$OUT/$f.png: $(wc -c <"$OUT/$f.png") bytes"
done

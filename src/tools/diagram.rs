//! Board diagrams as SVG: `forsyth fen svg` and the diagrams of
//! `forsyth annotate --html`.
//!
//! Pure functions from a position to text: the SVG needs nothing outside
//! itself (no fonts, images or stylesheets), so that it shows the same in a
//! browser, an article or a chat message. The piece shapes are our own
//! drawing, on a 45 by 45 grid, from a few paths and circles each.
//!
//! Every piece is one `<g class="piece wK" data-square="e1">` element, and
//! the root carries `data-fen`, so that a program (our tests) can read the
//! board back from the picture. No element has an `id`: a page holds many
//! diagrams, and ids would clash.

use crate::engine::chess::{Color, Move, Piece, PieceType, Position, Square};
use std::fmt::Write;

/// The side of a square, in SVG units.
pub const SQUARE: f64 = 45.0;
/// Room for the rank digits on the left and the file letters below.
pub const MARGIN: f64 = 20.0;
/// Room above and to the right, so that the border is not cut off.
pub const EDGE: f64 = 4.0;
/// The width and height of the whole picture, in SVG units.
pub const SIZE: f64 = MARGIN + 8.0 * SQUARE + EDGE;

const LIGHT: &str = "#eedcb4";
const DARK: &str = "#b88a62";

/// What an arrow means, which sets its colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// The engine's move, or one asked for on the command line: green.
    Good,
    /// A move that was played and was a mistake: red.
    Bad,
}

impl ArrowKind {
    fn class(self) -> &'static str {
        match self {
            ArrowKind::Good => "good",
            ArrowKind::Bad => "bad",
        }
    }

    fn colour(self) -> &'static str {
        match self {
            ArrowKind::Good => "#1b7f2a",
            ArrowKind::Bad => "#c8281e",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub from: Square,
    pub to: Square,
    pub kind: ArrowKind,
}

/// How to draw a position.
#[derive(Clone, Debug, Default)]
pub struct Diagram {
    /// From Black's side: a8 at the bottom right.
    pub flip: bool,
    /// The two squares of the last move, tinted.
    pub last: Option<(Square, Square)>,
    pub arrows: Vec<Arrow>,
    /// Width and height in pixels (default: the SVG units, [`SIZE`]).
    pub pixels: Option<u32>,
}

/// The squares a move is drawn between: castling (king takes rook inside
/// the engine) is drawn as the king's own step, to where it lands, unless
/// the king does not move (Chess960), when it points at its rook.
pub fn move_squares(m: Move) -> (Square, Square) {
    if m.is_castling() && m.castling_king_to() != m.from() {
        (m.from(), m.castling_king_to())
    } else {
        (m.from(), m.to())
    }
}

/// Two squares written together, as in UCI (`e2e4`; a promotion letter
/// after them is allowed and ignored).
pub fn parse_squares(text: &str) -> Result<(Square, Square), String> {
    let bad = || format!("'{text}' is not two squares such as e2e4");
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return Err(bad());
    }
    let from = Square::parse(&text[..2]).ok_or_else(bad)?;
    let to = Square::parse(&text[2..4]).ok_or_else(bad)?;
    if text.len() == 5 && PieceType::from_letter(text.as_bytes()[4] as char).is_none() {
        return Err(bad());
    }
    if from == to {
        return Err(format!("'{text}': the two squares are the same"));
    }
    Ok((from, to))
}

/// The top left corner of a square in SVG units.
fn corner(sq: Square, flip: bool) -> (f64, f64) {
    let (col, row) = if flip {
        (7 - sq.file(), sq.rank())
    } else {
        (sq.file(), 7 - sq.rank())
    };
    (
        MARGIN + f64::from(col) * SQUARE,
        EDGE + f64::from(row) * SQUARE,
    )
}

fn centre(sq: Square, flip: bool) -> (f64, f64) {
    let (x, y) = corner(sq, flip);
    (x + SQUARE / 2.0, y + SQUARE / 2.0)
}

/// `&`, `<`, `>` and `"` escaped, for text and attribute values alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// The class naming a piece: `w` or `b` and its SAN letter (`wK`, `bP`).
pub fn piece_class(p: Piece) -> String {
    let colour = match p.color() {
        Color::White => 'w',
        Color::Black => 'b',
    };
    format!("{colour}{}", p.kind().letter().to_ascii_uppercase())
}

/// A piece's shape on the 45 by 45 grid: the outline, filled in the
/// piece's colour, and inner lines drawn in the other colour.
struct Shape {
    body: &'static str,
    detail: &'static str,
}

fn shape(kind: PieceType) -> Shape {
    match kind {
        // A ball on a flared stem, on a round foot.
        PieceType::Pawn => Shape {
            body: r#"<circle cx="22.5" cy="13" r="5.5"/><path d="M18.5 18.5h8l-1.5 3c3 2.5 5 6.5 5.5 11.5h-16c.5-5 2.5-9 5.5-11.5z"/><path d="M12 39c0-3.5 2-5.5 5-5.5h11c3 0 5 2 5 5.5z"/>"#,
            detail: "",
        },
        // A horse's head looking left: ears, forehead, muzzle, the chest
        // curving down to the foot.
        PieceType::Knight => Shape {
            body: r#"<path d="M13 39h21c.5-10-1-18-4.5-23.5-2-3-4.5-5-7.5-6l-1.5-3.5-2 3.5-2.5-2.5v4.5c-3.5 2.5-6.5 7-8.5 12-.8 2 .2 4 2.5 4 2 0 3-1.5 5-2.8 2-1.2 4.5-1.2 6.5-3.7-1 5.5-5.5 8.5-7.5 12.5-1 2-1.5 4-1.5 5.5z"/>"#,
            detail: "M14.8 16.2a1.2 1.2 0 1 0 .1 0M10.5 24.5l1.5-1",
        },
        // A mitre with its slit, a ball on top, on a foot.
        PieceType::Bishop => Shape {
            body: r#"<circle cx="22.5" cy="8.5" r="2.8"/><path d="M22.5 11.5c-6 4-9.5 9-9.5 14 0 3.5 2.5 5.5 5 6.5h9c2.5-1 5-3 5-6.5 0-5-3.5-10-9.5-14z"/><path d="M11 39c3 0 6-1 7.5-4.5h8c1.5 3.5 4.5 4.5 7.5 4.5z"/>"#,
            detail: "M26 17l-5 5M20 27.5h5M22.5 25v5",
        },
        // A tower with three merlons, on a plinth.
        PieceType::Rook => Shape {
            body: r#"<path d="M10 39h25v-4h-3l-2-17h3v-8h-5v3h-3v-3h-5v3h-3v-3h-5v8h3l-2 17h-3z"/>"#,
            detail: "M15 18h15M13 35h19",
        },
        // A crown of five points with balls, on a band.
        PieceType::Queen => Shape {
            body: r#"<path d="M11 35 9 15l5.5 10L16 12l3.5 12 3-14.5 3 14.5L29 12l1.5 13L36 15l-2 20z"/><circle cx="9" cy="13.5" r="2.2"/><circle cx="16" cy="10.5" r="2.2"/><circle cx="22.5" cy="8" r="2.2"/><circle cx="29" cy="10.5" r="2.2"/><circle cx="36" cy="13.5" r="2.2"/><path d="M11 35c4-1.5 19-1.5 23 0l1 4H10z"/>"#,
            detail: "M12 31.5c5-1.5 16-1.5 21 0",
        },
        // A cross over two rounded lobes, on a band.
        PieceType::King => Shape {
            body: r#"<path d="M21 4h3v3h3v3h-3v4.5h-3V10h-3V7h3z"/><path d="M11.5 33c-5.5-6-3.5-14.5 3.5-14.5 3.5 0 6 2 7.5 5.5 1.5-3.5 4-5.5 7.5-5.5 7 0 9 8.5 3.5 14.5z"/><path d="M11.5 33h22l1.5 6H10z"/>"#,
            detail: "M22.5 24v9M12.5 36h20",
        },
    }
}

/// One piece, its top left corner at (`x`, `y`).
fn piece_svg(out: &mut String, p: Piece, sq: Square, x: f64, y: f64) {
    let (fill, line) = match p.color() {
        Color::White => ("#fdfdfd", "#1a1a1a"),
        Color::Black => ("#262626", "#e8e8e8"),
    };
    let s = shape(p.kind());
    let _ = write!(
        out,
        r##"<g class="piece {}" data-square="{sq}" transform="translate({x} {y})" fill="{fill}" stroke="#111" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round">{}"##,
        piece_class(p),
        s.body
    );
    if !s.detail.is_empty() {
        let _ = write!(
            out,
            r#"<path d="{}" fill="none" stroke="{line}" stroke-width="1.3"/>"#,
            s.detail
        );
    }
    out.push_str("</g>");
}

/// An arrow from the centre of one square to near the centre of the
/// other, as one polygon (markers would need ids, which clash on a page
/// of many diagrams).
fn arrow_svg(out: &mut String, a: &Arrow, flip: bool) {
    let (x1, y1) = centre(a.from, flip);
    let (x2, y2) = centre(a.to, flip);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1.0 {
        return;
    }
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    // The tip stops short of the centre, so that the piece there shows.
    let tip = (x2 - ux * 6.0, y2 - uy * 6.0);
    let (head, half_head, half_shaft) = (17.0, 11.0, 4.5);
    let base = (tip.0 - ux * head, tip.1 - uy * head);
    let points = [
        (x1 + nx * half_shaft, y1 + ny * half_shaft),
        (base.0 + nx * half_shaft, base.1 + ny * half_shaft),
        (base.0 + nx * half_head, base.1 + ny * half_head),
        tip,
        (base.0 - nx * half_head, base.1 - ny * half_head),
        (base.0 - nx * half_shaft, base.1 - ny * half_shaft),
        (x1 - nx * half_shaft, y1 - ny * half_shaft),
    ];
    let points: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    let _ = write!(
        out,
        r#"<polygon class="arrow {}" data-from="{}" data-to="{}" points="{}" fill="{}" fill-opacity="0.75"/>"#,
        a.kind.class(),
        a.from,
        a.to,
        points.join(" "),
        a.kind.colour()
    );
}

/// The position as a complete SVG document.
pub fn svg(pos: &Position, d: &Diagram) -> String {
    let fen = pos.fen();
    let px = d.pixels.map_or_else(|| SIZE.to_string(), |p| p.to_string());
    let mut out = String::new();
    let side = if d.flip { "black" } else { "white" };
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="board" data-fen="{}" data-orientation="{side}" width="{px}" height="{px}" viewBox="0 0 {SIZE} {SIZE}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">"#,
        escape(&fen)
    );
    let _ = write!(out, "<title>{}</title>", escape(&fen));
    let _ = write!(
        out,
        r##"<rect x="0" y="0" width="{SIZE}" height="{SIZE}" fill="#ffffff"/>"##
    );
    for sq in Square::all() {
        let (x, y) = corner(sq, d.flip);
        // a1 is dark.
        let colour = if (sq.file() + sq.rank()) % 2 == 0 {
            DARK
        } else {
            LIGHT
        };
        let _ = write!(
            out,
            r#"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{colour}"/>"#
        );
    }
    if let Some((from, to)) = d.last {
        for sq in [from, to] {
            let (x, y) = corner(sq, d.flip);
            let _ = write!(
                out,
                r##"<rect class="last" data-square="{sq}" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="#e6d53c" fill-opacity="0.5"/>"##
            );
        }
    }
    if pos.in_check() {
        let sq = pos.king_square(pos.side_to_move());
        let (x, y) = centre(sq, d.flip);
        let _ = write!(
            out,
            r##"<circle class="check" data-square="{sq}" cx="{x}" cy="{y}" r="21" fill="#e0301e" fill-opacity="0.55"/>"##
        );
    }
    let _ = write!(
        out,
        r##"<rect x="{MARGIN}" y="{EDGE}" width="{}" height="{}" fill="none" stroke="#5a4632" stroke-width="1"/>"##,
        8.0 * SQUARE,
        8.0 * SQUARE
    );
    // Coordinates outside the board, where no piece covers them.
    for i in 0..8u8 {
        let file = if d.flip { 7 - i } else { i };
        let rank = if d.flip { i } else { 7 - i };
        let x = MARGIN + (f64::from(i) + 0.5) * SQUARE;
        let y = EDGE + 8.0 * SQUARE + 15.0;
        let _ = write!(
            out,
            r##"<text class="coord file" x="{x}" y="{y}" font-size="13" text-anchor="middle" fill="#333">{}</text>"##,
            (b'a' + file) as char
        );
        let y = EDGE + (f64::from(i) + 0.5) * SQUARE + 4.5;
        let _ = write!(
            out,
            r##"<text class="coord rank" x="{}" y="{y}" font-size="13" text-anchor="middle" fill="#333">{}</text>"##,
            MARGIN / 2.0,
            rank + 1
        );
    }
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            let (x, y) = corner(sq, d.flip);
            piece_svg(&mut out, p, sq, x, y);
        }
    }
    for a in &d.arrows {
        arrow_svg(&mut out, a, d.flip);
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (class, square) of every piece element, read back from the text.
    fn pieces(svg: &str) -> Vec<(String, String)> {
        svg.split(r#"<g class="piece "#)
            .skip(1)
            .map(|rest| {
                let class = rest.split('"').next().unwrap_or("").to_string();
                let square = rest
                    .split("data-square=\"")
                    .nth(1)
                    .and_then(|s| s.split('"').next())
                    .unwrap_or("")
                    .to_string();
                (class, square)
            })
            .collect()
    }

    #[test]
    fn the_start_position_has_its_32_pieces() {
        let s = svg(&Position::startpos(), &Diagram::default());
        let p = pieces(&s);
        assert_eq!(p.len(), 32);
        assert!(p.contains(&("wK".into(), "e1".into())));
        assert!(p.contains(&("bQ".into(), "d8".into())));
        assert!(p.contains(&("wP".into(), "h2".into())));
        assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(s.ends_with("</svg>"));
        assert!(!s.contains(" id="));
    }

    #[test]
    fn squares_and_their_places() {
        // a1 is dark and at the bottom left from White's side, at the top
        // right from Black's.
        assert_eq!(corner(Square::A1, false), (MARGIN, EDGE + 7.0 * SQUARE));
        assert_eq!(corner(Square::A1, true), (MARGIN + 7.0 * SQUARE, EDGE));
        assert_eq!(corner(Square::H8, false), (MARGIN + 7.0 * SQUARE, EDGE));
        let s = svg(&Position::startpos(), &Diagram::default());
        let a1 = format!(
            r#"<rect x="{MARGIN}" y="{}" width="45" height="45" fill="{DARK}"/>"#,
            EDGE + 315.0
        );
        assert!(s.contains(&a1), "{s}");
    }

    #[test]
    fn arrows_and_the_last_move() {
        let d = Diagram {
            flip: true,
            last: Some((Square::E1, Square::G1)),
            arrows: vec![Arrow {
                from: Square::E1,
                to: Square::E8,
                kind: ArrowKind::Bad,
            }],
            pixels: Some(200),
        };
        let s = svg(&Position::startpos(), &d);
        assert!(s.contains(r#"class="arrow bad" data-from="e1" data-to="e8""#));
        assert!(s.contains(r#"<rect class="last" data-square="g1""#));
        assert!(s.contains(r#"width="200" height="200""#));
        assert!(s.contains(r#"data-orientation="black""#));
    }

    #[test]
    fn castling_is_drawn_as_the_kings_step() {
        let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
            .unwrap()
            .0;
        let m = pos.parse_san("O-O").unwrap();
        assert_eq!(move_squares(m), (Square::E1, Square::G1));
        // Chess960, king on g1 and rook on h1: the king stays, the arrow
        // points at the rook.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/6KR w H - 0 1")
            .unwrap()
            .0;
        let m = pos.parse_san("O-O").unwrap();
        assert_eq!(move_squares(m), (Square::G1, Square::H1));
    }

    #[test]
    fn squares_are_read_from_uci_text() {
        assert_eq!(
            parse_squares("e2e4"),
            Ok((Square::parse("e2").unwrap(), Square::parse("e4").unwrap()))
        );
        assert!(parse_squares("e7e8q").is_ok());
        for bad in ["", "e2", "e2e9", "e2e4x", "e2e2", "é2e4", "e2-e4"] {
            assert!(parse_squares(bad).is_err(), "{bad}");
        }
        assert_eq!(escape(r#"a<b&"c">"#), "a&lt;b&amp;&quot;c&quot;&gt;");
    }
}

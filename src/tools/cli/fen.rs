//! `forsyth fen check FEN` (validate and print normalised),
//! `forsyth fen show FEN` (draw the board as text) and
//! `forsyth fen svg FEN` (draw it as an SVG picture).

use super::args::{FenAction, FenSvgArgs};
use crate::engine::chess::{Color, Piece, PieceType, Position, Square};
use crate::tools::diagram::{self, Arrow, ArrowKind, Diagram};

pub fn run(action: &FenAction) -> Result<(), String> {
    let fen = match action {
        FenAction::Check { fen } | FenAction::Show { fen, .. } => fen,
        FenAction::Svg(a) => &a.fen,
    };
    // The FEN's error already names the field and the reason.
    let pos = super::read_fen(fen)?;
    match action {
        FenAction::Check { .. } => println!("{}", pos.fen()),
        FenAction::Show { ascii, .. } => print!("{}", board(&pos, *ascii)),
        FenAction::Svg(a) => svg(&pos, a)?,
    }
    Ok(())
}

/// The picture, on stdout or whole into `--out`; every option is checked
/// before anything is written.
fn svg(pos: &Position, a: &FenSvgArgs) -> Result<(), String> {
    let mut arrows = Vec::new();
    for text in &a.arrow {
        let (from, to) = diagram::parse_squares(text).map_err(|e| format!("bad --arrow {e}"))?;
        arrows.push(Arrow {
            from,
            to,
            kind: ArrowKind::Good,
        });
    }
    let last = match &a.last {
        Some(text) => Some(diagram::parse_squares(text).map_err(|e| format!("bad --last {e}"))?),
        None => None,
    };
    let d = Diagram {
        flip: a.flip,
        last,
        arrows,
        pixels: a.size,
    };
    let mut text = diagram::svg(pos, &d);
    text.push('\n');
    match &a.out {
        Some(path) => super::atomic::write(path, text.as_bytes()),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn symbol(p: Piece, ascii: bool) -> char {
    if ascii {
        return p.fen_char();
    }
    let white = ['♙', '♘', '♗', '♖', '♕', '♔'];
    let black = ['♟', '♞', '♝', '♜', '♛', '♚'];
    let i = match p.kind() {
        PieceType::Pawn => 0,
        PieceType::Knight => 1,
        PieceType::Bishop => 2,
        PieceType::Rook => 3,
        PieceType::Queen => 4,
        PieceType::King => 5,
    };
    match p.color() {
        Color::White => white[i],
        Color::Black => black[i],
    }
}

/// The board from White's side with the facts a FEN holds underneath.
pub fn board(pos: &Position, ascii: bool) -> String {
    let (top, side, bottom, empty) = if ascii {
        ("  +-----------------+", '|', "  +-----------------+", '.')
    } else {
        ("  ┌─────────────────┐", '│', "  └─────────────────┘", '·')
    };
    let mut s = format!("{top}\n");
    for rank in (0..8).rev() {
        s.push_str(&format!("{} {side}", rank + 1));
        for file in 0..8 {
            let c = pos
                .piece_at(Square::from_coords(file, rank))
                .map_or(empty, |p| symbol(p, ascii));
            s.push(' ');
            s.push(c);
        }
        s.push_str(&format!(" {side}\n"));
    }
    s.push_str(&format!("{bottom}\n    a b c d e f g h\n\n"));
    let fen = pos.fen();
    let fields: Vec<&str> = fen.split(' ').collect();
    let to_move = match pos.side_to_move() {
        Color::White => "white",
        Color::Black => "black",
    };
    let check = if pos.in_check() { ", in check" } else { "" };
    s.push_str(&format!("to move:    {to_move}{check}\n"));
    s.push_str(&format!(
        "castling:   {}\n",
        fields.get(2).copied().unwrap_or("-")
    ));
    s.push_str(&format!(
        "en passant: {}\n",
        fields.get(3).copied().unwrap_or("-")
    ));
    s.push_str(&format!(
        "halfmove clock {}, move {}\n",
        pos.halfmove_clock(),
        pos.fullmove_number()
    ));
    s.push_str(&format!("fen:        {fen}\n"));
    s
}

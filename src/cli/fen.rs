//! `forsyth fen check FEN` (validate and print normalised) and
//! `forsyth fen show FEN` (draw the board).

use super::args::FenAction;
use crate::chess::{Color, Piece, PieceType, Position, Square};

pub fn run(action: &FenAction) -> Result<(), String> {
    let fen = match action {
        FenAction::Check { fen } | FenAction::Show { fen, .. } => fen,
    };
    // The FEN's error already names the field and the reason.
    let pos = super::read_fen(fen)?;
    match action {
        FenAction::Check { .. } => println!("{}", pos.fen()),
        FenAction::Show { ascii, .. } => print!("{}", board(&pos, *ascii)),
    }
    Ok(())
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

//! Reading an EPD line: the position fields, optional FEN counters, then
//! operations. Tokens are words, quoted strings and `;`, so that `Qg6;`,
//! `Qg6 ;` and perft's `;D1 20` all read alike.

use super::{Epd, EpdError, Operand, OperandKind, Operation, operand_kind};
use crate::engine::chess::fen::Setup;
use crate::engine::chess::{Move, Position};

#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Word(&'a str),
    Quoted(&'a str),
    Semicolon,
}

/// The longest opcode the EPD standard allows.
const MAX_OPCODE: usize = 15;

fn tokens(text: &str) -> Result<Vec<Token<'_>>, EpdError> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        let Some(c) = rest.chars().next() else {
            return Ok(out);
        };
        match c {
            ';' => {
                out.push(Token::Semicolon);
                rest = &rest[1..];
            }
            '"' => {
                let body = &rest[1..];
                let end = body.find('"').ok_or(EpdError::UnterminatedString)?;
                out.push(Token::Quoted(&body[..end]));
                rest = &body[end + 1..];
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || c == ';' || c == '"')
                    .unwrap_or(rest.len());
                out.push(Token::Word(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
}

fn valid_opcode(s: &str) -> bool {
    s.len() <= MAX_OPCODE
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// An opcode with its operands as they were written.
struct RawOp<'a> {
    opcode: &'a str,
    operands: Vec<Token<'a>>,
}

pub(super) fn parse(line: &str) -> Result<Epd, EpdError> {
    let line = line.trim();
    // The four position fields are plain words.
    let mut fields = Vec::with_capacity(4);
    let mut rest = line;
    while fields.len() < 4 {
        rest = rest.trim_start();
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ';')
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(EpdError::MissingFields(fields.len()));
        }
        fields.push(&rest[..end]);
        rest = &rest[end..];
    }
    let toks = tokens(rest)?;
    let mut toks = toks.into_iter().peekable();

    // A full FEN's counters: operations start with a letter, so leading
    // numbers can only be the halfmove clock and the fullmove number.
    let mut counters = Vec::new();
    while counters.len() < 2 {
        match toks.peek() {
            Some(Token::Word(w)) if w.bytes().all(|b| b.is_ascii_digit()) => {
                counters.push(*w);
                toks.next();
            }
            _ => break,
        }
    }
    let fen = fields
        .iter()
        .chain(counters.iter())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let mut setup = Setup::parse(&fen)?;

    let mut raw: Vec<RawOp> = Vec::new();
    let mut current: Option<RawOp> = None;
    for tok in toks {
        match (tok, &mut current) {
            (Token::Semicolon, _) => raw.extend(current.take()),
            (Token::Word(w), None) if valid_opcode(w) => {
                current = Some(RawOp {
                    opcode: w,
                    operands: Vec::new(),
                })
            }
            (Token::Word(w), None) => return Err(EpdError::BadOpcode(w.to_string())),
            (Token::Quoted(q), None) => return Err(EpdError::BadOpcode(format!("\"{q}\""))),
            (t, Some(op)) => op.operands.push(t),
        }
    }
    // The last operation's `;` is often forgotten.
    raw.extend(current);

    // The counters an operation gives win over the FEN's.
    for op in &raw {
        match op.opcode {
            "hmvc" => setup.halfmove = counter(op)?,
            "fmvn" => setup.fullmove = counter(op)?.max(1),
            _ => {}
        }
    }
    let (position, warnings) = Position::from_setup(&setup)?;
    let ops = raw
        .iter()
        .map(|op| typed(op, &position))
        .collect::<Result<_, _>>()?;
    Ok(Epd {
        position,
        warnings,
        ops,
    })
}

fn counter(op: &RawOp) -> Result<u32, EpdError> {
    let n = single_int(op)?;
    u32::try_from(n).map_err(|_| EpdError::BadInteger {
        opcode: op.opcode.to_string(),
        text: n.to_string(),
    })
}

fn text_of<'a>(t: &Token<'a>) -> &'a str {
    match t {
        Token::Word(s) | Token::Quoted(s) => s,
        Token::Semicolon => ";",
    }
}

fn single_int(op: &RawOp) -> Result<i64, EpdError> {
    let [t] = op.operands.as_slice() else {
        return Err(EpdError::OperandCount {
            opcode: op.opcode.to_string(),
            found: op.operands.len(),
        });
    };
    let text = text_of(t);
    // `+` is allowed: writers often sign evaluations.
    text.strip_prefix('+')
        .unwrap_or(text)
        .parse()
        .map_err(|_| EpdError::BadInteger {
            opcode: op.opcode.to_string(),
            text: text.to_string(),
        })
}

/// A move in SAN or, failing that, UCI notation.
fn read_move(pos: &Position, opcode: &str, text: &str) -> Result<Move, EpdError> {
    match pos.parse_san(text) {
        Ok(m) => Ok(m),
        Err(san) => pos.parse_uci_move(text).map_err(|_| EpdError::BadMove {
            opcode: opcode.to_string(),
            text: text.to_string(),
            reason: san.to_string(),
        }),
    }
}

fn typed(op: &RawOp, pos: &Position) -> Result<Operation, EpdError> {
    let operands = match operand_kind(op.opcode) {
        OperandKind::Moves => op
            .operands
            .iter()
            .map(|t| read_move(pos, op.opcode, text_of(t)).map(Operand::Move))
            .collect::<Result<_, _>>()?,
        OperandKind::Line => {
            let mut p = pos.clone();
            let mut line = Vec::with_capacity(op.operands.len());
            for t in &op.operands {
                let m = read_move(&p, op.opcode, text_of(t))?;
                p.play(m);
                line.push(Operand::Move(m));
            }
            line
        }
        OperandKind::Int => vec![Operand::Int(single_int(op)?)],
        OperandKind::Text => op
            .operands
            .iter()
            .map(|t| Operand::Str(text_of(t).to_string()))
            .collect(),
        OperandKind::Other => op
            .operands
            .iter()
            .map(|t| match t {
                Token::Quoted(s) => Operand::Str(s.to_string()),
                other => Operand::Word(text_of(other).to_string()),
            })
            .collect(),
    };
    Ok(Operation {
        opcode: op.opcode.to_string(),
        operands,
    })
}

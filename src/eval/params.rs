//! The evaluation's parameters: one flat list of packed scores that the
//! evaluation reads and the tuner (`forsyth tune`) writes. This file says
//! where each term lives in the list; `values.rs`, written by the tuner,
//! holds the numbers.
//!
//! Every parameter is a bonus for the side that has the feature (a
//! negative value is a penalty). The king-danger block is different: its
//! middlegame halves are units of danger to the king they attack, summed
//! and then turned into a penalty that grows with the square of the sum
//! (see `eval::king_danger`); their endgame halves are unused.

/// A named, contiguous run of parameters.
#[derive(Copy, Clone, Debug)]
pub struct Block {
    pub name: &'static str,
    pub start: usize,
    pub len: usize,
    pub group: Group,
    pub doc: &'static str,
}

/// The rows of the `eval` table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Group {
    Material,
    Placement,
    Mobility,
    Pawns,
    Passed,
    King,
    Pieces,
    Threats,
    Tempo,
}

impl Group {
    pub const ALL: [Group; 9] = [
        Group::Material,
        Group::Placement,
        Group::Mobility,
        Group::Pawns,
        Group::Passed,
        Group::King,
        Group::Pieces,
        Group::Threats,
        Group::Tempo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Group::Material => "Material",
            Group::Placement => "Placement",
            Group::Mobility => "Mobility",
            Group::Pawns => "Pawns",
            Group::Passed => "Passed pawns",
            Group::King => "King safety",
            Group::Pieces => "Pieces",
            Group::Threats => "Threats",
            Group::Tempo => "Tempo",
        }
    }
}

macro_rules! layout {
    (@at $off:expr;) => {
        /// The number of parameters.
        pub const COUNT: usize = $off;
    };
    (@at $off:expr; $name:ident [$len:expr] $group:ident $doc:literal, $($rest:tt)*) => {
        #[doc = $doc]
        pub const $name: usize = $off;
        layout!(@at $off + $len; $($rest)*);
    };
    ($($name:ident [$len:expr] $group:ident $doc:literal,)*) => {
        layout!(@at 0; $($name [$len] $group $doc,)*);
        /// Every block, in order.
        pub const BLOCKS: &[Block] = &[$(Block {
            name: stringify!($name),
            start: $name,
            len: $len,
            group: Group::$group,
            doc: $doc,
        }),*];
    };
}

layout! {
    MATERIAL[5] Material "Pawn, knight, bishop, rook, queen.",
    PST[384] Placement "Piece-square tables, 64 squares per piece type (pawn..king), from the owner's side (a1 = its own queen's rook square).",
    MOBILITY_KNIGHT[9] Mobility "By the number of safe squares a knight attacks.",
    MOBILITY_BISHOP[14] Mobility "By the number of safe squares a bishop attacks.",
    MOBILITY_ROOK[15] Mobility "By the number of safe squares a rook attacks.",
    MOBILITY_QUEEN[28] Mobility "By the number of safe squares a queen attacks.",
    PAWN_ISOLATED[1] Pawns "A pawn with no friendly pawn on the adjacent files.",
    PAWN_DOUBLED[1] Pawns "A pawn with a friendly pawn ahead of it on its file.",
    PAWN_BACKWARD[1] Pawns "A pawn behind its neighbours whose advance square an enemy pawn controls.",
    PAWN_CONNECTED[8] Pawns "A pawn defended by a pawn or beside one, by relative rank.",
    PAWN_CANDIDATE[8] Passed "A pawn on a half-open file with at least as many helpers as enemy stoppers, by relative rank.",
    PASSED_RANK[8] Passed "A passed pawn, by relative rank.",
    PASSED_FREE[8] Passed "A passed pawn whose next square is empty and not attacked, by relative rank.",
    PASSED_OWN_KING[8] Passed "Per square of distance from its own king to its next square, by relative rank.",
    PASSED_THEIR_KING[8] Passed "Per square of distance from the enemy king to its next square, by relative rank.",
    KING_SHIELD[8] King "By the relative rank of the nearest own pawn on each file around the king (0: none).",
    KING_STORM[8] King "By the relative rank of the nearest enemy pawn on each file around the king (0: none).",
    DANGER_ATTACKER[4] King "Danger units per knight, bishop, rook, queen attacking the king zone.",
    DANGER_ZONE_ATTACKS[1] King "Danger units per attack on a king-zone square.",
    DANGER_SAFE_CHECK[4] King "Danger units per safe checking square of a knight, bishop, rook, queen.",
    DANGER_WEAK_ZONE[1] King "Danger units per attacked king-zone square defended at most by the king or queen.",
    DANGER_NO_QUEEN[1] King "Danger units when the attacker has no queen.",
    DANGER_BASE[1] King "Danger units always counted (once there are attackers).",
    BISHOP_PAIR[1] Pieces "Two bishops or more.",
    ROOK_FILE[2] Pieces "A rook on an open file, on a half-open file.",
    QUEEN_FILE[2] Pieces "A queen on an open file, on a half-open file.",
    OUTPOST[2] Pieces "A knight, bishop on a pawn-defended square no enemy pawn can attack (ranks 4 to 6).",
    THREAT_BY_PAWN[4] Threats "A knight, bishop, rook, queen attacked by a pawn.",
    THREAT_BY_MINOR[5] Threats "A pawn..queen attacked by a knight or bishop.",
    THREAT_BY_ROOK[5] Threats "A pawn..queen attacked by a rook.",
    HANGING[1] Threats "An enemy piece or pawn attacked and not defended.",
    TEMPO[1] Tempo "The side to move.",
}

/// The king-danger block, whose values are units rather than scores.
pub const DANGER_START: usize = DANGER_ATTACKER;
pub const DANGER_END: usize = DANGER_BASE + 1;

/// The block that holds parameter `i`.
pub fn block_of(i: usize) -> &'static Block {
    let k = BLOCKS.partition_point(|b| b.start + b.len <= i);
    &BLOCKS[k.min(BLOCKS.len() - 1)]
}

/// A readable name for parameter `i`, such as `PST[knight e4]`.
pub fn name_of(i: usize) -> String {
    let b = block_of(i);
    let k = i - b.start;
    if b.start == PST {
        const KINDS: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
        let sq = k % 64;
        let file = (b'a' + (sq % 8) as u8) as char;
        format!("{}[{} {}{}]", b.name, KINDS[k / 64], file, sq / 8 + 1)
    } else if b.len == 1 {
        b.name.to_string()
    } else {
        format!("{}[{k}]", b.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_the_list() {
        let mut next = 0;
        for b in BLOCKS {
            assert_eq!(b.start, next, "{}", b.name);
            next += b.len;
        }
        assert_eq!(next, COUNT);
        assert_eq!(block_of(PST + 70).name, "PST");
        assert_eq!(name_of(PST + 64 + 28), "PST[knight e4]");
        assert_eq!(name_of(TEMPO), "TEMPO");
        assert_eq!(name_of(MOBILITY_ROOK + 3), "MOBILITY_ROOK[3]");
        assert!(BLOCKS[..].iter().all(|b| {
            let danger = (DANGER_START..DANGER_END).contains(&b.start);
            danger == b.name.starts_with("DANGER")
        }));
    }
}

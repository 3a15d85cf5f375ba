//! `bench`: a fixed set of positions searched to a fixed depth with one
//! thread and a fresh 16 MB table each, so the node count is deterministic.
//! Every commit that changes the search or the evaluation quotes it.

use super::{Job, Limits, SearchOptions, SearchPool};
use crate::engine::chess::Position;
use std::time::{Duration, Instant};

pub const DEFAULT_DEPTH: u32 = 13;

/// Openings, middlegames (quiet and tactical), endgames and Chess960 starts.
pub const POSITIONS: &[&str] = &[
    // Openings.
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
    "rn2kb1r/pp3ppp/2p1pn2/3p3b/8/1P1P1NPP/PBPqPPB1/RN2K2R w KQkq - 0 9",
    "rn1qkb1r/pp2npp1/4p1bp/2ppP3/3P2PP/2P5/PP1NBP2/R1BQK1NR w KQkq - 0 9",
    "r1bq1r1k/1pp2ppp/p1np1n2/2b1p3/4P3/1BPP1N2/PP1N1PPP/R1BQ1RK1 w - - 2 9",
    "r1bqk2r/1pp1bppp/p1p5/2n1N3/8/8/PPPP1PPP/RNBQR1K1 w kq - 1 9",
    "r1bqk2r/2pp1ppp/p4n2/1p2p3/B2bP3/3P4/PPPN1PPP/R1BQ1RK1 w kq - 0 9",
    "rn1qkb1r/4pp1p/p1p2np1/1pPp4/3P4/2N1PP1P/PP3P2/R1BQKB1R w KQkq - 0 9",
    "r2qk1nr/1pp1b1pp/p1np4/5b2/B2Pp3/2P2N2/PP2QPPP/RNB1K2R w KQkq - 2 9",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    // Middlegames.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r4rk1/ppp2ppp/2n5/2bqp3/8/P2PB3/1PP1NPPP/R2Q1RK1 w - - 0 1",
    "rb3qk1/pQ3ppp/4p3/3P4/8/1P3N2/1P3PPP/3R2K1 w - - 0 1",
    "r1bqr1k1/pp1nb1p1/4p2p/3p1p2/3P4/P1N1PNP1/1PQ2PP1/3RKB1R w K - 0 1",
    "3qrbk1/ppp1r2n/3pP2p/3P4/2P4P/1P3Q2/PB6/R4R1K w - - 0 1",
    "r1b1qrk1/2p2ppp/pb1pnn2/1p2pNB1/3PP3/1BP5/PP2QPPP/RN1R2K1 w - - 0 1",
    "2qr2k1/4b1p1/2p2p1p/1pP1p3/p2nP3/PbQNB1PP/1P3PK1/4RB2 b - - 0 1",
    "4rrk1/pppb4/7p/3P2pq/3Qn3/P5P1/1PP4P/R3RNNK b - - 0 1",
    "6k1/5p1p/2bP2pb/4p3/2P5/1p1pNPPP/1P1Q1BK1/1q6 b - - 0 1",
    "6kr/1q2r1p1/1p2N1Q1/5p2/1P1p4/6R1/7P/2R3K1 w - - 0 1",
    "r3r1k1/5pp1/p1p4p/2Pp4/8/q1NQP1BP/5PP1/4K2R b K - 0 1",
    "r3k2r/2p2p2/p2p1n2/1p2p3/4P2p/1PPPPp1q/1P5P/R1N2QRK b kq - 0 1",
    "rr4k1/p1pq2pp/Q1n1pn2/2bpp3/4P3/2PP1NN1/PP3PPP/R1B1K2R b KQ - 0 1",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "r1bqkb1r/pp3ppp/2np1n2/4p1B1/3NP3/2N5/PPP2PPP/R2QKB1R w KQkq e6 0 7",
    // Endgames.
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "8/3b2kp/4p1p1/pr1n4/N1N4P/1P4P1/1K3P2/3R4 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/1r1B3R/3K1k2/8/8/8 b - - 0 75",
    "8/4r3/8/K7/4R3/8/8/5k2 w - - 0 1",
    "8/6P1/p7/8/8/8/8/1K1k4 w - - 0 1",
    "8/8/1n5B/8/8/8/6K1/2k5 b - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/5pk1/6p1/7p/2R4P/6P1/r4PK1/8 b - - 0 1",
    "8/8/4k3/8/2KQ4/8/8/8 w - - 0 1",
    // Chess960 starts and middlegames.
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "q1bnrkr1/ppppp2p/2n2p2/4b1p1/2NP4/8/PPP1PPPP/QNB1RRKB w ge - 1 9",
    "2rnbkrb/pqppppp1/1pn5/7p/2P5/P1R5/QP1PPPPP/1N1NBKRB w Ggc - 4 9",
    "q1rknr1b/1ppppppb/2n5/p2B3p/8/1PN3P1/P1PPPP1P/Q1RKNRB1 w FCfc - 3 9",
    "b2rkrnb/pqp1pppp/n7/1p1p4/P7/N1P2N2/1P1PPPPP/B1QRKR1B w FDfd - 4 9",
    "r1bnnkrb/q1ppp1pp/p7/1p3pB1/2P1P3/3P4/PP3PPP/RQ1NNKRB w GAga - 2 9",
    "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
];

/// Total nodes and time over the bench positions, each searched to
/// `depth` with the active network.
pub fn run(depth: u32) -> Result<(u64, Duration), String> {
    let mut pool = SearchPool::new(16, 1)?;
    let mut nodes = 0;
    let start = Instant::now();
    for fen in POSITIONS {
        let (root, _) =
            Position::from_fen(fen).map_err(|e| format!("bench position {fen}: {e}"))?;
        pool.clear();
        let result = pool.search(Job {
            root,
            history: Vec::new(),
            limits: Limits {
                depth: Some(depth),
                ..Limits::default()
            },
            options: SearchOptions::default(),
        });
        nodes += result.nodes;
    }
    Ok((nodes, start.elapsed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_varied() {
        assert!(POSITIONS.len() >= 40);
        for fen in POSITIONS {
            let (pos, warnings) = Position::from_fen(fen).unwrap();
            assert!(warnings.is_empty(), "{fen}: {warnings:?}");
            assert!(pos.count_legal() > 0, "{fen}");
        }
    }
}

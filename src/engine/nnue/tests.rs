use super::forward::{output, screlu_dot, screlu_dot_portable};
use super::network::{HEADER_BYTES, MAX_OUTPUT_WEIGHT};
use super::simd::{self, Level};
use super::*;
use crate::engine::chess::{Move, MoveKind};
use crate::engine::rng::Rng;
use std::sync::Mutex;

fn position(fen: &str) -> Position {
    match Position::from_fen(fen) {
        Ok((pos, _)) => pos,
        Err(e) => panic!("{fen}: {e}"),
    }
}

/// The FENs of the shared perft suites (standard and Chess960).
fn suite_fens() -> Vec<String> {
    let mut fens = Vec::new();
    for file in ["standard.epd", "chess960.epd"] {
        let path = format!("{}/tests/data/perft/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            fens.push(line.split(';').next().unwrap_or("").trim().to_string());
        }
    }
    assert_eq!(fens.len(), 128 + 960);
    fens
}

/// The straightforward evaluation the optimised code must equal: every
/// accumulator from scratch in i64, SCReLU and the dot product in i64.
fn reference_eval(net: &Network, pos: &Position) -> i32 {
    let mut acc = [[0i64; HIDDEN]; 2];
    for side in Color::BOTH {
        for (n, a) in acc[side.index()].iter_mut().enumerate() {
            *a = i64::from(net.ft_bias[n]);
        }
        // Mirrored: this side's king on files e-h turns its view round.
        let king_file = pos.king_square(side).file();
        let mirror = net.mirrored() && king_file >= 4;
        for sq in pos.occupied() {
            let piece = pos.piece_at(sq).unwrap();
            let seen = if mirror {
                Square::from_coords(7 - sq.file(), sq.rank())
            } else {
                sq
            };
            let f = feature(side, piece, seen);
            for (n, a) in acc[side.index()].iter_mut().enumerate() {
                *a += i64::from(net.ft_weights[f * HIDDEN + n]);
            }
        }
    }
    let stm = pos.side_to_move();
    let buckets = net.buckets() as u32;
    let bucket = ((pos.occupied().count() - 2) / 32u32.div_ceil(buckets)) as usize;
    assert!(bucket < net.buckets());
    let mut sum = 0i64;
    for (half, side) in [stm, stm.flip()].into_iter().enumerate() {
        let at = (2 * bucket + half) * HIDDEN;
        let weights = &net.out_weights[at..at + HIDDEN];
        for (a, w) in acc[side.index()].iter().zip(weights) {
            let v = (*a).clamp(0, i64::from(QA));
            sum += v * v * i64::from(*w);
        }
    }
    output(sum, net.out_bias[bucket])
}

/// A network with random weights within the loader's bounds.
fn random_network(seed: u64) -> Network {
    random_shaped(seed, 1, false)
}

/// A random network with `buckets` output buckets, mirrored or not.
fn random_shaped(seed: u64, buckets: usize, mirrored: bool) -> Network {
    let mut rng = Rng::new(seed);
    let mut small = |limit: i64| (rng.below(2 * limit as usize + 1) as i64 - limit) as i16;
    let ft_weights = (0..INPUTS * HIDDEN).map(|_| small(400)).collect();
    let ft_bias = (0..HIDDEN).map(|_| small(300)).collect();
    let out_weights = (0..buckets * 2 * HIDDEN)
        .map(|_| small(i64::from(MAX_OUTPUT_WEIGHT)))
        .collect();
    let out_bias = (0..buckets).map(|b| 1234 - 500 * b as i32).collect();
    let net = Network::from_parts(ft_weights, ft_bias, out_weights, out_bias, mirrored);
    net.check_bounds().unwrap();
    net
}

/// Plays a random game from `pos`, checking after every move (and every
/// null move, played now and then) that the stack's accumulator equals the
/// one computed from scratch; returns the number of plies checked and
/// counts the kinds of the moves played (normal, promotion, en passant,
/// castling; then null moves and captures).
fn random_game(
    net: &Arc<Network>,
    mut pos: Position,
    rng: &mut Rng,
    plies: usize,
    kinds: &mut [usize; 6],
) -> usize {
    let mut stack = NnueStack::new(Arc::clone(net), plies + 2);
    stack.reset(Arc::clone(net), &pos);
    let mut checked = 0;
    for ply in 1..=plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        if !pos.in_check() && rng.below(10) == 0 {
            stack.push_null(ply);
            pos.play_null();
            kinds[4] += 1;
        } else {
            // Prefer the rare kinds so that every game has some.
            let rare: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| m.kind() != MoveKind::Normal)
                .collect();
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| pos.is_capture(*m))
                .collect();
            let m = if !rare.is_empty() && rng.below(4) != 0 {
                rare[rng.below(rare.len())]
            } else if !captures.is_empty() && rng.below(3) == 0 {
                captures[rng.below(captures.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            kinds[m.kind() as usize] += 1;
            kinds[5] += usize::from(pos.is_capture(m));
            stack.push(ply, &pos, m);
            pos.play(m);
        }
        // Not every ply is evaluated in a search: skip some, as it does.
        if rng.below(3) != 0 {
            let incremental = stack.accumulator(ply, &pos).clone();
            assert_eq!(
                incremental,
                Accumulator::refresh(net, &pos),
                "ply {ply}: {}",
                pos.fen()
            );
            assert_eq!(
                stack.evaluate(ply, &pos),
                reference_eval(net, &pos),
                "{}",
                pos.fen()
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn incremental_updates_equal_refreshes_in_random_games() {
    random_games_check(Arc::new(random_network(7)), 2026);
}

/// A mirrored network rebuilds a perspective whose king crosses between
/// files d and e (from the Finny table) and updates it otherwise: always
/// the accumulator computed from scratch, with every bucket's output.
#[test]
fn mirrored_bucketed_networks_update_exactly_in_random_games() {
    random_games_check(Arc::new(random_shaped(8, 8, true)), 2027);
}

fn random_games_check(net: Arc<Network>, seed: u64) {
    let mut rng = Rng::new(seed);
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        // Castling both ways, en passant and promotions come quickly.
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkbnr/pp1p1p1p/8/2pPpPpP/8/8/PPP1P1P1/RNBQKBNR w KQkq g6 0 5",
        "4k3/pppppppp/8/PPPPPPPP/8/8/8/4K3 w - - 0 1",
        // Chess960: king and rook on their castling squares already, and
        // king between two rooks on the b- and g-files.
        "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",
        "1rk3r1/pppppppp/8/8/8/8/PPPPPPPP/1RK3R1 w GBgb - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    ];
    let mut checked = 0;
    let mut kinds = [0usize; 6];
    for game in 0..2000 {
        let pos = position(starts[game % starts.len()]);
        checked += random_game(&net, pos, &mut rng, 60, &mut kinds);
    }
    assert!(checked > 50_000, "{checked} positions checked");
    assert!(
        kinds.iter().all(|&k| k > 300),
        "move kinds played: {kinds:?}"
    );
}

/// Every position of the perft suites, to depth 2: castling of every
/// Chess960 kind, en passant, promotions with capture.
#[test]
fn incremental_updates_equal_refreshes_over_the_perft_suites() {
    let net = Arc::new(random_network(11));
    let mut nodes = 0u64;
    for fen in suite_fens() {
        let root = position(&fen);
        let mut stack = NnueStack::new(Arc::clone(&net), 4);
        stack.reset(Arc::clone(&net), &root);
        for m in root.legal_moves() {
            let mut child = root.clone();
            stack.push(1, &root, m);
            child.play(m);
            assert_eq!(
                stack.accumulator(1, &child),
                &Accumulator::refresh(&net, &child),
                "{fen} {m:?}"
            );
            for m2 in child.legal_moves() {
                let mut grandchild = child.clone();
                stack.push(2, &child, m2);
                grandchild.play(m2);
                assert_eq!(
                    stack.accumulator(2, &grandchild),
                    &Accumulator::refresh(&net, &grandchild),
                    "{fen} {m:?} {m2:?}"
                );
                nodes += 1;
            }
        }
    }
    assert!(nodes > 500_000, "{nodes}");
}

/// The colour-flipped position, with the other side to move, is the same
/// position for the side to move: the same score, exactly.
#[test]
fn a_flipped_position_scores_the_same() {
    let nets = [Arc::new(random_network(3)), Arc::new(embedded())];
    for net in nets {
        for fen in suite_fens().iter().step_by(3) {
            let pos = position(fen);
            let flipped = pos.mirrored();
            let a = net.evaluate(&Accumulator::refresh(&net, &pos), &pos);
            let b = net.evaluate(&Accumulator::refresh(&net, &flipped), &flipped);
            assert_eq!(a, b, "{fen}");
        }
    }
}

/// The engine's evaluation (with the widest SIMD this CPU has) equals the
/// plain reference in every build.
#[test]
fn evaluation_equals_the_reference_in_every_build() {
    for net in [random_network(5), random_shaped(6, 8, true), embedded()] {
        for fen in suite_fens().iter().step_by(7) {
            let pos = position(fen);
            let acc = Accumulator::refresh(&net, &pos);
            assert_eq!(
                net.evaluate(&acc, &pos),
                reference_eval(&net, &pos),
                "{fen}"
            );
        }
    }
}

/// Runs `f` at every SIMD level this CPU has, narrowest first, and returns
/// the level and result of each. The level is the whole process's, so the
/// tests that change it take turns; other tests running meanwhile get
/// another level's bits, which are the same bits.
fn at_every_level<T>(f: impl Fn() -> T) -> Vec<(Level, T)> {
    static TURN: Mutex<()> = Mutex::new(());
    /// Gives back the detected level however `f` ends.
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            simd::force(simd::detect());
        }
    }
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let _restore = Restore;
    let mut results = Vec::new();
    for wanted in [Level::Portable, Level::Avx2, Level::Avx512] {
        if simd::force(wanted) == wanted {
            assert_eq!(simd::level(), wanted);
            results.push((wanted, f()));
        }
    }
    results
}

/// The levels a CPU must be tested at: every one it has. On an x86-64
/// machine with AVX2 a test that saw only the portable code would prove
/// nothing, so this fails there rather than pass.
fn expected_levels() -> Vec<Level> {
    #[cfg(target_arch = "x86_64")]
    let levels = {
        let mut levels = vec![Level::Portable];
        if std::arch::is_x86_feature_detected!("avx2") {
            levels.push(Level::Avx2);
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                levels.push(Level::Avx512);
            }
        }
        levels
    };
    #[cfg(not(target_arch = "x86_64"))]
    let levels = vec![Level::Portable];
    assert_eq!(Some(&simd::detect()), levels.last());
    levels
}

#[test]
fn simd_and_portable_dot_products_agree() {
    let mut rng = Rng::new(99);
    let mut cases = Vec::new();
    for _ in 0..2000 {
        let mut acc = [0i16; HIDDEN];
        for a in &mut acc {
            // Beyond both clipping ends too.
            *a = (rng.below(1200) as i32 - 400) as i16;
        }
        let w: Vec<i16> = (0..HIDDEN)
            .map(|_| (rng.below(255) as i32 - 127) as i16)
            .collect();
        cases.push((acc, w));
    }
    // The extremes: every neuron saturated, every weight at either bound.
    let expected = HIDDEN as i64 * i64::from(QA * QA) * i64::from(MAX_OUTPUT_WEIGHT);
    cases.push(([i16::MAX; HIDDEN], vec![MAX_OUTPUT_WEIGHT; HIDDEN]));
    cases.push(([i16::MAX; HIDDEN], vec![-MAX_OUTPUT_WEIGHT; HIDDEN]));

    let portable: Vec<i64> = cases
        .iter()
        .map(|(acc, w)| screlu_dot_portable(acc, w))
        .collect();
    assert_eq!(portable[2000..], [expected, -expected]);
    let results = at_every_level(|| {
        cases
            .iter()
            .map(|(acc, w)| screlu_dot(acc, w))
            .collect::<Vec<i64>>()
    });
    let levels: Vec<Level> = results.iter().map(|(level, _)| *level).collect();
    assert_eq!(levels, expected_levels());
    for (level, dots) in results {
        assert!(dots == portable, "{level:?} differs from the portable code");
    }
}

/// Everything the network computes, at one SIMD level: for every fourth
/// position of the perft suites, with a random network and the embedded
/// one, the accumulator from scratch, the evaluation, the accumulator
/// without one piece, and then the stack's accumulators and evaluations
/// along a random line of eight moves.
fn everything_at_this_level(nets: &[Arc<Network>]) -> Vec<(Accumulator, i32)> {
    let mut seen = Vec::new();
    let mut rng = Rng::new(64);
    for net in nets {
        for fen in suite_fens().iter().step_by(4) {
            let mut pos = position(fen);
            let acc = Accumulator::refresh(net, &pos);
            let eval = net.evaluate(&acc, &pos);
            assert_eq!(eval, reference_eval(net, &pos), "{fen}");
            seen.push((acc, eval));
            let pieces: Vec<Square> = pos.occupied().into_iter().collect();
            let skip = pieces[rng.below(pieces.len())];
            let acc = Accumulator::refresh_without(net, &pos, skip);
            let eval = net.evaluate(&acc, &pos);
            seen.push((acc, eval));

            let mut stack = NnueStack::new(Arc::clone(net), 10);
            stack.reset(Arc::clone(net), &pos);
            for ply in 1..=8 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Castling, en passant and promotions whenever there are.
                let rare: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| m.kind() != MoveKind::Normal)
                    .collect();
                let m = if rare.is_empty() {
                    moves[rng.below(moves.len())]
                } else {
                    rare[rng.below(rare.len())]
                };
                stack.push(ply, &pos, m);
                pos.play(m);
                let eval = stack.evaluate(ply, &pos);
                assert_eq!(eval, reference_eval(net, &pos), "{}", pos.fen());
                seen.push((stack.accumulator(ply, &pos).clone(), eval));
            }
        }
    }
    seen
}

/// The portable fallback and every SIMD version of the accumulator
/// updates and the forward pass give the same accumulators and the same
/// evaluations, bit for bit (and the evaluations are the reference's,
/// checked as they are made).
#[test]
fn every_simd_level_computes_what_the_portable_code_does() {
    let nets = [
        Arc::new(random_network(13)),
        Arc::new(random_shaped(14, 8, true)),
        Arc::new(embedded()),
    ];
    let results = at_every_level(|| everything_at_this_level(&nets));
    let levels: Vec<Level> = results.iter().map(|(level, _)| *level).collect();
    assert_eq!(levels, expected_levels());
    let (_, portable) = &results[0];
    // 272 positions a network, each from scratch, without a piece and
    // along its line (shorter where the game ends).
    assert!(portable.len() > 3 * 272 * 9, "{}", portable.len());
    for (level, seen) in &results[1..] {
        assert_eq!(seen.len(), portable.len());
        for (k, (simd, plain)) in seen.iter().zip(portable).enumerate() {
            assert!(simd == plain, "{level:?} differs at record {k}");
        }
    }
}

#[test]
fn the_embedded_network_loads_and_round_trips() {
    let net = Network::from_bytes(EMBEDDED).expect("the embedded network loads");
    assert_eq!(net.to_bytes(), EMBEDDED);
    assert_eq!(embedded(), net);
}

/// What the loader says about damaged and foreign files; it never panics.
#[test]
fn bad_network_files_are_refused_with_a_reason() {
    let good = random_network(1).to_bytes();
    let at = |b: &mut Vec<u8>, i: usize, v: u32| b[i..i + 4].copy_from_slice(&v.to_le_bytes());
    let err = |b: &[u8]| Network::from_bytes(b).unwrap_err();

    assert_eq!(err(&good[..10]), NetworkError::TooShort(10));
    assert_eq!(err(&[]), NetworkError::TooShort(0));
    let mut b = good.clone();
    b[0] = b'X';
    assert_eq!(err(&b), NetworkError::BadMagic);
    let mut b = good.clone();
    at(&mut b, 8, 3);
    assert_eq!(err(&b), NetworkError::Version(3));
    let mut b = good.clone();
    at(&mut b, 20, 17);
    assert_eq!(
        err(&b),
        NetworkError::Architecture("output buckets", 17, 16)
    );
    let mut b = good.clone();
    at(&mut b, 36, 2);
    assert_eq!(err(&b), NetworkError::Flags(2));
    assert_eq!(
        err(&b).to_string(),
        "the network has flags 0x2, this engine knows only 0x1 (mirroring)"
    );
    // A file of 8 buckets whose header says 1 (or the other way round)
    // has the wrong payload length.
    let eight = random_shaped(2, 8, true).to_bytes();
    let mut b = eight.clone();
    at(&mut b, 20, 1);
    assert!(matches!(
        err(&b),
        NetworkError::Architecture("payload length", _, _)
    ));
    let mut b = good.clone();
    at(&mut b, 20, 8);
    assert!(matches!(
        err(&b),
        NetworkError::Architecture("payload length", _, _)
    ));
    // Version 1 files had no buckets or flags: 1 and 0 are all they may say.
    let mut b = eight.clone();
    at(&mut b, 8, 1);
    assert_eq!(err(&b), NetworkError::Architecture("output buckets", 8, 1));
    let mut b = good.clone();
    at(&mut b, 16, 512);
    assert_eq!(
        err(&b),
        NetworkError::Architecture("hidden size", 512, HIDDEN as u64)
    );
    assert_eq!(
        err(&b).to_string(),
        format!("the network has hidden size 512, this engine needs {HIDDEN}")
    );
    let mut b = good.clone();
    at(&mut b, 24, 181);
    assert_eq!(err(&b), NetworkError::Architecture("QA", 181, 255));
    let n = good.len();
    assert_eq!(err(&good[..n - 1]), NetworkError::Length(n - 1, n));
    let mut b = good.clone();
    b.push(0);
    assert_eq!(err(&b), NetworkError::Length(n + 1, n));
    let mut b = good.clone();
    b[HEADER_BYTES + 100] ^= 1;
    assert!(matches!(err(&b), NetworkError::Checksum(_, _)));

    // Weights beyond the bounds, in a file whose hash is right.
    let mut net = random_network(1);
    net.out_weights[3] = MAX_OUTPUT_WEIGHT + 1;
    let b = net.to_bytes();
    assert_eq!(
        err(&b),
        NetworkError::OutputWeight(3, MAX_OUTPUT_WEIGHT + 1)
    );
    net.out_weights[3] = -MAX_OUTPUT_WEIGHT;
    assert!(Network::from_bytes(&net.to_bytes()).is_ok());
    let mut net = random_network(1);
    for f in 0..INPUTS {
        net.ft_weights[f * HIDDEN + 9] = 2000;
    }
    assert_eq!(err(&net.to_bytes()), NetworkError::Overflow(9));

    // Random bytes of every length around a header.
    let mut rng = Rng::new(5);
    for len in 0..200 {
        let b: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        assert!(Network::from_bytes(&b).is_err());
    }
    assert_eq!(Network::from_bytes(&good).unwrap(), random_network(1));
}

#[test]
fn features_see_the_board_from_each_side() {
    use crate::engine::chess::PieceType;
    let wp = Piece::new(Color::White, PieceType::Pawn);
    let bk = Piece::new(Color::Black, PieceType::King);
    assert_eq!(feature(Color::White, wp, Square::from_coords(4, 1)), 12);
    assert_eq!(
        feature(Color::Black, wp, Square::from_coords(4, 1)),
        384 + 52
    );
    assert_eq!(
        feature(Color::White, bk, Square::from_coords(4, 7)),
        704 + 60
    );
    assert_eq!(
        feature(Color::Black, bk, Square::from_coords(4, 7)),
        320 + 4
    );
}

/// A version 1 file (before buckets and mirroring) is a version 2 file of
/// one bucket without mirroring, byte for byte but the version word.
#[test]
fn version_1_files_still_load() {
    let net = random_network(4);
    let mut b = net.to_bytes();
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(Network::from_bytes(&b).unwrap(), net);
}

#[test]
fn buckets_follow_the_piece_count() {
    let net = random_shaped(3, 8, false);
    let buckets: Vec<usize> = (2..=32).map(|n| net.bucket(n)).collect();
    let mut expected = vec![0; 4];
    for b in 1..8 {
        expected.extend(std::iter::repeat_n(b, 4));
    }
    expected.truncate(31);
    assert_eq!(buckets, expected);
    assert_eq!((net.bucket(5), net.bucket(6), net.bucket(32)), (0, 1, 7));
    let one = random_network(3);
    assert!((2..=32).all(|n| one.bucket(n) == 0));
    let round_trip = Network::from_bytes(&random_shaped(3, 8, true).to_bytes()).unwrap();
    assert_eq!((round_trip.buckets(), round_trip.mirrored()), (8, true));
}

/// Mirroring: a position and the same position with files a-h turned
/// round have the same features, hence the same evaluation, whenever
/// no castling right tells them apart (the network does not see rights).
#[test]
fn a_mirrored_network_cannot_tell_left_from_right() {
    let net = random_shaped(12, 8, true);
    let plain = random_shaped(12, 8, false);
    let mut differ = 0;
    for fen in suite_fens().iter().step_by(5) {
        let pos = position(fen);
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let board: Vec<String> = fields[0]
            .split('/')
            .map(|rank| {
                let mut squares = String::new();
                for c in rank.chars() {
                    match c.to_digit(10) {
                        Some(n) => squares.push_str(&"1".repeat(n as usize)),
                        None => squares.push(c),
                    }
                }
                squares.chars().rev().collect()
            })
            .collect();
        let turned = format!("{} {} - - 0 1", board.join("/"), fields[1]);
        let Ok((turned, _)) = Position::from_fen(&turned) else {
            continue;
        };
        let eval = |n: &Network, p: &Position| n.evaluate(&Accumulator::refresh(n, p), p);
        assert_eq!(eval(&net, &pos), eval(&net, &turned), "{fen}");
        differ += usize::from(eval(&plain, &pos) != eval(&plain, &turned));
    }
    assert!(differ > 100, "{differ}");
}

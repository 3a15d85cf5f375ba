use super::data::{self, DataError, DataOptions, Sample};
use super::model::{self, LossConfig, Params, Scratch, Shape};
use super::*;
use crate::engine::chess::{Color, PieceType, Position};
use crate::engine::nnue::{self, Accumulator, HIDDEN, Network, SCALE};
use crate::engine::rng::Rng;
use crate::tools::datagen::format::{GameResult, PackedPosition};

fn position(fen: &str) -> Position {
    match Position::from_fen(fen) {
        Ok((pos, _)) => pos,
        Err(e) => panic!("{fen}: {e}"),
    }
}

/// A fresh folder for one test's files.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("forsyth-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn sample_of(pos: &Position, score_white: i16, result: GameResult) -> Sample {
    let rec = PackedPosition::pack(pos, score_white, result);
    let mut s = Sample::with_capacity();
    data::decode(&rec.0, &mut s).unwrap();
    s
}

/// White's material minus Black's, in centipawns.
fn material(pos: &Position) -> i32 {
    let value = [100, 300, 300, 500, 900, 0];
    let mut total = 0;
    for kind in PieceType::ALL {
        let n = |c| pos.pieces(c, kind).count() as i32;
        total += value[kind.index()] * (n(Color::White) - n(Color::Black));
    }
    total
}

/// Random games whose positions are labelled by material: the synthetic
/// task a working trainer must learn. Returns the records' bytes.
fn material_games(games: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos();
        for _ in 0..rng.below(40) + 60 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Captures half the time, so that material comes off.
            let captures: Vec<_> = moves.iter().filter(|m| pos.is_capture(**m)).collect();
            let m = if !captures.is_empty() && rng.below(2) == 0 {
                *captures[rng.below(captures.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            pos.play(m);
            if !pos.in_check() {
                let score = material(&pos);
                let result = match score {
                    s if s > 150 => GameResult::WhiteWin,
                    s if s < -150 => GameResult::BlackWin,
                    _ => GameResult::Draw,
                };
                out.extend_from_slice(&PackedPosition::pack(&pos, score as i16, result).0);
            }
        }
    }
    out
}

fn small_options(dir: &Path, data: &Path, hidden: usize) -> Options {
    Options {
        data: vec![data.to_path_buf()],
        out: dir.join("net.nnue"),
        hidden,
        epochs: 2,
        batch: 256,
        lr: 0.002,
        lr_end: 0.0001,
        lambda: 1.0,
        scale: Some(400.0),
        min_ply: 0,
        validation_every: 10,
        threads: 2,
        seed: 5,
        ..Options::default()
    }
}

/// The gradients `backward` adds up equal central finite differences of
/// the loss, for every kind of parameter, on a tiny network.
#[test]
fn gradients_equal_finite_differences() {
    gradient_check(Shape::plain(8));
}

/// The same with output buckets (three buckets of ceil(32 / 3) = 11
/// pieces: the samples have 32, 32 and 10, so buckets 2, 2 and 0, and
/// bucket 1's weights get no gradient) and mirrored inputs (the second
/// sample's view is Black's, with its king on e8, the third's other view
/// Black's, king on h4).
#[test]
fn gradients_equal_finite_differences_with_buckets_and_mirroring() {
    gradient_check(Shape {
        hidden: 8,
        buckets: 3,
        mirrored: true,
    });
}

fn gradient_check(shape: Shape) {
    let hidden = shape.hidden;
    let mut p = Params::random(shape, 3);
    // Biases off zero so that the hidden units sit inside (0, 1) mostly.
    for (i, b) in p.ft_b.iter_mut().enumerate() {
        *b = 0.2 + 0.05 * i as f32;
    }
    p.out_b.fill(0.1);
    let cfg = LossConfig {
        lambda: 0.7,
        scale: 300.0,
    };
    let samples = [
        sample_of(&Position::startpos(), 30, GameResult::Draw),
        sample_of(
            &position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1"),
            -120,
            GameResult::BlackWin,
        ),
        sample_of(
            &position("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
            250,
            GameResult::WhiteWin,
        ),
    ];
    let total_loss = |p: &Params| {
        let mut scratch = Scratch::new(hidden);
        samples
            .iter()
            .map(|s| f64::from(model::loss(p, s, &cfg, &mut scratch)))
            .sum::<f64>()
    };
    let mut g = Params::zeros(shape);
    let mut scratch = Scratch::new(hidden);
    for s in &samples {
        model::backward(&p, s, &cfg, &mut scratch, &mut g);
    }
    let analytic: Vec<f32> = g.flat().copied().collect();
    let n = analytic.len();
    // The parameters to probe: rows of features that are active, the
    // biases and every output weight.
    let mut probes: Vec<usize> = Vec::new();
    let flips = (
        model::flip(&p, &samples[1].stm),
        model::flip(&p, &samples[2].nstm),
    );
    let rows = (samples[1].stm.iter().map(|&f| usize::from(f) ^ flips.0))
        .chain(samples[2].nstm.iter().map(|&f| usize::from(f) ^ flips.1));
    for f in rows.take(6) {
        for j in 0..hidden {
            probes.push(f * hidden + j);
        }
    }
    if shape.mirrored {
        assert_eq!(flips, (7, 7), "both samples' views are mirrored");
        let buckets: Vec<usize> = samples.iter().map(|s| p.bucket(s)).collect();
        assert_eq!(buckets, [2, 2, 0]);
    }
    let ft_b = nnue::INPUTS * hidden;
    probes.extend(ft_b..n);
    let mut checked = 0;
    for &i in &probes {
        let numeric = |eps: f32| {
            let mut plus = p.clone();
            let mut minus = p.clone();
            *plus.flat_mut().nth(i).unwrap() += eps;
            *minus.flat_mut().nth(i).unwrap() -= eps;
            (total_loss(&plus) - total_loss(&minus)) / (2.0 * f64::from(eps))
        };
        let (a, b) = (numeric(2e-3), numeric(1e-3));
        // Differences across a kink of SCReLU disagree with each other:
        // there the derivative is not defined; skip those.
        if (a - b).abs() > 1e-4 + 0.02 * a.abs() {
            continue;
        }
        let exact = f64::from(analytic[i]);
        assert!(
            (exact - b).abs() <= 2e-4 + 0.02 * b.abs(),
            "parameter {i}: backward {exact}, finite difference {b}"
        );
        checked += 1;
    }
    assert!(
        checked > probes.len() * 9 / 10,
        "{checked} of {}",
        probes.len()
    );
}

#[test]
fn a_material_count_is_learned() {
    let dir = temp_dir("material");
    let data = dir.join("material.bin");
    std::fs::write(&data, material_games(600, 1)).unwrap();
    let mut opts = small_options(&dir, &data, 32);
    opts.epochs = 8;
    let start = {
        let set = data::load(
            &opts.data,
            &DataOptions {
                min_ply: 0,
                validation_every: 10,
                max_records: 0,
                ..DataOptions::default()
            },
        )
        .unwrap();
        let cfg = LossConfig {
            lambda: 1.0,
            scale: 400.0,
        };
        mean_loss(
            &Params::random(Shape::plain(32), 5),
            &set.validation,
            &cfg,
            1,
        )
    };
    let summary = run(&opts).unwrap();
    let end = summary.validation_loss.unwrap();
    assert!(summary.train_positions > 30_000, "{summary:?}");
    assert!(start > 0.01, "untrained loss {start}");
    assert!(
        end < 0.001,
        "validation loss {end} after training (from {start})"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Trains a network of the engine's size briefly, then checks that the
/// engine's integer evaluation of its file follows the trainer's float
/// forward pass: exactly up to rounding on the file's own weights, and
/// within the quantisation error on the trained floats.
#[test]
fn written_networks_load_and_evaluate_as_trained() {
    written_network_check("roundtrip", 1, false);
}

/// The same for a network of 8 output buckets with mirrored inputs.
#[test]
fn bucketed_mirrored_networks_load_and_evaluate_as_trained() {
    written_network_check("roundtrip8m", 8, true);
}

fn written_network_check(name: &str, buckets: usize, mirrored: bool) {
    let dir = temp_dir(name);
    let data = dir.join("material.bin");
    std::fs::write(&data, material_games(100, 2)).unwrap();
    let mut opts = small_options(&dir, &data, HIDDEN);
    opts.epochs = 1;
    opts.buckets = buckets;
    opts.king_mirror = mirrored;
    run(&opts).unwrap();
    let bytes = std::fs::read(&opts.out).unwrap();
    let net = Network::from_bytes(&bytes).expect("the trainer's file loads");
    assert_eq!((net.buckets(), net.mirrored()), (buckets, mirrored));
    let float = read_checkpoint(
        &opts.checkpoint_path(),
        opts.shape(),
        opts.weight_decay,
        opts.fingerprint(400.0),
        data::fingerprint(&data::load(&opts.data, &data_options(&opts)).unwrap().train),
    )
    .unwrap()
    .params;
    let exact = dequantised(&net);
    let mut scratch = Scratch::new(HIDDEN);
    for fen in FENS {
        let pos = position(fen);
        let engine = net.evaluate(&Accumulator::refresh(&net, &pos), &pos);
        let s = sample_of(&pos, 0, GameResult::Draw);
        let z_exact = model::forward(&exact, &s, &mut scratch) * SCALE as f32;
        let z_float = model::forward(&float, &s, &mut scratch) * SCALE as f32;
        assert!(
            (engine as f32 - z_exact).abs() <= 1.5,
            "{fen}: engine {engine}, dequantised forward {z_exact}"
        );
        let bound = quantisation_bound(&float, &s);
        assert!(
            (engine as f32 - z_float).abs() <= bound,
            "{fen}: engine {engine}, float forward {z_float}, bound {bound}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// How far, in centipawns, quantising `p` can move its output on `s`: the
/// rounding of every output weight (0.5 / QB, times the activation it
/// multiplies), of every pre-activation (its features' and bias's
/// roundings of 0.5 / QA, through SCReLU's slope of at most 2, times the
/// output weight), of the output bias, and two centipawns for the final
/// integer divisions.
fn quantisation_bound(p: &Params, s: &Sample) -> f32 {
    use crate::engine::nnue::{QA, QB};
    let (h_us, h_them) = model::hidden(p, s);
    let mut bound = 0.5 / (QA * QB) as f32;
    let at = p.bucket(s) * 2 * p.hidden;
    for (h, n, w) in [
        (&h_us, s.stm.len(), &p.out_w[at..at + p.hidden]),
        (
            &h_them,
            s.nstm.len(),
            &p.out_w[at + p.hidden..at + 2 * p.hidden],
        ),
    ] {
        let delta = (n + 1) as f32 * 0.5 / QA as f32;
        for (x, w) in h.iter().zip(w) {
            let a = x.clamp(0.0, 1.0);
            bound += a * a * 0.5 / QB as f32;
            if *x > -delta && *x < 1.0 + delta {
                bound += w.abs() * 2.0 * delta;
            }
        }
    }
    bound * SCALE as f32 + 2.0
}

fn data_options(opts: &Options) -> DataOptions {
    DataOptions {
        min_ply: opts.min_ply,
        validation_every: opts.validation_every,
        max_records: opts.max_positions,
        filters: opts.filters,
        skip_bad: opts.skip_bad,
    }
}

/// Twenty positions of every phase, both sides to move.
const FENS: [&str; 20] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3q2K1 w - - 0 1",
    "8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1",
    "2kr3r/pp1q1ppp/2n1bn2/3p4/3P4/2NBBN2/PPQ2PPP/R4RK1 b - - 4 12",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPBN1PP1/R1BQR1K1 w - - 0 13",
    "8/5k2/8/3R4/8/8/5K2/3r4 b - - 0 60",
    "3r2k1/p4ppp/1p6/8/8/1P6/P4PPP/3R2K1 w - - 0 30",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "8/P5k1/8/8/8/8/5q2/K7 w - - 0 1",
    "1k6/8/8/8/8/8/6PP/6K1 b - - 0 1",
];

/// The embedded network's output on twenty positions is the trainer's
/// float forward pass on its weights, up to the final roundings.
#[test]
fn the_embedded_network_agrees_with_the_float_forward_pass() {
    let net = nnue::embedded();
    let exact = dequantised(&net);
    let mut scratch = Scratch::new(HIDDEN);
    for fen in FENS {
        let pos = position(fen);
        let engine = nnue::evaluate(&pos);
        let s = sample_of(&pos, 0, GameResult::Draw);
        let z = model::forward(&exact, &s, &mut scratch) * SCALE as f32;
        assert!(
            (engine as f32 - z).abs() <= 1.5,
            "{fen}: engine {engine}, float forward {z}"
        );
    }
}

/// Same data, seed and threads: the same bytes, whether the run goes
/// through at once or is stopped and resumed.
#[test]
fn runs_are_deterministic_and_resume_exactly() {
    let dir = temp_dir("resume");
    let data = dir.join("material.bin");
    std::fs::write(&data, material_games(80, 3)).unwrap();
    let whole = small_options(&dir, &data, 16);
    run(&whole).unwrap();
    let a = std::fs::read(&whole.out).unwrap();
    let a_ckpt = std::fs::read(whole.checkpoint_path()).unwrap();
    std::fs::remove_file(whole.checkpoint_path()).unwrap();
    run(&whole).unwrap();
    assert_eq!(
        std::fs::read(&whole.out).unwrap(),
        a,
        "a second run differs"
    );

    let mut broken = small_options(&dir, &data, 16);
    broken.out = dir.join("broken.nnue");
    broken.stop_after = 7;
    run(&broken).unwrap();
    assert!(broken.checkpoint_path().exists());
    assert!(!broken.out.exists(), "no epoch ended, no network yet");
    broken.stop_after = 0;
    run(&broken).unwrap();
    assert_eq!(
        std::fs::read(&broken.out).unwrap(),
        a,
        "the resumed run differs"
    );
    assert_eq!(std::fs::read(broken.checkpoint_path()).unwrap(), a_ckpt);

    // Another option: the checkpoint is not resumed silently.
    let mut other = small_options(&dir, &data, 16);
    other.out = broken.out.clone();
    other.lambda = 0.5;
    let err = run(&other).unwrap_err().to_string();
    assert!(err.contains("made with other options or data"), "{err}");
    let mut other = small_options(&dir, &data, 32);
    other.out = broken.out.clone();
    let err = run(&other).unwrap_err().to_string();
    assert!(err.contains("made with --hidden 16, not 32"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_data_is_one_clear_error() {
    let dir = temp_dir("bad");
    let opts = DataOptions {
        min_ply: 0,
        validation_every: 10,
        max_records: 0,
        ..DataOptions::default()
    };
    let load = |name: &str, bytes: Option<&[u8]>| {
        let path = dir.join(name);
        if let Some(b) = bytes {
            std::fs::write(&path, b).unwrap();
        }
        data::load(&[path], &opts).map(|_| ()).unwrap_err()
    };
    assert!(matches!(load("missing.bin", None), DataError::Io(..)));
    let good = material_games(2, 4);
    assert!(matches!(
        load("short.bin", Some(&good[..good.len() - 5])),
        DataError::Length(_, _)
    ));
    let mut bad = good.clone();
    bad[32 * 3 + 8] = 0x77; // piece code 7 in record 3
    let e = load("code.bin", Some(&bad));
    assert!(
        e.to_string()
            .ends_with("code.bin: record 3: piece code 7 is not a piece"),
        "{e}"
    );
    let mut bad = good.clone();
    bad[32 * 2 + 30] = 3;
    let e = load("result.bin", Some(&bad));
    assert!(
        e.to_string()
            .ends_with("record 2: result byte 3 is not 0, 1 or 2"),
        "{e}"
    );
    assert!(matches!(load("empty.bin", Some(&[])), DataError::Empty(_)));
    // Everything dropped by the ply filter is empty too.
    std::fs::write(dir.join("early.bin"), &good).unwrap();
    let e = data::load(
        &[dir.join("early.bin")],
        &DataOptions {
            min_ply: 10_000,
            ..opts.clone()
        },
    )
    .map(|_| ())
    .unwrap_err();
    assert!(e.to_string().starts_with("no training positions:"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_are_checked() {
    use crate::tools::cli::args::{Cli, Command};
    use clap::Parser;
    let parse = |line: &str| {
        let words = std::iter::once("forsyth train").chain(line.split_whitespace());
        let words: Vec<&str> = words.flat_map(|w| w.split(' ')).collect();
        match Cli::try_parse_from(words) {
            Ok(Cli {
                command: Some(Command::Train(a)),
            }) => {
                let o = a.options();
                o.validate().map(|()| o).map_err(|e| e.to_string())
            }
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        }
    };
    let ok = parse("--data a.bin --data b.bin --out n.nnue --hidden 128 --lambda 0.5 --mirror off")
        .unwrap();
    assert_eq!(ok.data.len(), 2);
    assert_eq!((ok.hidden, ok.lambda, ok.mirror), (128, 0.5, false));
    assert_eq!(ok.checkpoint_path(), PathBuf::from("n.nnue.ckpt"));
    let defaults = parse("--data a.bin --out n.nnue").unwrap();
    assert_eq!(
        defaults,
        Options {
            data: vec![PathBuf::from("a.bin")],
            out: PathBuf::from("n.nnue"),
            ..Options::default()
        }
    );
    for (line, why) in [
        ("--data a.bin", "--out <NET.nnue>"),
        ("--out n.nnue", "--data <FILE>"),
        (
            "--data a.bin --out n --hidden 100",
            "--hidden must be a multiple of 16",
        ),
        (
            "--data a.bin --out n --lambda 2",
            "--lambda must be between 0 and 1",
        ),
        ("--data a.bin --out n --epochs 0", "0 is not in 1.."),
        (
            "--data a.bin --out n --lr 0",
            "--lr and --lr-end must be positive",
        ),
        (
            "--data a.bin --out n --scale 0",
            "--scale must be a positive number",
        ),
        (
            "--data a.bin --out n --batch x",
            "invalid value 'x' for '--batch <N>'",
        ),
        (
            "--data a.bin --out n --mirror maybe",
            "'maybe' is not 'on' or 'off'",
        ),
        (
            "--data a.bin --out n --frobnicate 3",
            "unexpected argument '--frobnicate'",
        ),
    ] {
        let e = parse(line).unwrap_err();
        assert!(e.contains(why), "{line}: {e}");
    }
}

#[test]
fn the_scale_is_fitted_to_the_data() {
    // Scores that predict results through sigmoid(score / 250) exactly.
    let mut records = Vec::new();
    let mut rng = Rng::new(8);
    let pos = Position::startpos();
    for _ in 0..20_000 {
        let score = rng.below(1200) as i32 - 600;
        let p = model::sigmoid(score as f32 / 250.0);
        let result = if (rng.unit() as f32) < p {
            GameResult::WhiteWin
        } else {
            GameResult::BlackWin
        };
        records.push(PackedPosition::pack(&pos, score as i16, result).0);
    }
    let s = fit_scale(&records);
    assert!((230.0..=270.0).contains(&s), "fitted {s}");
}

#[test]
fn the_learning_rate_decays_by_cosine() {
    let o = Options {
        lr: 0.001,
        lr_end: 0.0001,
        ..Options::default()
    };
    assert!((learning_rate(&o, 0, 100) - 0.001).abs() < 1e-9);
    assert!((learning_rate(&o, 50, 100) - 0.00055).abs() < 1e-8);
    assert!((learning_rate(&o, 100, 100) - 0.0001).abs() < 1e-9);
}

/// The float weights that `net`'s integers stand for.
fn dequantised(net: &Network) -> Params {
    model::dequantise(
        Shape {
            hidden: HIDDEN,
            buckets: net.buckets(),
            mirrored: net.mirrored(),
        },
        &net.ft_weights,
        &net.ft_bias,
        &net.out_weights,
        &net.out_bias,
    )
}

/// One game with two opening plies, two captures, a mate score and a
/// position in check among its eight plies (see the comments), as a
/// game file's bytes, and the game.
fn filter_game() -> (Vec<u8>, crate::tools::datagen::games::Game) {
    use crate::tools::datagen::games::{Game, Ply, encode_games};
    let mut pos = Position::startpos();
    let mut game = Game::new(pos.clone(), GameResult::WhiteWin);
    game.opening_plies = 2;
    for (uci, score) in [
        ("e2e4", 0),       // opening
        ("d7d5", 0),       // opening
        ("e4d5", 30),      // capture
        ("d8d5", 20),      // capture
        ("b1c3", 10),      // kept
        ("d5e5", -31_900), // mate score
        ("f1e2", -40),     // in check
        ("e5g5", 5),       // kept
    ] {
        let mv = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.uci(false).to_string() == uci)
            .unwrap();
        game.plies.push(Ply { mv, score });
        pos.play(mv);
    }
    (encode_games(std::slice::from_ref(&game)), game)
}

fn games_options(min_ply: u32, filters: data::Filters) -> DataOptions {
    DataOptions {
        min_ply,
        validation_every: 0,
        max_records: 0,
        filters,
        skip_bad: false,
    }
}

#[test]
fn game_files_are_filtered_at_load_time() {
    let dir = temp_dir("games-filter");
    let (bytes, game) = filter_game();
    let path = dir.join("g.games");
    std::fs::write(&path, &bytes).unwrap();
    let on = data::Filters::default();
    let set = data::load(std::slice::from_ref(&path), &games_options(0, on)).unwrap();
    assert_eq!((set.read, set.games, set.dropped), (8, 1, 6));
    assert_eq!(
        set.drops,
        data::Drops {
            opening: 2,
            min_ply: 0,
            check: 1,
            tactical: 2,
            mate: 1,
            bad_games: 0,
            bad_plies: 0
        }
    );
    // The kept positions are exactly the records datagen writes for them.
    let mut expected = Vec::new();
    game.for_each_position(|i, pos, ply| {
        if i == 4 || i == 7 {
            expected.push(PackedPosition::pack(pos, ply.score, GameResult::WhiteWin).0);
        }
    });
    assert_eq!(set.train, expected);
    assert!(set.validation.is_empty());

    let set = data::load(std::slice::from_ref(&path), &games_options(5, on)).unwrap();
    assert_eq!(set.drops.min_ply, 3);
    assert_eq!(set.train, expected[1..]);
    let off = data::Filters {
        skip_check: false,
        skip_tactical: false,
        skip_mates: false,
    };
    let set = data::load(std::slice::from_ref(&path), &games_options(0, off)).unwrap();
    assert_eq!((set.train.len(), set.dropped), (6, 2));
    for (filters, kept) in [
        (
            data::Filters {
                skip_check: false,
                ..on
            },
            3,
        ),
        (
            data::Filters {
                skip_tactical: false,
                ..on
            },
            4,
        ),
        (
            data::Filters {
                skip_mates: false,
                ..on
            },
            3,
        ),
    ] {
        let set = data::load(std::slice::from_ref(&path), &games_options(0, filters)).unwrap();
        assert_eq!(set.train.len(), kept, "{filters:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn xz_several_files_and_both_kinds_read_alike() {
    use std::io::Write;
    let dir = temp_dir("games-xz");
    let (bytes, game) = filter_game();
    let mut records = Vec::new();
    game.for_each_position(|i, pos, ply| {
        if i == 4 || i == 7 {
            records.extend_from_slice(&PackedPosition::pack(pos, ply.score, game.result).0);
        }
    });
    let xz = |data: &[u8]| {
        let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 9);
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    };
    let files = [
        ("g.bin", bytes.clone()),
        ("g.bin.xz", xz(&bytes)),
        ("r.bin", records.clone()),
        ("r.bin.xz", xz(&records)),
    ];
    for (name, b) in &files {
        std::fs::write(dir.join(name), b).unwrap();
    }
    let opts = games_options(0, data::Filters::default());
    let one = |name: &str| data::load(&[dir.join(name)], &opts).unwrap().train;
    let from_games = one("g.bin");
    assert_eq!(from_games.len(), 2);
    assert_eq!(one("g.bin.xz"), from_games);
    assert_eq!(one("r.bin"), from_games);
    assert_eq!(one("r.bin.xz"), from_games);
    let all: Vec<PathBuf> = files.iter().map(|(n, _)| dir.join(n)).collect();
    let set = data::load(&all, &opts).unwrap();
    assert_eq!((set.read, set.games, set.train.len()), (20, 4, 8));
    // A file named .xz that is not xz.
    std::fs::write(dir.join("plain.xz"), &bytes).unwrap();
    let e = data::load(&[dir.join("plain.xz")], &opts)
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, DataError::Xz(..)), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_games_stop_the_run_or_are_skipped() {
    let dir = temp_dir("games-bad");
    let (bytes, _) = filter_game();
    let opts = games_options(0, data::Filters::default());
    // A truncated last game: a warning, the first game kept.
    let mut torn = bytes.clone();
    torn.extend_from_slice(&bytes[..bytes.len() - 9]);
    std::fs::write(dir.join("torn"), &torn).unwrap();
    let set = data::load(&[dir.join("torn")], &opts).unwrap();
    assert_eq!((set.games, set.train.len()), (1, 2));
    assert_eq!((set.drops.bad_games, set.drops.bad_plies), (1, 6));
    // An illegal move in the second of three games: game 1 at its offset.
    let mut bad = [bytes.clone(), bytes.clone(), bytes.clone()].concat();
    let at = bytes.len() + 32 + 4 * 4;
    bad[at..at + 2].copy_from_slice(&[0, 0x0F]);
    std::fs::write(dir.join("bad"), &bad).unwrap();
    let e = data::load(&[dir.join("bad")], &opts)
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "bad: game 1 at byte {at}: ply 4: move bits 0x0f00"
        )),
        "{e}"
    );
    let set = data::load(
        &[dir.join("bad")],
        &DataOptions {
            skip_bad: true,
            ..opts
        },
    )
    .unwrap();
    assert_eq!((set.games, set.train.len(), set.drops.bad_games), (2, 4, 1));
    let _ = std::fs::remove_dir_all(&dir);
}

//! Every tunable number of the search and the time manager, in one table:
//! each entry's name, default, range and SPSA step (OpenBench's `c_end`,
//! the perturbation the tune ends with), and the reason it exists.
//!
//! The table is one `params!` list, which makes the struct [`Params`] (one
//! plain `i32` field per entry, read by the search from its worker's copy),
//! its [`Default`], and [`TABLE`], which tuning builds (`--features tune`)
//! turn into UCI spin options and `forsyth spsa-params` prints for
//! `tests/tools/spsa.py`. The values travel with each search in
//! [`SearchOptions::params`](super::SearchOptions::params); the normal build
//! never changes them, so it always searches with the defaults.
//!
//! Everything is an integer, so that SPSA steps through each range alike:
//! fractions are stored in hundredths (`lmr_base` 100 would be one ply)
//! and turned into the same arithmetic as the literals they replaced. A
//! tune lands by changing the defaults here (`spsa.py --report
//! --write-params`, CONTRIBUTING.md), so nothing else writes a default
//! down: tests read them from [`TABLE`] or from a tuning build's `uci`
//! answer.
//!
//! Not in the table: the sizes of arrays, `MAX_PLY`, mate and tablebase
//! scores, `HISTORY_MAX` (the bound that keeps the histories inside their
//! `i16`), the check bonus of move ordering (it only has to be above every
//! history), and the time manager's reserves (the clock's last half, the
//! increment spent in full only above twenty of them): those keep the
//! engine correct or on the clock, and a tune must not trade them away.
//! Nor are the shapes of the formulas: the ply added or taken off a late
//! move's reduction (PV node, not improving, a check), half the depth for
//! the singular search, the verification of a null move three quarters of
//! the way down. Tuning those is changing the search, tested as such.
//! Each range keeps the search sound: no divisor reaches 0, late-move
//! reductions start at depth 2 or more (below it the reduction's bound,
//! one ply less than the new depth, is negative), and the aspiration
//! window always widens.

/// One entry of the table, as a tuner sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// The field name, which is also the UCI option's name.
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// The SPSA perturbation at the end of a tune (`c_end`), about a
    /// twentieth of the range: large enough for a pair of games to tell
    /// the two sides apart, small enough to stay near the optimum.
    pub step: f64,
    pub reason: &'static str,
}

macro_rules! params {
    ($(
        #[doc = $reason:literal]
        $name:ident: $default:literal, $min:literal..=$max:literal, step $step:literal;
    )*) => {
        /// The search's constants (depths in plies, margins in the
        /// evaluation's centipawns, fractions in hundredths).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Params {
            $(
                #[doc = $reason]
                pub $name: i32,
            )*
        }

        impl Default for Params {
            fn default() -> Self {
                Params { $( $name: $default, )* }
            }
        }

        /// Every entry of [`Params`], in the order of the struct.
        pub const TABLE: &[ParamSpec] = &[
            $(
                ParamSpec {
                    name: stringify!($name),
                    default: $default,
                    min: $min,
                    max: $max,
                    step: $step as f64,
                    reason: $reason,
                },
            )*
        ];

        impl Params {
            /// The value of the entry `name` (exact, as in [`TABLE`]).
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $( stringify!($name) => Some(self.$name), )*
                    _ => None,
                }
            }

            /// Sets the entry `name`, when `value` is in its range.
            pub fn set(&mut self, name: &str, value: i32) -> Result<(), ParamError> {
                let spec = spec(name).ok_or(ParamError::Unknown)?;
                if !(spec.min..=spec.max).contains(&value) {
                    return Err(ParamError::OutOfRange { min: spec.min, max: spec.max });
                }
                match name {
                    $( stringify!($name) => self.$name = value, )*
                    _ => unreachable!("every name of TABLE is a field"),
                }
                Ok(())
            }
        }
    };
}

/// Why [`Params::set`] refused a value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    Unknown,
    OutOfRange { min: i32, max: i32 },
}

/// The table as a JSON array of {name, default, min, max, step, reason},
/// as `forsyth spsa-params` prints it for the tuner.
pub fn table_json() -> String {
    let rows: Vec<serde_json::Value> = TABLE
        .iter()
        .map(|p| {
            serde_json::json!({
                "name": p.name,
                "default": p.default,
                "min": p.min,
                "max": p.max,
                "step": p.step,
                "reason": p.reason.trim(),
            })
        })
        .collect();
    serde_json::Value::Array(rows).to_string()
}

/// The entry of [`TABLE`] named `name`.
pub fn spec(name: &str) -> Option<&'static ParamSpec> {
    TABLE.iter().find(|p| p.name == name)
}

params! {
    // Reverse futility pruning (step 6 of the search).
    /// A node whose static evaluation beats beta by rfp_margin per ply is assumed to fail high, up to this depth.
    rfp_max_depth: 6, 2..=14, step 0.5;
    /// The margin per ply (one ply less when improving) by which the evaluation must beat beta.
    rfp_margin: 76, 20..=200, step 8;

    // Null-move pruning (step 7): pass; if we still beat beta the node is
    // almost surely a cut node.
    /// The shallowest depth at which a null move is tried.
    nmp_min_depth: 4, 1..=8, step 0.5;
    /// The null move's reduction: this many plies, plus depth / nmp_depth_divisor, plus the eval term.
    nmp_base: 3, 1..=6, step 0.5;
    /// One more ply of reduction per this many plies of depth.
    nmp_depth_divisor: 3, 1..=8, step 0.5;
    /// One more ply of reduction per this many centipawns of evaluation above beta...
    nmp_eval_divisor: 186, 50..=500, step 20;
    /// ...but at most this many (far above beta, a shallow search is as good).
    nmp_eval_max: 3, 0..=6, step 0.5;
    /// From this depth on a null-move cutoff is verified by a search without null moves (zugzwang).
    nmp_verify_depth: 12, 6..=30, step 1;

    // Internal iterative reduction (step 5).
    /// Without a hash move from this depth on, the node is probably unimportant or new: one ply shallower.
    iir_min_depth: 4, 2..=10, step 0.5;

    // Singular extensions (step 8).
    /// The shallowest depth at which the hash move is tested for being singular.
    se_min_depth: 8, 4..=14, step 0.5;
    /// The hash entry may be this many plies shallower than the node and still be trusted.
    se_tt_depth_margin: 2, 1..=6, step 0.5;
    /// The other moves must fail below the hash score minus this much per ply.
    se_margin: 2, 1..=6, step 0.5;
    /// Two plies of extension when they fail below that by this much more...
    se_double_margin: 15, 0..=60, step 3;
    /// ...at most this many times on a path (the search must still end).
    se_max_doubles: 7, 0..=16, step 0.5;

    // Pruning in the move loop (step 9).
    /// Moves that lose material by static exchange are pruned up to this depth.
    see_max_depth: 9, 1..=16, step 0.5;
    /// A quiet move that loses more than this per ply by static exchange is skipped.
    see_quiet_margin: 63, 0..=200, step 6;
    /// A capture that loses more than this per ply squared by static exchange is skipped.
    see_noisy_margin: 26, 0..=100, step 3;
    /// Late-move pruning: quiet moves after (lmp_base + depth^2) / (2 - improving) are skipped, up to this depth.
    lmp_max_depth: 8, 1..=16, step 0.5;
    /// The quiet moves always searched at depth 0 of late-move pruning.
    lmp_base: 3, 0..=12, step 0.5;
    /// Futility: a quiet move that cannot lift the evaluation above alpha by fp_base + fp_margin * depth is skipped, up to this depth.
    fp_max_depth: 7, 1..=16, step 0.5;
    /// The futility margin at depth 0.
    fp_base: 89, 0..=250, step 10;
    /// The futility margin per ply.
    fp_margin: 81, 20..=250, step 8;

    // Late-move reductions (step 9): ln(depth) ln(move number) / divisor + base.
    /// The shallowest depth at which late moves are reduced (at least 2: the reduction stays below the new depth).
    lmr_min_depth: 3, 2..=6, step 0.5;
    /// The reduction of every late move, in hundredths of a ply.
    lmr_base: 79, 0..=200, step 8;
    /// The divisor of ln(depth) ln(moves), in hundredths: a larger one reduces less.
    lmr_divisor: 234, 100..=400, step 15;
    /// One ply less of reduction per this much history score of a quiet move.
    lmr_history_divisor: 8549, 1024..=32768, step 512;

    // Aspiration windows (iterative deepening).
    /// The first iteration searched in a window around the last score.
    asp_min_depth: 4, 1..=10, step 0.5;
    /// The window's first half-width.
    asp_delta: 19, 5..=100, step 3;
    /// After each failure the half-width grows by this percentage (at least 25, so that it grows).
    asp_widen_pct: 43, 25..=200, step 5;

    // History updates after a cutoff: min(quad * depth^2 + lin * depth, max).
    /// The bonus of the move that cut off, per ply squared.
    hist_bonus_quad: 18, 0..=64, step 2;
    /// The bonus per ply.
    hist_bonus_lin: 32, 0..=128, step 4;
    /// The largest bonus (the histories are bounded by 16384).
    hist_bonus_max: 1478, 400..=4000, step 100;
    /// The malus of the moves tried before it, per ply squared.
    hist_malus_quad: 23, 0..=64, step 2;
    /// The malus per ply.
    hist_malus_lin: 44, 0..=128, step 4;
    /// The largest malus.
    hist_malus_max: 1465, 400..=4000, step 100;

    // The correction histories of the static evaluation (history.rs): the
    // correction is the sum of each entry (within +-1024) times its weight,
    // over 131072.
    /// The weight of the pawn structure's entry.
    corr_pawn_weight: 6400, 0..=16000, step 500;
    /// The weight of each side's entry for its pieces other than pawns.
    corr_non_pawn_weight: 6500, 0..=16000, step 500;
    /// The weight of the minor pieces' entry.
    corr_minor_weight: 3600, 0..=16000, step 500;
    /// The weight of the major pieces' entry.
    corr_major_weight: 3600, 0..=16000, step 500;
    /// The weight of each continuation entry (the last move after the ones two and four plies back).
    corr_cont_weight: 6700, 0..=16000, step 500;
    /// Reverse futility asks for this percentage of the correction's size more margin (an evaluation the searches often corrected is less sure).
    rfp_corr_pct: 90, 0..=300, step 10;
    /// One ply less of late-move reduction per this many centipawns of correction.
    lmr_corr_divisor: 250, 50..=2000, step 40;

    // Move ordering.
    /// A quiet check is ordered first unless it loses more than this by static exchange.
    mp_check_see_margin: 76, 0..=300, step 8;
    /// Captures: capture history divided by this is added to 16 times the victim's value.
    mp_noisy_hist_divisor: 15, 4..=64, step 1;

    // The time manager: base = left / moves_to_go + inc_pct% of the increment.
    /// Moves assumed to be left in a sudden-death game.
    tm_moves_to_go: 25, 10..=60, step 2;
    /// The part of the increment spent on each move, in percent.
    tm_inc_pct: 75, 25..=100, step 4;
    /// No new iteration after this percentage of the base time.
    tm_soft_pct: 60, 20..=150, step 5;
    /// The search stops after this percentage of the base time (and never after half the clock).
    tm_hard_pct: 300, 100..=600, step 20;
    /// The soft limit's factor, in hundredths, when the best move has just changed...
    tm_stable_max: 180, 100..=300, step 10;
    /// ...less this much for each iteration in a row that kept it...
    tm_stable_step: 20, 0..=60, step 3;
    /// ...down to this, a best move the search has long agreed on.
    tm_stable_min: 80, 40..=100, step 4;
    /// The node factor, (base - f) * scale with f the share of nodes spent on the best move: the base, in hundredths.
    tm_node_base: 150, 110..=250, step 6;
    /// The node factor's scale, in hundredths.
    tm_node_scale: 135, 50..=250, step 8;
    /// A falling score buys time: this many hundredths of the soft limit per 10 cp lost since the last iteration.
    tm_score_drop: 8, 0..=30, step 1;
    /// The score factor at most, in hundredths (a rising score lowers it, to 85 at least).
    tm_score_max: 150, 100..=250, step 8;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry's default is in its range, the step fits in it, and
    /// each name reaches its own field.
    #[test]
    fn the_table_is_consistent() {
        let d = Params::default();
        let mut names = std::collections::BTreeSet::new();
        for p in TABLE {
            assert!(names.insert(p.name), "{} twice", p.name);
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
            assert!(
                p.step > 0.0 && p.step * 4.0 <= f64::from(p.max - p.min),
                "{}",
                p.name
            );
            assert!(!p.reason.trim().is_empty(), "{}", p.name);
            assert_eq!(d.get(p.name), Some(p.default), "{}", p.name);
            let mut q = d.clone();
            q.set(p.name, p.max).unwrap();
            assert_eq!(q.get(p.name), Some(p.max));
            let others = TABLE.iter().filter(|o| o.name != p.name);
            assert!(others.clone().all(|o| q.get(o.name) == Some(o.default)));
            assert_eq!(
                q.set(p.name, p.max + 1),
                Err(ParamError::OutOfRange {
                    min: p.min,
                    max: p.max
                })
            );
            assert!(q.set(p.name, p.min - 1).is_err());
            assert_eq!(q.get(p.name), Some(p.max));
        }
        assert_eq!(d.get("no_such_param"), None);
        assert_eq!(
            Params::default().set("no_such_param", 1),
            Err(ParamError::Unknown)
        );
    }
}

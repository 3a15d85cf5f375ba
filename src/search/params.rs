//! Every tunable number of the search, named, in one place, each with the
//! reason it exists. Tuners (SPSA) read and write this table.

/// Search parameters. Depths are in plies, margins in centipawns.
#[derive(Clone, Debug)]
pub struct Params {
    /// Reverse futility: a node whose static evaluation beats beta by this
    /// much per ply of depth is assumed to fail high.
    pub rfp_max_depth: i32,
    pub rfp_margin: i32,
    /// Null move: give the opponent a free move; if we still beat beta the
    /// node is almost surely a cut node. Reduction = base + depth / divisor,
    /// more when the evaluation is far above beta.
    pub nmp_min_depth: i32,
    pub nmp_base: i32,
    pub nmp_depth_divisor: i32,
    pub nmp_eval_divisor: i32,
    /// From this depth on, a null-move cutoff is verified by a reduced
    /// search without null moves (guards against zugzwang).
    pub nmp_verify_depth: i32,
    /// Late-move reductions: ln(depth) * ln(move number) / divisor + base.
    pub lmr_base: f64,
    pub lmr_divisor: f64,
    /// A quiet move's history score reduces its reduction by one ply per
    /// this many points.
    pub lmr_history_divisor: i32,
    /// Late-move pruning: quiet moves after (base + depth^2) / (2 - improving)
    /// are skipped at shallow depth.
    pub lmp_max_depth: i32,
    pub lmp_base: i32,
    /// Futility: a quiet move at shallow depth that cannot lift the static
    /// evaluation above alpha by base + margin * depth is skipped.
    pub fp_max_depth: i32,
    pub fp_base: i32,
    pub fp_margin: i32,
    /// Static-exchange pruning at shallow depth: a quiet move that loses
    /// more than margin * depth, or a capture that loses more than
    /// margin * depth^2, is skipped.
    pub see_max_depth: i32,
    pub see_quiet_margin: i32,
    pub see_noisy_margin: i32,
    /// Internal iterative reduction: without a hash move the node is
    /// probably unimportant or new, so search it one ply shallower.
    pub iir_min_depth: i32,
    /// Aspiration windows: the first window's half-width around the last
    /// score, from this depth on; it widens by half on each failure.
    pub asp_min_depth: i32,
    pub asp_delta: i32,
    /// Singular extensions: from this depth, with a hash move whose lower
    /// or exact bound is at most 3 plies shallower; the other moves must
    /// fail below the hash score minus margin * depth; two plies when they
    /// fail below that by double_margin more, at most max_doubles times
    /// on a path.
    pub se_min_depth: i32,
    pub se_margin: i32,
    pub se_double_margin: i32,
    pub se_max_doubles: i32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            rfp_max_depth: 8,
            rfp_margin: 80,
            nmp_min_depth: 3,
            nmp_base: 3,
            nmp_depth_divisor: 3,
            nmp_eval_divisor: 200,
            nmp_verify_depth: 12,
            lmr_base: 0.75,
            lmr_divisor: 2.25,
            lmr_history_divisor: 8192,
            lmp_max_depth: 8,
            lmp_base: 3,
            fp_max_depth: 8,
            fp_base: 80,
            fp_margin: 90,
            see_max_depth: 8,
            see_quiet_margin: 60,
            see_noisy_margin: 25,
            iir_min_depth: 4,
            asp_min_depth: 4,
            asp_delta: 25,
            se_min_depth: 8,
            se_margin: 2,
            se_double_margin: 20,
            se_max_doubles: 6,
        }
    }
}

//! Tables: exact indexing, builds that verify in every variant, known results, agreement
//! with an independent search, damaged files, killed builds, determinism.
//!
//! Tables up to 4 pieces are built once per variant by `damka generate` into the test target
//! directory and shared with the other test binaries (`common/tables.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use damka::notation::{parse_fen, write_fen};
use damka::rules::{
    Bitboard, Brazilian, Color, Counters, English, Geometry, International, Italian, MoveList,
    Position, RuleSet, Rules, Russian, Spanish, Turkish, generate,
};
use damka::tablebase::{
    FileKind, Material, Outcome, ProbeError, RuleCategory, RuleResult, SliceCheck, SliceIndex,
    Store, TableError, Tablebase, Wdl, verify_slice,
};
use damka::{Variant, with_rules};

#[path = "../../tests/common/mod.rs"]
mod common;
use common::Lcg;
#[path = "../../tests/common/tables.rs"]
mod shared;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Builds English up to 4 pieces into `dir` with `damka generate --threads THREADS`.
fn build_english(dir: &Path, threads: usize) {
    let damka = Path::new(env!("CARGO_BIN_EXE_damka"));
    let threads = threads.to_string();
    let args = ["--pieces", "4", "--threads", &threads];
    shared::generate(damka, dir, Variant::English, &args);
}

/// The shared tables of a variant, up to 4 pieces.
fn tables(variant: Variant) -> &'static Tablebase {
    static TABLES: [OnceLock<Tablebase>; 7] = [const { OnceLock::new() }; 7];
    let slot = Variant::ALL
        .iter()
        .position(|&v| v == variant)
        .expect("known variant");
    TABLES[slot].get_or_init(|| {
        let dir = shared::shared_tables(
            Path::new(env!("CARGO_BIN_EXE_damka")),
            Path::new(env!("CARGO_TARGET_TMPDIR")),
            variant,
        );
        Tablebase::open(&dir).expect("built tables")
    })
}

fn probe<R: Rules>(fen: &str) -> Outcome {
    let pos = parse_fen::<R>(fen).expect(fen);
    tables(R::VARIANT).probe_dtw(&pos).expect(fen)
}

fn every_index<R: Rules>(m: Material) -> u64 {
    let index = SliceIndex::<R>::new(m);
    let mut valid = 0;
    for i in 0..index.size() {
        if let Some(frame) = index.unrank(i) {
            valid += 1;
            assert_eq!(frame.material(), m);
            assert_eq!(index.rank(&frame), Some(i), "{:?} {m} {i}", R::VARIANT);
        }
    }
    valid
}

fn sampled_indices<R: Rules>(m: Material, rng: &mut Lcg) {
    let index = SliceIndex::<R>::new(m);
    for _ in 0..2000 {
        let i = rng.below(index.size());
        if let Some(frame) = index.unrank(i) {
            assert_eq!(index.rank(&frame), Some(i), "{:?} {m} {i}", R::VARIANT);
        }
    }
}

#[test]
fn rank_and_unrank_are_exact_inverses() {
    let mut rng = Lcg(3);
    for variant in Variant::ALL {
        let mut positions = 0;
        for m in Material::all_up_to(3, 20) {
            positions += with_rules!(variant, R => every_index::<R>(m));
        }
        assert!(positions > 100_000, "{variant}: {positions}");
        for m in Material::all_up_to(6, 20)
            .into_iter()
            .filter(|m| m.pieces() >= 4)
        {
            with_rules!(variant, R => sampled_indices::<R>(m, &mut rng));
        }
    }
}

fn verify_all<R: Rules>() -> usize {
    let tb = tables(R::VARIANT);
    let slices: Vec<Material> = Material::all_up_to(4, R::MEN)
        .into_iter()
        .filter(|&m| shared::holds(R::VARIANT, m))
        .collect();
    for &m in &slices {
        assert_eq!(
            verify_slice::<R>(tb, m).expect("readable"),
            SliceCheck::Ok,
            "{:?} {m}",
            R::VARIANT
        );
    }
    slices.len()
}

#[test]
fn every_variant_up_to_4_pieces_builds_and_verifies() {
    for variant in Variant::ALL {
        let n = with_rules!(variant, R => verify_all::<R>());
        // Turkish: 16 slices of 2 and 3 pieces, 3 of 4 kings (see `common/tables.rs`).
        let expected = if variant == Variant::Turkish { 19 } else { 41 };
        assert_eq!(n, expected, "{variant}: slices of 2 to 4 pieces");
    }
}

#[test]
fn first_position() {
    assert_eq!(probe::<English>("W:WK19,K23:BK28,12").wdl, Wdl::Win);
    assert_eq!(probe::<English>("B:WK19,K23:BK28,12"), Outcome::DRAW);
    let pos = parse_fen::<English>("W:WK19,K23:BK28,12").expect("fen");
    let rated = tables(Variant::English).rated_moves(&pos).expect("probe");
    assert_eq!(
        rated[0].outcome,
        tables(Variant::English).probe_dtw(&pos).expect("probe")
    );
    assert!(rated.windows(2).all(|w| w[0].outcome >= w[1].outcome));
}

/// Every position of `data/positions.txt` (which the README's examples use) has its stated
/// result.
#[test]
fn data_positions_have_their_results() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/positions.txt");
    let text = std::fs::read_to_string(&path).expect("data/positions.txt");
    let mut checked = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [variant, fen, result] = fields[..] else {
            panic!("{line}: not `variant FEN result`")
        };
        let variant: Variant = variant.parse().expect(line);
        let outcome = with_rules!(variant, R => {
            let pos = parse_fen::<R>(fen).expect(line);
            tables(variant).probe_dtw(&pos).expect(line)
        });
        let code = match outcome.wdl {
            Wdl::Win => format!("W{}", outcome.dtw),
            Wdl::Draw => "D".to_string(),
            Wdl::Loss => format!("L{}", outcome.dtw),
        };
        assert_eq!(code, result, "{line}");
        checked += 1;
    }
    assert!(checked >= 8, "{checked} positions");
}

#[test]
fn english_king_against_king() {
    let tb = tables(Variant::English);
    let (mut wins, mut draws, mut losses, mut longest) = (0, 0, 0, 0);
    for w in 1..=32 {
        for b in (1..=32).filter(|&b| b != w) {
            let pos = parse_fen::<English>(&format!("W:WK{w}:BK{b}")).expect("fen");
            let o = tb.probe_dtw(&pos).expect("probe");
            match o.wdl {
                Wdl::Win => {
                    wins += 1;
                    longest = longest.max(o.dtw);
                }
                Wdl::Draw => draws += 1,
                Wdl::Loss => losses += 1,
            }
        }
    }
    assert_eq!((wins, draws, losses), (230, 654, 108));
    assert_eq!(longest, 11);
}

#[test]
fn grimminck_longest_international_wins() {
    let cases = [
        ("W:W33:B2", 17),
        ("W:W40,44:B3", 23),
        ("W:W33,46:B4,5", 39),
        ("W:W6:B2,3,4", 43),
        ("W:WK1:B2,3,4", 43),
        ("W:WK40,K45,50:BK11", 31),
        ("W:W23:B5,6", 29),
    ];
    for (fen, plies) in cases {
        assert_eq!(probe::<International>(fen), Outcome::win(plies), "{fen}");
    }
}

#[test]
fn petrov_triangle() {
    // Three kings holding the main diagonal a1-h8 beat a lone king off it, in at most 13
    // moves of the winner (25 plies).
    let win = probe::<Russian>("W:WKa1,Kc1,Ke1:BKh4");
    assert_eq!(win.wdl, Wdl::Win);
    assert!(win.dtw <= 25, "{win}");
    // The lone king on the main diagonal draws.
    assert_eq!(probe::<Russian>("W:WKc1,Ke1,Kh4:BKa1"), Outcome::DRAW);
    // The same in International draughts: the lone king on the long diagonal draws.
    assert_eq!(probe::<International>("W:WK1,K2,K3:BK46"), Outcome::DRAW);
}

/// Every position of slice `m`, strong side to move, with its plain and rule results under
/// the variant's default rule set with `material` plies of the material count played.
fn rule_census<R: Rules>(m: Material, material: u32) -> Vec<(Outcome, RuleCategory)> {
    let tb = tables(R::VARIANT);
    let rules = RuleSet::default_for(R::VARIANT);
    let index = SliceIndex::<R>::new(m);
    let counters = Counters {
        quiet: material,
        material,
    };
    (0..index.size())
        .filter_map(|i| index.unrank(i))
        .map(|f| {
            let pos = f.position::<R>();
            let plain = tb.probe_dtw(&pos).expect("probe");
            (
                plain,
                tb.probe_rules(&pos, rules, counters).expect("probe rules"),
            )
        })
        .collect()
}

#[test]
fn international_five_and_sixteen_move_rules() {
    // Two kings against one (FMJD 6.4, 5 moves each): a win is a win under the rules when
    // it fits in the plies left of the 10, else a cursed win. From the start of the count
    // every win fits (the longest takes 4 moves); 4 plies into it, the 4-move wins do not.
    for material in [0, 4, 6] {
        let (mut wins, mut cursed) = (0, 0);
        for (plain, rules) in rule_census::<International>(Material::new(0, 2, 0, 1), material) {
            match plain.wdl {
                Wdl::Win if u32::from(plain.dtw) <= 10 - material => {
                    assert_eq!(rules, RuleCategory::Win, "{plain} at {material}");
                    wins += 1;
                }
                Wdl::Win => {
                    assert_eq!(rules, RuleCategory::CursedWin, "{plain} at {material}");
                    cursed += 1;
                }
                w => assert_eq!(rules, RuleCategory::drawn(w)),
            }
        }
        assert!(wins > 0, "{material}");
        assert_eq!(cursed > 0, material > 3, "{material}");
    }
    // Three kings against one (6.3, 16 moves each): every win fits in the count from its
    // start; two plies before its end only the immediate wins do.
    for (material, fitting) in [(0, u16::MAX), (30, 2)] {
        let (mut wins, mut cursed) = (0, 0);
        for (plain, rules) in rule_census::<International>(Material::new(0, 3, 0, 1), material) {
            if plain.wdl != Wdl::Win {
                assert_eq!(rules, RuleCategory::drawn(plain.wdl));
                continue;
            }
            if plain.dtw <= fitting.min(32) {
                assert_eq!(rules, RuleCategory::Win, "{plain} at {material}");
            }
            match rules {
                RuleCategory::Win => wins += 1,
                _ => {
                    assert_eq!(rules, RuleCategory::CursedWin, "{plain} at {material}");
                    assert!(plain.dtw > fitting, "{plain} at {material}");
                    cursed += 1;
                }
            }
        }
        assert!(wins > 0);
        assert_eq!(cursed > 0, material > 0, "{material}");
    }
    // Grimminck's man against man: the quiet count restarts at every man's move.
    let tb = tables(Variant::International);
    let fmjd = RuleSet::default_for(Variant::International);
    let pos = parse_fen::<International>("W:W33:B2").expect("FEN");
    assert_eq!(
        tb.probe_rules(&pos, fmjd, Counters::default())
            .expect("probe"),
        RuleCategory::Win
    );
}

#[test]
fn petrov_triangle_wins_within_the_fifteen_moves() {
    let tb = tables(Variant::Russian);
    let fsr = RuleSet::default_for(Variant::Russian);
    let rules = |fen| {
        let pos = parse_fen::<Russian>(fen).expect("FEN");
        tb.probe_rule_result(&pos, fsr).expect("probe")
    };
    // Three kings against one king (rule (b), 15 moves): Petrov's triangle wins in time.
    let win = rules("W:WKa1,Kc1,Ke1:BKh4");
    assert_eq!(win.category, RuleCategory::Win);
    assert!(win.plies <= 30, "{win}");
    assert_eq!(rules("W:WKc1,Ke1,Kh4:BKa1").category, RuleCategory::Draw);
    // A Turkish man on its own back rank has no index; with a capture its result comes
    // from the capture (a king and a man against two kings: one piece each after it).
    let turkish = tables(Variant::Turkish);
    let tdf = RuleSet::default_for(Variant::Turkish);
    let pos = parse_fen::<Turkish>("W:WKc8,Kh2:BKe3,d8").expect("FEN");
    assert_eq!(turkish.probe_wdl(&pos).expect("probe"), Wdl::Win);
    let category = turkish
        .probe_rules(&pos, tdf, Counters::default())
        .expect("probe rules");
    assert_eq!(category, RuleCategory::Win);
    // Kings on both sides with four pieces (rule (c), 30 moves): without men it runs with
    // the quiet count ply for ply, which decides; a win by a capture next move is a win.
    let win = rules("W:WKa1,Kc3:BKh8,Kf6");
    assert_eq!((win.category, win.plies), (RuleCategory::Win, 1));
    assert_eq!(rules("W:WKa1,Kc1:BKh4,Kh8").category, RuleCategory::Draw);
    // With a man beside them, a man's move resets the quiet count only and the 30-move
    // count goes on: the stored result, with the 15-move count just started, needs plies of
    // the 30-move count (13 here), and its man's steps keep the 15-move count from running
    // out even on its last ply.
    let pos = parse_fen::<Russian>("W:WKa1,Kc3,e3:BKd8").expect("FEN");
    let win = tb.probe_rule_result(&pos, fsr).expect("probe");
    assert_eq!(win, RuleResult::win(13));
    let at = |quiet, material| {
        tb.probe_rules(&pos, fsr, Counters { quiet, material })
            .expect("probe rules")
    };
    let left = 60 - u32::from(win.plies);
    assert_eq!(at(0, left), RuleCategory::Win);
    assert_eq!(at(0, left + 1), RuleCategory::CursedWin);
    assert_eq!(at(29, left), RuleCategory::Win);
}

/// The outcomes of `roots` by plain forward search, with their distances to conversion:
/// every position reachable from them is listed with its moves, then outcomes spread back
/// from the positions without a move, in order of distance (a position one ply before a loss
/// in `n` wins in `n + 1`; one whose moves all reach wins loses one ply after the longest of
/// them). Then the distances to conversion spread back the same way through king moves
/// only, from the positions whose next move may convert (a capture or a man's move) or end
/// the game.
fn plain_outcomes<R: Rules>(roots: &[Position<R>]) -> Vec<(Outcome, Option<u16>)> {
    let mut ids: HashMap<Position<R>, usize> = HashMap::new();
    let mut nodes = Vec::new();
    for &root in roots {
        ids.entry(root).or_insert_with(|| {
            nodes.push(root);
            nodes.len() - 1
        });
    }
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut children: Vec<Vec<(usize, bool)>> = Vec::new();
    let mut moves_left: Vec<usize> = Vec::new();
    let mut list = MoveList::new();
    while moves_left.len() < nodes.len() {
        let at = moves_left.len();
        let pos = nodes[at];
        generate(&pos, &mut list);
        let moves = list.as_slice();
        let mut out = Vec::new();
        for mv in moves {
            let child = pos.play(mv);
            let id = *ids.entry(child).or_insert_with(|| {
                nodes.push(child);
                parents.push(Vec::new());
                nodes.len() - 1
            });
            parents[id].push(at);
            let king_move = !mv.is_capture() && pos.kings().contains(mv.from());
            out.push((id, king_move));
        }
        children.push(out);
        moves_left.push(moves.len());
    }
    let mut value: Vec<Option<Outcome>> = vec![None; nodes.len()];
    let mut queue = std::collections::VecDeque::new();
    for (i, _) in moves_left.iter().enumerate().filter(|(_, n)| **n == 0) {
        value[i] = Some(Outcome::loss(0));
        queue.push_back(i);
    }
    while let Some(i) = queue.pop_front() {
        let o = value[i].expect("queued positions have outcomes");
        for &p in &parents[i] {
            if value[p].is_some() {
                continue;
            }
            match o.wdl {
                Wdl::Loss => {
                    value[p] = Some(Outcome::win(o.dtw + 1));
                    queue.push_back(p);
                }
                _ => {
                    moves_left[p] -= 1;
                    if moves_left[p] == 0 {
                        value[p] = Some(Outcome::loss(o.dtw + 1));
                        queue.push_back(p);
                    }
                }
            }
        }
    }
    let wdl = |i: usize| value[i].map_or(Wdl::Draw, |o| o.wdl);
    let mut dtc: Vec<Option<u16>> = vec![None; nodes.len()];
    let mut king_moves_left: Vec<usize> = vec![0; nodes.len()];
    let mut queue = std::collections::VecDeque::new();
    for (i, moves) in children.iter().enumerate() {
        let kings = moves.iter().filter(|m| m.1).count();
        king_moves_left[i] = kings;
        let converts_to_win = moves.iter().any(|&(c, k)| !k && wdl(c) == Wdl::Loss);
        let first = match wdl(i) {
            Wdl::Draw => None,
            _ if moves.is_empty() => Some(0),
            _ if kings == 0 => Some(1),
            Wdl::Win if converts_to_win => Some(1),
            _ => None,
        };
        dtc[i] = first;
    }
    // In order of distance: the positions without a move first.
    for d in [0, 1] {
        queue.extend((0..nodes.len()).filter(|&i| dtc[i] == Some(d)));
    }
    while let Some(i) = queue.pop_front() {
        let d = dtc[i].expect("queued positions have distances");
        for &p in &parents[i] {
            let by_king = children[p].iter().any(|&(c, k)| c == i && k);
            if dtc[p].is_some() || !by_king {
                continue;
            }
            match (wdl(p), wdl(i)) {
                (Wdl::Win, Wdl::Loss) => {
                    dtc[p] = Some(d + 1);
                    queue.push_back(p);
                }
                (Wdl::Loss, Wdl::Win) => {
                    king_moves_left[p] -= 1;
                    if king_moves_left[p] == 0 {
                        dtc[p] = Some(d + 1);
                        queue.push_back(p);
                    }
                }
                _ => {}
            }
        }
    }
    roots
        .iter()
        .map(|r| (value[ids[r]].unwrap_or(Outcome::DRAW), dtc[ids[r]]))
        .collect()
}

/// A random position of at most three pieces, either side to move.
fn random_small<R: Rules>(rng: &mut Lcg) -> Position<R> {
    let slices: Vec<Material> = Material::all_up_to(3, R::MEN);
    loop {
        let m = slices[rng.below(slices.len() as u64) as usize];
        let index = SliceIndex::<R>::new(m);
        if let Some(f) = index.unrank(rng.below(index.size())) {
            if rng.below(2) == 0 {
                return f.position::<R>();
            }
            let turn = |bb| Bitboard(R::Board::rotate(bb));
            return Position::new(turn(f.other), turn(f.mover), turn(f.kings), Color::Black)
                .expect("a turned position is valid");
        }
    }
}

fn agree_with_plain_search<R: Rules>(samples: usize) {
    let tb = tables(R::VARIANT);
    let mut rng = Lcg(R::VARIANT as u64 + 17);
    let roots: Vec<Position<R>> = (0..samples).map(|_| random_small::<R>(&mut rng)).collect();
    let mut converting = 0;
    for (pos, (plain, plain_dtc)) in roots.iter().zip(plain_outcomes(&roots)) {
        let stored = tb.probe_dtw(pos).expect("probe");
        assert_eq!(stored, plain, "{:?} {}", R::VARIANT, write_fen(pos));
        let dtc = tb.probe_dtc(pos).expect("probe dtc");
        assert_eq!(dtc, plain_dtc, "dtc {:?} {}", R::VARIANT, write_fen(pos));
        assert_eq!(dtc.is_some(), plain.wdl != Wdl::Draw);
        converting += usize::from(dtc.is_some_and(|d| d > 1));
    }
    // Not only positions one move from a conversion.
    assert!(converting > 0, "{:?}", R::VARIANT);
}

/// The results under `rules` of every game state (position and counters) reachable from
/// `roots`, by plain forward search with the counters of [`RuleSet::next`]: a state without
/// a move is lost, one whose count has run out ([`RuleSet::count_draw`]) is drawn, one that
/// `leaf` values is not searched further, and the others are solved back from those. `None`
/// for a state neither side wins.
fn rule_outcomes<R: Rules>(
    roots: &[(Position<R>, Counters)],
    rules: &RuleSet,
    leaf: impl Fn(&Position<R>, Counters) -> Option<Option<Wdl>>,
) -> HashMap<(Position<R>, Counters), Option<Wdl>> {
    let mut ids: HashMap<(Position<R>, Counters), usize> = HashMap::new();
    let mut nodes = Vec::new();
    for &root in roots {
        ids.entry(root).or_insert_with(|| {
            nodes.push(root);
            nodes.len() - 1
        });
    }
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut moves_left: Vec<usize> = Vec::new();
    let mut list = MoveList::new();
    let mut ended = Vec::new();
    while moves_left.len() < nodes.len() {
        let at = moves_left.len();
        let (pos, c) = nodes[at];
        if at >= roots.len()
            && let Some(value) = leaf(&pos, c)
        {
            ended.extend(value.map(|w| (at, w)));
            moves_left.push(0);
            continue;
        }
        generate(&pos, &mut list);
        let moves = list.as_slice();
        if moves.is_empty() {
            ended.push((at, Wdl::Loss));
        } else if rules.count_draw(&pos, c) {
            ended.push((at, Wdl::Draw));
            moves_left.push(0);
            continue;
        }
        for mv in moves {
            let child = pos.play(mv);
            let mut next = rules.next(&pos, c, &child);
            // Without a quiet rule its counter means nothing: not counted, so that the
            // states are finite.
            if rules.quiet.is_none() {
                next.quiet = 0;
            }
            let state = (child, next);
            let id = *ids.entry(state).or_insert_with(|| {
                nodes.push(state);
                parents.push(Vec::new());
                nodes.len() - 1
            });
            parents[id].push(at);
        }
        moves_left.push(moves.len());
    }
    let mut value: Vec<Option<Wdl>> = vec![None; nodes.len()];
    let mut queue = std::collections::VecDeque::new();
    for (i, w) in ended {
        if w != Wdl::Draw {
            value[i] = Some(w);
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let lost = value[i] == Some(Wdl::Loss);
        for &p in &parents[i] {
            if value[p].is_some() {
                continue;
            }
            if lost {
                value[p] = Some(Wdl::Win);
                queue.push_back(p);
            } else {
                moves_left[p] -= 1;
                if moves_left[p] == 0 {
                    value[p] = Some(Wdl::Loss);
                    queue.push_back(p);
                }
            }
        }
    }
    ids.into_iter()
        .map(|(state, i)| (state, value[i]))
        .collect()
}

/// The tables' rule results under `rules` agree with [`rule_outcomes`] for every state the
/// search reaches from `samples` random positions of up to 3 pieces; returns how many
/// states were won under the rules but not within every count (cursed).
fn rules_agree_with_search<R: Rules>(tb: &Tablebase, rules: &RuleSet, samples: usize) -> usize {
    let mut rng = Lcg(R::VARIANT as u64 + 29);
    let roots: Vec<_> = (0..samples)
        .map(|_| (random_small::<R>(&mut rng), Counters::default()))
        .collect();
    let searched = rule_outcomes(&roots, rules, |_, _| None);
    let mut cursed = 0;
    for ((pos, c), value) in &searched {
        if pos.pieces(pos.side_to_move().opponent()).is_empty() {
            continue;
        }
        let plain = tb.probe_wdl(pos).expect("probe");
        let expected = match value {
            Some(Wdl::Win) => RuleCategory::Win,
            Some(Wdl::Loss) => RuleCategory::Loss,
            _ => RuleCategory::drawn(plain),
        };
        let category = tb.probe_rules(pos, rules, *c).expect("probe rules");
        assert_eq!(
            category,
            expected,
            "{:?} {} {} counters {c:?}",
            R::VARIANT,
            rules.name,
            write_fen(pos)
        );
        cursed += usize::from(category == RuleCategory::CursedWin);
    }
    cursed
}

#[test]
fn rule_results_agree_with_a_search_with_counters_up_to_3_pieces() {
    fn check<R: Rules>(samples: usize) -> usize {
        rules_agree_with_search::<R>(
            tables(R::VARIANT),
            RuleSet::default_for(R::VARIANT),
            samples,
        )
    }
    // Few roots: from a position with a king the search reaches most of its slices, each
    // with every count (millions of states).
    let cursed = check::<English>(8)
        + check::<Italian>(6)
        + check::<Spanish>(12)
        + check::<Russian>(8)
        + check::<Brazilian>(8)
        + check::<International>(4)
        + check::<Turkish>(8);
    // Some wins are too slow for their counts.
    assert!(cursed > 0);
    // A rule set that is not the default, built into its own directory.
    let dir = scratch("dama-online");
    let damka = Path::new(env!("CARGO_BIN_EXE_damka"));
    let args = ["--pieces", "3", "--rules", "dama-online"];
    shared::generate(damka, &dir, Variant::Brazilian, &args);
    let tb = Tablebase::open(&dir).expect("built tables");
    let dama = RuleSet::find(Variant::Brazilian, "dama-online").expect("a rule set");
    rules_agree_with_search::<Brazilian>(&tb, dama, 12);
    // One king each is drawn at once, even where the plain tables win (by a capture).
    let kings = SliceIndex::<Brazilian>::new(Material::new(0, 1, 0, 1));
    let mut plain_wins = 0;
    for i in 0..kings.size() {
        let Some(frame) = kings.unrank(i) else {
            continue;
        };
        let pos = frame.position::<Brazilian>();
        let rules = tb
            .probe_rules(&pos, dama, Counters::default())
            .expect("probe");
        match tb.probe_wdl(&pos).expect("probe") {
            Wdl::Win => {
                plain_wins += 1;
                assert_eq!(rules, RuleCategory::CursedWin, "{}", write_fen(&pos));
            }
            w => assert_eq!(rules, RuleCategory::drawn(w), "{}", write_fen(&pos)),
        }
    }
    assert!(plain_wins > 0);
}

/// Russian kings on both sides with a man (rule (c), 30 moves, runs beside the 15-move
/// count, and a man's step resets only the latter): from random positions with both counts
/// nearly run out, every game state the search reaches has the category the tables give at
/// its counters. The search stops where a capture or a crowning starts both counts again,
/// with the tables' result there (checked by the search up to 3 pieces and by `verify`).
/// Returns (states, wins, cursed wins).
fn two_counts_agree_with_search(samples: usize) -> (usize, usize, usize) {
    let tb = tables(Variant::Russian);
    let fsr = RuleSet::default_for(Variant::Russian);
    let mut rng = Lcg(41);
    let materials = [
        Material::new(2, 1, 0, 1),
        Material::new(0, 1, 2, 1),
        Material::new(1, 1, 1, 1),
        Material::new(1, 1, 0, 2),
        Material::new(0, 2, 1, 1),
    ];
    let mut roots = Vec::new();
    while roots.len() < samples {
        let m = materials[rng.below(materials.len() as u64) as usize];
        let index = SliceIndex::<Russian>::new(m);
        let Some(frame) = index.unrank(rng.below(index.size())) else {
            continue;
        };
        // At most 12 plies of the quiet count left and at most 14 of the material count.
        // Further from the ends, more states: 24 roots with any quiet count and up to 18
        // plies of the material count left reach 5.8 million, which agree too (4 minutes).
        let quiet = 18 + rng.below(12) as u32;
        let material = 46 + rng.below(14) as u32;
        roots.push((frame.position::<Russian>(), Counters { quiet, material }));
    }
    let both = |pos: &Position<Russian>| {
        matches!(fsr.governing_of(pos), damka::rules::Governing::Both { .. })
    };
    let category = |pos: &Position<Russian>, c| tb.probe_rules(pos, fsr, c).expect("probe rules");
    // Only a change of material starts both counts again.
    let searched = rule_outcomes(&roots, fsr, |pos, c| {
        (c == Counters::default()).then(|| match category(pos, c) {
            RuleCategory::Win => Some(Wdl::Win),
            RuleCategory::Loss => Some(Wdl::Loss),
            _ => None,
        })
    });
    let (mut states, mut wins, mut cursed) = (0, 0, 0);
    for ((pos, c), value) in &searched {
        if *c == Counters::default() {
            continue;
        }
        assert!(both(pos), "{}", write_fen(pos));
        let expected = match value {
            Some(Wdl::Win) => RuleCategory::Win,
            Some(Wdl::Loss) => RuleCategory::Loss,
            _ => RuleCategory::drawn(tb.probe_wdl(pos).expect("probe")),
        };
        let got = category(pos, *c);
        assert_eq!(got, expected, "{} counters {c:?}", write_fen(pos));
        states += 1;
        wins += usize::from(got == RuleCategory::Win);
        cursed += usize::from(got == RuleCategory::CursedWin);
    }
    (states, wins, cursed)
}

#[test]
fn two_counts_agree_with_a_search_near_the_ends_of_the_counts() {
    let (states, wins, cursed) = two_counts_agree_with_search(12);
    // Both counts decide some states, and with part of the quiet count used.
    assert!(states > 400_000, "{states}");
    assert!(wins > 0 && cursed > 0, "{wins} {cursed}");
}

#[test]
fn plain_search_agrees_up_to_3_pieces() {
    agree_with_plain_search::<English>(60);
    agree_with_plain_search::<Italian>(40);
    agree_with_plain_search::<Spanish>(40);
    agree_with_plain_search::<Russian>(40);
    agree_with_plain_search::<Brazilian>(40);
    agree_with_plain_search::<International>(40);
    agree_with_plain_search::<Turkish>(40);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// A capture position past the tables (a forced exchange into them) has its results under
/// the draw rules from its captures, as its plain result: with only the slices of up to 3
/// pieces, every 4-piece position whose side to move captures is answered as the tables of
/// 4 pieces store it, and its moves as they rate them; a 4-piece position without a capture
/// stays outside the tables.
#[test]
fn rule_results_of_captures_past_the_tables_follow_the_captures() {
    fn check<R: Rules>(samples: u64) -> usize {
        let full = tables(R::VARIANT);
        let dir = scratch(&format!("three-{}", R::VARIANT.name()));
        std::fs::create_dir_all(dir.join(R::VARIANT.name())).expect("mkdir");
        for m in Material::all_up_to(3, R::MEN) {
            for kind in FileKind::ALL {
                let from = full.store().path(R::VARIANT, m, kind);
                if from.is_file() {
                    std::fs::copy(&from, Store::path_in(&dir, R::VARIANT, m, kind)).expect("copy");
                }
            }
        }
        let three = Tablebase::open(&dir).expect("the tables of up to 3 pieces");
        let rules = RuleSet::default_for(R::VARIANT);
        let mut rng = Lcg(R::VARIANT as u64 + 41);
        let mut captures = 0;
        for m in Material::all_up_to(4, R::MEN) {
            if m.pieces() != 4 || !shared::holds(R::VARIANT, m) {
                continue;
            }
            let index = SliceIndex::<R>::new(m);
            for _ in 0..samples {
                let Some(frame) = index.unrank(rng.below(index.size())) else {
                    continue;
                };
                let pos = frame.position::<R>();
                let mut list = MoveList::new();
                generate(&pos, &mut list);
                let capture = list.as_slice().iter().any(|mv| mv.is_capture());
                let past = three.probe_rule_result(&pos, rules);
                if !capture {
                    assert!(past.is_err(), "{}", write_fen(&pos));
                    continue;
                }
                captures += 1;
                let stored = full.probe_rule_result(&pos, rules).expect("in the tables");
                assert_eq!(
                    past.expect("from its captures"),
                    stored,
                    "{}",
                    write_fen(&pos)
                );
                let moves = |tb: &Tablebase| {
                    let moves = tb.rule_moves(&pos, rules, Counters::default());
                    let moves = moves.expect("rated under the rules");
                    moves
                        .iter()
                        .map(|m| (m.category, m.plies))
                        .collect::<Vec<_>>()
                };
                assert_eq!(moves(&three), moves(full), "{}", write_fen(&pos));
            }
        }
        captures
    }
    let captures = check::<English>(40) + check::<Russian>(40) + check::<International>(20);
    assert!(captures > 50, "{captures}");
}

#[test]
fn damaged_files_give_errors_never_wrong_values() {
    let good = tables(Variant::English);
    let dir = scratch("damaged");
    copy_dir(&good.dir().join("english"), &dir.join("english"));
    let m: Material = "2101".parse().expect("key");
    let wdl = Store::path_in(&dir, Variant::English, m, FileKind::Wdl);
    // A flipped byte in the last block.
    let mut bytes = std::fs::read(&wdl).expect("read");
    let at = bytes.len() - 3;
    bytes[at] ^= 0x40;
    std::fs::write(&wdl, &bytes).expect("write");
    let damaged = Tablebase::open(&dir).expect("open");
    let index = SliceIndex::<English>::new(m);
    let (mut errors, mut answers) = (0, 0);
    for i in 0..index.size() {
        let Some(f) = index.unrank(i) else { continue };
        let pos = f.position::<English>();
        match damaged.probe_dtw(&pos) {
            Ok(o) => {
                answers += 1;
                assert_eq!(o, good.probe_dtw(&pos).expect("good tables"));
            }
            Err(ProbeError::Table(TableError::Block(path, _))) => {
                assert_eq!(path, wdl);
                errors += 1;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    assert!(
        errors > 0 && answers > 0,
        "errors {errors}, answers {answers}"
    );
    assert!(matches!(
        verify_slice::<English>(&damaged, m),
        Err(ProbeError::Table(TableError::Block(..)))
    ));

    // A truncated file, a damaged header, a file of another variant.
    let dtw = Store::path_in(&dir, Variant::English, m, FileKind::Dtw);
    let bytes = std::fs::read(&dtw).expect("read");
    std::fs::write(&dtw, &bytes[..bytes.len() - 10]).expect("write");
    let k: Material = "1101".parse().expect("key");
    let header = Store::path_in(&dir, Variant::English, k, FileKind::Wdl);
    let mut bytes = std::fs::read(&header).expect("read");
    bytes[30] ^= 1;
    std::fs::write(&header, &bytes).expect("write");
    let italian = Store::path_in(&dir, Variant::Italian, k, FileKind::Wdl);
    std::fs::create_dir_all(italian.parent().expect("parent")).expect("mkdir");
    std::fs::copy(
        Store::path_in(good.dir(), Variant::English, k, FileKind::Wdl),
        &italian,
    )
    .expect("copy");
    let tb = Tablebase::open(&dir).expect("open");
    let err = |kind, variant, m| tb.table(variant, m, kind).expect_err("damaged");
    assert!(
        matches!(err(FileKind::Dtw, Variant::English, m), TableError::Truncated(p) if p == dtw)
    );
    assert!(
        matches!(err(FileKind::Wdl, Variant::English, k), TableError::HeaderChecksum(p) if p == header)
    );
    let e = err(FileKind::Wdl, Variant::Italian, k);
    assert!(
        matches!(&e, TableError::Mismatch(p, _) if *p == italian),
        "{e}"
    );
    assert!(e.to_string().contains("english table"), "{e}");
    let missing = err(
        FileKind::Wdl,
        Variant::English,
        "4001".parse().expect("key"),
    );
    assert!(matches!(missing, TableError::Missing(_)), "{missing}");
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("english"))
        .expect("dir")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn same_tables_whatever_the_thread_count() {
    let one = scratch("threads-1");
    let two = scratch("threads-3");
    build_english(&one, 1);
    build_english(&two, 3);
    let (a, b) = (files_of(&one), files_of(&two));
    assert_eq!(a.len(), 164, "four files for each of 41 slices");
    assert!(a == b, "tables differ between 1 and 3 threads");
}

#[test]
fn killed_build_restarts_and_verifies() {
    let dir = scratch("killed");
    let damka = env!("CARGO_BIN_EXE_damka");
    let args = [
        "generate",
        "--variant",
        "english",
        "--pieces",
        "4",
        "--threads",
        "1",
        "--quiet",
    ];
    let mut child = Command::new(damka)
        .args(args)
        .arg("--tables")
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let built = || {
        std::fs::read_dir(dir.join("english")).map_or(0, |d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "wdl"))
            })
            .count()
        })
    };
    // Killed once a quarter of the slices are built, however fast the machine.
    while built() < 10 && child.try_wait().expect("wait").is_none() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().expect("kill");
    child.wait().expect("wait");
    let done_before = built();
    assert!(done_before < 41, "the build finished before it was killed");
    let out = Command::new(damka)
        .args(args)
        .arg("--tables")
        .arg(&dir)
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    let skipped: usize = first
        .strip_suffix(" already done")
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary: {first}"));
    assert!(
        skipped > 0 && skipped <= done_before,
        "{first} ({done_before} files before)"
    );
    let verify = Command::new(damka)
        .args(["verify", "--tables"])
        .arg(&dir)
        .output()
        .expect("run");
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    assert!(String::from_utf8_lossy(&verify.stdout).contains("slices 41, bad 0, missing 0"));
}

/// `damka compact --min-pieces 3` on English up to 4 pieces: a line per rules file derived,
/// per pair and per slice re-encoded and a total, a second run changes nothing; then `--even-rows` re-encodes the
/// kept distance files; every answer of `damka probe` as before, `verify` passes.
#[test]
fn compact_keeps_every_answer() {
    let damka = Path::new(env!("CARGO_BIN_EXE_damka"));
    let dir = scratch("compact");
    let full = tables(Variant::English).dir().join("english");
    std::fs::create_dir_all(dir.join("english")).expect("mkdir");
    for entry in std::fs::read_dir(&full).expect("tables") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.join("english").join(entry.file_name())).expect("copy");
    }
    let run = |args: &[&str]| {
        let out = Command::new(damka)
            .args(args)
            .arg("--tables")
            .arg(&dir)
            .output()
            .expect("damka runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("text")
    };
    let out = run(&["compact", "--min-pieces", "3"]);
    assert!(
        out.contains("english 2110 searched, 1021 kept: ")
            || out.contains("english 1021 searched, 2110 kept: "),
        "{out}"
    );
    assert!(out.contains(" forced exchanges unread: "), "{out}");
    assert!(
        out.contains("english 2110: rule results derived: "),
        "{out}"
    );
    let total = out.lines().last().expect("a total");
    assert!(
        total.starts_with("rules files derived 37, pairs 17, slices re-encoded 20, "),
        "{total}"
    );
    let again = run(&["compact", "--min-pieces", "3"]);
    assert!(
        again.starts_with("rules files derived 0, pairs 0, slices re-encoded 0, "),
        "{again}"
    );
    // Then the kept distances on even rows: the distance file of each pair's kept slice.
    let even = run(&["compact", "--min-pieces", "3", "--even-rows"]);
    assert_eq!(
        even.lines()
            .filter(|l| l.contains(" distances on even rows unread: "))
            .count(),
        17,
        "{even}"
    );
    assert!(
        even.lines().last().is_some_and(
            |l| l.starts_with("rules files derived 0, pairs 0, slices re-encoded 17, ")
        ),
        "{even}"
    );
    assert!(run(&["verify"]).ends_with("slices 41, bad 0, missing 0\n"));
    for fen in ["W:WK19,K23:BK28,12", "B:W21,K1:B9,K30", "W:W24:B12,16,K31"] {
        let probe = |dir: &Path| {
            let out = Command::new(damka)
                .args(["probe", "--variant", "english", "--fen", fen, "--tables"])
                .arg(dir)
                .output()
                .expect("damka probe runs");
            assert!(
                out.status.success(),
                "{fen}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        assert_eq!(probe(&dir), probe(tables(Variant::English).dir()), "{fen}");
    }
}

/// Counts given at their largest (`--quiet-plies 4294967295`) are past every limit and stay
/// there after a move: First Position and each of its winning moves are wins the counts
/// draw (cursed), none a win.
#[test]
fn counts_at_their_largest_stay_past_the_limit() {
    let dir = tables(Variant::English).dir().to_path_buf();
    let fen = "W:WK19,K23:BK28,12";
    let out = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(["probe", "--variant", "english", "--fen", fen, "--tables"])
        .arg(&dir)
        .args(["--quiet-plies", "4294967295"])
        .output()
        .expect("damka runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        ["result win", "dtw 61", "rules cursed-win"],
        "{text}"
    );
    let moves: Vec<&str> = lines.iter().skip(4).copied().collect();
    assert!(!moves.is_empty(), "{text}");
    for line in moves {
        let words: Vec<&str> = line.split_whitespace().collect();
        let rule = words.last().copied().unwrap_or_default();
        match words.get(1).copied() {
            Some("win") => assert_eq!(rule, "cursed-win", "{line}"),
            _ => assert_ne!(rule, "win", "{line}"),
        }
    }
}

/// The finished-game rule, in the library every front end probes through: a position whose
/// side not to move has no pieces (no game reaches it) is refused by every probe with one
/// error; a side to move without pieces has lost, at distance 0.
#[test]
fn unreachable_positions_are_refused_by_every_probe() {
    let tb = tables(Variant::English);
    let rules = RuleSet::default_for(Variant::English);
    let c = Counters::default();
    for (fen, idle) in [("W:W:B", "black"), ("B:W:B", "white"), ("W:WK5:B", "black")] {
        let pos = parse_fen::<English>(fen).expect(fen);
        let message = format!(
            "illegal position: {idle}, not to move, has no pieces (no game reaches it: the \
             capture of {idle}'s last piece ends the game with {idle} to move, a loss)"
        );
        let refused = |what: &str, e: ProbeError| {
            assert!(
                matches!(e, ProbeError::Unreachable(_)),
                "{fen} {what}: {e:?}"
            );
            assert_eq!(e.to_string(), message, "{fen} {what}");
        };
        refused("wdl", tb.probe_wdl(&pos).expect_err(fen));
        refused("dtw", tb.probe_dtw(&pos).expect_err(fen));
        refused("dtc", tb.probe_dtc(&pos).expect_err(fen));
        refused("moves", tb.rated_moves(&pos).expect_err(fen));
        refused("rules", tb.probe_rules(&pos, rules, c).expect_err(fen));
        refused("rule moves", tb.rule_moves(&pos, rules, c).expect_err(fen));
        refused(
            "mainline",
            tb.mainline(&pos).next().expect("a step").expect_err(fen),
        );
        assert_eq!(tb.resolve_cached(&pos, true), None, "{fen}");
        assert_eq!(tb.rule_result_cached(&pos, rules, c), None, "{fen}");
    }
    // The game over: the side to move has no pieces (or no move) and has lost.
    for fen in ["W:W:BK5", "B:WK5:B", "W:W29:B25,22"] {
        let pos = parse_fen::<English>(fen).expect(fen);
        assert_eq!(tb.probe_dtw(&pos).expect(fen), Outcome::loss(0), "{fen}");
        assert_eq!(tb.probe_dtc(&pos).expect(fen), Some(0), "{fen}");
        assert!(tb.rated_moves(&pos).expect(fen).is_empty(), "{fen}");
        assert_eq!(
            tb.probe_rules(&pos, rules, c).expect(fen),
            RuleCategory::Loss,
            "{fen}"
        );
        assert!(tb.mainline(&pos).next().is_none(), "{fen}");
    }
}

/// `damka probe`'s output as a newcomer reads it: each move's rule category is labelled as
/// the position's is (`28-32 draw rules draw`, not `28-32 draw draw`), and a FEN pasted
/// with its PDN tag reads as the FEN.
#[test]
fn probe_labels_the_rule_column_and_reads_a_pasted_fen_tag() {
    let dir = tables(Variant::English).dir().to_path_buf();
    let probe = |fen: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(["probe", "--variant", "english", "--fen", fen, "--tables"])
            .arg(&dir)
            .output()
            .expect("damka runs");
        assert!(out.status.success(), "{fen}: {out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    assert_eq!(
        probe("W:WK19,K23:BK28,12"),
        "result win\ndtw 61\nrules win\ndtc 17\n23-27 win 61 rules win\n23-18 win 65 rules \
         win\n23-26 win 65 rules win\n19-15 win 69 rules win\n19-16 loss 2 rules loss\n19-24 \
         loss 2 rules loss\n"
    );
    assert_eq!(
        probe("B:WK1:BK32"),
        "result draw\nrules draw\n32-27 draw rules draw\n32-28 draw rules draw\n"
    );
    for pasted in [
        "[FEN \"W:WK19,K23:BK28,12\"]",
        " [FEN \"W:WK19,K23:BK28,12\"] ",
        "\"W:WK19,K23:BK28,12\"",
    ] {
        assert_eq!(probe(pasted), probe("W:WK19,K23:BK28,12"), "{pasted}");
    }
}

/// The finished-game rule on the command line: `probe` and `play` refuse a position no game
/// reaches (the side not to move without pieces) with the library's message, exit code 2;
/// a side to move without pieces has lost, in 0 plies.
#[test]
fn probe_and_play_refuse_unreachable_positions_alike() {
    let dir = tables(Variant::English).dir().to_path_buf();
    let run = |command: &str, fen: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_damka"));
        cmd.args([command, "--variant", "english", "--fen", fen, "--tables"])
            .arg(&dir);
        if command == "play" {
            cmd.args(["--depth", "2"]);
        }
        cmd.output().expect("damka runs")
    };
    for (fen, idle) in [("W:W:B", "black"), ("B:W:B", "white"), ("W:WK5:B", "black")] {
        for command in ["probe", "play"] {
            let out = run(command, fen);
            assert_eq!(out.status.code(), Some(2), "{command} {fen}");
            assert!(out.stdout.is_empty(), "{command} {fen}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!(
                    "error: illegal position: {idle}, not to move, has no pieces (no game \
                     reaches it: the capture of {idle}'s last piece ends the game with {idle} \
                     to move, a loss)\n"
                ),
                "{command} {fen}"
            );
        }
    }
    let out = run("probe", "W:W:BK5");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "result loss\ndtw 0\nrules loss\ndtc 0\n"
    );
    let out = run("play", "W:W:BK5");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("bestmove none\nscore loss in 0\n"),
        "{out:?}"
    );
}

/// Counts at and past their limits: the largest (`4294967295`) gives what any count past
/// the rules' limits gives (Russian three kings against one: 15 moves, 30 plies, of the
/// material count), one past it or a negative one is refused naming the option.
#[test]
fn counts_at_and_past_their_limits_answer_or_are_refused() {
    let dir = tables(Variant::Russian).dir().to_path_buf();
    let fen = "W:WKa1,Kc3,Ke1:BKh4";
    let probe = |option: &str, count: &str| {
        Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(["probe", "--variant", "russian", "--fen", fen, "--tables"])
            .arg(&dir)
            .args([option, count])
            .output()
            .expect("damka runs")
    };
    let rules_line = |option: &str, count: &str| {
        let out = probe(option, count);
        assert!(out.status.success(), "{option} {count}: {out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        text.lines()
            .find(|l| l.starts_with("rules "))
            .unwrap_or_else(|| panic!("{option} {count}: {text}"))
            .to_string()
    };
    assert_eq!(rules_line("--material-plies", "0"), "rules win");
    for count in ["30", "1000", "4294967295"] {
        assert_eq!(
            rules_line("--material-plies", count),
            "rules cursed-win",
            "{count}"
        );
    }
    assert_eq!(
        rules_line("--quiet-plies", "4294967295"),
        "rules cursed-win"
    );
    for option in ["--quiet-plies", "--material-plies"] {
        let name = if option == "--quiet-plies" { "N" } else { "M" };
        for count in ["4294967296", "-1", "1e3"] {
            let out = probe(option, count);
            assert_eq!(out.status.code(), Some(2), "{option} {count}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                err.lines().next(),
                Some(
                    format!(
                        "error: invalid value '{count}' for '{option} <{name}>': a count of \
                         plies is a whole number from 0 to 4294967295, not {count}"
                    )
                    .as_str()
                ),
                "{err}"
            );
        }
    }
}

//! `damka verify`: checksums, full consistency and header counts of every table (or of the
//! slices asked for), and the slices missing for the piece counts present.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use damka::rules::Rules;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{FileKind, Material, SliceCheck, Tablebase, verify_pair};
use damka::{Variant, with_rules};

use super::tables::{open, slice_fits, slices, tables_dir, variants};
use super::{CliError, print_out};

/// Arguments of `damka verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Only this variant's tables.
    #[arg(long)]
    variant: Option<Variant>,
    /// Only this slice (four digits, as for `generate --slice`), read with its twin;
    /// repeatable, to verify large tables in parts.
    #[arg(long, value_name = "KEY", requires = "variant")]
    slice: Vec<Material>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    if let Some(variant) = args.variant {
        for &m in &args.slice {
            with_rules!(variant, R => slice_fits::<R>(m))?;
        }
    }
    let dir = tables_dir(&args.tables)?;
    let tb = open(&dir, DEFAULT_CACHE_BYTES)?;
    let (mut bad, mut checked, mut missing) = (0, 0, 0);
    for variant in variants(&dir, args.variant) {
        let present = slices(&dir, variant)?;
        let (asked, absent) = if args.slice.is_empty() {
            (present.clone(), missing_slices(&tb, variant, &present))
        } else {
            split_asked(&args.slice, &present)
        };
        // A slice and its twin are checked together; the twin's verdict waits for its turn.
        let mut waiting: BTreeMap<Material, String> = BTreeMap::new();
        for m in &asked {
            let verdict = match waiting.remove(m) {
                Some(v) => v,
                None => {
                    let mut pair = with_rules!(variant, R => check::<R>(&tb, *m, &present));
                    let own = pair.remove(0).1;
                    waiting.extend(pair);
                    own
                }
            };
            checked += 1;
            if verdict != "ok" {
                bad += 1;
            }
            print_out(&format!("{variant} {m} {verdict}\n"))?;
        }
        for m in absent {
            missing += 1;
            print_out(&format!("{variant} {m} missing\n"))?;
        }
    }
    print_out(&format!("slices {checked}, bad {bad}, missing {missing}\n"))?;
    let failure = if checked == 0 {
        Some(format!("no tables to verify under {}", dir.display()))
    } else if bad > 0 {
        Some(format!("{bad} slices failed verification"))
    } else if missing > 0 {
        Some(format!(
            "{missing} slices missing for the piece counts present"
        ))
    } else {
        None
    };
    match failure {
        Some(message) => Err(CliError { message, code: 1 }),
        None => Ok(()),
    }
}

/// Of the slices `asked` for, those `present` (in its order) and those absent (in key
/// order).
fn split_asked(asked: &[Material], present: &[Material]) -> (Vec<Material>, Vec<Material>) {
    let mut absent: Vec<Material> = asked
        .iter()
        .copied()
        .filter(|m| !present.contains(m))
        .collect();
    absent.sort_by_key(|m| (m.pieces(), *m));
    absent.dedup();
    let found = present
        .iter()
        .copied()
        .filter(|m| asked.contains(m))
        .collect();
    (found, absent)
}

/// The slices of `variant` with as many pieces as some slice present that lack a file,
/// in key order.
fn missing_slices(tb: &Tablebase, variant: Variant, present: &[Material]) -> Vec<Material> {
    let counts: BTreeSet<u32> = present.iter().map(|m| m.pieces()).collect();
    let Some(&most) = counts.last() else {
        return Vec::new();
    };
    let max_side = with_rules!(variant, R => R::MEN);
    let listing = tb.store().listing(variant).unwrap_or_default();
    let mut out: Vec<Material> = Material::all_up_to(most, max_side)
        .into_iter()
        .filter(|m| counts.contains(&m.pieces()))
        .filter(|&m| FileKind::BUILT.iter().any(|&k| !listing.has(m, k)))
        .filter(|m| !present.contains(m))
        .collect();
    out.sort_by_key(|m| (m.pieces(), *m));
    out
}

/// The verdicts on `m` and, if it is another slice and `present`, its twin (they are read
/// together), `m`'s first.
fn check<R: Rules>(tb: &Tablebase, m: Material, present: &[Material]) -> Vec<(Material, String)> {
    match verify_pair::<R>(tb, m) {
        Ok(checks) => checks
            .into_iter()
            .filter(|(s, _)| *s == m || present.contains(s))
            .map(|(s, check)| {
                let words = match check {
                    Ok(check) => verdict(check),
                    Err(e) => format!("error: {e}"),
                };
                (s, words)
            })
            .collect(),
        Err(e) => vec![(m, format!("error: {e}"))],
    }
}

/// One line's words for a slice's check.
fn verdict(check: SliceCheck) -> String {
    match check {
        SliceCheck::Ok => "ok".to_string(),
        SliceCheck::Bad {
            index,
            stored,
            expected,
        } => {
            format!("bad index {index}: stored {stored}, moves give {expected}")
        }
        SliceCheck::BadWdl {
            index,
            stored,
            expected,
        } => format!("bad index {index}: stored {stored}, moves give {expected}"),
        SliceCheck::BadDtc {
            index,
            stored,
            expected,
        } => format!(
            "bad index {index}: stored distance to conversion {stored}, moves give {expected}"
        ),
        SliceCheck::BadRules {
            index,
            stored,
            expected,
        } => format!("bad index {index}: stored rule result {stored}, moves give {expected}"),
        SliceCheck::DrawnByRules { header, counted } => format!(
            "bad counts in the rules header: {header} cursed wins and blessed losses, counted \
             {counted}"
        ),
        SliceCheck::HeaderField { kind, what } => {
            format!("bad {} header: {what}", kind.extension())
        }
        SliceCheck::Counts {
            kind,
            header,
            counted,
        } => format!(
            "bad counts in the {} header: wins, draws, losses, unused {header:?}, counted \
             {counted:?}",
            kind.extension()
        ),
    }
}

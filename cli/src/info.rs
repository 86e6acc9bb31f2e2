//! `damka info`: what the tables directory holds, per variant and piece count.

use std::collections::BTreeMap;
use std::path::PathBuf;

use damka::rules::Rules;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{FileKind, Material};
use damka::with_rules;

use super::tables::{generate_command, open, slices, tables_dir, variants};
use super::{CliError, print_out};

/// Arguments of `damka info`.
#[derive(clap::Args)]
pub struct Args {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
}

#[derive(Default)]
struct Totals {
    slices: u64,
    positions: u64,
    stored: u64,
    wdl_bytes: u64,
    dtw_bytes: u64,
    dtc_bytes: u64,
    rules_bytes: u64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let dir = tables_dir(&args.tables)?;
    let tb = open(&dir, DEFAULT_CACHE_BYTES)?;
    let mut out = String::from(
        "variant pieces slices positions stored wdl_bytes dtw_bytes dtc_bytes rules_bytes positions_per_wdl_byte\n",
    );
    for variant in variants(&dir, None) {
        let mut by_pieces: BTreeMap<u32, Totals> = BTreeMap::new();
        for m in slices(&dir, variant)? {
            let t = by_pieces.entry(m.pieces()).or_default();
            let failed = |e: damka::tablebase::TableError| CliError {
                message: e.to_string(),
                code: 1,
            };
            let wdl = tb.table(variant, m, FileKind::Wdl).map_err(failed)?;
            let h = wdl.header();
            t.slices += 1;
            t.positions += h.positions;
            t.stored += h.positions - h.unused;
            t.wdl_bytes += file_len(wdl.path());
            if let Ok(dtw) = tb.table(variant, m, FileKind::Dtw) {
                t.dtw_bytes += file_len(dtw.path());
            }
            if let Ok(dtc) = tb.table(variant, m, FileKind::Dtc) {
                t.dtc_bytes += file_len(dtc.path());
            }
            if let Ok(rules) = tb.table(variant, m, FileKind::Rules) {
                t.rules_bytes += file_len(rules.path());
            }
        }
        // Piece counts with fewer slices than the variant has: said after the table.
        let mut incomplete = Vec::new();
        let max_side = with_rules!(variant, R => R::MEN);
        for (&pieces, t) in &by_pieces {
            let all = Material::all_up_to(pieces, max_side)
                .into_iter()
                .filter(|m| m.pieces() == pieces)
                .count() as u64;
            if t.slices < all {
                let hint = generate_command(variant, pieces, &dir)
                    .map_or_else(String::new, |c| format!(": `{c}` completes it"));
                incomplete.push(format!(
                    "incomplete: {variant} {pieces} pieces, {} of {all} slices{hint}\n",
                    t.slices
                ));
            }
        }
        for (pieces, t) in by_pieces {
            out.push_str(&format!(
                "{variant} {pieces} {} {} {} {} {} {} {} {:.1}\n",
                t.slices,
                t.positions,
                t.stored,
                t.wdl_bytes,
                t.dtw_bytes,
                t.dtc_bytes,
                t.rules_bytes,
                t.positions as f64 / t.wdl_bytes.max(1) as f64
            ));
        }
        out.extend(incomplete);
    }
    print_out(&out)
}

fn file_len(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

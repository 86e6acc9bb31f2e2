//! `damka stats`: per slice, what its files' headers say: wins, draws and losses (stored
//! positions, and with capture positions resolved), positions not stored, the longest
//! distances with an example position each. Nothing but the headers is read.

use std::path::{Path, PathBuf};

use damka::rules::Rules;
use damka::tablebase::format::{Header, Stats, VERSION, read_header};
use damka::tablebase::{FileKind, Material, SliceIndex, Store};
use damka::{Variant, with_rules};
use serde::Serialize;

use super::tables::{slice_fits, slices, tables_dir, tables_there, variants};
use super::{CliError, print_out};

/// Arguments of `damka stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Only this variant's tables.
    #[arg(long)]
    variant: Option<Variant>,
    /// Only this slice (four digits, as for `generate --slice`); repeatable.
    #[arg(long, value_name = "KEY", requires = "variant")]
    slice: Vec<Material>,
    /// One JSON object a slice, a line each, instead of the table.
    #[arg(long)]
    json: bool,
}

/// Wins, draws and losses.
#[derive(Serialize)]
struct Results {
    wins: u64,
    draws: u64,
    losses: u64,
}

/// A slice's longest distance of one kind, with its first position.
#[derive(Serialize)]
struct Longest {
    /// In plies.
    plies: u16,
    /// The first index at that distance: `None` where no position is won or lost, or
    /// where the file holds no statistics (then `fen` says so too).
    index: Option<u64>,
    /// The position at `index`, White to move.
    fen: Option<String>,
}

/// One slice's statistics.
#[derive(Serialize)]
struct Row {
    variant: String,
    slice: String,
    /// Indices of the slice.
    positions: u64,
    /// The stored positions' results.
    stored: Results,
    /// Capture positions and indices without a position.
    not_stored: u64,
    /// Results with the capture positions resolved (`None` where the file holds no
    /// statistics).
    resolved: Option<Results>,
    /// Longest distance to conversion.
    dtc: Option<Longest>,
    /// Longest distance to the end, where its file is built.
    dtw: Option<Longest>,
    /// Why statistics are missing, and how to get them.
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    if let Some(variant) = args.variant {
        for &m in &args.slice {
            with_rules!(variant, R => slice_fits::<R>(m))?;
        }
    }
    let dir = tables_dir(&args.tables)?;
    tables_there(&dir)?;
    let mut rows = Vec::new();
    for variant in variants(&dir, args.variant) {
        let present = slices(&dir, variant)?;
        if let Some(m) = args.slice.iter().find(|m| !present.contains(m)) {
            return Err(CliError {
                message: format!(
                    "no {variant} tables for slice {m} under {} (build it with `damka \
                     generate --variant {variant} --slice {m} --tables {}`)",
                    dir.display(),
                    dir.display()
                ),
                code: 1,
            });
        }
        for &m in &present {
            if args.slice.is_empty() || args.slice.contains(&m) {
                rows.push(with_rules!(variant, R => row::<R>(&dir, m))?);
            }
        }
    }
    if rows.is_empty() {
        return Err(CliError {
            message: format!("no tables under {}", dir.display()),
            code: 1,
        });
    }
    match args.json {
        true => {
            let lines: Vec<String> = rows
                .iter()
                .map(|r| serde_json::to_string(r).expect("a row serialises"))
                .collect();
            print_out(&(lines.join("\n") + "\n"))
        }
        false => print_out(&table(&rows)),
    }
}

/// The statistics of slice `m` of `R` under `dir`, from its files' headers.
fn row<R: Rules>(dir: &Path, m: Material) -> Result<Row, CliError> {
    let header = |kind| {
        let path = Store::path_in(dir, R::VARIANT, m, kind);
        match read_header(&path, kind, R::VARIANT, m) {
            Ok(h) => Ok(Some(h)),
            Err(_) if kind == FileKind::Dtw && !path.exists() => Ok(None),
            Err(e) => Err(CliError {
                message: e.to_string(),
                code: 1,
            }),
        }
    };
    let (wdl, version) = header(FileKind::Wdl)?.expect("the win/draw/loss file is there");
    let dtc = header(FileKind::Dtc)?.map(|(h, _)| h);
    let dtw = header(FileKind::Dtw)?.map(|(h, _)| h);
    let index = SliceIndex::<R>::new(m);
    let longest = |h: &Header| {
        let at = match h.stats {
            Some(Stats::LongestAt(at)) => Some(at),
            _ => None,
        };
        Longest {
            plies: h.max_dtw,
            index: at.flatten(),
            fen: at.flatten().map(|i| match index.unrank(i) {
                Some(frame) => damka::notation::write_fen(&frame.position::<R>()),
                None => format!("(index {i} holds no position)"),
            }),
        }
    };
    let resolved = match wdl.stats {
        Some(Stats::Captures {
            wins,
            draws,
            losses,
        }) => Some(Results {
            wins: wdl.wins + wins,
            draws: wdl.draws + draws,
            losses: wdl.losses + losses,
        }),
        _ => None,
    };
    let no_stats = resolved.is_none()
        || [&dtc, &dtw]
            .into_iter()
            .flatten()
            .any(|h| !matches!(h.stats, Some(Stats::LongestAt(_))));
    let rebuild = format!(
        "remove the slice's files and rebuild it with `damka generate --variant {} --slice {m} \
         --tables {}`",
        R::VARIANT,
        dir.display()
    );
    let missing = no_stats.then(|| match version {
        VERSION => format!(
            "its files were converted from an older format and hold no statistics: {rebuild}"
        ),
        v => format!("its files are of format version {v}, without statistics: {rebuild}"),
    });
    Ok(Row {
        variant: R::VARIANT.to_string(),
        slice: m.to_string(),
        positions: wdl.positions,
        stored: Results {
            wins: wdl.wins,
            draws: wdl.draws,
            losses: wdl.losses,
        },
        not_stored: wdl.unused,
        resolved,
        dtc: dtc.as_ref().map(longest),
        dtw: dtw.as_ref().map(longest),
        missing,
    })
}

/// The rows as a table with a header line, columns aligned, `-` where a value is not
/// known; then a line for each slice whose statistics are missing.
fn table(rows: &[Row]) -> String {
    let titles = [
        "variant",
        "slice",
        "positions",
        "wins",
        "draws",
        "losses",
        "not_stored",
        "wins_resolved",
        "draws_resolved",
        "losses_resolved",
        "longest_dtc",
        "dtc_example",
        "longest_dtw",
        "dtw_example",
    ];
    let unknown = || "-".to_string();
    let longest = |l: &Option<Longest>| match l {
        None => [unknown(), unknown()],
        Some(l) => [l.plies.to_string(), l.fen.clone().unwrap_or_else(unknown)],
    };
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let resolved = match &r.resolved {
                Some(x) => [x.wins, x.draws, x.losses].map(|n| n.to_string()),
                None => [unknown(), unknown(), unknown()],
            };
            let mut cells = vec![
                r.variant.clone(),
                r.slice.clone(),
                r.positions.to_string(),
                r.stored.wins.to_string(),
                r.stored.draws.to_string(),
                r.stored.losses.to_string(),
                r.not_stored.to_string(),
            ];
            cells.extend(resolved);
            cells.extend(longest(&r.dtc));
            cells.extend(longest(&r.dtw));
            cells
        })
        .collect();
    let mut widths: Vec<usize> = titles.iter().map(|t| t.len()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let line = |row: &[String]| {
        let padded: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!("{c:<w$}"))
            .collect();
        padded.join(" ").trim_end().to_string() + "\n"
    };
    let mut out = line(&titles.map(String::from));
    for row in &cells {
        out += &line(row);
    }
    for r in rows {
        if let Some(why) = &r.missing {
            out += &format!("{} {}: no statistics: {why}\n", r.variant, r.slice);
        }
    }
    out
}

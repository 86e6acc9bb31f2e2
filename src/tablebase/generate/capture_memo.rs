//! The outcomes of the positions a job's captures lead to, remembered on each thread: one
//! position after a capture is reached from many positions of a slice (the piece taken
//! anywhere between the capturing piece's start and its landing square), and finding its
//! outcome costs a search of its own captures and lookups in the smaller tables. Beside the
//! outcome, what the capture gives under the job's rule set, where it was asked for.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::rules::{Color, Position, Rules};
use crate::tablebase::probe::{ProbeError, Tablebase};
use crate::tablebase::value::Contribution;
use crate::tablebase::value::Outcome;

/// Pairs of entries a thread keeps: 512 KiB, within the core's second-level cache (a
/// larger memo answered more often but took longer for each answer).
const BUCKETS: usize = 1 << 13;

/// The next job's number (see [`resolve`]).
static NEXT_JOB: AtomicU64 = AtomicU64::new(1);

/// A number for a new job, so that a thread's memo never answers for another job (whose
/// tables or variant may differ).
pub(super) fn next_job() -> u64 {
    NEXT_JOB.fetch_add(1, Ordering::Relaxed)
}

/// A position and its outcome.
#[derive(Copy, Clone)]
struct Entry {
    white: u64,
    black: u64,
    kings: u64,
    /// The side to move (bit 0) and the outcome's code above it; 0 in an empty entry (a
    /// code is never 0).
    side_code: u32,
    /// What the capture that led here gives under the rule set ([`conversion`]), encoded
    /// ([`encode`]); 0 while not known.
    conversion: u32,
}

const EMPTY: Entry = Entry {
    white: 0,
    black: 0,
    kings: 0,
    side_code: 0,
    conversion: 0,
};

/// Two entries in one cache line, the one used last first.
#[derive(Copy, Clone)]
#[repr(align(64))]
struct Bucket([Entry; 2]);

/// One thread's memo: the job it answers for and its buckets.
struct Memo {
    job: u64,
    buckets: Vec<Bucket>,
}

thread_local! {
    static MEMO: RefCell<Memo> = const {
        RefCell::new(Memo {
            job: 0,
            buckets: Vec::new(),
        })
    };
}

/// The entry of `pos` (its outcome and conversion not known) and its bucket.
fn key_of<R: Rules>(pos: &Position<R>) -> (Entry, usize) {
    let side = pos.side_to_move().index() as u32;
    let key = Entry {
        white: pos.pieces(Color::White).0,
        black: pos.pieces(Color::Black).0,
        kings: pos.kings().0,
        side_code: side,
        conversion: 0,
    };
    let hash = (key.white.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ key.black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ key.kings.wrapping_mul(0x1656_67B1_9E37_79F9)
        ^ u64::from(side))
    .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (key, (hash >> (64 - BUCKETS.trailing_zeros())) as usize)
}

/// Whether `e` holds the position of `key`.
#[inline(always)]
fn same(e: &Entry, key: &Entry) -> bool {
    (e.white, e.black, e.kings, e.side_code & 1) == (key.white, key.black, key.kings, key.side_code)
        && e.side_code != 0
}

/// Asks for the entries that may hold `pos` in job number `job` to be loaded, without
/// waiting for them: the outcomes of a position's captures are asked for one after the
/// other, and each bucket is most often out of the cache.
pub(super) fn prefetch<R: Rules>(job: u64, pos: &Position<R>) {
    let (_, at) = key_of(pos);
    MEMO.with_borrow(|memo| {
        if memo.job == job {
            crate::tablebase::index::levels::prefetch(&memo.buckets[at]);
        }
    });
}

/// `tb.resolve(pos, dtw)` (the outcome, with its distance where `dtw`) in job number `job`,
/// remembered on this thread until it works for another job (a job asks with one `dtw`).
pub(super) fn resolve<R: Rules>(
    job: u64,
    tb: &Tablebase,
    pos: &Position<R>,
    dtw: bool,
) -> Result<Outcome, ProbeError> {
    let (mut key, at) = key_of(pos);
    let side = key.side_code;
    MEMO.with_borrow_mut(|memo| {
        if memo.job != job {
            memo.job = job;
            if memo.buckets.is_empty() {
                memo.buckets = vec![Bucket([EMPTY; 2]); BUCKETS];
            } else {
                memo.buckets.fill(Bucket([EMPTY; 2]));
            }
        }
        let bucket = &mut memo.buckets[at].0;
        let code = if same(&bucket[0], &key) {
            bucket[0].side_code >> 1
        } else if same(&bucket[1], &key) {
            bucket.swap(0, 1);
            bucket[0].side_code >> 1
        } else {
            let outcome = tb.resolve(pos, dtw)?;
            key.side_code = u32::from(outcome.code()) << 1 | side;
            bucket[1] = bucket[0];
            bucket[0] = key;
            return Ok(outcome);
        };
        Ok(Outcome::from_code(code as u16).expect("a stored code is never 0"))
    })
}

/// What the capture that leads to `pos` gives under job number `job`'s rule set, `find`
/// finding it where this thread does not remember it beside `pos`'s outcome (asked just
/// before with [`resolve`]). Within a job it depends on `pos` alone: the material before
/// the capture (of either of the job's slices) counts only where it equals the material
/// after, which a capture never does.
pub(super) fn conversion<R: Rules, E>(
    job: u64,
    pos: &Position<R>,
    find: impl FnOnce() -> Result<Contribution, E>,
) -> Result<Contribution, E> {
    let (key, at) = key_of(pos);
    let known = MEMO.with_borrow_mut(|memo| {
        let code = entry(memo, job, at, &key)?.conversion;
        (code != 0).then(|| decode(code))
    });
    if let Some(c) = known {
        return Ok(c);
    }
    let c = find()?;
    MEMO.with_borrow_mut(|memo| {
        if let Some(e) = entry(memo, job, at, &key) {
            e.conversion = encode(c);
        }
    });
    Ok(c)
}

/// The entry of `memo` in bucket `at` that holds the position of `key`, if `memo` answers
/// for job number `job`.
fn entry<'m>(memo: &'m mut Memo, job: u64, at: usize, key: &Entry) -> Option<&'m mut Entry> {
    if memo.job != job {
        return None;
    }
    memo.buckets[at].0.iter_mut().find(|e| same(e, key))
}

/// A contribution as an entry's `conversion` (never 0).
fn encode(c: Contribution) -> u32 {
    match c {
        Contribution::Win(p) => 1 | u32::from(p) << 2,
        Contribution::Loss(p) => 2 | u32::from(p) << 2,
        Contribution::Neither => 3,
    }
}

/// The contribution an entry's `conversion` holds.
fn decode(code: u32) -> Contribution {
    match code & 3 {
        1 => Contribution::Win((code >> 2) as u16),
        2 => Contribution::Loss((code >> 2) as u16),
        _ => Contribution::Neither,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{International, MoveList, RuleSet, generate};
    use crate::tablebase::{Contents, Material, Silent, SliceIndex, build_job, plan};
    use std::fs;

    /// A scratch directory for this test's tables.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("damka-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    /// After every capture of International's 3-piece slices (flying kings: one position
    /// after a capture is reached from many), the memo answers what the tables do, when it
    /// finds the answer (asked again at once) as when it does not, within a new job as
    /// within the first; and a job of other tables (here none) gets no answer of the
    /// first's. The same for what a capture gives under the rules, remembered beside the
    /// outcome once found (here a made-up one, a function of the position).
    #[test]
    fn remembered_outcomes_are_the_tables() {
        let dir = scratch("capture-memo");
        let tb = Tablebase::open(&dir).expect("a tables directory");
        let rules = RuleSet::default_for(International::VARIANT);
        for job in plan(2, International::MEN) {
            build_job::<International>(&job, &tb, Contents::every_kind(rules), &Silent)
                .expect("built");
        }
        let empty_dir = scratch("capture-memo-empty");
        let no_tables = Tablebase::open(&empty_dir).expect("a tables directory");
        let (mut captures, mut distinct) = (0, std::collections::HashSet::new());
        // The last position remembered that needs a table (both sides have pieces).
        let mut last = None;
        let mut list = MoveList::new();
        let jobs = [next_job(), next_job()];
        for job in jobs {
            for m in [
                Material::new(0, 1, 0, 2),
                Material::new(0, 2, 0, 1),
                Material::new(1, 1, 0, 1),
            ] {
                let index = SliceIndex::<International>::new(m);
                for i in 0..index.size() {
                    let Some(frame) = index.unrank(i) else {
                        continue;
                    };
                    let pos = frame.position::<International>();
                    generate(&pos, &mut list);
                    for mv in list.as_slice().iter().filter(|mv| mv.is_capture()) {
                        let after = pos.play(mv);
                        let expected = tb.resolve(&after, true).expect("in the tables");
                        for _ in 0..2 {
                            assert_eq!(
                                resolve(job, &tb, &after, true).expect("in the tables"),
                                expected
                            );
                        }
                        let given = Contribution::Loss(after.kings().0.count_ones() as u16);
                        assert_eq!(conversion(job, &after, || Ok::<_, ()>(given)), Ok(given));
                        assert_eq!(conversion(job, &after, || Err(())), Ok(given));
                        captures += 1;
                        distinct.insert(after);
                        if after.pieces(Color::White).0 != 0 && after.pieces(Color::Black).0 != 0 {
                            last = Some((after, expected));
                        }
                    }
                }
            }
        }
        // The last position remembered needing a table: its job answers from memory even
        // when asked with no tables; another job gets those tables' error.
        let (last, expected) = last.expect("a capture that leaves both sides pieces");
        assert!(no_tables.resolve(&last, true).is_err());
        assert_eq!(
            resolve(jobs[1], &no_tables, &last, true).ok(),
            Some(expected)
        );
        let given = Contribution::Loss(last.kings().0.count_ones() as u16);
        assert_eq!(conversion(jobs[1], &last, || Err(())), Ok(given));
        assert!(resolve(next_job(), &no_tables, &last, true).is_err());
        assert_eq!(conversion(next_job(), &last, || Err(())), Err(()));
        fs::remove_dir_all(&dir).expect("removed");
        fs::remove_dir_all(&empty_dir).expect("removed");
        // Positions after captures came again and again, as in a slice's build.
        assert!(
            captures > 4 * distinct.len(),
            "{captures} captures, {} positions after them",
            distinct.len()
        );
        assert!(
            distinct.len() > 1000,
            "{} positions after captures",
            distinct.len()
        );
    }
}

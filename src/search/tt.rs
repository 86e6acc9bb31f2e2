//! The transposition table: a fixed array of two-entry buckets indexed by Zobrist key.

use crate::rules::Move;

/// What a stored score means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (the search failed low).
    Upper,
}

/// One stored search result.
#[derive(Copy, Clone, Debug)]
pub struct Entry {
    /// The full key, to tell positions sharing a bucket apart.
    pub key: u64,
    /// The best move found, if any.
    pub mv: Option<Move>,
    /// The score, with wins relative to this node (see `to_tt` / `from_tt` in the search).
    pub score: i32,
    /// Remaining depth of the search that produced it.
    pub depth: i16,
    /// How to read the score.
    pub bound: Bound,
    /// The search that wrote it (for replacement).
    pub age: u8,
}

const BUCKET: usize = 2;

/// A transposition table too large for the memory there is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashError {
    /// The size asked for, in MiB.
    pub mb: usize,
    /// The bytes that could not be allocated.
    pub bytes: usize,
}

impl std::fmt::Display for HashError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot allocate a {} MiB hash table ({} bytes): not enough memory",
            self.mb, self.bytes
        )
    }
}

impl std::error::Error for HashError {}

/// The table.
pub struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table of about `mb` MiB (at least one bucket; the bucket count is a power of two).
    ///
    /// # Panics
    /// When the memory cannot be had; [`Table::try_new`] says so instead.
    pub fn new(mb: usize) -> Table {
        Table::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of about `mb` MiB, or an error naming the size when the memory cannot be had.
    pub fn try_new(mb: usize) -> Result<Table, HashError> {
        let per_bucket = BUCKET * std::mem::size_of::<Option<Entry>>();
        let fail = |bytes| HashError { mb, bytes };
        let bytes = mb.max(1).checked_mul(1 << 20).ok_or(fail(usize::MAX))?;
        let buckets = (bytes / per_bucket).max(1);
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(buckets * BUCKET)
            .map_err(|_| fail(buckets * per_bucket))?;
        slots.resize(buckets * BUCKET, None);
        Ok(Table {
            slots,
            mask: buckets - 1,
            age: 0,
        })
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.slots.fill(None);
        self.age = 0;
    }

    /// Starts a new search: older entries are replaced first.
    pub fn next_age(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> usize {
        (key as usize & self.mask) * BUCKET
    }

    /// The entry of `key`, if stored.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.slots[b..b + BUCKET]
            .iter()
            .flatten()
            .find(|e| e.key == key)
            .copied()
    }

    /// Stores a result, replacing the same position, else an empty slot, else the shallowest
    /// or oldest entry of the bucket. A result without a move keeps the stored move.
    #[inline]
    pub fn put(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let b = self.bucket(key);
        let age = self.age;
        let slots = &mut self.slots[b..b + BUCKET];
        let victim = match slots.iter().position(|s| s.is_some_and(|e| e.key == key)) {
            Some(i) => i,
            None => match slots.iter().position(|s| s.is_none()) {
                Some(i) => i,
                None => {
                    let worth = |e: &Option<Entry>| {
                        e.map_or(i32::MIN, |e| e.depth as i32 - 8 * (e.age != age) as i32)
                    };
                    if worth(&slots[0]) <= worth(&slots[1]) {
                        0
                    } else {
                        1
                    }
                }
            },
        };
        let old_mv = slots[victim].filter(|e| e.key == key).and_then(|e| e.mv);
        slots[victim] = Some(Entry {
            key,
            mv: mv.or(old_mv),
            score,
            depth: depth.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            bound,
            age,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_replaces() {
        let mut t = Table::new(1);
        assert!(t.get(42).is_none());
        t.put(42, None, 17, 3, Bound::Exact);
        let e = t.get(42).unwrap();
        assert_eq!((e.score, e.depth, e.bound), (17, 3, Bound::Exact));
        t.put(42, None, -5, 4, Bound::Upper);
        assert_eq!(t.get(42).unwrap().score, -5);
        // Two more keys in the same bucket: the shallowest entry goes.
        let stride = (t.mask as u64) + 1;
        t.put(42 + stride, None, 1, 9, Bound::Lower);
        t.put(42 + 2 * stride, None, 2, 1, Bound::Lower);
        assert!(t.get(42).is_none());
        assert!(t.get(42 + stride).is_some());
        assert!(t.get(42 + 2 * stride).is_some());
        t.clear();
        assert!(t.get(42 + stride).is_none());
    }
}

//! The predecessors in its unit of each won or lost position, as the solve's walk back
//! finds them, kept for the walks that follow it over the same unit (distances to
//! conversion, rule results), which read them instead of finding them again: finding one
//! takes a move taken back and a rank, reading it 4 bytes. Kept for units of at most
//! [`KEPT_POSITIONS`] positions (those one thread solves), while they fit in the thread's
//! share of [`KEPT_BYTES`]; a position whose list is not kept has its predecessors found
//! again.

/// Bytes of kept predecessors a build holds, all threads together (counted in a job's
/// planned memory).
pub const KEPT_BYTES: u64 = 32 << 20;

/// Positions of the largest unit whose predecessors are kept.
const KEPT_POSITIONS: usize = 1 << 18;

/// Marks a position whose predecessors are not kept.
const NOT_KEPT: u32 = u32::MAX;

/// One thread's kept predecessors of the unit it is solving (the default keeps none).
#[derive(Default)]
pub(super) struct KnownPreds {
    /// Per position of the unit, where its predecessors start and end in `list`
    /// ([`NOT_KEPT`] where they are not kept).
    ranges: Vec<(u32, u32)>,
    /// Each predecessor's place in the unit, times 2, plus 1 where the move taken back is a
    /// man's (a Turkish sideways step).
    list: Vec<u32>,
    /// Entries `list` may hold.
    room: usize,
    /// Where the list being kept starts, or `None` when nothing more is kept for this unit.
    open: Option<usize>,
}

impl KnownPreds {
    /// Starts a unit of `n` positions, solved by one of `threads` threads when `serial`
    /// (else by all of them: then nothing is kept, and what was is freed, so that a thread
    /// holds one thread's share at most, whatever it takes up while it waits).
    pub fn start_unit(&mut self, n: usize, serial: bool, threads: usize) {
        self.ranges.clear();
        self.list.clear();
        self.open = None;
        let share = KEPT_BYTES as usize / threads.max(1);
        let entries = share.saturating_sub(n * size_of::<(u32, u32)>()) / size_of::<u32>();
        if !serial || n > KEPT_POSITIONS || entries == 0 {
            *self = KnownPreds::default();
            return;
        }
        self.room = entries;
        self.ranges.resize(n, (NOT_KEPT, NOT_KEPT));
        self.open = Some(0);
    }

    /// Starts the list of a position's predecessors.
    #[inline(always)]
    pub fn begin(&mut self) {
        if self.open.is_some() {
            self.open = Some(self.list.len());
        }
    }

    /// Adds a predecessor to the list begun; once one does not fit, that list is dropped
    /// and nothing more is kept for the unit. The list grows to `room` entries at most.
    #[inline(always)]
    pub fn push(&mut self, at: usize, men_moved: bool) {
        let Some(start) = self.open else {
            return;
        };
        let len = self.list.len();
        if len == self.room {
            self.list.truncate(start);
            self.open = None;
            return;
        }
        if len == self.list.capacity() {
            self.list
                .reserve_exact(len.max(1 << 12).min(self.room - len));
        }
        self.list.push((at as u32) << 1 | men_moved as u32);
    }

    /// Ends the list begun as position `i`'s predecessors.
    #[inline(always)]
    pub fn end(&mut self, i: usize) {
        if let Some(start) = self.open {
            self.ranges[i] = (start as u32, self.list.len() as u32);
        }
    }

    /// Calls `f` with each kept predecessor of position `i` (its place in the unit, and
    /// whether a man moved) and returns true, or returns false when they are not kept.
    #[inline(always)]
    pub fn each(&self, i: usize, mut f: impl FnMut(usize, bool)) -> bool {
        match self.ranges.get(i) {
            Some(&(start, end)) if start != NOT_KEPT => {
                for &e in &self.list[start as usize..end as usize] {
                    f((e >> 1) as usize, e & 1 != 0);
                }
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_lists_are_read_back_and_others_are_not_kept() {
        let mut known = KnownPreds::default();
        known.start_unit(4, true, 2);
        known.begin();
        known.push(3, false);
        known.push(1, true);
        known.end(2);
        known.begin();
        known.end(0);
        let mut seen = Vec::new();
        assert!(known.each(2, |at, man| seen.push((at, man))));
        assert_eq!(seen, [(3, false), (1, true)]);
        assert!(known.each(0, |_, _| panic!("position 0 has no predecessor")));
        assert!(!known.each(1, |_, _| {}));
        assert!(!known.each(9, |_, _| {}));
    }

    #[test]
    fn nothing_is_kept_past_the_room_or_for_a_unit_of_all_threads() {
        let mut known = KnownPreds::default();
        known.start_unit(2, true, 1);
        known.room = 2;
        known.begin();
        known.push(0, false);
        known.push(1, false);
        known.end(0);
        known.begin();
        known.push(0, false);
        known.end(1);
        known.begin();
        known.push(1, false);
        known.end(1);
        assert!(known.each(0, |_, _| {}));
        assert!(!known.each(1, |_, _| {}));
        known.start_unit(2, false, 2);
        known.begin();
        known.push(0, false);
        known.end(0);
        assert!(!known.each(0, |_, _| {}));
        known.start_unit(KEPT_POSITIONS + 1, true, 1);
        assert!(!known.each(0, |_, _| {}));
    }
}

//! What a solved level keeps for the level below: its values' batches packed
//! ([`PackedBatches`]), its rule results ([`KeptRules`]), read back by [`RulesAbove`].

use rayon::prelude::*;

use super::packing::Packing;
use super::unit::{derived_code, solved_outcome};
use crate::rules::Rules;
use crate::tablebase::format::decompress_values;
use crate::tablebase::format::le_words::le_bytes;
use crate::tablebase::index::levels::{Above, Level, Placements};
use crate::tablebase::index::{MoverFrame, SliceIndex};

/// Batches of a level's values, each packed ([`Packing`]), with the level's blocks.
pub(super) struct PackedBatches {
    pub blocks: Vec<(u64, u32, u32)>,
    /// Per batch, its frames: values each, packed.
    pub batches: Vec<Vec<(usize, Vec<u8>)>>,
}

/// Values a frame of a packed batch holds at most: a batch of one large unit (kings only)
/// is packed and unpacked a frame at a time, never copied whole.
const FRAME_VALUES: usize = 1 << 20;

impl PackedBatches {
    /// The values packed as `packing` says, a frame at a time.
    pub(super) fn pack(values: &[u16], packing: Packing) -> Vec<(usize, Vec<u8>)> {
        values
            .chunks(FRAME_VALUES)
            .map(|frame| (frame.len(), packing.frame(&le_bytes(frame))))
            .collect()
    }

    /// The values of a batch's `frames`, unpacked.
    fn unpack(frames: &[(usize, Vec<u8>)]) -> Vec<u16> {
        // Each frame decoded in place: zeroed memory is the system's fresh pages, and no
        // values pass through a buffer of bytes.
        let mut values = vec![0u16; frames.iter().map(|f| f.0).sum()];
        let mut at = 0;
        for (n, packed) in frames {
            decompress_values(packed, &mut values[at..at + n])
                .expect("a batch decompresses to what was compressed");
            at += n;
        }
        values
    }

    /// The level they make, unpacked (all threads).
    pub fn level<R: Rules>(&self, placements: &Placements<R>) -> Level {
        let batches = self.batches.par_iter().map(|f| Self::unpack(f)).collect();
        placements.level(self.blocks.clone(), batches)
    }

    /// The rule result codes of a level that derived them, `values` being its values and
    /// `dtc` its distances to conversion, under a quiet count of `limit` plies: as
    /// [`solve_level`] would have kept them in a job packed as `packing` says.
    pub fn derived(
        values: &Level,
        dtc: &PackedBatches,
        limit: Option<u32>,
        packing: Packing,
    ) -> PackedBatches {
        let batches = values
            .batches
            .par_iter()
            .zip(dtc.batches.par_iter())
            .map(|(v, d)| {
                let codes: Vec<u16> = v
                    .iter()
                    .zip(Self::unpack(d))
                    .map(|(&v, d)| derived_code(limit, solved_outcome(v), d))
                    .collect();
                Self::pack(&codes, packing.for_level(values.positions()))
            })
            .collect();
        PackedBatches {
            blocks: dtc.blocks.clone(),
            batches,
        }
    }
}

/// The rule results of a level kept for the level below, which reads them where it cannot
/// derive its own.
pub(super) enum KeptRules {
    /// Decompressed: where batches hold many units, the units a batch reads above it are
    /// spread over many batches.
    Plain(Level),
    /// Packed a batch at a time: where a unit is a batch of its own, it reads the few units
    /// above that its men's steps lead to, and a tenth of a byte a position is kept instead
    /// of two.
    Packed(PackedBatches),
}

impl KeptRules {
    /// Whether a level of `kings` positions a placement keeps its rule results packed: one
    /// placement fills a batch.
    pub fn packed(kings: u64) -> bool {
        kings >= BATCH_POSITIONS
    }
}

/// The rule results of the level above, read where its values are (the same blocks, so the
/// same places); packed ones a frame at a time, the frames lately read kept unpacked.
pub(super) struct RulesAbove<'a> {
    places: Above<'a, 1>,
    rules: Option<&'a KeptRules>,
    /// Frames lately unpacked: (batch, frame in the batch) and its values.
    unpacked: Vec<((usize, usize), Vec<u16>)>,
    /// How many are kept.
    frames: usize,
    next: usize,
}

impl<'a> RulesAbove<'a> {
    /// The rule results `rules` of the level `above`, if the level below reads them, for a
    /// job of `men` men and `kings` positions a placement.
    pub fn new(
        above: Option<&'a Level>,
        rules: Option<&'a KeptRules>,
        men: u32,
        kings: u64,
    ) -> Self {
        RulesAbove {
            places: Above::new([above]),
            rules,
            unpacked: Vec::new(),
            frames: Self::frames(men, kings),
            next: 0,
        }
    }

    /// Frames kept unpacked: every frame that holds a placement above that one unit's men's
    /// steps lead to (two a man), and at least 16. A unit reads them in no useful order: the
    /// position after a man's step is seen from the other side, so the arrangement of the
    /// kings that varies fastest below varies slowest above. With fewer frames kept than it
    /// reads (English 1204+0412: two placements above of 11 frames each, 16 kept), nearly
    /// every read unpacked a frame of a million values.
    pub fn frames(men: u32, kings: u64) -> usize {
        let per_placement = (kings as usize).div_ceil(FRAME_VALUES) + 1;
        (2 * men as usize * per_placement).max(16)
    }

    /// Values the frames kept unpacked hold at most (a frame is at most a batch: two
    /// placements where they are packed); none without men (one level, nothing above).
    pub fn frame_values(men: u32, kings: u64) -> u64 {
        match men {
            0 => 0,
            _ => Self::frames(men, kings) as u64 * (FRAME_VALUES as u64).min(2 * kings),
        }
    }

    /// The rule result code of `frame`, a position of slice `slice` (indexed by `index`),
    /// if its placement is in the level above.
    pub fn value<R: Rules>(
        &mut self,
        index: &SliceIndex<R>,
        slice: u8,
        frame: &MoverFrame,
    ) -> Option<u16> {
        let rules = self.rules?;
        let place = self.places.place(index, slice, frame)?;
        let packed = match rules {
            KeptRules::Plain(level) => return Some(level.at(place)),
            KeptRules::Packed(packed) => packed,
        };
        let at = place.in_batch();
        let key = (place.batch(), at / FRAME_VALUES);
        let found = match self.unpacked.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let (n, frame) = packed.batches.get(key.0)?.get(key.1)?;
                let i = self.next;
                if i == self.unpacked.len() {
                    self.unpacked.push((key, Vec::new()));
                }
                let (held, values) = &mut self.unpacked[i];
                *held = key;
                values.resize(*n, 0);
                decompress_values(frame, values)
                    .expect("a batch decompresses to what was compressed");
                self.next = (i + 1) % self.frames;
                i
            }
        };
        self.unpacked[found].1.get(at % FRAME_VALUES).copied()
    }
}

/// Positions a batch of units gathers at least, so that small units share their overheads.
pub(super) const BATCH_POSITIONS: u64 = 1 << 14;

//! How a job encodes what it holds only for itself: the finished levels' temporary file and
//! the packed batches of a solved level (distances to conversion, rule results). Both are
//! zstd frames, read back by zstd. A job stores them in zstd's raw blocks, which encode and
//! decode as a copy, where they stay small enough: a temporary file of up to 6 bytes a
//! position on disk, a level's batches of 4 bytes a position in memory; else it
//! compresses them (level 1), and its memory and disk stay bounded by its levels
//! (benches/notes/generation.md, "Generation in parts", item "2026-12-06, 02:00-03:30:
//! stored frames").

use crate::tablebase::format::encode::compress;

/// Positions of the largest job whose temporary file is stored: 1.5 GiB on disk.
pub const STORED_JOB_POSITIONS: u64 = 1 << 28;
/// Positions of the largest level whose batches a job that stores its file stores too:
/// 64 MiB held while it is solved.
pub const STORED_LEVEL_POSITIONS: u64 = 1 << 24;

/// zstd level of compressed frames (written once, read once).
const LEVEL: i32 = 1;

/// zstd's magic number, first in every frame.
const MAGIC: u32 = 0xFD2F_B528;
/// Frame header descriptor: an 8-byte content size, a single segment (no window
/// descriptor), no checksum, no dictionary.
const DESCRIPTOR: u8 = 0b1110_0000;
/// The most bytes a zstd block holds.
const BLOCK_BYTES: usize = 128 << 10;

/// How a job's own frames are encoded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Packing {
    /// zstd at level 1.
    Compressed,
    /// zstd raw blocks: the bytes as they are.
    Stored,
}

impl Packing {
    /// The packing of the temporary file of a job of `positions` positions.
    pub fn for_job(positions: u64) -> Packing {
        match positions <= STORED_JOB_POSITIONS {
            true => Packing::Stored,
            false => Packing::Compressed,
        }
    }

    /// The packing of the batches of a level of `positions` positions in a job whose file
    /// is packed as `self`.
    pub fn for_level(self, positions: u64) -> Packing {
        match self {
            Packing::Stored if positions <= STORED_LEVEL_POSITIONS => Packing::Stored,
            _ => Packing::Compressed,
        }
    }

    /// `raw` as one zstd frame.
    pub fn frame(self, raw: &[u8]) -> Vec<u8> {
        match self {
            Packing::Compressed => compress(raw, LEVEL),
            Packing::Stored => stored_frame(raw),
        }
    }
}

/// `raw` as a zstd frame of raw blocks (RFC 8878, 3.1.1): the header, then each block of
/// at most [`BLOCK_BYTES`] after its 3-byte header (last-block bit, type 0 = raw, size).
fn stored_frame(raw: &[u8]) -> Vec<u8> {
    // A frame holds at least one block, if an empty one.
    let blocks: Vec<&[u8]> = match raw.is_empty() {
        true => vec![raw],
        false => raw.chunks(BLOCK_BYTES).collect(),
    };
    let mut frame = Vec::with_capacity(13 + 3 * blocks.len() + raw.len());
    frame.extend_from_slice(&MAGIC.to_le_bytes());
    frame.push(DESCRIPTOR);
    frame.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    for (b, bytes) in blocks.iter().enumerate() {
        let last = u32::from(b + 1 == blocks.len());
        let header = last | (bytes.len() as u32) << 3;
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.extend_from_slice(bytes);
    }
    frame
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    /// Stored frames are zstd frames: zstd decodes them to their bytes, whole and as a
    /// stream of frames one after another, at every size around a block's.
    #[test]
    fn stored_frames_decode_to_their_bytes() {
        let sizes = [
            0,
            1,
            1000,
            BLOCK_BYTES - 1,
            BLOCK_BYTES,
            BLOCK_BYTES + 1,
            3 * BLOCK_BYTES + 7,
        ];
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for n in sizes {
            let raw: Vec<u8> = (0..n).map(|i| (i * 7 + n) as u8).collect();
            let frame = Packing::Stored.frame(&raw);
            assert_eq!(frame.len(), 13 + 3 * n.div_ceil(BLOCK_BYTES).max(1) + n);
            assert_eq!(zstd::bulk::decompress(&frame, n).unwrap(), raw, "{n} bytes");
            stream.extend_from_slice(&frame);
            stream.extend_from_slice(&Packing::Compressed.frame(&raw));
            expected.extend_from_slice(&raw);
            expected.extend_from_slice(&raw);
        }
        let mut decoded = Vec::new();
        zstd::stream::read::Decoder::new(&stream[..])
            .unwrap()
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, expected);
    }

    #[test]
    fn small_jobs_and_levels_store_large_ones_compress() {
        let stored = Packing::for_job(STORED_JOB_POSITIONS);
        assert_eq!(stored, Packing::Stored);
        assert_eq!(
            Packing::for_job(STORED_JOB_POSITIONS + 1),
            Packing::Compressed
        );
        assert_eq!(stored.for_level(STORED_LEVEL_POSITIONS), Packing::Stored);
        assert_eq!(
            stored.for_level(STORED_LEVEL_POSITIONS + 1),
            Packing::Compressed
        );
        assert_eq!(Packing::Compressed.for_level(1), Packing::Compressed);
    }
}

//! One table file opened for probing: checked, read block by block (positioned reads by
//! default, a memory map on request), decoded through a bounded cache shared by all tables.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;

use super::format::{FileKind, HEADER_SIZE, Header, TableError, unpack, wdl_code};
use super::material::Material;
use crate::Variant;

/// How a table file's blocks are read.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Positioned reads (`pread`) of each block into the block cache: a file that is
    /// truncated, rewritten or replaced while open gives errors (or, rewritten with the same
    /// content, right answers), never a crash.
    #[default]
    Read,
    /// The file is memory-mapped and blocks are decompressed from the map, saving a copy and
    /// a system call per block read.
    ///
    /// Caveat: the operating system delivers `SIGBUS`, which ends the process, when a mapped
    /// file shrinks (a rebuild or a copy over it) and a page past its new end is touched.
    /// Use it only when nothing rewrites the table files while they are open; moving a new
    /// file into place with a rename is safe.
    Map,
}

/// Where the bytes of an open file come from.
#[derive(Debug)]
enum Source {
    Read(File),
    Map(Mmap),
}

/// An opened table file.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    source: Source,
    /// The block table: the start of each block, then the file length.
    offsets: Box<[u64]>,
    /// The CRC-32 of each compressed block.
    crcs: Box<[u32]>,
    id: u32,
}

impl TableFile {
    /// Opens and checks `path`, reading blocks with positioned reads: see
    /// [`TableFile::open_with`].
    pub fn open(
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
        id: u32,
    ) -> Result<TableFile, TableError> {
        TableFile::open_with(path, kind, variant, material, id, Access::Read)
    }

    /// Opens and checks `path`: header checksum, every header field against the expected
    /// kind, variant and slice and against the file length, the block table's checksum, and
    /// block offsets that start after the table, increase, and end at the file's end. `id`
    /// names the file in the block cache.
    pub fn open_with(
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
        id: u32,
        access: Access,
    ) -> Result<TableFile, TableError> {
        let io = |e: std::io::Error| TableError::Io(path.to_path_buf(), e);
        let file = File::open(path).map_err(|e| match e.kind() {
            ErrorKind::NotFound => TableError::Missing(path.to_path_buf()),
            _ => TableError::Io(path.to_path_buf(), e),
        })?;
        let file_len = file.metadata().map_err(io)?.len();
        let mut head = vec![0u8; HEADER_SIZE.min(file_len as usize)];
        read_at(&file, path, &mut head, 0)?;
        let header = Header::from_bytes(path, &head)?;
        header.check(path, kind, variant, material, file_len)?;
        let mut table = vec![0u8; header.table_size()];
        read_at(&file, path, &mut table, HEADER_SIZE as u64)?;
        let mismatch = |what: String| TableError::Mismatch(path.to_path_buf(), what);
        if crc32fast::hash(&table) != header.table_crc {
            return Err(mismatch(
                "block table checksum mismatch (file damaged)".into(),
            ));
        }
        let blocks = header.blocks as usize;
        let (starts, sums) = table.split_at(8 * (blocks + 1));
        let offsets: Box<[u64]> = starts
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let crcs: Box<[u32]> = sums
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let table_end = (HEADER_SIZE + table.len()) as u64;
        if offsets[0] != table_end {
            return Err(mismatch(format!(
                "block table: block 0 starts at {}, not right after the table at {table_end}",
                offsets[0]
            )));
        }
        if let Some(b) = offsets.windows(2).position(|w| w[1] <= w[0]) {
            return Err(mismatch(format!(
                "block table: block {b} ends at {} before it starts at {}",
                offsets[b + 1],
                offsets[b]
            )));
        }
        let end = offsets[blocks];
        if end > file_len {
            return Err(TableError::Truncated(path.to_path_buf()));
        }
        if end < file_len {
            return Err(mismatch(format!(
                "bytes after the last block (the blocks end at {end}, the file at {file_len})"
            )));
        }
        let source = match access {
            Access::Read => Source::Read(file),
            // Safety: table files are written once to a temporary name and renamed into
            // place; a file changed behind our back yields wrong bytes, which the checksums
            // catch, or SIGBUS if it shrinks, which is the documented caveat of `Access::Map`.
            Access::Map => Source::Map(unsafe { Mmap::map(&file) }.map_err(io)?),
        };
        if let Source::Map(map) = &source
            && (map.len() as u64) < end
        {
            return Err(TableError::Truncated(path.to_path_buf()));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            header,
            source,
            offsets,
            crcs,
            id,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How the file's blocks are read.
    pub fn access(&self) -> Access {
        match self.source {
            Source::Read(_) => Access::Read,
            Source::Map(_) => Access::Map,
        }
    }

    /// Decompresses block `b`, checking its checksum, that it decodes to exactly its
    /// length, and that every value is one the file can hold (a WDL code, a distance no
    /// longer than the header's longest).
    pub fn decode_block(&self, b: u32) -> Result<Vec<u8>, TableError> {
        let damaged = || TableError::Block(self.path.clone(), b);
        if b >= self.header.blocks {
            return Err(TableError::BadBlock(
                self.path.clone(),
                b,
                format!("the file has {} blocks", self.header.blocks),
            ));
        }
        let (start, end) = (self.offsets[b as usize], self.offsets[b as usize + 1]);
        let expected = self.header.block_len(b);
        // A zstd frame is never much larger than what it holds (its bound is about
        // 1/256 more, plus a few bytes of frame header).
        if end - start > (expected + expected / 128 + 1024) as u64 {
            return Err(TableError::BadBlock(
                self.path.clone(),
                b,
                format!("{} bytes for {expected} decoded", end - start),
            ));
        }
        let read;
        let bytes: &[u8] = match &self.source {
            Source::Read(file) => {
                let mut buf = vec![0u8; (end - start) as usize];
                read_at(file, &self.path, &mut buf, start)?;
                read = buf;
                &read
            }
            Source::Map(map) => &map[start as usize..end as usize],
        };
        if crc32fast::hash(bytes) != self.crcs[b as usize] {
            return Err(damaged());
        }
        let out = zstd::bulk::decompress(bytes, expected).map_err(|_| damaged())?;
        if out.len() != expected {
            return Err(TableError::BadBlock(
                self.path.clone(),
                b,
                format!("decodes to {} bytes, expected {expected}", out.len()),
            ));
        }
        self.check_values(b, &out)?;
        Ok(out)
    }

    /// Checks that every value of decoded block `b` is one the file can hold. The test runs
    /// over whole bytes (padding bits are zero), fast enough for every block read.
    fn check_values(&self, b: u32, block: &[u8]) -> Result<(), TableError> {
        let h = &self.header;
        let ok = match (h.kind, h.value_bits) {
            // Code 3 is the only one with both bits set.
            (FileKind::Wdl, _) => block.iter().all(|&x| x & (x >> 1) & 0x55 == 0),
            (FileKind::Dtw, 8) => block.iter().max().map_or(0, |&m| m as u16) <= h.max_dtw,
            (FileKind::Dtw, _) => {
                block
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .max()
                    .unwrap_or(0)
                    <= h.max_dtw
            }
        };
        if ok {
            return Ok(());
        }
        let n = h.positions_in_block(b) as usize;
        let bad = (0..n)
            .map(|i| (i, unpack(block, h.value_bits, i)))
            .find(|&(_, v)| match h.kind {
                FileKind::Wdl => v > wdl_code::LOSS as u16,
                FileKind::Dtw => v > h.max_dtw,
            });
        let what = match (bad, h.kind) {
            (Some((i, v)), FileKind::Wdl) => {
                format!("entry {i} holds {v}, not a win/draw/loss code")
            }
            (Some((i, v)), FileKind::Dtw) => format!(
                "entry {i} holds distance {v}, longer than the longest {}",
                h.max_dtw
            ),
            (None, _) => format!("the bits after its last entry ({n}) are not zero"),
        };
        Err(TableError::BadBlock(self.path.clone(), b, what))
    }

    /// Checks every block (checksum, decompression, length and values).
    pub fn check_blocks(&self) -> Result<(), TableError> {
        (0..self.header.blocks).try_for_each(|b| self.decode_block(b).map(drop))
    }

    /// The stored value at `index` if its block is already decoded in `cache`; nothing is
    /// read or decoded.
    #[inline]
    pub fn cached_value(&self, index: u64, cache: &BlockCache) -> Option<u16> {
        let bp = self.header.block_positions as u64;
        let data = cache.get(self.id, (index / bp) as u32)?;
        Some(unpack(&data, self.header.value_bits, (index % bp) as usize))
    }

    /// The stored value at `index` (callers keep `index` below `positions`).
    #[inline]
    pub fn value(&self, index: u64, cache: &BlockCache) -> Result<u16, TableError> {
        let bp = self.header.block_positions as u64;
        let block = (index / bp) as u32;
        let data = cache.get_or_load(self.id, block, || self.decode_block(block))?;
        Ok(unpack(&data, self.header.value_bits, (index % bp) as usize))
    }
}

/// Fills `buf` from `file` at `offset`; a file that ends first is truncated.
fn read_at(file: &File, path: &Path, buf: &mut [u8], offset: u64) -> Result<(), TableError> {
    file.read_exact_at(buf, offset).map_err(|e| match e.kind() {
        ErrorKind::UnexpectedEof => TableError::Truncated(path.to_path_buf()),
        _ => TableError::Io(path.to_path_buf(), e),
    })
}

/// A multiply-shift hasher for the cache's integer keys.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ (n >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map with integer keys and a fast hasher.
pub(crate) type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
struct Shard {
    blocks: KeyMap<Arc<[u8]>>,
    order: VecDeque<u64>,
    bytes: usize,
}

const SHARDS: usize = 64;

/// Decoded blocks of all open tables, bounded in bytes, safe to share between threads.
/// When full, the block cached longest ago is dropped first.
pub struct BlockCache {
    shards: Vec<Mutex<Shard>>,
    shard_bytes: usize,
}

impl BlockCache {
    /// A cache holding at most about `bytes` of decoded blocks.
    pub fn new(bytes: usize) -> Self {
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            shard_bytes: (bytes / SHARDS).max(1),
        }
    }

    /// The decoded block `block` of table `table` if it is cached; nothing is loaded.
    #[inline]
    pub fn get(&self, table: u32, block: u32) -> Option<Arc<[u8]>> {
        let key = (table as u64) << 32 | block as u64;
        let shard = &self.shards[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize];
        lock(shard).blocks.get(&key).cloned()
    }

    /// The decoded block `block` of table `table`, loading it with `load` on a miss.
    #[inline]
    pub fn get_or_load(
        &self,
        table: u32,
        block: u32,
        load: impl FnOnce() -> Result<Vec<u8>, TableError>,
    ) -> Result<Arc<[u8]>, TableError> {
        let key = (table as u64) << 32 | block as u64;
        let shard = &self.shards[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize];
        if let Some(data) = lock(shard).blocks.get(&key) {
            return Ok(data.clone());
        }
        let data: Arc<[u8]> = load()?.into();
        let mut s = lock(shard);
        if s.blocks.insert(key, data.clone()).is_none() {
            s.order.push_back(key);
            s.bytes += data.len();
        }
        while s.bytes > self.shard_bytes && s.order.len() > 1 {
            let Some(old) = s.order.pop_front() else {
                break;
            };
            if let Some(gone) = s.blocks.remove(&old) {
                s.bytes -= gone.len();
            }
        }
        Ok(data)
    }
}

/// Locks a shard; a panic while holding it cannot leave the map inconsistent, so a
/// poisoned lock is used as is.
fn lock(shard: &Mutex<Shard>) -> std::sync::MutexGuard<'_, Shard> {
    shard.lock().unwrap_or_else(|e| e.into_inner())
}

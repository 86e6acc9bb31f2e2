//! One table file opened for probing: memory-mapped, checked, decoded block by block
//! through a bounded cache shared by all tables.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;

use super::format::{FileKind, HEADER_SIZE, Header, TableError, unpack};
use super::material::Material;
use crate::Variant;

/// An opened table file.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    map: Mmap,
    id: u32,
}

impl TableFile {
    /// Opens and checks `path`: header checksum, the expected kind, variant and slice, the
    /// block table's checksum and the file length. `id` names the file in the block cache.
    pub fn open(
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
        id: u32,
    ) -> Result<TableFile, TableError> {
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TableError::Missing(path.to_path_buf()),
            _ => TableError::Io(path.to_path_buf(), e),
        })?;
        // Safety: table files are written once to a temporary name and renamed into place;
        // nothing modifies them while they are mapped. A file changed behind our back can
        // only yield wrong bytes, which the checksums catch, not undefined behaviour in Rust.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::Io(path.to_path_buf(), e))?;
        let header = Header::from_bytes(path, &map)?;
        let mismatch = |what: String| TableError::Mismatch(path.to_path_buf(), what);
        if header.kind != kind {
            return Err(mismatch(format!(
                "holds {:?} values, expected {kind:?}",
                header.kind
            )));
        }
        if header.variant != variant {
            return Err(mismatch(format!(
                "a {} table, expected {variant}",
                header.variant
            )));
        }
        if header.material != material {
            return Err(mismatch(format!(
                "slice {}, expected {material}",
                header.material
            )));
        }
        let table_end = HEADER_SIZE + header.table_size();
        if map.len() < table_end {
            return Err(TableError::Truncated(path.to_path_buf()));
        }
        if crc32fast::hash(&map[HEADER_SIZE..table_end]) != header.table_crc {
            return Err(mismatch(
                "block table checksum mismatch (file damaged)".into(),
            ));
        }
        let t = TableFile {
            path: path.to_path_buf(),
            header,
            map,
            id,
        };
        let (_, end) = t.block_range(t.header.blocks - 1);
        if t.map.len() < end {
            return Err(TableError::Truncated(path.to_path_buf()));
        }
        if t.map.len() > end {
            return Err(mismatch("bytes after the last block".into()));
        }
        Ok(t)
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn offset(&self, i: usize) -> usize {
        let at = HEADER_SIZE + 8 * i;
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes")) as usize
    }

    fn block_crc(&self, b: u32) -> u32 {
        let at = HEADER_SIZE + (self.header.blocks as usize + 1) * 8 + 4 * b as usize;
        u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"))
    }

    fn block_range(&self, b: u32) -> (usize, usize) {
        (self.offset(b as usize), self.offset(b as usize + 1))
    }

    /// Decompresses block `b`, checking its checksum and size.
    pub fn decode_block(&self, b: u32) -> Result<Vec<u8>, TableError> {
        let damaged = || TableError::Block(self.path.clone(), b);
        let (start, end) = self.block_range(b);
        if start > end || end > self.map.len() {
            return Err(damaged());
        }
        let bytes = &self.map[start..end];
        if crc32fast::hash(bytes) != self.block_crc(b) {
            return Err(damaged());
        }
        let full = self.header.block_bytes();
        let out = zstd::bulk::decompress(bytes, full).map_err(|_| damaged())?;
        let last = b == self.header.blocks - 1;
        let expected = if last {
            let n = self.header.positions - b as u64 * self.header.block_positions as u64;
            (n as usize * self.header.value_bits as usize).div_ceil(8)
        } else {
            full
        };
        if out.len() != expected {
            return Err(damaged());
        }
        Ok(out)
    }

    /// Checks every block (checksum and decompression).
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

//! One table file opened for probing: checked, read block by block (positioned reads by
//! default, a memory map on request), decoded through a bounded cache shared by all tables.

use std::cell::RefCell;
use std::fs::File;
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering, fence};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;
use rayon::prelude::*;

use super::header::{
    BLOCK_NUMBER_BYTES, FileKind, HEADER_SIZE, Header, TableError, VERSION, unpack,
};
use super::le_words::fill_from_le;
use crate::Variant;
use crate::tablebase::fs::{Filesystem, Opened, Os};
use crate::tablebase::index::material::Material;
use crate::tablebase::value::wdl_code;

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
    /// The whole file, held in memory by its filesystem ([`Opened::Bytes`]).
    Bytes(Arc<[u8]>),
}

/// An opened table file.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    source: Source,
    /// The block table: the start of each block, then the file length.
    offsets: Box<[u64]>,
    /// The CRC-32 of each stored block.
    crcs: Box<[u32]>,
    /// The file's format version: [`VERSION`], or an older one opened to be converted
    /// ([`TableFile::open_to_convert`]), whose blocks are bare zstd frames.
    version: u16,
    id: u32,
    slots: PageSlots,
}

impl TableFile {
    /// Opens and checks `path` of the operating system's files, reading blocks with
    /// positioned reads: see [`TableFile::open_in`].
    pub fn open(
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
        id: u32,
    ) -> Result<TableFile, TableError> {
        TableFile::open_in(&Os, path, kind, variant, material, id, Access::Read)
    }

    /// Opens and checks `path` of `fs`: header checksum, every header field against the
    /// expected kind, variant and slice and against the file length, the block table's
    /// checksum, and block offsets that start after the table, increase, and end at the
    /// file's end. `id` names the file in the block cache; `access` says how an operating
    /// system's file is read (a file held in memory is read where it is).
    pub fn open_in(
        fs: &dyn Filesystem,
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
        id: u32,
        access: Access,
    ) -> Result<TableFile, TableError> {
        let table = TableFile::open_any_version(fs, path, (kind, variant, material), id, access)?;
        match table.version {
            VERSION => Ok(table),
            v => Err(TableError::Version(path.to_path_buf(), v)),
        }
    }

    /// Opens and checks `path` as [`TableFile::open`] does, but a file of an older version
    /// too, from [`super::OLDEST_VERSION`] on: one to convert to the current version (its
    /// blocks are checked by their older checksums, [`TableFile::version`]).
    pub fn open_to_convert(
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
    ) -> Result<TableFile, TableError> {
        TableFile::open_any_version(&Os, path, (kind, variant, material), 0, Access::Read)
    }

    fn open_any_version(
        fs: &dyn Filesystem,
        path: &Path,
        (kind, variant, material): (FileKind, Variant, Material),
        id: u32,
        access: Access,
    ) -> Result<TableFile, TableError> {
        let io = |e: std::io::Error| TableError::Io(path.to_path_buf(), e);
        let opened = fs.open(path).map_err(|e| match e.kind() {
            ErrorKind::NotFound => TableError::Missing(path.to_path_buf()),
            _ => TableError::Io(path.to_path_buf(), e),
        })?;
        let source = match opened {
            Opened::File(file) => Source::Read(file),
            Opened::Bytes(bytes) => Source::Bytes(bytes),
        };
        let file_len = match &source {
            Source::Read(file) => file.metadata().map_err(io)?.len(),
            Source::Map(map) => map.len() as u64,
            Source::Bytes(bytes) => bytes.len() as u64,
        };
        let mut head = vec![0u8; HEADER_SIZE.min(file_len as usize)];
        source.read_at(path, &mut head, 0)?;
        let (header, version) = Header::from_bytes_of_any_version(path, &head)?;
        header.check(path, kind, variant, material, file_len)?;
        let mut table = vec![0u8; header.table_size()];
        source.read_at(path, &mut table, HEADER_SIZE as u64)?;
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
        let source = match (source, access) {
            // Safety: table files are written once to a temporary name and renamed into
            // place; a file changed behind our back yields wrong bytes, which the checksums
            // catch, or SIGBUS if it shrinks, which is the documented caveat of `Access::Map`.
            (Source::Read(file), Access::Map) => {
                Source::Map(unsafe { Mmap::map(&file) }.map_err(io)?)
            }
            (source, _) => source,
        };
        if let Source::Map(map) = &source
            && (map.len() as u64) < end
        {
            return Err(TableError::Truncated(path.to_path_buf()));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            slots: PageSlots::new(&header),
            header,
            source,
            offsets,
            crcs,
            version,
            id,
        })
    }

    /// The file's format version: [`VERSION`] but for a file opened to be converted.
    pub fn version(&self) -> u16 {
        self.version
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
            Source::Read(_) | Source::Bytes(_) => Access::Read,
            Source::Map(_) => Access::Map,
        }
    }

    /// Decompresses block `b`, checking its checksum, that it decodes to exactly its
    /// length, and that every value is one the file can hold (a WDL code, a distance no
    /// longer than the header's longest).
    pub fn decode_block(&self, b: u32) -> Result<Vec<u8>, TableError> {
        let damaged = || TableError::Block(self.path.clone(), b);
        let expected = self.header.block_len(b);
        let out = self
            .with_frame(b, |frame| decompress(frame, expected))?
            .map_err(|_| damaged())?;
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

    /// Calls `f` with the zstd frame of block `b`, once its
    /// stored bytes are read and checked: its length against what it decodes to, its
    /// checksum, and (from version 5) the block number it starts with.
    pub fn with_frame<T>(&self, b: u32, f: impl FnOnce(&[u8]) -> T) -> Result<T, TableError> {
        if b >= self.header.blocks {
            return Err(TableError::BadBlock(
                self.path.clone(),
                b,
                format!("the file has {} blocks", self.header.blocks),
            ));
        }
        let (start, end) = (self.offsets[b as usize], self.offsets[b as usize + 1]);
        let expected = self.header.block_len(b);
        let numbered = match self.version {
            VERSION => BLOCK_NUMBER_BYTES,
            _ => 0,
        };
        // A zstd frame is never much larger than what it holds (its bound is about
        // 1/256 more, plus a few bytes of frame header).
        if end - start > (numbered + expected + expected / 128 + 1024) as u64 {
            return Err(TableError::BadBlock(
                self.path.clone(),
                b,
                format!("{} bytes for {expected} decoded", end - start),
            ));
        }
        let read;
        let bytes: &[u8] = match &self.source {
            Source::Read(_) => {
                let mut buf = vec![0u8; (end - start) as usize];
                self.source.read_at(&self.path, &mut buf, start)?;
                read = buf;
                &read
            }
            Source::Map(map) => &map[start as usize..end as usize],
            Source::Bytes(bytes) => &bytes[start as usize..end as usize],
        };
        if crc32fast::hash(bytes) != self.crcs[b as usize] {
            return Err(TableError::Block(self.path.clone(), b));
        }
        let (number, frame) = bytes.split_at(numbered.min(bytes.len()));
        if numbered > 0 && number != b.to_le_bytes() {
            let mut named = [0u8; 4];
            named[..number.len()].copy_from_slice(number);
            return Err(TableError::BadBlock(
                self.path.clone(),
                b,
                format!(
                    "it is block {}, moved here (its number does not match its place)",
                    u32::from_le_bytes(named)
                ),
            ));
        }
        Ok(f(frame))
    }

    /// Checks that every value of decoded block `b` is one the file can hold. The test runs
    /// over whole bytes (padding bits are zero), fast enough for every block read.
    fn check_values(&self, b: u32, block: &[u8]) -> Result<(), TableError> {
        let h = &self.header;
        let ok = match (h.kind, h.value_bits) {
            // Code 3 is the only one with both bits set.
            (FileKind::Wdl, _) => block.iter().all(|&x| x & (x >> 1) & 0x55 == 0),
            (_, 8) => block.iter().max().map_or(0, |&m| m as u16) <= h.max_dtw,
            (_, _) => {
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
                FileKind::Dtw | FileKind::Dtc | FileKind::Rules => v > h.max_dtw,
            });
        let what = match (bad, h.kind) {
            (Some((i, v)), FileKind::Wdl) => {
                format!("entry {i} holds {v}, not a win/draw/loss code")
            }
            (Some((i, v)), _) => format!(
                "entry {i} holds distance {v}, longer than the longest {}",
                h.max_dtw
            ),
            (None, _) => format!("the bits after its last entry ({n}) are not zero"),
        };
        Err(TableError::BadBlock(self.path.clone(), b, what))
    }

    /// Checks every block (checksum, decompression, length and values), on all threads.
    pub fn check_blocks(&self) -> Result<(), TableError> {
        (0..self.header.blocks)
            .into_par_iter()
            .try_for_each(|b| self.decode_block(b).map(drop))
    }

    /// The stored value at `index` if its block is already decoded in `cache`; nothing is
    /// read, decoded, locked or allocated.
    #[inline(always)]
    pub fn cached_value(&self, index: u64, cache: &BlockCache) -> Option<u16> {
        cache.value(&self.slots, self.id, index)
    }

    /// The stored value at `index` (callers keep `index` below `positions`), decoding its
    /// block into `cache` if it is not there.
    #[inline]
    pub fn value(&self, index: u64, cache: &BlockCache) -> Result<u16, TableError> {
        if let Some(v) = self.cached_value(index, cache) {
            return Ok(v);
        }
        let bp = self.header.block_positions as u64;
        let block = (index / bp) as u32;
        let data = self.decode_block(block)?;
        cache.insert(&self.slots, self.id, block, &data);
        Ok(unpack(&data, self.header.value_bits, (index % bp) as usize))
    }
}

/// Reads and checks the header of the table file `path` alone, of any version from
/// [`super::OLDEST_VERSION`] on: the magic, the checksum, and every field against the
/// `kind`, `variant` and `material` expected and the file's length ([`Header::check`]); the
/// block table and blocks are not read. Returns the header and the file's version (an older
/// version's header has no statistics).
pub fn read_header(
    path: &Path,
    kind: FileKind,
    variant: Variant,
    material: Material,
) -> Result<(Header, u16), TableError> {
    let io = |e: std::io::Error| match e.kind() {
        ErrorKind::NotFound => TableError::Missing(path.to_path_buf()),
        _ => TableError::Io(path.to_path_buf(), e),
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut head = vec![0u8; HEADER_SIZE.min(len as usize)];
    file.read_exact_at(&mut head, 0).map_err(io)?;
    let (header, version) = Header::from_bytes_of_any_version(path, &head)?;
    header.check(path, kind, variant, material, len)?;
    Ok((header, version))
}

thread_local! {
    /// Each thread's zstd decompression context, made on first use: making one for every
    /// block cost as much as a fifth of a `verify`.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// The zstd frame `bytes` decoded, at most `capacity` bytes.
pub(crate) fn decompress(bytes: &[u8], capacity: usize) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(capacity);
    with_decompressor(|d| d.decompress_to_buffer(bytes, &mut out))?;
    Ok(out)
}

/// The zstd frame `bytes`, the little-endian bytes of exactly `out.len()` values, decoded
/// straight into `out`.
pub(crate) fn decompress_values(bytes: &[u8], out: &mut [u16]) -> std::io::Result<()> {
    let expected = size_of_val(out);
    let n = fill_from_le(out, |view| {
        with_decompressor(|d| d.decompress_to_buffer(bytes, view))
    })?;
    if n != expected {
        return Err(std::io::Error::new(
            ErrorKind::InvalidData,
            format!("a frame of {n} bytes where {expected} were expected"),
        ));
    }
    Ok(())
}

/// Runs `f` with this thread's decompression context.
fn with_decompressor<T>(
    f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> std::io::Result<T>,
) -> std::io::Result<T> {
    DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        let d = match &mut *cell {
            Some(d) => d,
            None => cell.insert(zstd::bulk::Decompressor::new()?),
        };
        f(d)
    })
}

impl Source {
    /// Fills `buf` from the file (at `path`) at `offset`; a file that ends first is
    /// truncated.
    fn read_at(&self, path: &Path, buf: &mut [u8], offset: u64) -> Result<(), TableError> {
        let truncated = || TableError::Truncated(path.to_path_buf());
        let bytes: &[u8] = match self {
            Source::Read(file) => {
                return file.read_exact_at(buf, offset).map_err(|e| match e.kind() {
                    ErrorKind::UnexpectedEof => truncated(),
                    _ => TableError::Io(path.to_path_buf(), e),
                });
            }
            Source::Map(map) => map,
            Source::Bytes(bytes) => bytes,
        };
        let held = usize::try_from(offset)
            .ok()
            .and_then(|start| bytes.get(start..)?.get(..buf.len()))
            .ok_or_else(truncated)?;
        buf.copy_from_slice(held);
        Ok(())
    }
}

/// Bytes of a cache page. A decoded block takes one page or more: the generator's blocks
/// are 16 KiB of win/draw/loss values or of one-byte distances, 32 KiB of two-byte ones.
pub const PAGE_BYTES: usize = 16 << 10;
const PAGE_WORDS: usize = PAGE_BYTES / 8;
const PAGE_BITS_LOG2: u32 = (PAGE_BYTES * 8).trailing_zeros();

/// Where one table's pages are in a [`BlockCache`]: for each page of its decoded blocks, the
/// cache page that may hold it (plus one; 0 for none), 4 bytes per 16 KiB decoded, with
/// what it takes to find a value's page and bits. A hint only: a cache page is used only
/// after its own key says it holds this page.
pub struct PageSlots {
    slots: Box<[AtomicU32]>,
    pages_per_block: u64,
    block_positions: u64,
    /// log2 of the bits a value (2, 8 or 16).
    value_bits_log2: u32,
    /// The bits of one value.
    value_mask: u64,
    /// Whether blocks fill whole pages, so that a value's page and place follow from its
    /// index without a division.
    whole_pages: bool,
    /// The cache these slots point into (0 until the first page is cached).
    cache: AtomicU32,
}

impl PageSlots {
    /// Slots for the blocks of a table with header `header` (checked: 2, 8 or 16 bits a
    /// value, a multiple of 8 values a block, so that no value straddles a word).
    pub fn new(header: &Header) -> PageSlots {
        let block_bits = header.block_positions as u64 * header.value_bits as u64;
        let pages_per_block = block_bits.div_ceil(8 * PAGE_BYTES as u64).max(1);
        PageSlots {
            slots: (0..header.blocks as u64 * pages_per_block)
                .map(|_| AtomicU32::new(0))
                .collect(),
            pages_per_block,
            block_positions: header.block_positions as u64,
            value_bits_log2: header.value_bits.trailing_zeros(),
            value_mask: (1u64 << header.value_bits) - 1,
            whole_pages: block_bits.is_multiple_of(8 * PAGE_BYTES as u64),
            cache: AtomicU32::new(0),
        }
    }

    /// The page of the table holding value `index`, and the value's first bit in it.
    #[inline(always)]
    fn locate(&self, index: u64) -> (u64, u64) {
        let page_mask = (1u64 << PAGE_BITS_LOG2) - 1;
        if self.whole_pages {
            let bit = index << self.value_bits_log2;
            (bit >> PAGE_BITS_LOG2, bit & page_mask)
        } else {
            let (block, i) = (index / self.block_positions, index % self.block_positions);
            let bit = i << self.value_bits_log2;
            (
                block * self.pages_per_block + (bit >> PAGE_BITS_LOG2),
                bit & page_mask,
            )
        }
    }
}

impl std::fmt::Debug for PageSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageSlots")
            .field("pages", &self.slots.len())
            .field("pages_per_block", &self.pages_per_block)
            .finish()
    }
}

/// What says which page a cache page holds, under a sequence lock: `seq` is odd while the
/// page is rewritten, and a reader keeps what it read only if `seq` was even and unchanged
/// around its reads and `key` named the page it wanted.
struct PageTag {
    seq: AtomicU64,
    /// Table id (high 32 bits) and page of that table; `EMPTY` when unused.
    key: AtomicU64,
    /// Read since the clock hand last passed (a second chance before eviction).
    referenced: AtomicBool,
}

const EMPTY: u64 = u64::MAX;

static NEXT_CACHE_ID: AtomicU32 = AtomicU32::new(1);

/// Decoded blocks of all open tables, bounded in bytes, safe to share between threads.
///
/// Reading a cached value takes no lock, writes nothing shared (but a page's "referenced"
/// flag, when it is not set yet) and allocates nothing: the table's [`PageSlots`] say
/// which page may hold it, and the page's sequence lock says whether it does. Filling a
/// page takes one lock; when the cache is full, the clock hand evicts a page not read
/// since it last passed.
pub struct BlockCache {
    id: u32,
    tags: Box<[PageTag]>,
    /// The pages' bytes as little-endian words, `PAGE_WORDS` a page: allocated zeroed, so
    /// that the operating system gives memory to a page only when it is first filled.
    words: Box<[AtomicU64]>,
    /// The clock hand, held while a page is filled.
    hand: Mutex<usize>,
}

impl BlockCache {
    /// A cache holding at most about `bytes` of decoded blocks (at least one page); an error
    /// of kind `OutOfMemory` where that much memory cannot be had, never an abort.
    pub fn new(bytes: usize) -> std::io::Result<Self> {
        let pages = (bytes / PAGE_BYTES).max(1);
        let too_large = || {
            std::io::Error::new(
                ErrorKind::OutOfMemory,
                format!("a block cache of {bytes} bytes cannot be had"),
            )
        };
        let mut tags = Vec::new();
        tags.try_reserve_exact(pages).map_err(|_| too_large())?;
        tags.extend((0..pages).map(|_| PageTag {
            seq: AtomicU64::new(0),
            key: AtomicU64::new(EMPTY),
            referenced: AtomicBool::new(false),
        }));
        let words = pages
            .checked_mul(PAGE_WORDS)
            .and_then(zeroed_words)
            .ok_or_else(too_large)?;
        Ok(BlockCache {
            id: NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed),
            tags: tags.into_boxed_slice(),
            words,
            hand: Mutex::new(0),
        })
    }

    /// The stored value at `index` of table `table` (whose slots are `slots`), if its page
    /// is cached.
    #[inline(always)]
    fn value(&self, slots: &PageSlots, table: u32, index: u64) -> Option<u16> {
        if slots.cache.load(Ordering::Relaxed) != self.id {
            return None;
        }
        let (page, bit) = slots.locate(index);
        let at = slots.slots.get(page as usize)?.load(Ordering::Acquire);
        let at = at.checked_sub(1)? as usize;
        let tag = self.tags.get(at)?;
        let seq = tag.seq.load(Ordering::Acquire);
        let key = tag.key.load(Ordering::Relaxed);
        let word = self
            .words
            .get(at * PAGE_WORDS + (bit >> 6) as usize)?
            .load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if seq & 1 != 0
            || key != (table as u64) << 32 | page
            || tag.seq.load(Ordering::Relaxed) != seq
        {
            return None;
        }
        if !tag.referenced.load(Ordering::Relaxed) {
            tag.referenced.store(true, Ordering::Relaxed);
        }
        Some((word >> (bit & 63) & slots.value_mask) as u16)
    }

    /// Caches the decoded block `block` of table `table` (whose slots are `slots`). Tables
    /// probed through another cache than the first they were probed through are not
    /// cached (still correct, only slower).
    fn insert(&self, slots: &PageSlots, table: u32, block: u32, data: &[u8]) {
        let bound = slots
            .cache
            .compare_exchange(0, self.id, Ordering::Relaxed, Ordering::Relaxed);
        if bound.is_err_and(|id| id != self.id) {
            return;
        }
        let mut hand = self.hand.lock().unwrap_or_else(|e| e.into_inner());
        for (part, bytes) in data.chunks(PAGE_BYTES).enumerate() {
            let page = block as u64 * slots.pages_per_block + part as u64;
            let key = (table as u64) << 32 | page;
            let Some(slot) = slots.slots.get(page as usize) else {
                return;
            };
            let current = slot.load(Ordering::Relaxed).checked_sub(1);
            if current.is_some_and(|at| self.tags[at as usize].key.load(Ordering::Relaxed) == key) {
                continue;
            }
            let at = self.victim(&mut hand);
            self.fill(at, key, bytes);
            slot.store(at as u32 + 1, Ordering::Release);
        }
    }

    /// The next page to reuse: the first one the hand finds not read since it last passed.
    fn victim(&self, hand: &mut usize) -> usize {
        let n = self.tags.len();
        for _ in 0..2 * n {
            let at = *hand;
            *hand = (at + 1) % n;
            if !self.tags[at].referenced.swap(false, Ordering::Relaxed) {
                return at;
            }
        }
        *hand
    }

    /// Rewrites page `at` under its sequence lock (the caller holds the hand).
    fn fill(&self, at: usize, key: u64, bytes: &[u8]) {
        let words = &self.words[at * PAGE_WORDS..][..PAGE_WORDS];
        let tag = &self.tags[at];
        let seq = tag.seq.load(Ordering::Relaxed);
        tag.seq.store(seq + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        tag.key.store(key, Ordering::Relaxed);
        for (word, chunk) in words.iter().zip(bytes.chunks(8)) {
            let mut le = [0u8; 8];
            le[..chunk.len()].copy_from_slice(chunk);
            word.store(u64::from_le_bytes(le), Ordering::Relaxed);
        }
        tag.seq.store(seq + 2, Ordering::Release);
    }
}

/// `n` words of zero, from a zeroed allocation: the system allocator takes a large one
/// straight from the operating system, which backs each memory page when first written.
/// `None` where the system refuses the memory or its size does not fit in an address.
fn zeroed_words(n: usize) -> Option<Box<[AtomicU64]>> {
    let layout = std::alloc::Layout::array::<AtomicU64>(n).ok()?;
    if layout.size() == 0 {
        return Some(Box::new([]));
    }
    // Safety: the layout has a non-zero size.
    let words = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicU64>();
    if words.is_null() {
        return None;
    }
    // Safety: `words` is a fresh allocation of `layout`, `n` values of `AtomicU64`, whose
    // all-zero bytes are valid zeros; the box frees it with the same layout.
    Some(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(words, n)) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::format::pack;

    /// A cache larger than memory, or than an address can say, is an error, not an abort.
    #[test]
    fn a_cache_too_large_is_an_error() {
        for bytes in [usize::MAX, usize::MAX / 2, 1 << 62] {
            let e = BlockCache::new(bytes).err().expect("refused");
            assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{bytes}");
            assert!(e.to_string().contains(&bytes.to_string()), "{e}");
        }
        assert!(BlockCache::new(0).is_ok(), "one page at least");
    }

    /// A frame of 16-bit values decodes in place to the values, and a frame of another
    /// length is an error, not values half filled.
    #[test]
    fn values_decompress_in_place() {
        let values: Vec<u16> = (0..5000u32).map(|i| (i * 7919 % 65521) as u16).collect();
        let frame = zstd::bulk::compress(&pack(&values, 16), 1).unwrap();
        let mut out = vec![0u16; values.len()];
        decompress_values(&frame, &mut out).unwrap();
        assert_eq!(out, values);
        let mut short = vec![0u16; values.len() + 1];
        let e = decompress_values(&frame, &mut short).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a frame of 10000 bytes where 10002 were expected"
        );
    }

    fn header(value_bits: u8, block_positions: u32, positions: u64) -> Header {
        Header {
            kind: if value_bits == 2 {
                FileKind::Wdl
            } else {
                FileKind::Dtw
            },
            variant: Variant::English,
            material: Material::new(1, 0, 1, 0),
            value_bits,
            max_dtw: 0,
            block_positions,
            positions,
            blocks: positions.div_ceil(block_positions as u64) as u32,
            table_crc: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            unused: 0,
            rule_set: 0,
            drawn_by_rules: 0,
            searched: false,
            forced_searched: false,
            even_rows_searched: false,
            ones_searched: false,
            rules_derived: crate::tablebase::format::RulesDerived::None,
            stats: None,
        }
    }

    /// Every layout of values in pages (a block of one page, of two, of a page and a half,
    /// of less than a page, a short last block) reads back what was cached, through a
    /// cache so small that every block evicts the one before; an evicted block and another
    /// cache answer nothing, never a wrong value.
    #[test]
    fn cached_values_read_back_in_every_page_layout() {
        for (bits, block_positions) in [(2, 65536), (8, 16384), (16, 16384), (16, 12288), (8, 4000)]
        {
            let positions = 3 * block_positions as u64 - 5;
            let h = header(bits, block_positions, positions);
            let values: Vec<u16> = (0..positions)
                .map(|i| (i.wrapping_mul(0x9E37_79B9) >> 7) as u16 & ((1u32 << bits) - 1) as u16)
                .collect();
            let slots = PageSlots::new(&h);
            let cache = BlockCache::new(2 * PAGE_BYTES).expect("a small cache");
            let other = BlockCache::new(2 * PAGE_BYTES).expect("a small cache");
            for (b, block) in values.chunks(block_positions as usize).enumerate() {
                let start = b as u64 * block_positions as u64;
                assert_eq!(
                    cache.value(&slots, 3, start),
                    None,
                    "{bits}/{block_positions}"
                );
                cache.insert(&slots, 3, b as u32, &pack(block, bits));
                for (i, &v) in block.iter().enumerate() {
                    let index = start + i as u64;
                    assert_eq!(
                        cache.value(&slots, 3, index),
                        Some(v),
                        "{bits} bits, {index}"
                    );
                }
                assert_eq!(other.value(&slots, 3, start), None);
                assert_eq!(cache.value(&slots, 4, start), None, "another table's id");
            }
            if h.block_bytes() <= PAGE_BYTES {
                // Two pages: the first block is gone, the last two are there.
                assert_eq!(cache.value(&slots, 3, 0), None);
            }
        }
    }
}

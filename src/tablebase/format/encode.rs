//! The block encoder: a block's values with unread positions filled, as a zstd frame.

/// The values of a block, where `f` says `None` (a value nobody reads) repeating the last
/// one said: long runs compress best.
pub(crate) fn fill_runs<T: Copy>(
    block: impl Iterator<Item = T> + Clone,
    f: impl Fn(T) -> Option<u16>,
) -> Vec<u16> {
    let mut last = block.clone().find_map(&f).unwrap_or(0);
    block
        .map(|v| {
            if let Some(x) = f(v) {
                last = x;
            }
            last
        })
        .collect()
}

thread_local! {
    /// Each thread's zstd compression contexts, one a level and shortest match, made on
    /// first use: making one for every block was 1.3 % of a build (`ZSTD_createCCtx`).
    static COMPRESSORS: std::cell::RefCell<Vec<(Params, zstd::bulk::Compressor<'static>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A block's bytes as a zstd frame at `level`, holding no more memory than its length:
/// zstd gives a buffer of the input's worst-case size, and the packed batches of a level are
/// kept while it is solved (English 2212+1222 peaked about 0.6 GiB higher before).
pub(crate) fn compress(raw: &[u8], level: i32) -> Vec<u8> {
    compress_with(raw, level, None)
}

/// A zstd level and, if not the level's, its shortest match.
type Params = (i32, Option<u32>);

/// [`compress`] with zstd's shortest match `min_match` instead of the level's.
pub(crate) fn compress_with(raw: &[u8], level: i32, min_match: Option<u32>) -> Vec<u8> {
    let params = (level, min_match);
    let mut frame = COMPRESSORS
        .with_borrow_mut(|contexts| {
            let at = match contexts.iter().position(|(p, _)| *p == params) {
                Some(at) => at,
                None => {
                    let mut context = zstd::bulk::Compressor::new(level).expect("a zstd context");
                    if let Some(m) = min_match {
                        context
                            .set_parameter(zstd::stream::raw::CParameter::MinMatch(m))
                            .expect("a valid shortest match");
                    }
                    contexts.push((params, context));
                    contexts.len() - 1
                }
            };
            contexts[at].1.compress(raw)
        })
        .expect("zstd compresses any input in memory");
    frame.shrink_to_fit();
    frame
}

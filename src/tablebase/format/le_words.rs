//! Sixteen-bit values and their little-endian bytes (the byte order of every file and packed
//! stream), converted without a copy where the machine is little-endian: the generator
//! moves gigabytes of values between memory, zstd and files.

use std::borrow::Cow;

/// The little-endian bytes of `values`: borrowed where the machine is little-endian.
pub(crate) fn le_bytes(values: &[u16]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        // Safety: the bytes of `values`, which stay borrowed; a `u16` has no padding and
        // a byte needs no alignment.
        Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values))
        })
    } else {
        Cow::Owned(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }
}

/// Fills `values` from little-endian bytes that `fill` writes straight into their memory (a
/// read or a decompression), and returns what `fill` returns. Values whose bytes `fill`
/// does not write keep theirs.
pub(crate) fn fill_from_le<T>(values: &mut [u16], fill: impl FnOnce(&mut [u8]) -> T) -> T {
    // Safety: the bytes of `values`, borrowed mutably for `fill` alone; any bytes are a
    // valid `u16`, and a byte needs no alignment.
    let bytes = unsafe {
        std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), size_of_val(values))
    };
    let out = fill(bytes);
    if cfg!(target_endian = "big") {
        values.iter_mut().for_each(|v| *v = u16::from_le(*v));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_little_endian_both_ways() {
        let values = [0x0102u16, 0xA0B0, 7];
        assert_eq!(&*le_bytes(&values), &[0x02, 0x01, 0xB0, 0xA0, 7, 0]);
        let mut back = [0u16; 3];
        let n = fill_from_le(&mut back, |b| {
            b.copy_from_slice(&le_bytes(&values));
            b.len()
        });
        assert_eq!((n, back), (6, values));
        let mut partly = [9u16; 2];
        fill_from_le(&mut partly, |b| b[..2].copy_from_slice(&[0x34, 0x12]));
        assert_eq!(partly, [0x1234, 9]);
    }
}

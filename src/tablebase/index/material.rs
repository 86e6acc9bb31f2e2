//! Material slices: how many men and kings the side to move and the other side have, the
//! slices a build needs, and the order that lets every slice read the ones it depends on.

use std::fmt;
use std::str::FromStr;

/// A material slice, seen from the side to move: its men and kings, then the other side's.
///
/// Written as four digits, mover's men, mover's kings, other's men, other's kings:
/// `2101` is two men and a king to move against one king.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// Men of the side to move.
    pub mover_men: u8,
    /// Kings of the side to move.
    pub mover_kings: u8,
    /// Men of the other side.
    pub other_men: u8,
    /// Kings of the other side.
    pub other_kings: u8,
}

impl Material {
    /// The men and kings of the side to move, then of the other side.
    pub fn sides(self) -> [crate::rules::SideMaterial; 2] {
        let side = |men: u8, kings: u8| crate::rules::SideMaterial {
            men: men.into(),
            kings: kings.into(),
        };
        [
            side(self.mover_men, self.mover_kings),
            side(self.other_men, self.other_kings),
        ]
    }

    /// A slice from its four counts.
    pub const fn new(mover_men: u8, mover_kings: u8, other_men: u8, other_kings: u8) -> Self {
        Material {
            mover_men,
            mover_kings,
            other_men,
            other_kings,
        }
    }

    /// All pieces on the board.
    pub const fn pieces(&self) -> u32 {
        (self.mover_men + self.mover_kings + self.other_men + self.other_kings) as u32
    }

    /// All men on the board.
    pub const fn men(&self) -> u32 {
        (self.mover_men + self.other_men) as u32
    }

    /// The same material with the other side to move.
    pub const fn flipped(&self) -> Material {
        Material::new(
            self.other_men,
            self.other_kings,
            self.mover_men,
            self.mover_kings,
        )
    }

    /// Whether the slice is its own twin (both sides have the same material).
    pub fn is_symmetric(&self) -> bool {
        *self == self.flipped()
    }

    /// Every slice with at least one piece a side and at most `pieces` in all, at most
    /// `max_side` a side.
    pub fn all_up_to(pieces: u32, max_side: u32) -> Vec<Material> {
        let mut out = Vec::new();
        let n = pieces.min(2 * max_side) as u8;
        for mm in 0..=n {
            for mk in 0..=n - mm {
                for om in 0..=n - mm - mk {
                    for ok in 0..=n - mm - mk - om {
                        let m = Material::new(mm, mk, om, ok);
                        let (mine, theirs) = ((mm + mk) as u32, (om + ok) as u32);
                        if mine >= 1 && theirs >= 1 && mine <= max_side && theirs <= max_side {
                            out.push(m);
                        }
                    }
                }
            }
        }
        out
    }

    /// The slices a position of this slice can move into outside its own pair: after a
    /// capture (fewer pieces, perhaps a crowning) or a crowning. Slices with a side left
    /// without pieces are not listed (that side has lost).
    pub fn successors(&self) -> Vec<Material> {
        // The mover's pieces after its move: unchanged, or one man crowned.
        let mut mine = vec![(self.mover_men, self.mover_kings, false)];
        if self.mover_men > 0 {
            mine.push((self.mover_men - 1, self.mover_kings + 1, true));
        }
        let mut out = Vec::new();
        for (men, kings, crowned) in mine {
            for taken_men in 0..=self.other_men {
                for taken_kings in 0..=self.other_kings {
                    let (om, ok) = (self.other_men - taken_men, self.other_kings - taken_kings);
                    let captured = taken_men + taken_kings > 0;
                    if (captured || crowned) && om + ok > 0 {
                        // The other side moves next.
                        out.push(Material::new(om, ok, men, kings));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The build order key: fewer pieces first, then fewer men (a crowning turns a man
    /// into a king), so every successor of a slice comes before it.
    pub fn order_key(&self) -> (u32, u32) {
        (self.pieces(), self.men())
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}{}",
            self.mover_men, self.mover_kings, self.other_men, self.other_kings
        )
    }
}

/// A slice key that is not four digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadMaterial(pub String);

impl fmt::Display for BadMaterial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.0.trim();
        if key.len() == 4 && key.bytes().all(|b| b.is_ascii_digit()) {
            return write!(
                f,
                "bad slice key '{}': each side needs a piece (a side without one has lost)",
                self.0
            );
        }
        write!(
            f,
            "bad slice key '{}': expected four digits, mover's men and kings then the other \
             side's (e.g. 2101)",
            self.0
        )
    }
}

impl std::error::Error for BadMaterial {}

impl FromStr for Material {
    type Err = BadMaterial;

    fn from_str(s: &str) -> Result<Material, BadMaterial> {
        let d: Vec<u8> = s.trim().bytes().collect();
        if d.len() != 4 || !d.iter().all(u8::is_ascii_digit) {
            return Err(BadMaterial(s.to_string()));
        }
        let m = Material::new(d[0] - b'0', d[1] - b'0', d[2] - b'0', d[3] - b'0');
        if m.mover_men + m.mover_kings == 0 || m.other_men + m.other_kings == 0 {
            return Err(BadMaterial(s.to_string()));
        }
        Ok(m)
    }
}

/// One job of a build: a slice and its twin (one slice when both sides are alike), built
/// together because quiet moves lead from each into the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceJob {
    /// The slice with the larger key first, then its twin if different.
    pub slices: Vec<Material>,
    /// The slices it reads (all built earlier in the plan).
    pub inputs: Vec<Material>,
}

impl SliceJob {
    /// The job that builds `m` and its twin.
    pub fn for_slice(m: Material) -> SliceJob {
        let (a, b) = if m >= m.flipped() {
            (m, m.flipped())
        } else {
            (m.flipped(), m)
        };
        let slices = if a == b { vec![a] } else { vec![a, b] };
        let mut inputs: Vec<Material> = slices.iter().flat_map(|s| s.successors()).collect();
        inputs.sort();
        inputs.dedup();
        inputs.retain(|i| !slices.contains(i));
        SliceJob { slices, inputs }
    }

    /// The job's name: its first slice's key.
    pub fn key(&self) -> Material {
        self.slices[0]
    }
}

/// The jobs that build every slice up to `pieces` (at most `max_side` a side), in an order
/// where each job's inputs are built before it.
pub fn plan(pieces: u32, max_side: u32) -> Vec<SliceJob> {
    let mut jobs: Vec<SliceJob> = Vec::new();
    for m in Material::all_up_to(pieces, max_side) {
        if !jobs.iter().any(|j| j.slices.contains(&m)) {
            jobs.push(SliceJob::for_slice(m));
        }
    }
    jobs.sort_by_key(|j| (j.key().order_key(), j.key()));
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_reject_garbage() {
        let m: Material = "2101".parse().unwrap();
        assert_eq!(m, Material::new(2, 1, 0, 1));
        assert_eq!(m.to_string(), "2101");
        assert!("210".parse::<Material>().is_err());
        assert!("0011".parse::<Material>().is_err());
        assert!("21a1".parse::<Material>().is_err());
    }

    #[test]
    fn plan_puts_inputs_first() {
        let jobs = plan(5, 12);
        let mut done: Vec<Material> = Vec::new();
        for job in &jobs {
            for input in &job.inputs {
                assert!(
                    done.contains(input),
                    "{} needs {input} before it",
                    job.key()
                );
            }
            done.extend(job.slices.iter().copied());
        }
        assert_eq!(done.len(), Material::all_up_to(5, 12).len());
        // 2 pieces: 1 man or king each side, 2x2 = 4 slices.
        assert_eq!(Material::all_up_to(2, 12).len(), 4);
    }

    #[test]
    fn successors_of_a_man_and_king() {
        // Mover 1 man vs 1 king: crown (other side 1 king to move vs 1 king) or capture the
        // king (nothing left: not a slice).
        let m = Material::new(1, 0, 0, 1);
        assert_eq!(m.successors(), vec![Material::new(0, 1, 0, 1)]);
    }
}

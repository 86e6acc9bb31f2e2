//! The seven rule sets: a runtime [`Variant`] and a compile-time [`Rules`] type for each.

use std::fmt;
use std::str::FromStr;

use super::board::{Color, Diagonal8, Diagonal10, Geometry, Orthogonal8};

/// How a side chooses among several captures.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Precedence {
    /// Any complete capture sequence (English, Russian).
    Free,
    /// The sequences that take the most pieces, a king counting as one.
    Quantity,
    /// Most pieces, then most kings among them.
    Spanish,
    /// Most pieces, then with a king, then most kings, then the king met earliest.
    Italian,
}

/// What happens when a man reaches its last row in the middle of a capture.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MidCapturePromotion {
    /// It is crowned and the move ends there.
    Stop,
    /// It is crowned at once and goes on capturing as a king.
    ContinueAsKing,
    /// It stays a man, goes on capturing as a man, and is crowned only if it ends there.
    PassAsMan,
}

/// The rules of one variant, as constants. Move generation is generic over this trait.
pub trait Rules: Copy + Default + Send + Sync + fmt::Debug + 'static {
    /// The board this variant is played on.
    type Board: Geometry;
    /// The runtime name of the variant.
    const VARIANT: Variant;
    /// Who moves first from the initial position.
    const FIRST: Color;
    /// Men capture backwards too.
    const MEN_CAPTURE_BACKWARD: bool;
    /// Men may capture kings (false only in Italian).
    const MEN_CAPTURE_KINGS: bool;
    /// Kings move and capture any distance.
    const FLYING_KINGS: bool;
    /// The choice among captures.
    const PRECEDENCE: Precedence;
    /// A man reaching the last row mid-capture.
    const PROMOTION: MidCapturePromotion;
    /// Captured pieces leave the board at once (Turkish), not at the end of the move.
    const IMMEDIATE_REMOVAL: bool;
    /// Men per side in the initial position (also the most pieces a side may have).
    const MEN: u32;
}

macro_rules! rules {
    ($(#[$doc:meta])* $name:ident, $board:ty, $variant:ident, $first:ident, back: $back:expr,
     kings_prey: $prey:expr, flying: $fly:expr, $prec:ident, $promo:ident, immediate: $imm:expr,
     men: $men:expr) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Rules for $name {
            type Board = $board;
            const VARIANT: Variant = Variant::$variant;
            const FIRST: Color = Color::$first;
            const MEN_CAPTURE_BACKWARD: bool = $back;
            const MEN_CAPTURE_KINGS: bool = $prey;
            const FLYING_KINGS: bool = $fly;
            const PRECEDENCE: Precedence = Precedence::$prec;
            const PROMOTION: MidCapturePromotion = MidCapturePromotion::$promo;
            const IMMEDIATE_REMOVAL: bool = $imm;
            const MEN: u32 = $men;
        }
    };
}

rules!(
    /// English draughts (checkers): short kings, free choice of capture, Black moves first.
    English, Diagonal8, English, Black, back: false, kings_prey: true, flying: false,
    Free, Stop, immediate: false, men: 12);
rules!(
    /// Italian draughts: short kings, men cannot take kings, four-level capture precedence.
    Italian, Diagonal8, Italian, White, back: false, kings_prey: false, flying: false,
    Italian, Stop, immediate: false, men: 12);
rules!(
    /// Spanish draughts: flying kings, most pieces then most kings.
    Spanish, Diagonal8, Spanish, White, back: false, kings_prey: true, flying: true,
    Spanish, Stop, immediate: false, men: 12);
rules!(
    /// Russian draughts (shashki): flying kings, free choice, promotion continues as king.
    Russian, Diagonal8, Russian, White, back: true, kings_prey: true, flying: true,
    Free, ContinueAsKing, immediate: false, men: 12);
rules!(
    /// Brazilian draughts: International rules on the 8x8 board.
    Brazilian, Diagonal8, Brazilian, White, back: true, kings_prey: true, flying: true,
    Quantity, PassAsMan, immediate: false, men: 12);
rules!(
    /// International draughts on 10x10.
    International, Diagonal10, International, White, back: true, kings_prey: true,
    flying: true, Quantity, PassAsMan, immediate: false, men: 20);
rules!(
    /// Turkish draughts (dama): orthogonal moves, captured pieces removed at once.
    Turkish, Orthogonal8, Turkish, White, back: false, kings_prey: true, flying: true,
    Quantity, PassAsMan, immediate: true, men: 16);

/// The variant chosen at run time (CLI, file header, PDN GameType).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// English draughts / checkers.
    English,
    /// Italian draughts.
    Italian,
    /// Spanish draughts.
    Spanish,
    /// Russian draughts.
    Russian,
    /// Brazilian draughts.
    Brazilian,
    /// International (10x10) draughts.
    International,
    /// Turkish draughts.
    Turkish,
}

impl Variant {
    /// Every variant, in a fixed order.
    pub const ALL: [Variant; 7] = [
        Variant::English,
        Variant::Italian,
        Variant::Spanish,
        Variant::Russian,
        Variant::Brazilian,
        Variant::International,
        Variant::Turkish,
    ];

    /// The lower-case name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::English => "english",
            Variant::Italian => "italian",
            Variant::Spanish => "spanish",
            Variant::Russian => "russian",
            Variant::Brazilian => "brazilian",
            Variant::International => "international",
            Variant::Turkish => "turkish",
        }
    }

    /// The PDN GameType number.
    pub const fn game_type(self) -> u8 {
        match self {
            Variant::English => 21,
            Variant::Italian => 22,
            Variant::Spanish => 24,
            Variant::Russian => 25,
            Variant::Brazilian => 26,
            Variant::International => 20,
            Variant::Turkish => 30,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown variant name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant '{}' (expected one of: ", self.0)?;
        for (i, v) in Variant::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(v.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    /// A variant's name, in any case; `american` (American checkers, as pydraughts and the
    /// Hub call it) is English.
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "american" {
            return Ok(Variant::English);
        }
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// Runs `$body` with the type alias `$R` bound to the [`Rules`] type of the runtime variant.
///
/// This is the one place where a runtime [`Variant`] becomes a compile-time type.
///
/// ```
/// use damka::{with_rules, Rules, Variant};
/// let men = with_rules!(Variant::International, R => R::MEN);
/// assert_eq!(men, 20);
/// ```
#[macro_export]
macro_rules! with_rules {
    ($variant:expr, $R:ident => $body:expr) => {
        match $variant {
            $crate::Variant::English => {
                type $R = $crate::rules::English;
                $body
            }
            $crate::Variant::Italian => {
                type $R = $crate::rules::Italian;
                $body
            }
            $crate::Variant::Spanish => {
                type $R = $crate::rules::Spanish;
                $body
            }
            $crate::Variant::Russian => {
                type $R = $crate::rules::Russian;
                $body
            }
            $crate::Variant::Brazilian => {
                type $R = $crate::rules::Brazilian;
                $body
            }
            $crate::Variant::International => {
                type $R = $crate::rules::International;
                $body
            }
            $crate::Variant::Turkish => {
                type $R = $crate::rules::Turkish;
                $body
            }
        }
    };
}

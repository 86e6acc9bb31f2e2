//! The seven rule sets: a runtime [`Variant`] and a compile-time [`Rules`] type for each.

use std::fmt;
use std::str::FromStr;

use super::board::{BoardKind, Color, Diagonal8, Diagonal10, Geometry, Orthogonal8};

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

/// How a variant writes its squares in PDN.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SquareStyle {
    /// Numbered playable squares (1-32, 1-50).
    Numeric,
    /// File letter and rank digit (a1-h8).
    Algebraic,
}

/// Every fact of a variant besides the rules of its moves (those are its [`Rules`]
/// constants): its names, its numbers, how it is written, and what the engine and the
/// draw rules take for it. Each variant's facts are written once, in its declaration.
#[derive(Debug, PartialEq, Eq)]
pub struct VariantFacts {
    /// The lower-case name used on the command line, in files and in the APIs.
    pub name: &'static str,
    /// Other names accepted for it (in any case), as other programs call it.
    pub aliases: &'static [&'static str],
    /// The PDN GameType number (also the variant's number in table files and the C API).
    pub game_type: u8,
    /// The standard long form of its GameType tag (PDN 3.0).
    pub game_type_long: &'static str,
    /// The board it is played on.
    pub board: BoardKind,
    /// How its squares are written.
    pub square_style: SquareStyle,
    /// Whether the square a1 (White's left corner) is a playable one.
    pub a1_dark: bool,
    /// Whether numbered squares count from White's side (h1 leftwards, rank by rank
    /// upwards, as Spanish does), not from Black's (the top left, rightwards).
    pub numbered_from_white: bool,
    /// The separator of a capture's squares in its move text.
    pub capture_separator: char,
    /// What the engine counts a king for, in hundredths of a man.
    pub king_value: i32,
    /// The name of its default draw rules (the first of its rule sets, `docs/RULES.md`).
    pub default_rules: &'static str,
}

/// Declares the variants, each once: its [`Rules`] type, its [`Variant`] and its
/// [`VariantFacts`]. `Variant`, `Variant::ALL` and the lookups by name and number follow.
macro_rules! variants {
    ($(
        $(#[$doc:meta])*
        $name:ident {
            rules: $board:ty, first: $first:ident, back: $back:expr, kings_prey: $prey:expr,
            flying: $fly:expr, $prec:ident, $promo:ident, immediate: $imm:expr, men: $men:expr;
            name: $text:literal, aliases: [$($alias:literal),*], game_type: $number:literal,
            long: $long:literal, squares: $style:ident, a1_dark: $a1:expr,
            numbered_from_white: $from_white:expr,
            separator: $sep:literal, king_value: $king:literal, default_rules: $default:literal,
        }
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name;

            impl Rules for $name {
                type Board = $board;
                const VARIANT: Variant = Variant::$name;
                const FIRST: Color = Color::$first;
                const MEN_CAPTURE_BACKWARD: bool = $back;
                const MEN_CAPTURE_KINGS: bool = $prey;
                const FLYING_KINGS: bool = $fly;
                const PRECEDENCE: Precedence = Precedence::$prec;
                const PROMOTION: MidCapturePromotion = MidCapturePromotion::$promo;
                const IMMEDIATE_REMOVAL: bool = $imm;
                const MEN: u32 = $men;
            }
        )*

        /// The variant chosen at run time (CLI, file header, PDN GameType).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Variant {
            $($(#[$doc])* $name,)*
        }

        impl Variant {
            /// Every variant, in a fixed order.
            pub const ALL: [Variant; [$(Variant::$name),*].len()] = [$(Variant::$name),*];

            /// The variant's facts (names, numbers, notation).
            pub const fn facts(self) -> &'static VariantFacts {
                match self {
                    $(Variant::$name => &VariantFacts {
                        name: $text,
                        aliases: &[$($alias),*],
                        game_type: $number,
                        game_type_long: $long,
                        board: <$board as Geometry>::KIND,
                        square_style: SquareStyle::$style,
                        a1_dark: $a1,
                        numbered_from_white: $from_white,
                        capture_separator: $sep,
                        king_value: $king,
                        default_rules: $default,
                    },)*
                }
            }
        }
    };
}

variants! {
    /// English draughts (checkers): short kings, free choice of capture, Black moves first.
    English {
        rules: Diagonal8, first: Black, back: false, kings_prey: true, flying: false,
        Free, Stop, immediate: false, men: 12;
        name: "english", aliases: ["american", "checkers"], game_type: 21,
        long: "21,B,8,8,N1,0", squares: Numeric, a1_dark: true,
        numbered_from_white: false, separator: 'x',
        king_value: 150, default_rules: "wcdf",
    }
    /// Italian draughts: short kings, men cannot take kings, four-level capture precedence.
    Italian {
        rules: Diagonal8, first: White, back: false, kings_prey: false, flying: false,
        Italian, Stop, immediate: false, men: 12;
        name: "italian", aliases: [], game_type: 22,
        long: "22,W,8,8,N2,1", squares: Numeric, a1_dark: false,
        numbered_from_white: false, separator: 'x',
        king_value: 150, default_rules: "rulepage-50",
    }
    /// Spanish draughts: flying kings, most pieces then most kings.
    Spanish {
        rules: Diagonal8, first: White, back: false, kings_prey: true, flying: true,
        Spanish, Stop, immediate: false, men: 12;
        name: "spanish", aliases: [], game_type: 24,
        long: "24,W,8,8,N1,1", squares: Numeric, a1_dark: false,
        numbered_from_white: true, separator: 'x',
        king_value: 250, default_rules: "none",
    }
    /// Russian draughts (shashki): flying kings, free choice, promotion continues as king.
    Russian {
        rules: Diagonal8, first: White, back: true, kings_prey: true, flying: true,
        Free, ContinueAsKing, immediate: false, men: 12;
        name: "russian", aliases: [], game_type: 25,
        long: "25,W,8,8,A0,0", squares: Algebraic, a1_dark: true,
        numbered_from_white: false, separator: ':',
        king_value: 250, default_rules: "fsr",
    }
    /// Brazilian draughts: International rules on the 8x8 board.
    Brazilian {
        rules: Diagonal8, first: White, back: true, kings_prey: true, flying: true,
        Quantity, PassAsMan, immediate: false, men: 12;
        name: "brazilian", aliases: [], game_type: 26,
        long: "26,W,8,8,A0,0", squares: Algebraic, a1_dark: true,
        numbered_from_white: false, separator: 'x',
        king_value: 250, default_rules: "cbd",
    }
    /// International draughts on 10x10.
    International {
        rules: Diagonal10, first: White, back: true, kings_prey: true, flying: true,
        Quantity, PassAsMan, immediate: false, men: 20;
        name: "international", aliases: [], game_type: 20,
        long: "20,W,10,10,N2,0", squares: Numeric, a1_dark: true,
        numbered_from_white: false, separator: 'x',
        king_value: 300, default_rules: "fmjd",
    }
    /// Turkish draughts (dama): orthogonal moves, captured pieces removed at once.
    Turkish {
        rules: Orthogonal8, first: White, back: false, kings_prey: true, flying: true,
        Quantity, PassAsMan, immediate: true, men: 16;
        name: "turkish", aliases: [], game_type: 30,
        long: "30,W,8,8,A0,0", squares: Algebraic, a1_dark: true,
        numbered_from_white: false, separator: 'x',
        king_value: 250, default_rules: "tdf",
    }
}

impl Variant {
    /// The lower-case name used on the command line.
    pub const fn name(self) -> &'static str {
        self.facts().name
    }

    /// The PDN GameType number.
    pub const fn game_type(self) -> u8 {
        self.facts().game_type
    }

    /// The variant whose PDN GameType number is `number`.
    pub fn from_game_type(number: u8) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.game_type() == number)
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

    /// A variant's name or one of its aliases ([`VariantFacts::aliases`]), in any case.
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        let lower = s.trim().to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == lower || v.facts().aliases.contains(&lower.as_str()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    /// Each variant's facts agree with each other and with its rules, and no name or number
    /// is shared: what a new variant's declaration must get right.
    #[test]
    fn every_declaration_is_consistent() {
        let mut names = Vec::new();
        let mut numbers = Vec::new();
        for v in Variant::ALL {
            let f = v.facts();
            names.push(f.name);
            names.extend(f.aliases);
            numbers.push(f.game_type);
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            for alias in f.aliases {
                assert_eq!(alias.to_ascii_uppercase().parse::<Variant>(), Ok(v));
            }
            assert_eq!(Variant::from_game_type(f.game_type), Some(v));
            let first = with_rules!(v, R => R::FIRST);
            let (number, rest) = f.game_type_long.split_once(',').expect("a long form");
            assert_eq!(number, f.game_type.to_string(), "{v}");
            let side = if first == Color::White { "W" } else { "B" };
            assert!(rest.starts_with(side), "{v}: {}", f.game_type_long);
            let default = RuleSet::default_for(v);
            assert_eq!(
                (default.name, default.number()),
                (f.default_rules, 1),
                "{v}"
            );
            assert!(f.king_value > 100, "{v}: a king is worth more than a man");
        }
        let (mut unique_names, mut unique_numbers) = (names.clone(), numbers.clone());
        unique_names.sort_unstable();
        unique_names.dedup();
        unique_numbers.sort_unstable();
        unique_numbers.dedup();
        assert_eq!(unique_names.len(), names.len(), "{names:?}");
        assert_eq!(unique_numbers.len(), numbers.len(), "{numbers:?}");
        assert_eq!("Checkers".parse::<Variant>(), Ok(Variant::English));
        assert!("draughts".parse::<Variant>().is_err());
    }
}

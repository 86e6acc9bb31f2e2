"""Positions and squares for the tests: random positions of few pieces in each variant's
FEN, and the square numbers pydraughts uses."""

import re

import damka

FILES = "abcdefgh"
# pydraughts' name for each variant it knows (Spanish it does not).
PYDRAUGHTS = {
    "english": "english",
    "italian": "italian",
    "russian": "russian",
    "brazilian": "brazilian",
    "international": "standard",
    "turkish": "turkish",
}


def algebraic(variant):
    """Whether the variant's PDN squares are algebraic names (`c3`) rather than numbers."""
    return variant in ("russian", "brazilian", "turkish")


def squares(variant):
    """Every playable square's name as the variant's FEN writes it."""
    if variant == "international":
        return [str(n) for n in range(1, 51)]
    if variant == "turkish":
        return [f"{f}{r}" for r in range(1, 9) for f in FILES]
    if algebraic(variant):
        # The dark squares, a1 among them.
        return [f"{FILES[f]}{r + 1}" for r in range(8) for f in range(8) if (f + r) % 2 == 0]
    return [str(n) for n in range(1, 33)]


def random_fen(variant, rng, max_pieces, min_pieces=2):
    """A FEN of `min_pieces` to `max_pieces` pieces, at least one a side, men or kings at
    random on random squares, either side to move. It may not be a position (a man on its
    promotion row): the library says so."""
    count = rng.randint(min_pieces, max_pieces)
    chosen = rng.sample(squares(variant), count)
    sides = {"W": [], "B": []}
    for i, square in enumerate(chosen):
        colour = "W" if i == 0 else "B" if i == 1 else rng.choice("WB")
        sides[colour].append(("K" if rng.random() < 0.5 else "") + square)
    return f"{rng.choice('WB')}:W{','.join(sides['W'])}:B{','.join(sides['B'])}"


def random_positions(variant, rng, count, max_pieces=4, min_pieces=2):
    """`count` random positions (FENs the library accepts) and the FENs it refused on the
    way."""
    good, refused = [], []
    while len(good) < count:
        fen = random_fen(variant, rng, max_pieces, min_pieces)
        try:
            damka.legal_moves(variant, fen)
        except ValueError:
            refused.append(fen)
            continue
        good.append(fen)
    return good, refused


def pieces(fen):
    """The number of pieces in a FEN without ranges."""
    return sum(
        len([s for s in field[1:].split(",") if s.strip()])
        for field in fen.split(":")[1:]
        if field[:1] in ("W", "B")
    )


def hub_number(variant, name):
    """pydraughts' number of a square damka writes as `name`: the PDN number itself, or for
    the algebraic variants the squares counted from a1 along each rank in turn."""
    if not algebraic(variant):
        return int(name)
    f, r = FILES.index(name[0]), int(name[1:]) - 1
    if variant == "turkish":
        return r * 8 + f + 1
    return r * 4 + f // 2 + 1


def ends(variant, move):
    """The first and last squares of a damka move text, as pydraughts numbers them."""
    parts = re.split(r"[-x:]", move)
    return hub_number(variant, parts[0]), hub_number(variant, parts[-1])

"""The one exception for bad input (the CLI prints its message and exits 2),
and what messages need at every layer: a suggestion for a misspelt name, a
count with its noun in the right number."""


class TilesatError(Exception):
    """Bad input or an impossible option, explained in one line."""


class VerificationError(AssertionError):
    """A tiling failed the independent checker: a bug in tilesat, never bad input."""


def did_you_mean(name: str, choices) -> str:
    """`` (did you mean 'X'?)`` for the choice closest to a misspelt ``name``
    (difflib's similarity, case ignored; of equally close ones the first
    listed), or ``""`` when none is close."""
    from difflib import SequenceMatcher

    best, score = None, 0.6  # difflib's own cut-off for get_close_matches
    wanted = name.lower()
    for choice in choices:
        ratio = SequenceMatcher(None, wanted, choice.lower()).ratio()
        if ratio > score:
            best, score = choice, ratio
    return f" (did you mean {best!r}?)" if best is not None and best.lower() != wanted else ""


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 tiling``, ``2 tilings``, ``1,024 tilings``: ``n`` (with thousands
    separators) and the noun in its number (``words``: an irregular plural)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def one_of(words) -> str:
    """'a, b or c': for messages and help texts built from the library's own lists of names."""
    words = list(words)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"

"""The author's questions after check-unique: where is the board ambiguous, what
makes it unique, where does it fail (``tilesat explain``)."""

from .analysis import Explanation, Suggestion, explain

__all__ = ["Explanation", "Suggestion", "explain"]

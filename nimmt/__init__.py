"""nimmt: the classic edition of 6 nimmt! for 2 to 10 players."""

__version__ = "0.1.0"

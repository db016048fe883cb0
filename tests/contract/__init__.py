"""The contract layer: every command of the README's table run as a real process (see process.py)."""

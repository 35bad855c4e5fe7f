"""Storage backends behind one contract (see base.py)."""

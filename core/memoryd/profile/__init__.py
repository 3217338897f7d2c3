"""The identity profile and its monthly change reports (seed 001 section 6)."""

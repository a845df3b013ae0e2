"""Machinery shared across packages: JSON lines, atomic files, terminal-safe text."""

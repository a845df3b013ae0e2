"""The installed package version."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("readout-audit")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

"""The version of nbsim (semantic versioning; CHANGELOG.md)."""
__version__ = "0.6.8"

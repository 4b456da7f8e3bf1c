"""The release version of zepkit; every zepkit distribution is released with this one."""

__version__ = "0.1.0"

"""Check kinds.  Each module registers its kinds with ``@check_kind`` and declares
everything about them (see base.py); a new kind is a new module listed in KIND_MODULES
and nothing else."""

from .base import (CHECK_KINDS, CheckSpec, GradingView, Instrument, Later, check_kind,
                   instrument, instruments_of, parse_check)

KIND_MODULES = ("example", "property", "scripted", "jaxpr", "output", "donation", "residuals",
                "cost", "gradient", "sharding", "collectives")

__all__ = ["CHECK_KINDS", "CheckSpec", "GradingView", "Instrument", "Later", "check_kind",
           "instrument", "instruments_of", "parse_check", "KIND_MODULES"]

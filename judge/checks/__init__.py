"""Check kinds.  Each module registers its kinds with ``@check_kind``; a new kind is a
new module listed in KIND_MODULES and nothing else."""

from .base import CHECK_KINDS, CheckSpec, Later, check_kind, parse_check

KIND_MODULES = ("example", "property", "scripted")

__all__ = ["CHECK_KINDS", "CheckSpec", "Later", "check_kind", "parse_check", "KIND_MODULES"]

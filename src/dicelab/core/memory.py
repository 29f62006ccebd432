"""How much memory this machine has and has free, for work that checks it fits before it starts."""

from __future__ import annotations

import math
import os


def machine_bytes() -> float:
    """The machine's physical memory in bytes (infinite where the system does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def available_bytes() -> float:
    """The memory a new process can take now without swapping or the kernel killing one, in bytes:
    Linux's ``MemAvailable`` (free memory plus the page cache it can drop), else the free pages,
    else the physical memory, else infinite."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024.0
    except (OSError, ValueError, IndexError):
        pass
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return machine_bytes()

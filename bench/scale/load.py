"""The machine's load, recorded by every phase of the scale benchmark, and the idle
time after which a worker stops."""

from __future__ import annotations

import os

IDLE_S = 4.0  # a worker stops after this long without a message


def load_now() -> float:
    return round(os.getloadavg()[0], 2)

"""What a reader gets besides the bytes, and the `Reader` protocol every reader implements.

Kept apart from the registry (extract/formats.py) so that the readers, which the
registry names, import this and not the registry: no import circle.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .errors import LimitExceeded
from .limits import ExtractLimits
from .model import ExtractionReport
from .ocr import OcrPort

if TYPE_CHECKING:
    from .containers import ZipContainer




@dataclass
class ReadContext:
    """What a reader gets besides the bytes; it fills ``report`` as it reads.

    ``text`` is the decoded text for text formats (decoded once, by the strict
    rule of extract/text.py); ``container`` the guarded, verified ZIP for ZIP
    formats. ``deadline`` is a `time.monotonic` value (`check_time`).
    """

    report: ExtractionReport
    limits: ExtractLimits
    deadline: float
    filename: str | None = None
    ocr: OcrPort | None = None
    text: str | None = None
    container: ZipContainer | None = None

    def check_time(self, stage: str) -> None:
        now = time.monotonic()
        if now > self.deadline:
            spent = now - (self.deadline - self.limits.max_seconds)
            raise LimitExceeded("max_seconds", self.limits.max_seconds, round(spent, 3), stage)


class Reader(Protocol):
    """Document bytes to canonical text; facts about the reading go to ctx.report.

    Raises an ExtractionError subclass for a document it cannot read.
    """

    def __call__(self, data: bytes, ctx: ReadContext) -> str: ...

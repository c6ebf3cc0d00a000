"""DOCX -> canonical text with python-docx, behind zip-bomb checks (`reader`)."""

from __future__ import annotations

from .reader import extract_docx

__all__ = ["extract_docx"]

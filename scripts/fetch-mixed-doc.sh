#!/usr/bin/env bash
# A real mixed-language document for the language-per-part test: the German
# Debian Reference (debian-reference-de, pinned), whose translation leaves some
# paragraphs in English. Downloaded with apt-get into .local/ (git-ignored),
# never committed; GPL-2+ documentation (see its copyright file).
set -euo pipefail
cd "$(dirname "$0")/.."
PKG="debian-reference-de=2.100"
DEST=.local/mixed
mkdir -p "$DEST/debs"
if ! ls "$DEST"/debs/debian-reference-de_2.100_*.deb >/dev/null 2>&1; then
    # A fresh machine may have no package lists yet: refresh them once and retry.
    (cd "$DEST/debs" && { apt-get download "$PKG" 2>/dev/null \
        || { apt-get update -qq && apt-get download "$PKG"; }; })
fi
dpkg-deb -x "$DEST"/debs/debian-reference-de_2.100_*.deb "$DEST/root"
echo "$DEST/root/usr/share/debian-reference"

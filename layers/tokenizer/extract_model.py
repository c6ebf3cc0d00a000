"""Copy a sentence-transformers model zip into a layer folder, without the weights.

usage: extract_model.py MODEL_ZIP DEST_DIR
"""

from __future__ import annotations

import sys
import zipfile


def main(src: str, dest: str) -> int:
    with zipfile.ZipFile(src) as z:
        names = [
            n for n in z.namelist() if not n.endswith("/") and not n.endswith(".safetensors")
        ]
        if "tokenizer.json" not in names:
            print(f"no tokenizer.json in {src}", file=sys.stderr)
            return 1
        for n in names:
            z.extract(n, dest)
    print(f"tokenizer layer: {len(names)} files from {src}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))

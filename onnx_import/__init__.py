"""kiln's ONNX front end (``kiln.onnx``): import an ONNX model into the `graph` dialect and run it.

    import kiln.onnx
    run = kiln.onnx.load("model.onnx", device="cpu-llvm", dims={"batch": (1, 64)})
    (y,) = run(x)

The package lives in the folder ``onnx_import/`` (mapped to ``kiln.onnx`` in pyproject.toml) because the repository
root is the ``kiln`` package and ``python -m pytest`` puts it on ``sys.path``: a folder named ``onnx/`` there
would shadow the real ``onnx`` package. See docs/onnx.md.
"""

from kiln.onnx.errors import OnnxImportError
from kiln.onnx.importer import Imported, import_model, load_model
from kiln.onnx.run import Model, load

__all__ = ["Imported", "Model", "OnnxImportError", "import_model", "load", "load_model"]

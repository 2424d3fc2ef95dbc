# lit configuration for kiln's FileCheck tests (test/**/*.mlir, *.test). Run: lit test/  (pytest runs it too).
#
# The tools (kiln-opt, kiln-run, filecheck) are taken from the bin folder of the Python that runs lit, so the
# tests use the environment lit was installed in. Optional tools become lit features, for `// REQUIRES:`:
#   mlir-opt  upstream MLIR's mlir-opt (Debian: mlir-22-tools), also as the substitution %mlir-opt
#   ptxas     NVIDIA's PTX assembler
#   cc        a C compiler
#   gpu       an NVIDIA GPU with its driver (never on CI)

import os
import shutil
import sys

import lit.formats

config.name = "kiln"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".test"]
# The suite root is this folder, so `lit test/` and `lit test/tools/split.mlir` both resolve; the tests are the
# files under test/ (pytest's test/python and lit's Inputs folders excluded). `lit .` skips the folders below.
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.test_source_root
config.excludes = ["python", "Inputs", ".venv", "docs", "examples", "bench", "build", "dist", "node_modules"]

_paths = [os.path.dirname(sys.executable)]
_paths += [d for d in ("/usr/lib/llvm-22/bin",) if os.path.isdir(d)]
config.environment["PATH"] = os.pathsep.join([*_paths, config.environment.get("PATH", os.environ["PATH"])])
for _name in ("HOME", "TMPDIR", "XDG_RUNTIME_DIR", "KILN_TRACEBACK", "KILN_CACHE_DIR", "KILN_NO_CACHE"):
    if _name in os.environ:
        config.environment[_name] = os.environ[_name]


def _which(*names):
    return next((p for n in names if (p := shutil.which(n, path=config.environment["PATH"]))), None)


_mlir_opt = _which("mlir-opt", "mlir-opt-22")
if _mlir_opt:
    config.available_features.add("mlir-opt")
    config.substitutions.append(("%mlir-opt", _mlir_opt))
if _which("ptxas"):
    config.available_features.add("ptxas")
if _which("cc", "gcc", "clang"):
    config.available_features.add("cc")
if os.path.exists("/dev/nvidiactl"):
    config.available_features.add("gpu")

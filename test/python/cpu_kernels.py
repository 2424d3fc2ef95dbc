"""Hand-written CPU kernels (LLVM IR and C) that follow the CPU calling convention of docs/internals.md:
``(x, y, out, <symbols as i64>, core_start, core_end)``, elementwise over f32, each with its uniform entry
``name__entry(void **args, i64 lo, i64 hi)`` as the emitters write it. Runtime tests build
``ProgramSpec``s from them to test loading, launching and threading without the compiler."""

from __future__ import annotations

LLVM_OPS = {"mul": "fmul", "add": "fadd"}
C_OPS = {"mul": "*", "add": "+"}


def llvm_binary(name: str, op: str, symbols: tuple[str, ...]) -> str:
    """``out[i] = x[i] <op> y[i]`` for i in [core_start, core_end), f32; ``symbols`` are unused i64 params."""
    params = "".join(f"i64 %{s}, " for s in symbols)
    return f"""
define void @{name}(ptr noalias %x, ptr noalias %y, ptr noalias %out, {params}i64 %lo, i64 %hi) {{
entry:
  %nonempty = icmp slt i64 %lo, %hi
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ %lo, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %r = {LLVM_OPS[op]} float %vx, %vy
  %po = getelementptr float, ptr %out, i64 %i
  store float %r, ptr %po
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %hi
  br i1 %more, label %loop, label %exit
exit:
  ret void
}}
"""


def c_binary(name: str, op: str, symbols: tuple[str, ...]) -> str:
    params = "".join(f"int64_t {s}, " for s in symbols)
    unused = "".join(f"(void){s}; " for s in symbols)
    return f"""
void {name}(const float *restrict x, const float *restrict y, float *restrict out, {params}int64_t lo, int64_t hi) {{
  {unused}for (int64_t i = lo; i < hi; i++) out[i] = x[i] {C_OPS[op]} y[i];
}}
"""


def entry(target: str, name: str, params: tuple[str, ...]) -> str:
    """The uniform entry ``name__entry(void **args, i64 lo, i64 hi)`` of kernel ``name``, whose parameters before
    ``core_start, core_end`` are ``params`` ("ptr" or "i64"), as the emitters write it."""
    if target == "cpu-llvm":
        loads = "".join(f"  %a{i}p = getelementptr ptr, ptr %args, i64 {i}\n  %a{i} = load {t}, ptr %a{i}p\n"
                        for i, t in enumerate(params))
        args = "".join(f"{t} %a{i}, " for i, t in enumerate(params))
        call = f"  call void @{name}({args}i64 %lo, i64 %hi)\n"
        return f"define void @{name}__entry(ptr %args, i64 %lo, i64 %hi) {{\n{loads}{call}  ret void\n}}\n"
    args = "".join(f"args[{i}], " if t == "ptr" else f"(int64_t)(intptr_t)args[{i}], " for i, t in enumerate(params))
    return f"void {name}__entry(void **args, int64_t lo, int64_t hi) {{ {name}({args}lo, hi); }}\n"


def kernels_source(target: str, kernels: dict[str, str], symbols: tuple[str, ...] = ("n",)) -> str:
    params = ("ptr",) * 3 + ("i64",) * len(symbols)
    if target == "cpu-llvm":
        return "".join(llvm_binary(name, op, symbols) + entry(target, name, params) for name, op in kernels.items())
    body = "".join(c_binary(name, op, symbols) + entry(target, name, params) for name, op in kernels.items())
    return "#include <stdint.h>\n" + body

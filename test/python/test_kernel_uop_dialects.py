"""The kernel and uop dialects: syntax round trips (custom and generic), verifier messages, builders, and the
shared ALU table. The lit files in test/dialects/{kernel,uop} check the same through kiln-opt."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import TypeVar

import pytest
from xdsl.dialects.builtin import Float16Type, Float32Type, IndexType, ModuleOp, VectorType, f32, i1, i32
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from kiln.dialects import alu, kernel, uop
from kiln.dialects.types import BufferType
from kiln.compiler.registry import make_context

REPO = Path(__file__).resolve().parents[2]
CTX = make_context()
OpT = TypeVar("OpT", bound=Operation)


def parse(text: str) -> ModuleOp:
    return Parser(CTX, text).parse_module()


def generic(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def roundtrip(text: str) -> str:
    """Parse and verify ``text``; its printed form must parse back to the same text, custom and generic."""
    module = parse(text)
    module.verify()
    printed = str(module)
    again = parse(printed)
    again.verify()
    assert str(again) == printed
    from_generic = parse(generic(module))
    from_generic.verify()
    assert str(from_generic) == printed
    return printed


def add(block: Block, op: OpT) -> OpT:
    block.add_op(op)
    return op


def body_lines(printed: str) -> list[str]:
    return [line.strip() for line in printed.splitlines()[1:-1]]


def verify_error(text: str, message: str) -> None:
    module = parse(text)
    with pytest.raises(VerifyException) as e:
        module.verify()
    assert message in str(e.value)


def parse_error(text: str, message: str) -> None:
    with pytest.raises(ParseError) as e:
        parse(text)
    assert message in str(e.value)


def in_kernel(body: str, args: str = "%x: !kernel.buffer<64xf32>, %n: index") -> str:
    return f"kernel.kernel @k({args}) {{\n{body}\n}}"


def in_uop(body: str) -> str:
    return f"uop.kernel @k {{\n{body}\n}}"


# ---------------------------------------------------------------------------------------------
# kernel: a whole kernel and its schedule

MATMUL = """\
kernel.kernel @dense_k0(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x32xf32>, %out: !kernel.buffer<Nx32xf32>, %N: index) attributes {graph.dims = #graph.dims<N = [1, 4096]>, inputs = ["arg", "arg", "output"], opts = [], symbols = ["N"]} {
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %zero = kernel.const 0.000000e+00 : f32
  %i = kernel.range %N global
  %j = kernel.range %c32 global
  %k = kernel.range %c64 reduce
  %i64 = kernel.mul %i, %c64 : index
  %ia = kernel.add %i64, %k : index
  %k32 = kernel.mul %k, %c32 : index
  %ib = kernel.add %k32, %j : index
  %valid = kernel.cmplt %j, %c32 : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib], %valid : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  %r = kernel.max %s, %zero : f32
  %i32 = kernel.mul %i, %c32 : index
  %io = kernel.add %i32, %j : index
  kernel.store %out[%io], %r
  kernel.store %out[%io], %r, %valid
}
func.func @dense(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x32xf32>) -> !kernel.buffer<Nx32xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>, kernel.peak_bytes = 524288 : i64} {
  %N = kernel.symbol "N" : index
  %t0 = kernel.alloc {slot = 0 : i64} : !kernel.buffer<Nx32xf32>
  %t1 = kernel.alloc : !kernel.buffer<4xf32>
  kernel.launch @dense_k0(%x, %w, %t0, %N) : !kernel.buffer<Nx64xf32>, !kernel.buffer<64x32xf32>, !kernel.buffer<Nx32xf32>, index
  func.return %t0 : !kernel.buffer<Nx32xf32>
}"""


def test_cell_types_compare_by_what_they_hold() -> None:
    """An i32 accumulator's type is not an f32 one's: builders and caches key on types (argmax keeps both)."""
    from kiln.dialects import cstyle

    assert uop.AccType(i32) != uop.AccType(f32) and hash(uop.AccType(i32)) != hash(uop.AccType(f32))
    assert uop.AccType(f32) == uop.AccType(f32) and hash(uop.AccType(f32)) == hash(uop.AccType(f32))
    assert cstyle.VarType(i32) != cstyle.VarType(f32)


def test_kernel_matmul_roundtrip() -> None:
    assert body_lines(roundtrip(MATMUL)) == [line.strip() for line in MATMUL.splitlines()]


def test_kernel_empty_kernel_roundtrip() -> None:
    assert "kernel.kernel @k(%x: !kernel.buffer<4xf32>) {" in roundtrip("kernel.kernel @k(%x: !kernel.buffer<4xf32>) {}")


@pytest.mark.parametrize("kind", [k.value for k in kernel.AxisKind])
def test_range_kinds_print_bare(kind: str) -> None:
    assert f"kernel.range %n {kind}" in roundtrip(in_kernel(f"%i = kernel.range %n {kind}"))


@pytest.mark.parametrize("kind", ["add", "mul", "max", "min"])
def test_reduce_kinds(kind: str) -> None:
    text = in_kernel(f"%k = kernel.range %n unroll\n%l = kernel.range %n group_reduce\n%v = kernel.load %x[%k] : f32\n"
                     f"%s = kernel.reduce {kind} %v over %k, %l : f32")
    assert f"kernel.reduce {kind} %v over %k, %l : f32" in roundtrip(text)


# ---------------------------------------------------------------------------------------------
# kernel: verifier messages

KERNEL_INVALID = [
    (in_kernel("%f = kernel.const 1.0 : f32\n%i = \"kernel.range\"(%f) <{kind = #kernel<axis global>}> : (f32) -> index"),
     "kernel.range size must be index, got f32"),
    (in_kernel("%i = kernel.range %n global\n%v = kernel.load %x[%i] : f32\n%s = kernel.reduce add %v over %i : f32"),
     "kernel.reduce over %i: it is a global range; reduce over reduce, unroll or group_reduce ranges only"),
    (in_kernel("%v = kernel.load %x[%n] : f32\n%s = kernel.reduce add %v over %n : f32"),
     "kernel.reduce over %n: it is not a kernel.range result"),
    (in_kernel("%k = kernel.range %n reduce\n%v = kernel.load %x[%k] : f32\n%s = kernel.reduce max %v over %k, %k : f32"),
     "kernel.reduce lists range %k twice"),
    (in_kernel("%k = kernel.range %n reduce\n%v = kernel.cmplt %k, %n : index\n%s = kernel.reduce add %v over %k : i1"),
     "kernel.reduce add does not accept i1"),
    (in_kernel("%v = kernel.load %x[%n] : f32\n%s = \"kernel.reduce\"(%v) <{kind = #kernel<reduce_kind add>}> : (f32) -> f32"),
     "kernel.reduce needs at least one range"),
    (in_kernel("%v = kernel.load %x[%n] : f16"), "kernel.load result type f16 must be the buffer's element type f32"),
    (in_kernel("%c = kernel.const 1 : i32\n%v = \"kernel.load\"(%x, %c) : (!kernel.buffer<64xf32>, i32) -> f32"),
     "kernel.load index must be index, got i32"),
    (in_kernel("%g = kernel.const 1 : i32\n%v = \"kernel.load\"(%x, %n, %g) : (!kernel.buffer<64xf32>, index, i32) -> f32"),
     "kernel.load gate must be i1, got i32"),
    (in_kernel("%b = \"test.op\"() : () -> !kernel.buffer<64xf32>\n%v = kernel.load %b[%n] : f32"),
     "kernel.load buffer %b must be an argument of the enclosing kernel"),
    (in_kernel("%v = kernel.const 1 : i32\n\"kernel.store\"(%x, %n, %v) : (!kernel.buffer<64xf32>, index, i32) -> ()"),
     "kernel.store value type i32 must be the buffer's element type f32"),
    (in_kernel("%v = kernel.const 1.0 : f32\n%g = kernel.const 1.0 : f32\n"
               "\"kernel.store\"(%x, %n, %v, %g) : (!kernel.buffer<64xf32>, index, f32, f32) -> ()"),
     "kernel.store gate must be i1, got f32"),
    (in_kernel("%t = \"test.op\"() : () -> !graph.tensor<4xf32>"),
     "contains test.op producing !graph.tensor<4xf32>: tensors do not exist inside kernels"),
    (in_kernel("", args="%x: !kernel.buffer<64xf32>, %y: f32"), "kernel.kernel @k argument 1 must be a !kernel.buffer or index, got f32"),
    (in_kernel("", args="%x: !kernel.buffer<Mx4xf32>"), "symbolic dim 'M' is not declared"),
    ('kernel.kernel @k(%x: !kernel.buffer<4xf32>) attributes {inputs = ["arg", "output"]} {}',
     'kernel.kernel @k attribute "inputs" has 2 entries for 1 buffer arguments'),
    ('kernel.kernel @k(%x: !kernel.buffer<4xf32>) attributes {opts = [1]} {}',
     'kernel.kernel attribute "opts" must be an array of strings'),
    ('kernel.kernel @k(%x: !kernel.buffer<4xf32>, %N: index) attributes {symbols = []} {}',
     'kernel.kernel @k attribute "symbols" has 0 names for 1 index arguments'),
    ('kernel.kernel @k(%N: index) attributes {symbols = ["N"]} {}', "kernel.kernel @k: symbol 'N' is not declared in graph.dims"),
    ('func.func @f() attributes {graph.dims = #graph.dims<N = [1, 8]>} {\n%m = kernel.symbol "M" : index\nfunc.return\n}',
     "kernel.symbol \"M\": symbolic dim 'M' is not declared"),
    ("func.func @f() {\n%t = kernel.alloc {slot = -1 : i64} : !kernel.buffer<4xf32>\nfunc.return\n}",
     "kernel.alloc slot must be >= 0, got -1"),
    ("func.func @f() {\n%t = kernel.alloc : !kernel.buffer<Nx4xf32>\nfunc.return\n}", "symbolic dim 'N' is not declared"),
    ("func.func @f(%a: !kernel.buffer<4xf32>) {\nkernel.launch @nope(%a) : !kernel.buffer<4xf32>\nfunc.return\n}",
     "kernel.launch @nope: there is no kernel.kernel @nope in the module"),
    ("func.func @g() {\nfunc.return\n}\nfunc.func @f() {\nkernel.launch @g() : \nfunc.return\n}",
     "kernel.launch @g: @g is a func.func, not a kernel.kernel"),
    ("kernel.kernel @k(%x: !kernel.buffer<4xf32>) {}\n"
     "func.func @f(%a: !kernel.buffer<4xf32>, %n: index) {\nkernel.launch @k(%a, %n) : !kernel.buffer<4xf32>, index\nfunc.return\n}",
     "kernel.launch @k passes 2 arguments, the kernel takes 1"),
    ("kernel.kernel @k(%x: !kernel.buffer<4xf32>) {}\n"
     "func.func @f(%a: !kernel.buffer<8xf32>) {\nkernel.launch @k(%a) : !kernel.buffer<8xf32>\nfunc.return\n}",
     "kernel.launch @k argument 0 has type !kernel.buffer<8xf32>, the kernel expects !kernel.buffer<4xf32>"),
    ("func.func @f(%a: f32) {\nkernel.launch @k(%a) : f32\nfunc.return\n}",
     "kernel.launch @k argument 0 must be a !kernel.buffer or index, got f32"),
    ("func.func @f(%n: index) {\n%i = kernel.range %n global\nfunc.return\n}", "expects parent op 'kernel.kernel'"),
]


@pytest.mark.parametrize(("text", "message"), KERNEL_INVALID)
def test_kernel_verifier(text: str, message: str) -> None:
    verify_error(text, message)


KERNEL_PARSE_ERRORS = [
    (in_kernel("%i = kernel.range %n sideways"), "sideways"),
    (in_kernel("%f = kernel.const 1.0 : f32\n%v = kernel.load %x[%f] : f32"), "operand is used with type index"),
    (in_kernel("%v = kernel.load %x[%n], %n : f32"), "operand is used with type i1"),
    (in_kernel("%v = kernel.load %y[%n] : f32"), "buffer %y must be defined before this use"),
    (in_kernel("%v = kernel.load %n[%n] : f32"), "expected a !kernel.buffer value, got index"),
    (in_kernel("%v = kernel.const 1 : i32\nkernel.store %x[%n], %v"), "operand is used with type f32"),
]


@pytest.mark.parametrize(("text", "message"), KERNEL_PARSE_ERRORS)
def test_kernel_parse_errors(text: str, message: str) -> None:
    parse_error(text, message)


def test_launch_without_module_is_not_looked_up() -> None:
    block = Block(arg_types=[BufferType([4], f32)])
    launch = kernel.LaunchOp("elsewhere", [block.args[0]])
    block.add_op(launch)
    launch.verify()


def test_build_kernel_with_python_api() -> None:
    """The constructors the lowering passes use produce IR that verifies and prints like the text form."""
    k = kernel.KernelOp("k", [BufferType([64], f32), BufferType([1], f32)])
    x, out = k.args
    block = k.body.block
    n = add(block, kernel.ConstOp.from_number(64, IndexType()))
    zero = add(block, kernel.ConstOp.from_number(0, IndexType()))
    r = add(block, kernel.RangeOp(n.result, kernel.AxisKind.REDUCE))
    v = add(block, kernel.LoadOp(x, r.result))
    sq = add(block, kernel.ALU["mul"](v.result, v.result))
    ok = add(block, kernel.ALU["cmplt"](r.result, n.result))
    sel = add(block, kernel.ALU["where"](ok.result, sq.result, v.result))
    s = add(block, kernel.ReduceOp(kernel.ReduceKind.ADD, sel.result, [r.result]))
    add(block, kernel.StoreOp(out, zero.result, s.result))
    module = ModuleOp([k])
    module.verify()
    assert ok.result.type == i1 and sel.result.type == f32
    assert roundtrip(str(module)) == str(module)
    assert "%9 = kernel.reduce add %8 over %4 : f32" in str(module)


# ---------------------------------------------------------------------------------------------
# the ALU table, casts and constants (both dialects)


def _operand_type(spec: alu.AluSpec) -> str:
    for cls, name in ((alu.FLOAT, "f32"), (alu.INT, "i32"), (alu.BOOL, "i1")):
        if cls in spec.dtypes:
            return name
    return "index"


def _alu_text(prefix: str, spec: alu.AluSpec, t: str) -> tuple[str, str]:
    """Definitions of operands of type t (and i1 conditions) and one ``<prefix>.<kind>`` line."""
    cond_t = "vector<4xi1>" if t.startswith("vector") else "i1"
    defs = f'%a, %b, %c = "test.op"() : () -> ({t}, {t}, {t})\n%g = "test.op"() : () -> {cond_t}\n'
    names = ["%g", "%a", "%b"] if spec.takes_condition else ["%a", "%b", "%c"][: spec.arity]
    return defs, f"%r = {prefix}.{spec.name} {', '.join(names)} : {t}"


@pytest.mark.parametrize("spec", list(alu.ALU_OPS.values()), ids=list(alu.ALU_OPS))
def test_every_alu_op_roundtrips_in_both_dialects(spec: alu.AluSpec) -> None:
    t = _operand_type(spec)
    defs, line = _alu_text("kernel", spec, t)
    assert line in roundtrip(in_kernel(defs + line))
    defs, line = _alu_text("uop", spec, f"vector<4x{t}>")
    printed = roundtrip(in_uop(defs + line))
    assert line in printed
    op = parse(in_uop(defs + line)).body.block.first_op.body.block.last_op  # type: ignore[union-attr]
    assert alu.alu_kind(op) == spec.name
    expected = "vector<4xi1>" if spec.returns_bool else f"vector<4x{t}>"
    assert str(op.results[0].type) == expected


def test_alu_classes_come_from_one_table() -> None:
    assert set(kernel.ALU) == set(uop.ALU) == set(alu.ALU_OPS)
    for name in alu.ALU_OPS:
        assert kernel.ALU[name].name == f"kernel.{name}" and uop.ALU[name].name == f"uop.{name}"
        assert issubclass(kernel.ALU[name], alu.AluOp) and issubclass(uop.ALU[name], alu.AluOp)
    assert kernel.ALU["add"].__name__ == "AddOp" and kernel.ALU["add"].__module__ == "kiln.dialects.kernel"
    assert alu.alu_kind(kernel.SymbolOp("N")) is None


ALU_INVALID = [
    ('%a = "test.op"() : () -> i32\n%r = kernel.sqrt %a : i32', "kernel.sqrt does not accept i32 (it accepts float types)"),
    ('%a = "test.op"() : () -> f32\n%r = kernel.shl %a, %a : f32', "kernel.shl does not accept f32"),
    ('%a = "test.op"() : () -> i1\n%r = kernel.add %a, %a : i1', "kernel.add does not accept i1"),
    ('%a, %b = "test.op"() : () -> (f32, i32)\n%r = "kernel.add"(%a, %b) : (f32, i32) -> f32',
     "kernel.add operands must have the same type, got f32 and i32"),
    ('%a = "test.op"() : () -> f32\n%r = "kernel.cmplt"(%a, %a) : (f32, f32) -> f32', "kernel.cmplt result type must be i1, got f32"),
    ('%a = "test.op"() : () -> f32\n%r = "kernel.where"(%a, %a, %a) : (f32, f32, f32) -> f32',
     "kernel.where condition must be i1 to match f32, got f32"),
    ('%a = "test.op"() : () -> vector<4xf32>\n%r = kernel.add %a, %a : vector<4xf32>',
     "kernel.add operand must be a scalar, got vector<4xf32> (vectors exist only in uop)"),
    ('%a = "test.op"() : () -> i128\n%r = kernel.add %a, %a : i128', "kernel.add operand must be a scalar dtype or index, got i128"),
    ('%a = "test.op"() : () -> f32\n%r = kernel.bitcast %a : f32 -> f16', "kernel.bitcast needs types of the same bit width"),
    ('%a = "test.op"() : () -> index\n%r = kernel.bitcast %a : index -> i64', "kernel.bitcast cannot convert index"),
    ('%a = "test.op"() : () -> f32\n%r = kernel.cast %a : f32 -> !kernel.buffer<4xf32>', "kernel.cast result must be a scalar dtype or index"),
    ('%r = "kernel.const"() <{value = 1.0 : f32}> : () -> f16', "kernel.const result type f16 does not match its value's type f32"),
    ('%r = "kernel.const"() <{value = "x"}> : () -> f16', "kernel.const value must be an integer, float or boolean literal"),
    ('%r = kernel.const dense<1.0> : vector<4xf32>', "kernel.const takes a scalar literal; dense vector constants exist only in uop"),
]


@pytest.mark.parametrize(("body", "message"), ALU_INVALID)
def test_alu_cast_const_verifier(body: str, message: str) -> None:
    verify_error(in_kernel(body), message)


def test_alu_parse_errors() -> None:
    parse_error(in_kernel('%a = "test.op"() : () -> f32\n%r = kernel.add %a : f32'), "kernel.add takes 2 operands, got 1")
    parse_error(in_kernel('%a = "test.op"() : () -> f32\n%r = kernel.add %a, %a : i32'), "operand is used with type i32")
    parse_error(in_kernel("%r = kernel.const true : f32"), "a boolean constant has type i1")
    parse_error(in_kernel("%r = kernel.const : f32"), "expected a number, true/false or a dense vector constant")


CONSTANTS = [
    "64 : index", "-3 : i8", "200 : ui8", "true : i1", "false : i1", "1.000000e+00 : f32", "-2.500000e-01 : f64",
    "0x7f800000 : f32", "0xff800000 : f32", "0x7fc00000 : f32", "0x7c00 : f16", "0xfc00 : f16", "0x7f80 : bf16",
    "0x7ff0000000000000 : f64", "1.000000e+10 : f32",
]  # fmt: skip


@pytest.mark.parametrize("value", CONSTANTS)
def test_constants_print_and_parse_back(value: str) -> None:
    assert f"%r = kernel.const {value}" in roundtrip(in_kernel(f"%r = kernel.const {value}"))


def test_special_float_constants_keep_their_values() -> None:
    module = parse(in_kernel("%a = kernel.const 0x7F800000 : f32\n%b = kernel.const 0xFF800000 : f32\n"
                             "%c = kernel.const 0x7FC00000 : f32"))
    values = [op.value.value.data for op in module.body.block.first_op.body.block.ops]  # type: ignore[union-attr]
    assert values[0] == float("inf") and values[1] == float("-inf") and values[2] != values[2]
    built = kernel.ConstOp.from_number(float("-inf"), Float16Type())
    assert str(built) == "%0 = kernel.const 0xfc00 : f16"


def test_uop_vector_constants_and_casts() -> None:
    text = in_uop("%z = uop.const dense<0.000000e+00> : vector<4xf32>\n"
                  "%l = uop.const dense<[0, 1, 2, 3]> : vector<4xi32>\n"
                  "%h = uop.cast %z : vector<4xf32> -> vector<4xf16>\n"
                  "%b = uop.bitcast %h : vector<4xf16> -> vector<4xi16>")
    printed = roundtrip(text)
    assert "uop.const dense<[0, 1, 2, 3]> : vector<4xi32>" in printed
    splat = uop.ConstOp.from_number(1.5, VectorType(f32, [8]))
    assert str(splat) == "%0 = uop.const dense<1.500000e+00> : vector<8xf32>"
    verify_error(in_uop("%z = uop.const dense<0.0> : vector<4xf32>\n%h = uop.cast %z : vector<4xf32> -> vector<2xf32>"),
                 "uop.cast must keep the number of lanes")


# ---------------------------------------------------------------------------------------------
# uop: a whole kernel

UOP_KERNEL = """\
uop.kernel @dense_k0 attributes {core_extent = "N", core_work = 130 : i64, symbols = ["N"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %w = uop.param 1 : !uop.ptr<f32>
  %out = uop.param 2 : !uop.ptr<f32>
  %N = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c4 = uop.const 4 : index
  %c32 = uop.const 32 : index
  %c64 = uop.const 64 : index
  %zero = uop.const 0.000000e+00 : f32
  %zv = uop.const dense<0.000000e+00> : vector<4xf32>
  %i = uop.range %lo, %hi : index
  %j = uop.range %c0, %c32 : index
  %acc = uop.define_acc %zero : f32
  %vacc = uop.define_acc %zv : vector<4xf32>
  %k = uop.range %c0, %c64 : index
  %ik = uop.mul %i, %c64 : index
  %ia = uop.add %ik, %k : index
  %kj = uop.mul %k, %c32 : index
  %ib = uop.add %kj, %j : index
  %inb = uop.cmplt %j, %c32 : index
  %a = uop.load %x[%ia] : f32
  %b = uop.load %w[%ib], %inb : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.fma %a, %b, %cur : f32
  uop.acc_set %acc, %nxt
  %bv = uop.load %w[%ib] : vector<4xf32>
  %av = uop.vectorize %a, %a, %a, %a : vector<4xf32>
  %vcur = uop.acc_get %vacc : vector<4xf32>
  %vnxt = uop.fma %av, %bv, %vcur : vector<4xf32>
  uop.acc_set %vacc, %vnxt
  uop.end %k
  %r = uop.acc_get %acc : f32
  %rv = uop.acc_get %vacc : vector<4xf32>
  %r0 = uop.extract %rv[0] : vector<4xf32>
  %sum = uop.add %r, %r0 : f32
  %i32 = uop.mul %i, %c32 : index
  %io = uop.add %i32, %j : index
  %pos = uop.cmplt %zero, %sum : f32
  uop.if %pos
  uop.store %out[%io], %sum
  uop.endif
  %neg = uop.not %pos : i1
  uop.store %out[%io], %zero, %neg
  %o4 = uop.mul %io, %c4 : index
  uop.store %out[%o4], %rv : vector<4xf32>
  uop.end %j
  uop.end %i
}"""

WMMA_KERNEL = """\
uop.kernel @mma attributes {global_size = [1 : i64, 1 : i64, 1 : i64], local_size = [32 : i64, 1 : i64, 1 : i64]} {
  %a = uop.param 0 : !uop.ptr<f16>
  %tid = uop.special local_id.x : index
  %g = uop.special group_id.y : index
  %lm = uop.define_local 256 : !uop.ptr<f16, local>
  %fa = uop.load %a[%tid] : vector<8xf16>
  uop.store %lm[%tid], %fa : vector<8xf16>
  uop.barrier
  %fb = uop.load %lm[%tid] : vector<4xf16>
  %z = uop.const dense<0.000000e+00> : vector<4xf32>
  %d = uop.wmma %fa, %fb, %z {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
}"""


@pytest.mark.parametrize("text", [UOP_KERNEL, WMMA_KERNEL], ids=["dense", "wmma"])
def test_uop_kernel_roundtrip(text: str) -> None:
    assert body_lines(roundtrip(text)) == [line.strip() for line in text.splitlines()]


def test_uop_empty_kernel_roundtrip() -> None:
    assert roundtrip("uop.kernel @k {}") == "builtin.module {\n  uop.kernel @k {\n  }\n}"


UOP_STRUCTURE_ERRORS = [
    ("%c = uop.const 0 : index\n%i = uop.range %c, %c : index\n%j = uop.range %c, %c : index\nuop.end %i\nuop.end %j",
     "uop.end %i must close the innermost open bracket, which is loop %j"),
    ("%c = uop.const 0 : index\n%i = uop.range %c, %c : index\nuop.end %i\nuop.end %i", "uop.end %i: loop %i is not open"),
    ("%c = uop.const 0 : index\n%i = uop.range %c, %c : index", "loop %i is never closed (add uop.end %i)"),
    ("%t = uop.const true : i1\nuop.if %t", "uop.if %t is never closed (add uop.endif)"),
    ("uop.endif", "uop.endif with no open uop.if"),
    ("%t = uop.const true : i1\n%c = uop.const 0 : index\nuop.if %t\n%i = uop.range %c, %c : index\nuop.endif",
     "uop.endif inside loop %i: close it first"),
    ("%t = uop.const true : i1\n%c = uop.const 0 : index\n%i = uop.range %c, %c : index\nuop.if %t\nuop.end %i",
     "uop.end %i must close the innermost open bracket, which is uop.if %t"),
    ("%c = uop.const 0 : index\n%i = uop.range %c, %c : index\n%x = uop.add %i, %c : index\nuop.end %i\n"
     "%y = uop.mul %x, %c : index", "value %x defined inside loop %i used after uop.end (by uop.mul)"),
    ("%c = uop.const 0 : index\n%i = uop.range %c, %c : index\nuop.end %i\n%y = uop.mul %i, %c : index",
     "value %i defined inside loop %i used after uop.end"),
    ("%t = uop.const true : i1\nuop.if %t\n%x = uop.const 1 : index\nuop.endif\n%y = uop.add %x, %x : index",
     "value %x defined inside uop.if %t used after uop.endif"),
    ("%c = uop.const 0 : index\n%i = uop.range %c, %c : index\n%j = uop.range %c, %c : index\n%x = uop.add %j, %c : index\n"
     "uop.end %j\nuop.end %i\n%y = uop.mul %x, %c : index", "value %x defined inside loop %j used after uop.end"),
    ("%p = uop.param 0 : !uop.ptr<f32>\n%q = uop.param 0 : !uop.ptr<f32>", "uop.param index 0 is used twice (%p and %q)"),
    ("%c = uop.const 0 : index\n\"uop.end\"(%c) : (index) -> ()", "uop.end %c must name a uop.range result"),
]


@pytest.mark.parametrize(("body", "message"), UOP_STRUCTURE_ERRORS)
def test_uop_structure_verifier(body: str, message: str) -> None:
    verify_error(in_uop(body), message)


def test_uop_use_before_definition() -> None:
    kern = uop.UopKernelOp("k")
    c = uop.ConstOp.from_number(1, IndexType())
    add = uop.ALU["add"](c.result, c.result)
    kern.body.block.add_ops([add, c])
    with pytest.raises(VerifyException, match="is used by uop.add before it is defined"):
        kern.verify()


UOP_OP_ERRORS = [
    ("%s = uop.special thread_id.x : index", "unknown uop.special 'thread_id.x'"),
    ("%p = uop.param 0 : f32", "uop.param type must be a global !uop.ptr, index or an integer type, got f32"),
    ("%p = uop.param 0 : !uop.ptr<f32, local>", "uop.param type must be a global !uop.ptr"),
    ("%p = uop.param 0 : !uop.ptr<f32>\n%c = uop.const 0 : index\n%v = uop.load %p[%c] : f16",
     "uop.load value type f16 must be f32 or a vector of it (the pointer is !uop.ptr<f32>)"),
    ("%p = uop.param 0 : !uop.ptr<f32>\n%c = uop.const 0 : index\n%v = uop.const dense<1> : vector<4xi32>\n"
     "uop.store %p[%c], %v : vector<4xi32>", "uop.store value type vector<4xi32> must be f32 or a vector of it"),
    ("%p = uop.param 0 : !uop.ptr<f32>\n%c = uop.const 0 : i32\n%v = \"uop.load\"(%p, %c) : (!uop.ptr<f32>, i32) -> f32",
     "uop.load index must be index, got i32"),
    ("%p = uop.param 0 : !uop.ptr<f32>\n%c = uop.const 0 : index\n%g = uop.const 0 : i32\n"
     "%v = \"uop.load\"(%p, %c, %g) : (!uop.ptr<f32>, index, i32) -> f32", "uop.load gate must be i1, got i32"),
    ("%l = uop.define_local 16 : !uop.ptr<f32>", "uop.define_local result must be a local pointer"),
    ("%l = uop.define_local 0 : !uop.ptr<f32, local>", "uop.define_local size must be positive, got 0"),
    ("%z = uop.const 0.0 : f32\n%a = uop.define_acc %z : f32\n%v = uop.const 1 : i32\n"
     "\"uop.acc_set\"(%a, %v) : (!uop.acc<f32>, i32) -> ()", "uop.acc_set value type i32 must be f32 (the acc is !uop.acc<f32>)"),
    ("%z = uop.const 0.0 : f32\n%a = uop.define_acc %z : f32\n%v = \"uop.acc_get\"(%a) : (!uop.acc<f32>) -> i32",
     "uop.acc_get result type i32 must be f32"),
    ("%z = uop.const 0.0 : f32\n%a = \"uop.define_acc\"(%z) : (f32) -> !uop.acc<i32>",
     "uop.define_acc of f32 must produce !uop.acc<f32>, got !uop.acc<i32>"),
    ("%z = uop.const 0.0 : f32\n%v = \"uop.vectorize\"(%z, %z) : (f32, f32) -> vector<4xf32>",
     "uop.vectorize to vector<4xf32> needs 4 operands, got 2"),
    ("%z = uop.const 0.0 : f32\n%h = uop.const 0.0 : f16\n%v = \"uop.vectorize\"(%z, %h) : (f32, f16) -> vector<2xf32>",
     "uop.vectorize to vector<2xf32> takes f32 operands, got f16"),
    ("%z = uop.const dense<0.0> : vector<4xf32>\n%e = uop.extract %z[4] : vector<4xf32>", "uop.extract lane 4 is out of range"),
    ("%a = uop.const dense<0.0> : vector<4xf16>\n%c = uop.const dense<0.0> : vector<4xf32>\n"
     "%d = uop.wmma %a, %a, %c {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<4xf16>, vector<4xf16> -> vector<4xf32>",
     "uop.wmma operand a holds 4 elements per thread; a 16x16 matrix over 32 threads needs 8"),
    ("%a = uop.const dense<0.0> : vector<8xf16>\n%b = uop.const dense<0.0> : vector<4xbf16>\n%c = uop.const dense<0.0> : vector<4xf32>\n"
     "%d = uop.wmma %a, %b, %c {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xbf16> -> vector<4xf32>",
     "uop.wmma a and b must have the same element type, got f16 and bf16"),
    ("%a = uop.const dense<0.0> : vector<8xf16>\n%b = uop.const dense<0.0> : vector<4xf16>\n%c = uop.const dense<0> : vector<4xi32>\n"
     "%d = uop.wmma %a, %b, %c {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xi32>",
     "uop.wmma multiplies floats into floats or integers into integers"),
    ('%v = "test.op"() : () -> vector<4xf32>\n%m = "test.op"() : () -> i1\n%r = "uop.where"(%m, %v, %v) : (i1, vector<4xf32>, vector<4xf32>) -> vector<4xf32>',
     "uop.where condition must be vector<4xi1> to match vector<4xf32>, got i1"),
    ('%v = "test.op"() : () -> vector<2x2xf32>\n%r = uop.add %v, %v : vector<2x2xf32>',
     "uop.add operand must be a 1-D fixed-size vector<NxT>, got vector<2x2xf32>"),
]


@pytest.mark.parametrize(("body", "message"), UOP_OP_ERRORS)
def test_uop_op_verifier(body: str, message: str) -> None:
    verify_error(in_uop(body), message)


def test_uop_parse_errors() -> None:
    parse_error(in_uop("%p = uop.param 0 : !uop.ptr<f32, shared>"), "expected address space 'global' or 'local'")
    parse_error(in_uop("%c = uop.const 0 : index\n%v = uop.load %c[%c] : f32"), "expected a !uop.ptr value, got index")
    parse_error(in_uop("%c = uop.const 0 : index\nuop.acc_set %c, %c"), "expected a !uop.acc value, got index")
    parse_error(in_uop("%c = uop.const 0 : index\n%v = uop.vectorize %c, %c : index"), "uop.vectorize produces a vector type")
    parse_error(in_uop("%c = uop.const 0 : index\n%v = uop.extract %c[0] : index"), "uop.extract reads a vector type")
    with pytest.raises(VerifyException, match="!uop.ptr element type must be a dtype"):
        parse(in_uop("%p = uop.param 0 : !uop.ptr<!uop.ptr<f32>>"))
    verify_error("uop.kernel @k {\n^bb0(%a: index):\n}", "uop.kernel @k takes no block arguments")


def test_build_uop_kernel_with_python_api() -> None:
    kern = uop.UopKernelOp("k")
    ops = kern.body.block
    p = add(ops, uop.ParamOp(0, uop.PtrType(f32)))
    lo = add(ops, uop.SpecialOp("core_start"))
    hi = add(ops, uop.SpecialOp("core_end"))
    zero = add(ops, uop.ConstOp.from_number(0.0, f32))
    acc = add(ops, uop.DefineAccOp(zero.result))
    i = add(ops, uop.RangeOp(lo.result, hi.result))
    v = add(ops, uop.LoadOp(p.result, i.result, result_type=VectorType(f32, [4])))
    e = add(ops, uop.ExtractOp(v.result, 3))
    cur = add(ops, uop.AccGetOp(acc.result))
    add(ops, uop.AccSetOp(acc.result, add(ops, uop.ALU["max"](cur.result, e.result)).result))
    add(ops, uop.EndOp(i.result))
    total = add(ops, uop.AccGetOp(acc.result))
    ok = add(ops, uop.ALU["cmpne"](total.result, zero.result))
    ops.add_ops([uop.IfOp(ok.result), uop.StoreOp(p.result, lo.result, total.result), uop.EndIfOp(), uop.BarrierOp()])
    vec = add(ops, uop.VectorizeOp([total.result] * 2))
    local = add(ops, uop.DefineLocalOp(2, f32))
    add(ops, uop.StoreOp(local.result, lo.result, vec.result))
    a = add(ops, uop.ConstOp.from_number(0.0, VectorType(Float16Type(), [8])))
    b = add(ops, uop.ConstOp.from_number(0.0, VectorType(Float16Type(), [4])))
    c = add(ops, uop.ConstOp.from_number(0.0, VectorType(Float32Type(), [4])))
    add(ops, uop.WmmaOp(a.result, b.result, c.result, m=16, n=8, k=16))
    module = ModuleOp([kern])
    module.verify()
    assert roundtrip(str(module)) == str(module)
    assert acc.result.type == uop.AccType(f32) and ok.result.type == i1


def test_ptr_and_acc_types() -> None:
    assert str(uop.PtrType(f32)) == "!uop.ptr<f32>" and str(uop.PtrType(i32, local=True)) == "!uop.ptr<i32, local>"
    assert str(uop.AccType(VectorType(f32, [4]))) == "!uop.acc<vector<4xf32>>"
    with pytest.raises(VerifyException, match="!uop.acc value type must be"):
        uop.AccType(uop.PtrType(f32))
    module = parse("uop.kernel @k {\n%p = uop.param 0 : !uop.ptr<f32, global>\n}")
    assert "!uop.ptr<f32>" in str(module)


def test_dialect_docs_are_current() -> None:
    """docs/dialects/{kernel,uop}.md embed the op reference generated from the op classes."""
    subprocess.run(
        [sys.executable, str(REPO / "docs" / "gen_dialect_docs.py"), "--check", "kiln.dialects.kernel", "kiln.dialects.uop"],
        check=True,
        cwd=REPO,
    )

"""Pieces of ``convert-uop-to-llvm``: type mapping, an llvm-dialect op builder, ALU and cast lowerings."""

"""Pieces of ``convert-uop-to-ptx``: register classes of uop types, a ptx-dialect op builder, ALU and cast lowerings."""

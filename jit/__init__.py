"""kiln.jit"""

"""kiln.lowering"""

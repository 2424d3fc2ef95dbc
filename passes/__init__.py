"""kiln.passes"""

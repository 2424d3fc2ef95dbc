"""kiln.dialects"""

"""kiln.tools"""

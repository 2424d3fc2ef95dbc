"""The elementwise ops of kiln, each declared once (``table``), and what a declaration says (``spec``)."""

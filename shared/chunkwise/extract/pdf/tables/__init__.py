"""Tables of a PDF page, one module per strategy."""

"""Generated dev PDFs for #26's table classes (ReportLab; see generate.py)."""

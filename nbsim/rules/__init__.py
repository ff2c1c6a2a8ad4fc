"""The rules of a variant, its tiles and the scoring of one hand."""

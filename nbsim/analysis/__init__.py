"""Reports, comparisons, sweeps and tuning of run folders; statistics, plots, HTML."""

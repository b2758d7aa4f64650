"""Statistics, standard library only: intervals and tests for small suites, and classification metrics."""

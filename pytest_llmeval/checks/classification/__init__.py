"""Classification checks: labels against expected labels, with the metrics of a whole run, and sentiment."""

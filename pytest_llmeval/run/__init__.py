"""Running one check on the running test: the check runner, recording, escalation to a judge, prefetch."""

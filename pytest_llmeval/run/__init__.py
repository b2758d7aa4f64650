"""Running one check on the running test: the check runner, its failure message, recording, the verifier and detector
tiers, escalation to a judge, prefetch."""

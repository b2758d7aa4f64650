"""Checks of agents: tool calls, the artifacts an agent wrote, fact-checking and task completion."""

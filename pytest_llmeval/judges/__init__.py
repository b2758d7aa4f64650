"""LLM judges: the Judge protocol, an OpenAI-protocol implementation, and the verdict cache."""

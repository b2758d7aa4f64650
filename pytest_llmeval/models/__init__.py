"""The scoring models: device and thread choice, the model cache loaded once per process, embedding stores on disk,
the shared embedding server, the blocks xdist workers share, and batching ahead of the tests (prefetch).
"""

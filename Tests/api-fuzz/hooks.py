"""Loaded by schemathesis (SCHEMATHESIS_HOOKS): tus PATCH bodies are raw bytes, sent as such."""
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")

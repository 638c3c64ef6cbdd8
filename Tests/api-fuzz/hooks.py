"""Loaded by schemathesis (SCHEMATHESIS_HOOKS): tus PATCH bodies are raw bytes, sent as such, and a
draft's merge patch is JSON under its own media type."""
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")
schemathesis.serializer.alias("application/merge-patch+json", "application/json")

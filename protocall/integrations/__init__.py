"""protocall inside inference servers: parser plug-ins for vLLM and SGLang.

`turn` holds what both adapters share (one session per request, fed by whichever of the
server's two parser objects the server calls); `vllm` and `sglang` wrap it in each server's
parser classes. Importing this package imports neither server; see docs/servers.md.
"""

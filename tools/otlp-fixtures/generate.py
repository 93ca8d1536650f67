"""Writes the OTLP fixtures of crates/otlp/tests/fixtures: what vLLM and SGLang send to an
OTLP/HTTP endpoint, made by the OpenTelemetry Python SDK itself (the SDK both engines use,
`pip install -r requirements.txt`), so the bytes are the SDK's own encoding.

The spans are built the way each engine builds them, from its source:
- vLLM (vllm-project/vllm d078226, vllm/v1/engine/output_processor.py `do_tracing`): one
  span `llm_request`, kind SERVER, started at the request's arrival, in the trace of the
  request's `traceparent`, with the `gen_ai.*` attributes of vllm/tracing SpanAttributes.
- SGLang (sgl-project/sglang b8e5a7c, python/sglang/srt/observability/trace.py and
  req_time_stats.py): a root span `f"{role} Req {rid[:8]}"` (`role` empty on a unified
  server, so the name starts with a space) in the trace of the request's `traceparent`
  carrying `rid`, `module` and, at the end, the `gen_ai.*` attributes of `make_span_attrs`;
  under it a thread span (`trace_set_thread_info`'s label and ranks) and the stage spans
  (`RequestStage`: `prefill_waiting`, `prefill_forward`, `decode_loop`), each linked to the
  stage before it as `trace_slice_start` links a first-level slice.

Each engine's file holds two requests with the trace ids and timings the Rust tests assert.
Run: python3 generate.py OUT_DIR
"""

import base64
import json
import sys

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

S = 1_000_000_000  # ns per second
T0 = 1_767_225_600 * S  # 2026-01-01T00:00:00Z


class Keep(SpanExporter):
    def __init__(self):
        self.spans = []

    def export(self, spans):
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


def provider(service):
    keep = Keep()
    p = TracerProvider(resource=Resource.create({"service.name": service}))
    p.add_span_processor(SimpleSpanProcessor(keep))
    return p, keep


def context(trace_id, parent_id):
    header = f"00-{trace_id}-{parent_id}-01"
    return TraceContextTextMapPropagator().extract({"traceparent": header})


def vllm(requests):
    p, keep = provider("vllm")
    tracer = p.get_tracer("vllm.llm_engine")
    for r in requests:
        attrs = {
            "gen_ai.latency.time_to_first_token": r["ttft"],
            "gen_ai.latency.e2e": r["e2e"],
            "gen_ai.latency.time_in_queue": r["queue"],
            "gen_ai.usage.prompt_tokens": r["prompt"],
            "gen_ai.usage.completion_tokens": r["completion"],
            "gen_ai.latency.time_in_model_prefill": r["prefill"],
            "gen_ai.latency.time_in_model_decode": r["decode"],
            "gen_ai.latency.time_in_model_inference": round(r["prefill"] + r["decode"], 9),
            "gen_ai.request.id": r["rid"],
            "gen_ai.response.finish_reasons": json.dumps(["length"]),
            "gen_ai.request.max_tokens": r["completion"],
            "gen_ai.request.n": 1,
        }
        span = tracer.start_span(
            "llm_request",
            context=context(r["trace"], r["parent"]),
            kind=SpanKind.SERVER,
            start_time=r["start"],
            attributes=attrs,
        )
        span.end(end_time=r["start"] + int(r["e2e"] * S))
    return keep.spans


def sglang(requests):
    p, keep = provider("sglang")
    tracer = p.get_tracer("sglang server")
    for r in requests:
        start = r["start"]
        role = ""  # unified: neither the prefill nor the decode side of a PD pair
        root = tracer.start_span(
            f"{role} Req {r['rid'][:8]}",
            context=context(r["trace"], r["parent"]),
            start_time=start,
            attributes={"rid": r["rid"], "module": "sglang::request"},
        )
        from opentelemetry import trace

        in_root = trace.set_span_in_context(root)
        thread = tracer.start_span(
            "Scheduler [TP 0] (host:0a1b2c3d | pid:4242)",
            context=in_root,
            start_time=start,
            attributes={"tp_rank": 0, "host_id": "0a1b2c3d", "pid": 4242,
                        "thread_label": "Scheduler"},
        )
        in_thread = trace.set_span_in_context(thread)
        t = start + int(r["dispatch"] * S)
        before = None
        for name, seconds in [("prefill_waiting", r["queue"]),
                              ("prefill_forward", r["forward"]),
                              ("decode_loop", r["decode"])]:
            links = [Link(before.get_span_context())] if before else []
            s = tracer.start_span(name, context=in_thread, start_time=t, links=links)
            t += int(seconds * S)
            s.end(end_time=t)
            before = s
        thread.end(end_time=t)
        root.set_attributes({
            "gen_ai.usage.completion_tokens": r["completion"],
            "gen_ai.usage.prompt_tokens": r["prompt"],
            "gen_ai.usage.cached_tokens": r["cached"],
            "gen_ai.request.id": r["rid"],
            "gen_ai.request.max_tokens": r["completion"],
            "gen_ai.response.model": "llama",
            "gen_ai.response.finish_reasons": json.dumps(["length"]),
            "gen_ai.latency.time_to_first_token": r["ttft"],
            "gen_ai.latency.e2e": r["e2e"],
            "gen_ai.latency.time_in_model_decode": r["decode"],
            "gen_ai.latency.time_in_model_inference": round(r["e2e"] - r["dispatch"], 9),
            "gen_ai.latency.time_in_model_prefill": round(r["ttft"] - r["dispatch"], 9),
        })
        root.end(end_time=start + int(r["e2e"] * S))
    return keep.spans


def to_hex(node):
    """OTLP/JSON: trace and span ids are hex strings, not protobuf JSON's base64."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str):
                out[k] = base64.b64decode(v).hex()
            else:
                out[k] = to_hex(v)
        return out
    if isinstance(node, list):
        return [to_hex(v) for v in node]
    return node


def write(out, name, spans):
    request = encode_spans(spans)
    with open(f"{out}/{name}.bin", "wb") as f:
        f.write(request.SerializeToString())
    as_json = to_hex(MessageToDict(request, use_integers_for_enums=True))
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(as_json, f, indent=1)
        f.write("\n")


VLLM = [
    dict(trace="0af7651916cd43dd8448eb211c80319c", parent="b7ad6b7169203331",
         rid="chatcmpl-1", start=T0, queue=0.012, prefill=0.045, ttft=0.0581,
         decode=0.9, e2e=0.9601, prompt=2500, completion=128),
    dict(trace="4bf92f3577b34da6a3ce929d0e0e4736", parent="00f067aa0ba902b7",
         rid="chatcmpl-2", start=T0 + S, queue=0.25, prefill=0.5, ttft=0.7532,
         decode=1.25, e2e=2.0044, prompt=50, completion=64),
]

SGLANG = [
    dict(trace="5b8aa5a2d2c872e8321cf37308d69df2", parent="051581bf3cb55c13",
         rid="9f86d081884c7d659a2feaa0c55ad015", start=T0, dispatch=0.004, queue=0.02,
         forward=0.08, ttft=0.104, decode=0.6, e2e=0.704, prompt=2048, cached=2032,
         completion=100),
]

if __name__ == "__main__":
    out = sys.argv[1]
    write(out, "vllm", vllm(VLLM))
    write(out, "sglang", sglang(SGLANG))

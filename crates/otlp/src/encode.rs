//! [`Span`]s into an OTLP trace export request in protobuf: what the simulator's exporter
//! posts, and what tests send a receiver.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource as ProtoResource;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span as ProtoSpan};
use prost::Message as _;

use crate::{Span, Value};

/// Who sends the spans: the resource's `service.name` and the instrumentation scope.
#[derive(Clone, Copy, Debug)]
pub struct Resource<'a> {
    /// `service.name`.
    pub service: &'a str,
    /// The instrumentation scope's name (vLLM: `vllm.llm_engine`).
    pub scope: &'a str,
}

/// One export request holding `spans` (kind SERVER), protobuf-encoded.
pub fn encode(spans: &[Span], resource: Resource<'_>) -> Vec<u8> {
    let request = ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(ProtoResource {
                attributes: vec![key_value(
                    "service.name",
                    &Value::Str(resource.service.into()),
                )],
                ..ProtoResource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: resource.scope.into(),
                    ..InstrumentationScope::default()
                }),
                spans: spans.iter().map(span).collect(),
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    };
    request.encode_to_vec()
}

fn span(s: &Span) -> ProtoSpan {
    ProtoSpan {
        trace_id: s.trace_id.to_vec(),
        span_id: s.span_id.to_vec(),
        parent_span_id: s.parent_span_id.map(|p| p.to_vec()).unwrap_or_default(),
        name: s.name.clone(),
        kind: SpanKind::Server as i32,
        start_time_unix_nano: s.start_unix_ns,
        end_time_unix_nano: s.end_unix_ns,
        attributes: s.attributes.iter().map(|(k, v)| key_value(k, v)).collect(),
        ..ProtoSpan::default()
    }
}

fn key_value(key: &str, v: &Value) -> KeyValue {
    let value = match v {
        Value::Str(s) => any_value::Value::StringValue(s.clone()),
        Value::Bool(b) => any_value::Value::BoolValue(*b),
        Value::Int(i) => any_value::Value::IntValue(*i),
        Value::Double(d) => any_value::Value::DoubleValue(*d),
    };
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Encoding, decode};

    #[test]
    fn what_is_encoded_decodes_to_the_same_spans() {
        let spans = vec![Span {
            trace_id: [7; 16],
            span_id: [1; 8],
            parent_span_id: Some([2; 8]),
            name: "llm_request".into(),
            start_unix_ns: 1_000,
            end_unix_ns: 5_000,
            attributes: vec![
                ("gen_ai.latency.time_in_queue".into(), Value::Double(0.03)),
                ("gen_ai.usage.prompt_tokens".into(), Value::Int(50)),
                ("gen_ai.request.id".into(), Value::Str("x".into())),
                ("ok".into(), Value::Bool(true)),
            ],
        }];
        let body = encode(
            &spans,
            Resource {
                service: "sim",
                scope: "s",
            },
        );
        assert_eq!(decode(&body, Encoding::Protobuf).unwrap(), spans);
    }
}

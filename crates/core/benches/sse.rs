//! SSE parsing and chunk decoding throughput on a realistic vLLM stream (criterion).

#![allow(missing_docs, reason = "a benchmark binary")]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use plateau_core::sse;
use plateau_core::wire::{OpenAi, Text, Wire};

fn stream(tokens: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..tokens {
        s.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\" the\"}},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":{{\"prompt_tokens\":50,\"completion_tokens\":{},\"total_tokens\":{}}}}}\n\n",
            i + 1,
            i + 51
        ));
    }
    s.push_str("data: [DONE]\n\n");
    s.into_bytes()
}

fn bench(c: &mut Criterion) {
    let data = stream(512);
    let mut group = c.benchmark_group("sse");
    group.throughput(Throughput::Elements(512));
    group.bench_function("parse+decode 512 chunks, 1 KiB frames", |b| {
        b.iter(|| {
            let mut parser = sse::Parser::new();
            let mut response = Text::default();
            let mut n = 0usize;
            for frame in data.chunks(1024) {
                parser
                    .feed(frame, &mut |ev| {
                        if !OpenAi.is_end(ev)
                            && OpenAi.decode(ev.data.as_bytes(), &mut response).is_ok()
                        {
                            n += 1;
                        }
                    })
                    .ok();
            }
            black_box(n)
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

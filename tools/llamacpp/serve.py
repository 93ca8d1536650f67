"""A real llama.cpp HTTP server for plateau's tests, on 127.0.0.1, with a tiny random model.

Writes (once; reused when already there) into --dir:
  tiny-llama.gguf   a 2-layer llama with random weights and a byte-level BPE
  tokenizer.json    the same tokenizer for Hugging Face `tokenizers` (plateau's
                    `tokenizer` key), so both sides count prompt tokens alike
then serves llama.cpp's OpenAI-compatible server (the `xllamacpp` wheel) with --parallel
slots, continuous batching and the prompt cache on, prints one line
`plateau-llamacpp ready http://127.0.0.1:PORT ...` (the port bound; --port 0 picks a free
one) and runs until SIGTERM/SIGINT, or, with --exit-on-stdin-eof, until its standard input
closes (a test that dies leaves nothing behind).

Usage: python serve.py --dir DIR [--port 8080] [--parallel 4] [--ctx-per-slot 9216]
       python serve.py --dir DIR --write-only
"""

import argparse
import collections
import json
import os
import signal
import sys
import threading
import time

import numpy as np

VERSION = "2"
SEED = 20240607

# Model shape: small enough that a 2,500-token prefill takes tens of milliseconds on one core.
N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 2
N_FF = 128
N_LAYER = 2
CTX_TRAIN = 65536
N_MERGES = 300

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# Text the merges are learned from: plain English, like plateau's built-in prompts.
SAMPLE = """
The user asked the assistant and the system answered the user, then the assistant answered.
The benchmark keeps a fixed number of requests in flight and measures the server only once it
has reached a steady state. Each request sends a prompt and streams the answer back, one token
at a time, and the time to the first token, the time per output token and the end to end
latency are recorded for every request that started inside the measurement window. A server
that caches the prompt answers the same long question much faster the second time, because it
does not have to read the whole context again. The quick brown fox jumps over the lazy dog while
the people in the city are working on their computers and the children are reading books about
the history of the world, the mountains and the rivers, the stars and the planets. This is what
they said to each other when they met in the morning, and then they went to the market to buy
bread, water, fruit and vegetables for the whole family. There is nothing more important than
information that is correct, and there are many questions that we should ask before we believe
an answer. Which one of these statements is true, and what would you do in this situation?
"""


def bytes_to_unicode():
    """GPT-2's reversible map from bytes to printable unicode characters."""
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def learn_merges(text, n_merges):
    """Byte-level BPE merges learned from `text`, split like GPT-2 (a leading space joins the word)."""
    b2u = bytes_to_unicode()
    words = collections.Counter()
    for i, w in enumerate(text.split()):
        w = (" " if i else "") + w
        words[tuple(b2u[b] for b in w.encode())] += 1
    merges = []
    for _ in range(n_merges):
        pairs = collections.Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if pairs[best] < 2:
            break
        merges.append(best)
        merged = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    return merges


def vocabulary():
    """(tokens, merges): 256 byte tokens, one token per merge, then the special tokens."""
    b2u = bytes_to_unicode()
    tokens = [b2u[b] for b in range(256)]
    merges = learn_merges(SAMPLE, N_MERGES)
    for a, b in merges:
        tokens.append(a + b)
    tokens.extend(SPECIALS)
    return tokens, merges


def tokenizer_json(tokens, merges):
    """The Hugging Face tokenizer.json of the same byte-level BPE (GPT-2 pre-tokenizer)."""
    n_normal = len(tokens) - len(SPECIALS)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": n_normal + i,
                "content": s,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i, s in enumerate(SPECIALS)
        ],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": True,
            "use_regex": True,
        },
        "post_processor": None,
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": True,
            "use_regex": True,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens[:n_normal])},
            "merges": [[a, b] for a, b in merges],
        },
    }


def write_gguf(path, tokens, merges):
    import gguf

    rng = np.random.default_rng(SEED)
    n_vocab = len(tokens)
    n_normal = n_vocab - len(SPECIALS)
    head_dim = N_EMBD // N_HEAD

    w = gguf.GGUFWriter(path, "llama")
    w.add_name("plateau-tiny-llama")
    w.add_context_length(CTX_TRAIN)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(10000.0)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types(
        [gguf.TokenType.NORMAL] * n_normal + [gguf.TokenType.CONTROL] * len(SPECIALS)
    )
    w.add_token_merges([f"{a} {b}" for a, b in merges])
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_add_bos_token(False)
    w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)

    def rand(*shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def t(name, *shape, scale):
        w.add_tensor(name, rand(*shape, scale=scale))

    def ones(name, n):
        w.add_tensor(name, np.ones(n, dtype=np.float32))

    # Channel 0 of the residual stream is a constant (set by the embedding, written by no
    # layer), so output.weight's column 0 acts as a per-token bias: it keeps the model from
    # sampling bytes that are not printable ASCII on their own (llama.cpp would hold back
    # half a UTF-8 character and send empty chunks) and special tokens.
    emb = rand(n_vocab, N_EMBD, scale=0.5)
    emb[:, 0] = 4.0
    w.add_tensor("token_embd.weight", emb)
    kv = N_HEAD_KV * head_dim
    for i in range(N_LAYER):
        p = f"blk.{i}."
        ones(p + "attn_norm.weight", N_EMBD)
        t(p + "attn_q.weight", N_EMBD, N_EMBD, scale=N_EMBD**-0.5)
        t(p + "attn_k.weight", kv, N_EMBD, scale=N_EMBD**-0.5)
        t(p + "attn_v.weight", kv, N_EMBD, scale=N_EMBD**-0.5)
        attn_out = rand(N_EMBD, N_EMBD, scale=N_EMBD**-0.5)
        attn_out[0, :] = 0.0
        w.add_tensor(p + "attn_output.weight", attn_out)
        ones(p + "ffn_norm.weight", N_EMBD)
        t(p + "ffn_gate.weight", N_FF, N_EMBD, scale=N_EMBD**-0.5)
        t(p + "ffn_up.weight", N_FF, N_EMBD, scale=N_EMBD**-0.5)
        down = rand(N_EMBD, N_FF, scale=N_FF**-0.5)
        down[0, :] = 0.0
        w.add_tensor(p + "ffn_down.weight", down)
    ones("output_norm.weight", N_EMBD)
    u2b = {u: b for b, u in bytes_to_unicode().items()}
    printable = [
        i < n_normal and all(u2b[c] == 10 or 32 <= u2b[c] < 127 for c in tok)
        for i, tok in enumerate(tokens)
    ]
    out = rand(n_vocab, N_EMBD, scale=N_EMBD**-0.5)
    out[:, 0] = np.where(printable, 0.0, -4.0)
    w.add_tensor("output.weight", out)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def ensure_files(directory):
    """The model and tokenizer.json in `directory`, written unless this VERSION is there."""
    os.makedirs(directory, exist_ok=True)
    model = os.path.join(directory, "tiny-llama.gguf")
    tok = os.path.join(directory, "tokenizer.json")
    stamp = os.path.join(directory, "VERSION")
    if os.path.isfile(stamp):
        with open(stamp, encoding="utf-8") as f:
            if f.read() == VERSION:
                return model, tok
    tokens, merges = vocabulary()

    def write_text(text):
        def write(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

        return write

    for path, write in [
        (tok, write_text(json.dumps(tokenizer_json(tokens, merges), ensure_ascii=False))),
        (model, lambda f: write_gguf(f, tokens, merges)),
        (stamp, write_text(VERSION)),
    ]:
        tmp = f"{path}.{os.getpid()}.tmp"
        write(tmp)
        os.replace(tmp, path)
    return model, tok


def serve(model, port, parallel, ctx_per_slot, threads, cache_ram_mib):
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = model
    p.model_alias = {"tiny-llama"}
    p.hostnames = ["127.0.0.1"]
    p.port = port
    p.n_parallel = parallel
    p.n_ctx = parallel * ctx_per_slot
    p.cont_batching = True
    p.cache_prompt = True
    if cache_ram_mib is not None:
        p.cache_ram_mib = cache_ram_mib
    p.fit_params = False
    p.warmup = False
    p.endpoint_metrics = True
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    return xlc.Server(p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="where the model and tokenizer.json live")
    ap.add_argument("--port", type=int, default=8080, help="0: any free port (see the ready line)")
    ap.add_argument("--parallel", type=int, default=4, help="server slots")
    ap.add_argument("--ctx-per-slot", type=int, default=9216)
    ap.add_argument(
        "--threads", type=int, default=1, help="CPU threads (1: no spinning against the client)"
    )
    ap.add_argument(
        "--cache-ram-mib",
        type=int,
        default=None,
        help="llama-server's host-memory prompt cache (--cache-ram); 0 turns it off "
        "(default: the server's own, 8192)",
    )
    ap.add_argument("--write-only", action="store_true", help="write the files and exit")
    ap.add_argument(
        "--exit-on-stdin-eof",
        action="store_true",
        help="stop when standard input closes (a test's pipe: the test died)",
    )
    args = ap.parse_args()

    t0 = time.monotonic()
    model, tok = ensure_files(args.dir)
    t1 = time.monotonic()
    print(f"plateau-llamacpp files {model} {tok} ({t1 - t0:.2f} s)", flush=True)
    if args.write_only:
        return
    server = serve(
        model, args.port, args.parallel, args.ctx_per_slot, args.threads, args.cache_ram_mib
    )
    print(
        f"plateau-llamacpp ready {server.listening_address} ({time.monotonic() - t1:.2f} s)",
        flush=True,
    )

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        stop.set()

    if args.exit_on_stdin_eof:
        threading.Thread(target=watch_stdin, daemon=True).start()
    while not stop.wait(0.5):
        pass
    del server
    os._exit(0)


if __name__ == "__main__":
    main()

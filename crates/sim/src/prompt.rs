//! Prompt tokens: cl100k_base counts and the rendered token ids the prefix cache hashes.
//!
//! Chat messages are rendered as `<|im_start|> role \n content <|im_end|>` per message (three
//! template tokens plus the role's and the content's tokens, OpenAI cookbook's count), system
//! messages first, then `<|im_start|> assistant \n` to prime the reply (three more tokens).
//! So the rendered length is exactly the reported `prompt_tokens`, and a shared system prompt
//! is a shared prefix of token ids.

use tiktoken_rs::CoreBPE;

/// Token id of the `<|im_start|>` template marker.
const IM_START: u32 = 100_264;
/// Token id of the `<|im_end|>` template marker.
const IM_END: u32 = 100_265;
/// Token id of `\n` in cl100k_base.
const NEWLINE: u32 = 198;
/// Token id of `assistant` in cl100k_base.
const ASSISTANT: u32 = 78_191;

/// The shared cl100k_base tokenizer (loaded once, on first use).
pub(crate) fn bpe() -> &'static CoreBPE {
    tiktoken_rs::cl100k_base_singleton()
}

/// One chat message, reduced to its role and its text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    /// `system`, `user`, `assistant`, ...
    pub role: String,
    /// The text content (parts concatenated; empty when null).
    pub content: String,
}

/// Renders chat messages to template token ids (see the module docs).
pub(crate) fn render_chat(bpe: &CoreBPE, messages: &[Message]) -> Vec<u32> {
    let system = messages.iter().filter(|m| m.role == "system");
    let others = messages.iter().filter(|m| m.role != "system");
    let mut ids = Vec::new();
    for message in system.chain(others) {
        ids.push(IM_START);
        ids.extend(bpe.encode_ordinary(&message.role));
        ids.push(NEWLINE);
        ids.extend(bpe.encode_ordinary(&message.content));
        ids.push(IM_END);
    }
    ids.extend([IM_START, ASSISTANT, NEWLINE]);
    ids
}

/// Token ids of a completions prompt.
pub(crate) fn render_text(bpe: &CoreBPE, prompt: &str) -> Vec<u32> {
    bpe.encode_ordinary(prompt)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.to_owned(),
            content: content.to_owned(),
        }
    }

    #[test]
    fn template_tokens_are_what_the_docs_say() {
        assert_eq!(bpe().encode_ordinary("\n"), [NEWLINE]);
        assert_eq!(bpe().encode_ordinary("assistant"), [ASSISTANT]);
    }

    #[test]
    fn chat_count_follows_the_cookbook_formula() {
        // "Hello world" = 2 tokens, "user" = 1, "system" = 1, "Be brief." = 3.
        let bpe = bpe();
        assert_eq!(bpe.encode_ordinary("Hello world").len(), 2);
        assert_eq!(bpe.encode_ordinary("Be brief.").len(), 3);
        let one = render_chat(bpe, &[msg("user", "Hello world")]);
        assert_eq!(one.len(), 3 + 1 + 2 + 3);
        let two = render_chat(
            bpe,
            &[msg("system", "Be brief."), msg("user", "Hello world")],
        );
        assert_eq!(two.len(), (3 + 1 + 3) + (3 + 1 + 2) + 3);
        assert_eq!(render_chat(bpe, &[]).len(), 3);
    }

    #[test]
    fn system_messages_render_first_so_they_share_a_prefix() {
        let bpe = bpe();
        let a = render_chat(bpe, &[msg("user", "one"), msg("system", "shared rules")]);
        let b = render_chat(bpe, &[msg("system", "shared rules"), msg("user", "two")]);
        let system_len = 3 + 1 + bpe.encode_ordinary("shared rules").len();
        assert_eq!(a[..system_len], b[..system_len]);
        assert_ne!(a[system_len..], b[system_len..]);
    }

    #[test]
    fn text_prompt_is_plain_tokens() {
        assert_eq!(render_text(bpe(), "Hello world").len(), 2);
        assert!(render_text(bpe(), "").is_empty());
    }
}

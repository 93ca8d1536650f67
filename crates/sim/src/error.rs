//! `SimError`: everything that can go wrong when configuring or starting the simulator.

use std::net::SocketAddr;

/// An error from configuring or starting the simulated server.
///
/// Bad requests never surface here: they are answered on the wire with an OpenAI-style error
/// body. This type only covers what the embedding program must handle.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// `SimConfig::from_profile` was given a name that is not a preset.
    #[error("unknown sim profile `{name}`: expected one of {valid}")]
    UnknownProfile {
        /// The name that was asked for.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// A configuration value is out of range.
    #[error("invalid sim config: `{field}` {reason}")]
    InvalidConfig {
        /// Dotted path of the offending field, e.g. `engine.max_num_seqs`.
        field: &'static str,
        /// What was expected.
        reason: String,
    },
    /// A JSON configuration could not be decoded.
    #[error("invalid sim config JSON at `{path}`: {message}")]
    ParseConfig {
        /// Dotted path of the offending key (`.` when the document itself is malformed).
        path: String,
        /// The decoder's message (names unknown keys and expected types).
        message: String,
    },
    /// The listening socket could not be bound.
    #[error("cannot bind the sim server to {addr}: {source}")]
    Bind {
        /// The address that was asked for.
        addr: SocketAddr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The tokenizer could not be loaded on a blocking thread.
    #[error("cannot load the cl100k_base tokenizer: {0}")]
    Tokenizer(String),
}

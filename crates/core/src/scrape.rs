//! The scraper of the server's own `/metrics` ([`poll`]) and where it is ([`metrics_uri`]);
//! the parser, the engine tables, the scrapes file and their per-phase summary are the
//! result model's ([`plateau_model::scrape`]), re-exported here.

pub mod poll;

use http::Uri;

pub use plateau_model::scrape::*;

use crate::plan::BaseUrl;

/// `/metrics` at the server's root, where engines serve it ([`BaseUrl::join_root`]: the
/// base with its final `/v1` taken off, a proxy's prefix kept, and its query string, a
/// credential some gateways take there).
pub fn metrics_uri(base: &BaseUrl) -> Result<Uri, http::uri::InvalidUri> {
    base.join_root("metrics")
}

#[cfg(test)]
mod tests;

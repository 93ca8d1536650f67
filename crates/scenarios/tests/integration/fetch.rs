//! The fetch code against a local server: download and normalise fixtures in the upstream
//! formats (placeholder; filled in the next step).

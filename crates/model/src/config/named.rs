//! Modes written as names in config files (`"engine": "vllm"`), decoded so that every error
//! lists the valid names. serde's derive lists them for an unknown name, but for a number, a
//! boolean or a list it says only "expected string or map".

use std::fmt;
use std::marker::PhantomData;

use serde::Deserializer;
use serde::de::{Error, Visitor};

/// A mode with a fixed set of names; implement it and decode with [`deserialize`].
pub trait Named: Sized + Copy + 'static {
    /// Every value, in the order of [`Named::NAMES`].
    const ALL: &'static [Self];
    /// The name of each value, as written in config files (and serialized).
    const NAMES: &'static [&'static str];
}

/// Decodes a `T` from its name; the error on anything else lists `T::NAMES`.
pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_str(NameVisitor(PhantomData))
}

/// "one of `a`, `b`, `c`" (or "`a` or `b`"), the wording of serde's unknown-variant error.
pub fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => "nothing".to_owned(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        all => format!("one of {}", all.join(", ")),
    }
}

struct NameVisitor<T>(PhantomData<T>);

impl<T: Named> Visitor<'_> for NameVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&one_of(T::NAMES))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<T, E> {
        T::NAMES
            .iter()
            .position(|name| *name == v)
            .and_then(|i| T::ALL.get(i).copied())
            .ok_or_else(|| E::unknown_variant(v, T::NAMES))
    }
}

//! Duplicate keys in a JSON document: JSON parsers keep the last value silently, so a config
//! with `"max_tokens"` twice would run a benchmark its author did not read. Walks the text
//! once and names the first repeated key by its path.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Error, MapAccess, SeqAccess, Visitor};

/// Checks `text` (JSON) for an object with a repeated key; the error names its path, line
/// and column. Malformed JSON passes here: the loader reports it.
pub fn check(text: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    match Unique(&mut Vec::new()).deserialize(&mut de) {
        Err(e) if e.is_data() => Err(e),
        _ => Ok(()),
    }
}

/// Visits one value at the path held in the stack.
struct Unique<'a>(&'a mut Vec<String>);

impl Unique<'_> {
    fn path(&self, key: &str) -> String {
        let mut out = String::new();
        for part in self.0.iter().map(String::as_str).chain([key]) {
            if !part.starts_with('[') && !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
        out
    }
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(A::Error::custom(format!(
                    "duplicate key `{}` (the later value would silently win)",
                    self.path(&key)
                )));
            }
            self.0.push(key);
            map.next_value_seed(Unique(self.0))?;
            self.0.pop();
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            self.0.push(format!("[{i}]"));
            let more = seq.next_element_seed(Unique(self.0))?;
            self.0.pop();
            if more.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

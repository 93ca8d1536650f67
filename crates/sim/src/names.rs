//! The names of the config modes `profile` and `wire.usage`, decoded so that every error
//! lists the valid names: serde's derive says only "expected string or map" for a number or
//! a boolean. (plateau-core has the same helper; the simulator does not depend on it.)

use std::fmt;

use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer};

use crate::config::Profile;
use crate::wire::UsageMode;

/// Decodes one of `all` (value, name) by its name.
fn by_name<'de, T: Copy, D: Deserializer<'de>>(
    d: D,
    all: &'static [(T, &'static str)],
    names: &'static [&'static str],
) -> Result<T, D::Error> {
    struct Names<T: 'static>(&'static [(T, &'static str)], &'static [&'static str]);

    impl<T: Copy> Visitor<'_> for Names<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let quoted: Vec<String> = self.1.iter().map(|n| format!("`{n}`")).collect();
            match quoted.as_slice() {
                [a, b] => write!(f, "{a} or {b}"),
                all => write!(f, "one of {}", all.join(", ")),
            }
        }

        fn visit_str<E: Error>(self, v: &str) -> Result<T, E> {
            self.0
                .iter()
                .find(|(_, name)| *name == v)
                .map(|(value, _)| *value)
                .ok_or_else(|| E::unknown_variant(v, self.1))
        }
    }

    d.deserialize_str(Names(all, names))
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        by_name(
            d,
            &[(Profile::Fixed, "fixed"), (Profile::Realistic, "realistic")],
            &["fixed", "realistic"],
        )
    }
}

impl<'de> Deserialize<'de> for UsageMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        by_name(
            d,
            &[
                (UsageMode::Normal, "normal"),
                (UsageMode::None, "none"),
                (UsageMode::Scaled, "scaled"),
            ],
            &["normal", "none", "scaled"],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_errors_list_them() {
        for p in [Profile::Fixed, Profile::Realistic] {
            let v = serde_json::to_value(p).unwrap();
            assert_eq!(serde_json::from_value::<Profile>(v).unwrap(), p);
        }
        for u in [UsageMode::Normal, UsageMode::None, UsageMode::Scaled] {
            let v = serde_json::to_value(u).unwrap();
            assert_eq!(serde_json::from_value::<UsageMode>(v).unwrap(), u);
        }
        let err = serde_json::from_value::<Profile>(serde_json::json!(3)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: integer `3`, expected `fixed` or `realistic`"
        );
        let err = serde_json::from_value::<UsageMode>(serde_json::json!("x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown variant `x`, expected one of `normal`, `none`, `scaled`"
        );
        let err = serde_json::from_value::<UsageMode>(serde_json::json!(true)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: boolean `true`, expected one of `normal`, `none`, `scaled`"
        );
    }
}
